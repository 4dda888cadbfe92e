#!/usr/bin/env bash
# Runs some twin snippet files on both sides without touching the committed records: builds
# them against LibTorch (LIBTORCH, as tools/twin-libtorch.sh) and against ember's library in
# BUILD (default build/, already built), and prints twin_compare's verdict for each snippet.
# Usage: tools/twin-check.sh [--ember-only] tests/twin/snippets_X.cpp [...]
# --ember-only compares with the committed records instead of building LibTorch's side (to
# count an older ember's same/different/missing: BUILD=that build's folder).
set -euo pipefail
ember_only=0
if [ "${1:-}" = --ember-only ]; then ember_only=1; shift; fi
root=$(cd "$(dirname "$0")/.." && pwd)
T=${LIBTORCH:-/opt/libtorch2/torch}
B=$(cd "${BUILD:-$root/build}" && pwd)
work=$(mktemp -d /tmp/twin-check.XXXXXX)
files=("$@")
if [ $ember_only = 1 ]; then
  cp "$root/tests/twin/libtorch_records.jsonl" "$work/libtorch.jsonl"
else
  lt=(-std=c++20 -I"$T/include" -I"$T/include/torch/csrc/api/include" -I"$root/tests/twin")
  "$root/tools/twin-select.sh" "$work/lt.cpp" "$work/lt_missing.txt" -- g++ "${lt[@]}" -- "${files[@]}"
  if [ -s "$work/lt_missing.txt" ]; then
    echo "== do not compile against LibTorch (fix these snippets):"
    cat "$work/lt_missing.txt"
  fi
  g++ "${lt[@]}" -O0 -I"$work" "$work/lt.cpp" "$root/tests/twin/twin_print.cpp" -L"$T/lib" \
    -ltorch_cpu -lc10 -Wl,-rpath,"$T/lib" -o "$work/twin_libtorch"
  OMP_NUM_THREADS=1 "$work/twin_libtorch" >"$work/libtorch.jsonl"
fi
mkdir -p "$work/ember"
"$root/tools/port-from-libtorch.sh" "$root/tests/twin/twin.h" "$work/ember/twin.h"
em=(-std=c++17 -I"$B/include" -I"$work/ember")
"$root/tools/twin-select.sh" --port "$work/ember/snippets.cpp" "$work/em_missing.txt" \
  -- g++ "${em[@]}" -- "${files[@]}"
json=$(grep -o '^EMBER_JSON_INCLUDE:PATH=.*' "$B/CMakeCache.txt" | cut -d= -f2)
g++ "${em[@]}" -I"$json" -O0 "$work/ember/snippets.cpp" "$root/tests/twin/twin_compare.cpp" \
  -L"$B" -lember -Wl,-rpath,"$B" -o "$work/twin_ember"
"$work/twin_ember" "$work/libtorch.jsonl" /dev/null /dev/null || true
echo "(work files in $work)"
