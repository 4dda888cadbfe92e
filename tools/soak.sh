#!/usr/bin/env bash
# Issue 18's soak: tests/soak (the MLP trained with batch sizes 1..512) for STEPS steps, its
# memory figures as a CSV and a PNG (gnuplot): resident memory, and on CUDA the caching
# allocator's allocated and reserved bytes. Exits as soak does (1: memory kept growing).
# Usage: tools/soak.sh BUILD_DIR OUT_DIR [STEPS] [soak options: --device cuda, --graph]
set -uo pipefail
BUILD="${1:?usage: tools/soak.sh BUILD_DIR OUT_DIR [STEPS] [options]}"
OUT="${2:?usage: tools/soak.sh BUILD_DIR OUT_DIR [STEPS] [options]}"
STEPS="${3:-20000}"
shift $(($# < 3 ? $# : 3))
mkdir -p "$OUT"
label="soak$(printf '%s' "$*" | tr -c 'a-z0-9' '_')"
"$BUILD/tests/soak" --steps "$STEPS" --every 250 --csv "$OUT/$label.csv" "$@" | tee "$OUT/$label.log"
rc=${PIPESTATUS[0]}
if command -v gnuplot >/dev/null; then
  "$(dirname "$0")/soak_plot.sh" "$OUT/$label.csv" "$OUT/$label.png" \
    "soak $* : $STEPS steps, batch sizes 1..512"
  echo "plot: $OUT/$label.png"
fi
exit "$rc"
