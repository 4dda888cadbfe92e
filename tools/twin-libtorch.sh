#!/usr/bin/env bash
# Makes tests/twin/libtorch_records.jsonl, the LibTorch side of the twin API test: builds every
# tests/twin/snippets_*.cpp against LibTorch 2.x and runs them. Not part of CI (LibTorch is not
# a dependency); rerun it after adding snippets. LIBTORCH names the torch/ folder of an unpacked
# PyPI wheel (`pip download torch --no-deps`, then unzip torch/include/* torch/lib/*).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
T=${LIBTORCH:-/opt/libtorch2/torch}
[ -d "$T/include/torch" ] || { echo "$0: no LibTorch headers under $T (set LIBTORCH)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++20 -I"$T/include" -I"$T/include/torch/csrc/api/include" -I"$root/tests/twin")
"$root/tools/twin-select.sh" "$work/snippets.cpp" "$work/missing.txt" -- g++ "${flags[@]}" \
  -- "$root"/tests/twin/snippets_*.cpp
if [ -s "$work/missing.txt" ]; then
  echo "$0: snippets that do not compile against LibTorch (fix them):" >&2
  cat "$work/missing.txt" >&2
  exit 1
fi
g++ "${flags[@]}" -O0 -I"$work" "$work/snippets.cpp" "$root/tests/twin/twin_print.cpp" \
  -L"$T/lib" -ltorch_cpu -lc10 -Wl,-rpath,"$T/lib" -o "$work/twin_libtorch"
version=$(cat "$T/version.py" 2>/dev/null | sed -n "s/^__version__ = '\(.*\)'/\1/p" || true)
{
  echo "{\"name\":\"_meta\",\"libtorch\":\"${version:-unknown}\",\"command\":\"tools/twin-libtorch.sh\"}"
  OMP_NUM_THREADS=1 "$work/twin_libtorch"
} >"$root/tests/twin/libtorch_records.jsonl"
echo "$0: $(($(wc -l <"$root/tests/twin/libtorch_records.jsonl") - 1)) records written"
