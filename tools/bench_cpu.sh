#!/usr/bin/env bash
# CPU micro-benchmarks of ember beside LibTorch in one session: builds both programs (Release,
# build/), runs them alternately ROUNDS times (each with REPS repetitions, median kept), and
# prints the median over rounds with ember/LibTorch ratios (> 1: ember is faster).
# Usage: tools/bench_cpu.sh [OUT_DIR]   (env: ROUNDS=3 REPS=5 BUILD_DIR=build)
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$EMBER_ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
ROUNDS="${ROUNDS:-3}"
REPS="${REPS:-5}"
OUT="${1:-$(mktemp -d)}"
mkdir -p "$OUT"

ember_configure "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=(micro_bench)
if grep -q 'libtorch_micro_bench' "$BUILD_DIR/build.ninja" "$BUILD_DIR/Makefile" 2>/dev/null ||
  [ -d "$BUILD_DIR/benchmarks/CMakeFiles/libtorch_micro_bench.dir" ]; then
  targets+=(libtorch_micro_bench)
fi
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}"

programs=(ember:"$BUILD_DIR/benchmarks/micro_bench")
[ -x "$BUILD_DIR/benchmarks/libtorch_micro_bench" ] &&
  programs+=(libtorch:"$BUILD_DIR/benchmarks/libtorch_micro_bench")

for round in $(seq 1 "$ROUNDS"); do
  for entry in "${programs[@]}"; do
    name="${entry%%:*}"
    prog="${entry#*:}"
    echo "round $round/$ROUNDS: $name" >&2
    "$prog" --benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true \
      --benchmark_format=csv --benchmark_out="$OUT/${name}_round${round}.json" \
      --benchmark_out_format=json 2>/dev/null >"$OUT/${name}_round${round}.csv"
  done
done

# Google Benchmark's CSV: a header naming the columns, then one row per aggregate; keep the
# *_median rows and read each workload's figure from its column.
awk -F, '
  FNR == 1 {
    impl = FILENAME; sub(/.*\//, "", impl); sub(/_round.*/, "", impl)
    for (i = 1; i <= NF; ++i) { gsub(/"/, "", $i); col[$i] = i }
    next
  }
  {
    for (i = 1; i <= NF; ++i) gsub(/"/, "", $i)
    name = $1
    if (name !~ /_median$/) next
    sub(/_median$/, "", name); sub(/\/real_time$/, "", name); sub(/^matmul_mnk\//, "", name)
    tu = $col["time_unit"]; t = $col["real_time"]
    scale = tu == "ns" ? 1 : tu == "us" ? 1e3 : tu == "ms" ? 1e6 : 1e9
    ns = t * scale
    if (name ~ /^(add|sum)_/) v = $col["bytes_per_second"] / 1e9
    else if (name ~ /^sgemm/) v = $col["FLOPS"] / 1e9
    else if (name ~ /^tiny/) v = ns
    else v = ns / 1e3
    n = ++count[impl, name]; val[impl, name, n] = v; names[name] = 1; impls[impl] = 1
  }
  function median(impl, name,   n, i, j, a, t) {
    n = count[impl, name]
    if (!n) return ""
    for (i = 1; i <= n; ++i) a[i] = val[impl, name, i]
    for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  END {
    split("tiny_add_8 add_16M sum_16M sgemm_1024 mlp_128x784x512", order, " ")
    unit["tiny_add_8"] = "ns/op"; unit["add_16M"] = "GB/s"; unit["sum_16M"] = "GB/s"
    unit["sgemm_1024"] = "GFLOP/s"; unit["mlp_128x784x512"] = "us"
    lower["tiny_add_8"] = 1; lower["mlp_128x784x512"] = 1
    printf "%-18s %-8s %12s %12s %8s\n", "workload", "unit", "ember", "libtorch", "ratio"
    for (k = 1; k <= 5; ++k) {
      w = order[k]; e = median("ember", w); l = median("libtorch", w)
      r = (e != "" && l != "" && e > 0 && l > 0) ? (lower[w] ? l / e : e / l) : ""
      printf "%-18s %-8s %12s %12s %8s\n", w, unit[w], e == "" ? "-" : sprintf("%.1f", e),
        l == "" ? "-" : sprintf("%.1f", l), r == "" ? "-" : sprintf("%.2fx", r)
    }
    print "(median of the rounds medians; ratio > 1 means ember is faster)"
  }' "$OUT"/*_round*.csv | tee "$OUT/summary.txt"
