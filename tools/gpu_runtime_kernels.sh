#!/usr/bin/env bash
# One GPU visit for the runtime kernels (issue 17) and a whole-tree check: builds everything
# (tests, examples, benchmarks), runs the whole ctest, then runtime_kernel_bench with and without
# small-op batching. Usage (on the device): tools/gpu_runtime_kernels.sh OUT [BUILD_SECONDS]
set -uo pipefail
OUT="$1"; B=/tmp/eb; S=$SECONDS; mkdir -p "$OUT"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/tools/gpu_build.sh" $B "$OUT/build.log" "${2:-280}" -DEMBER_BUILD_EXAMPLES=ON \
  -DEMBER_BUILD_BENCHMARKS=ON -DEMBER_TEST_PER_CASE=OFF
echo "built at $((SECONDS - S))s"
timeout "${CTEST_S:-200}" ctest --test-dir $B --output-on-failure -j 8 --timeout 150 \
  >"$OUT/tests.log" 2>&1
echo "ctest rc $? at $((SECONDS - S))s"
grep -E "tests passed|FAILED|\(Failed\)|\(Timeout\)|Not Run" "$OUT/tests.log" | head -30
for batch in 0 1; do
  EMBER_CUDA_BATCH=$batch timeout 60 $B/benchmarks/runtime_kernel_bench "/tmp/rkb$batch" \
    >>"$OUT/runtime_kernel_bench.jsonl" 2>&1
  echo "runtime_kernel_bench (EMBER_CUDA_BATCH=$batch) rc $? at $((SECONDS - S))s"
done
cat "$OUT/runtime_kernel_bench.jsonl"
for ex in quickstart custom_op; do
  timeout 60 $B/examples/$ex >"$OUT/$ex.log" 2>&1; echo "$ex rc $?"; cat "$OUT/$ex.log"
done
