#!/usr/bin/env bash
# Compiles one source file of ember with the flags of the CUDA build (build-cuda/, configured
# with CMAKE_EXPORT_COMPILE_COMMANDS) into /tmp, to check it compiles without building the
# whole tree. New files get the flags of a sibling (same folder and extension).
# Usage: tools/compile_one.sh cuda/binary.cu [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FILE="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
BUILD="${2:-$ROOT/build-cuda}"
python3 - "$FILE" "$BUILD" <<'PY'
import json, os, shlex, subprocess, sys, tempfile
file, build = sys.argv[1], sys.argv[2]
db = json.load(open(os.path.join(build, "compile_commands.json")))
entry = next((e for e in db if e["file"] == file), None)
if entry is None:
    ext, folder = os.path.splitext(file)[1], os.path.dirname(file)
    entry = next((e for e in db if os.path.dirname(e["file"]) == folder and e["file"].endswith(ext)), None)
    if entry is None:
        sys.exit(f"no sibling of {file} in {build}/compile_commands.json")
    entry = dict(entry, command=entry["command"].replace(entry["file"], file))
args = shlex.split(entry["command"])
out = os.path.join(tempfile.gettempdir(), "compile_one_" + os.path.basename(file) + ".o")
i = args.index("-o")
args[i + 1] = out
sys.exit(subprocess.call(args, cwd=entry["directory"]))
PY
