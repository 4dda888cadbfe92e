#!/bin/sh
# ctest ports.<name>: runs a ported LibTorch program and compares its output with LibTorch's
# (tests/ports/<name>.libtorch.txt, written by tools/ports-libtorch.sh).
# Usage: run_port.sh COMPARE EXPECTED OUTPUT PROGRAM [ARGS...]
# A program that exits 77 (its data is missing) is a skipped test.
compare=$1 expected=$2 output=$3
shift 3
OMP_NUM_THREADS=1 "$@" >"$output"
rc=$?
if [ $rc -eq 77 ]; then
  cat "$output"
  exit 77
fi
if [ $rc -ne 0 ]; then
  cat "$output"
  echo "$1 exited with $rc"
  exit 1
fi
exec "$compare" "$expected" "$output"
