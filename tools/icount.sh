#!/usr/bin/env bash
# Host instructions per iteration of two loops (tools/probes/icount.cpp): `s = s + 1` and
# `(w * x).sum().backward()` on 8 floats, counted by callgrind (repeatable on a noisy machine):
# the difference between 20000 and 10000 iterations, divided by 10000.
# Usage: tools/icount.sh [BUILD_DIR]   (a Release build of the library)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="${1:-$ROOT/build}"
EXE=/tmp/ember-icount
g++ -O2 -std=c++17 -I"$B/include" "$ROOT/tools/probes/icount.cpp" -o "$EXE" -L"$B" -lember \
  -Wl,-rpath,"$B"
count() {  # count LOOP N: total instructions of the run
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$EXE" "$1" "$2" 2>&1 |
    sed -nE 's/.*Collected : ([0-9]+).*/\1/p'
}
for loop in add bwd; do
  a=$(count "$loop" 10000)
  b=$(count "$loop" 20000)
  echo "$loop: $(((b - a) / 10000)) instructions per iteration"
done
