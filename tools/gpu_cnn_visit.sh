#!/usr/bin/env bash
# A short GPU visit for the CNN work (docs/cnn.md): builds only the CNN targets for sm_90, runs
# the CUDA conv/pool/batch-norm tests and parity sweeps, times conv2 of the example and its
# batch norms against PyTorch, and
# runs the CNN example beside its LibTorch and PyTorch twins (TF32 off, then on), then the
# accuracy runs. Logs go to OUT; the last lines of OUT/cnn_visit.log are the summary.
# Usage (on the device, from the repo root): tools/gpu_cnn_visit.sh "$OUT"  (data: .device/data)
set -uo pipefail
OUT="${1:?usage: tools/gpu_cnn_visit.sh OUT_DIR}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="${BUILD_DIR:-/tmp/ember-cnn-build}"
DATA="${MLP_DATA:-$ROOT/.device/data}"
LOG="$OUT/cnn_visit.log"
mkdir -p "$OUT"
cd "$ROOT" || exit 1
run() { echo "== $*" >>"$LOG"; timeout --kill-after=5 "$@" >>"$LOG" 2>&1; echo "rc=$?" >>"$LOG"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv >>"$LOG" 2>&1
TORCH_PREFIX="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
run 120 cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  ${TORCH_PREFIX:+-DCMAKE_PREFIX_PATH="$TORCH_PREFIX"} >/dev/null
run 240 cmake --build "$B" -j16 --target ember cnn libtorch_cnn conv_bench test_cuda_conv \
  test_cuda_parity test_nn_conv test_nn_norm test_gradcheck
run 60 "$B/tests/test_cuda_conv"
run 90 "$B/tests/test_cuda_parity" \
  --gtest_filter='*conv2d*:*pool*:*batch_norm*:CudaParity.*'
run 60 "$B/tests/test_nn_norm"
run 90 "$B/tests/test_gradcheck" --gtest_filter='*norm*:Coverage.*'
CNN=(--data "$DATA" --epochs 3)
run 30 "$B/benchmarks/conv_bench"
run 30 python3 benchmarks/pytorch_conv_bench.py
run 30 "$B/benchmarks/conv_bench" --cudnn-benchmark
run 30 python3 benchmarks/pytorch_conv_bench.py --cudnn-benchmark
run 40 "$B/examples/cnn" "${CNN[@]}"
run 60 "$B/benchmarks/libtorch_cnn" "${CNN[@]}"
run 60 python3 benchmarks/pytorch_cnn.py "${CNN[@]}"
run 40 python3 benchmarks/pytorch_cnn.py "${CNN[@]}" --graph
run 40 "$B/examples/cnn" "${CNN[@]}" --tf32
run 60 python3 benchmarks/pytorch_cnn.py "${CNN[@]}" --tf32
run 40 "$B/examples/cnn" "${CNN[@]}" --bn
run 60 "$B/benchmarks/libtorch_cnn" "${CNN[@]}" --bn
run 60 python3 benchmarks/pytorch_cnn.py "${CNN[@]}" --bn
run 60 "$B/examples/cnn" --data "$DATA" --bn --optimizer adam --epochs 10
run 90 python3 benchmarks/pytorch_cnn.py --data "$DATA" --bn --optimizer adam --epochs 10
echo "== summary" >>"$LOG"
grep -E "^== |train_samples_per_s|median|PASSED|FAILED|rc=" "$LOG" | grep -v "^== summary" \
  | cut -c1-220 >>"$LOG.summary"
cat "$LOG.summary" >>"$LOG"
