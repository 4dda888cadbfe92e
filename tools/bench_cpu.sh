#!/usr/bin/env bash
# CPU micro-benchmarks of ember beside LibTorch in one session: builds both programs (Release,
# build/), runs them alternately ROUNDS times (each with REPS repetitions, median kept), and
# prints the median over rounds with ember/LibTorch ratios (> 1: ember is faster).
# Usage: tools/bench_cpu.sh [OUT_DIR]   (env: ROUNDS=3 REPS=5 BUILD_DIR=build FILTER=regex
#   BENCH_THREADS=n: both libraries, OpenBLAS included, on n threads)
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

# Debian's LibTorch takes its SGEMM from libblas.so.3: with the reference BLAS (the default
# when nothing else is installed) LibTorch's matmul is ~40x slower than with OpenBLAS.
if [ -x "$BUILD_DIR/benchmarks/libtorch_micro_bench" ] &&
  ldd "$BUILD_DIR/benchmarks/libtorch_micro_bench" | grep -q 'libblas.so.3' &&
  ! readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 | grep -qi openblas; then
  echo "warning: LibTorch uses the reference BLAS; apt-get install libopenblas0-pthread" >&2
fi

ember_openblas_coretype
if [ -n "${BENCH_THREADS:-}" ]; then  # LibTorch's GEMM is OpenBLAS's, with its own threads
  export BENCH_THREADS OPENBLAS_NUM_THREADS="$BENCH_THREADS" OMP_NUM_THREADS="$BENCH_THREADS"
fi

programs=(ember:"$BUILD_DIR/benchmarks/micro_bench")
[ -x "$BUILD_DIR/benchmarks/libtorch_micro_bench" ] &&
  programs+=(libtorch:"$BUILD_DIR/benchmarks/libtorch_micro_bench")

for round in $(seq 1 "$ROUNDS"); do
  for entry in "${programs[@]}"; do
    name="${entry%%:*}"
    prog="${entry#*:}"
    echo "round $round/$ROUNDS: $name" >&2
    "$prog" --benchmark_filter="${FILTER:-.}" --benchmark_repetitions="$REPS" \
      --benchmark_report_aggregates_only=true --benchmark_out_format=json \
      --benchmark_out="$OUT/${name}_round${round}.json" >"$OUT/${name}_round${round}.txt" 2>&1
  done
done

# Google Benchmark's JSON puts one "key": value per line; each aggregate row is an object
# whose name ends in _median. Keep those, one figure per workload.
awk '
  FNR == 1 { impl = FILENAME; sub(/.*\//, "", impl); sub(/_round.*/, "", impl) }
  /^ *"[A-Za-z_]+": / {
    key = $1; gsub(/[":]/, "", key)
    v = $0; sub(/^[^:]*: */, "", v); sub(/,$/, "", v); gsub(/"/, "", v)
    row[key] = v
  }
  /^ *}/ {
    name = row["name"]
    if (name ~ /_median$/) {
      sub(/_median$/, "", name); sub(/\/real_time$/, "", name)
      sub(/^(matmul_mnk|mlp_gemm)\//, "", name); sub(/^mlp_step\//, "step_", name)
      tu = row["time_unit"]
      ns = row["real_time"] * (tu == "ns" ? 1 : tu == "us" ? 1e3 : tu == "ms" ? 1e6 : 1e9)
      if (name ~ /^(add|sum)_/) v = row["bytes_per_second"] / 1e9
      else if (name ~ /^sgemm/) v = row["FLOPS"] / 1e9
      else if (name ~ /^(tiny|backward)/) v = ns
      else v = ns / 1e3
      n = ++count[impl, name]; val[impl, name, n] = v
      if (!(name in seen)) { seen[name] = 1; extra[++nextra] = name }
    }
    delete row
  }
  function median(impl, name,   n, i, j, a, t) {
    n = count[impl, name]
    if (!n) return ""
    for (i = 1; i <= n; ++i) a[i] = val[impl, name, i]
    for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  END {
    split("tiny_add_8 backward_8 add_16M sum_16M sgemm_1024 mlp_128x784x512", order, " ")
    unit["tiny_add_8"] = "ns/op"; unit["backward_8"] = "ns/iter"
    unit["add_16M"] = "GB/s"; unit["sum_16M"] = "GB/s"
    unit["sgemm_1024"] = "GFLOP/s"; unit["mlp_128x784x512"] = "us"
    lower["tiny_add_8"] = 1; lower["backward_8"] = 1; lower["mlp_128x784x512"] = 1
    printf "%-18s %-8s %12s %12s %8s\n", "workload", "unit", "ember", "libtorch", "ratio"
    for (k = 1; k <= 6; ++k) {
      w = order[k]; e = median("ember", w); l = median("libtorch", w)
      r = (e != "" && l != "" && e > 0 && l > 0) ? (lower[w] ? l / e : e / l) : ""
      printf "%-18s %-8s %12s %12s %8s\n", w, unit[w], e == "" ? "-" : sprintf("%.1f", e),
        l == "" ? "-" : sprintf("%.1f", l), r == "" ? "-" : sprintf("%.2fx", r)
    }
    for (k = 1; k <= nextra; ++k) {  # the MLP products and steps, in program order, in us
      w = extra[k]; if (w in unit) continue
      e = median("ember", w); l = median("libtorch", w)
      r = (e != "" && l != "" && e > 0 && l > 0) ? l / e : ""
      printf "%-18s %-8s %12s %12s %8s\n", w, "us", e == "" ? "-" : sprintf("%.1f", e),
        l == "" ? "-" : sprintf("%.1f", l), r == "" ? "-" : sprintf("%.2fx", r)
    }
    print "(median of the rounds medians; ratio > 1 means ember is faster)"
  }' "$OUT"/*_round*.json | tee "$OUT/summary.txt"
