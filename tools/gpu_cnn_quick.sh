#!/usr/bin/env bash
# The shortest CNN visit (when little device time is left): builds ember, the CNN example, its
# LibTorch twin and conv_bench for sm_90, then times conv2 and one 3-epoch run of each program
# beside PyTorch's. Usage (on the device, from the repo root): tools/gpu_cnn_quick.sh "$OUT"
set -uo pipefail
OUT="${1:?usage: tools/gpu_cnn_quick.sh OUT_DIR}"
B="${BUILD_DIR:-/tmp/ember-cnn-build}"
DATA="${MLP_DATA:-.device/data}"
LOG="$OUT/cnn_quick.log"
mkdir -p "$OUT"
run() { echo "== $*" >>"$LOG"; timeout --kill-after=5 "$@" >>"$LOG" 2>&1; echo "rc=$?" >>"$LOG"; }
TORCH_PREFIX="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
run 60 cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DEMBER_BUILD_TESTS=OFF ${TORCH_PREFIX:+-DCMAKE_PREFIX_PATH="$TORCH_PREFIX"}
run 200 cmake --build "$B" -j16 --target cnn conv_bench libtorch_cnn
tail -3 "$LOG"
run 20 "$B/benchmarks/conv_bench"
run 30 "$B/examples/cnn" --data "$DATA" --epochs 3
run 20 python3 benchmarks/pytorch_conv_bench.py
run 40 "$B/benchmarks/libtorch_cnn" --data "$DATA" --epochs 3
run 40 python3 benchmarks/pytorch_cnn.py --data "$DATA" --epochs 3
grep -E "^== |samples_per_s|median|rc=|rror" "$LOG" | cut -c1-300
