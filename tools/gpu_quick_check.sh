#!/usr/bin/env bash
# A short GPU visit when device time is scarce: builds the library and the CUDA test programs
# only (TARGETS), runs the parity sweep's cases named in FILTER (default: all), the CUDA gradcheck
# entries and the CUDA tests of the new modules, then the sort/topk/index benchmarks beside
# PyTorch's. Usage (on the device): tools/gpu_quick_check.sh OUT [GTEST_FILTER]
set -uo pipefail
OUT="$1"; FILTER="${2:-*}"; B=/tmp/eb; S=$SECONDS; mkdir -p "$OUT"
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DEMBER_BUILD_EXAMPLES=OFF -DEMBER_BENCH_LIBTORCH=OFF >"$OUT/build.log" 2>&1
TARGETS="${TARGETS:-test_cuda_parity test_gradcheck cuda_bench test_nn_rnn test_optim_lbfgs test_nn_clone}"
timeout "${BUILD_S:-170}" cmake --build $B -j16 --target $TARGETS -- -k 0 >>"$OUT/build.log" 2>&1
echo "build rc $? at $((SECONDS - S))s"; grep -E "error|FAILED" "$OUT/build.log" | head -20
run() {  # skips programs not built (TARGETS)
  local t=$1; shift
  [ -x "$1" ] || return 0
  timeout "$t" "$@" >>"$OUT/tests.log" 2>&1; echo "$* rc $? at $((SECONDS - S))s"
}
run "${PARITY_S:-70}" $B/tests/test_cuda_parity --gtest_filter="$FILTER" --gtest_brief=1
run "${GRAD_S:-45}" $B/tests/test_gradcheck --gtest_filter='*OpTableCuda*' --gtest_brief=1
run 20 $B/tests/test_nn_rnn --gtest_brief=1
run 20 $B/tests/test_optim_lbfgs --gtest_brief=1
run 20 $B/tests/test_nn_clone --gtest_brief=1
grep -E "FAILED|Failure|tests ran|PASSED" "$OUT/tests.log" | head -40
[ -x $B/benchmarks/cuda_bench ] && timeout 25 $B/benchmarks/cuda_bench --benchmark_filter='sort|topk|index' --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true >"$OUT/bench.log" 2>&1
timeout 25 python3 - >>"$OUT/bench.log" 2>&1 <<'PY'
import sys; sys.path.insert(0, "benchmarks")
import torch, pytorch_cuda_bench as p
v = torch.randn(1 << 20, device="cuda")
p.emit("sort_1M", p.per_call_seconds(lambda: torch.sort(v), 50) * 1e6, "us")
p.emit("topk10_1M", p.per_call_seconds(lambda: torch.topk(v, 10), 50) * 1e6, "us")
idx = torch.randint(0, 1 << 20, (1 << 20,), device="cuda")
p.emit("index_1M", p.per_call_seconds(lambda: v[idx], 50) * 1e6, "us")
PY
grep -E "median|sort|topk|index" "$OUT/bench.log" | head -20; echo "done at $((SECONDS - S))s"
