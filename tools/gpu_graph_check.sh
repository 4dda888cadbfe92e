#!/usr/bin/env bash
# Issue 16's figures: ember's mlp and cnn examples with --graph off and on, against PyTorch
# eager and PyTorch with the whole step in a CUDA graph (benchmarks/pytorch_{mlp,cnn}.py
# [--graph], and --graph --fused --compile: PyTorch's best), run alternately for ROUNDS rounds
# (batch 128, SGD, fp32, TF32 off), then the MLP's test accuracy after 5 epochs for seeds 0-2,
# graph and eager; TUNE=1 (default) adds ember's graph runs with --tune-gemm (cuda::tunable;
# the CNN's also with --cudnn-benchmark).
# Prints a table (summary.txt).
# Usage (GPU machine, repo root, after a build with examples in $B, data in .device/data):
#   B=/tmp/ember-gpu-build tools/gpu_graph_check.sh OUT
set -uo pipefail
OUT="${1:?usage: tools/gpu_graph_check.sh OUT}"
mkdir -p "$OUT"
B="${B:-/tmp/ember-gpu-build}"
DATA="${DATA:-.device/data}"
ROUNDS="${ROUNDS:-2}"
run() {  # run LABEL COMMAND...: appends the command's last JSON line to OUT/LABEL.jsonl
  local label=$1
  shift
  timeout "${T:-120}" "$@" >"$OUT/$label.log" 2>&1 || echo "$label: failed (see $label.log)"
  grep '^{' "$OUT/$label.log" | tail -n 1 >>"$OUT/$label.jsonl"
}
common=(--data "$DATA" --device cuda --epochs 3 --batch-size 128)
# Inductor's caches (compiled code, autotuning results) live in INDUCTOR_CACHE, carried from
# the last visit (.device/inductor-cache: unpack the inductor-cache.tgz this writes under OUT):
# a cold max-autotune compile of the MLP takes over 220 s, a warm one seconds.
export TORCHINDUCTOR_CACHE_DIR="${INDUCTOR_CACHE:-$PWD/.device/inductor-cache}"
mkdir -p "$TORCHINDUCTOR_CACHE_DIR"
for ((r = 1; r <= ROUNDS; ++r)); do
  run ember_mlp_eager "$B/examples/mlp" "${common[@]}" --graph off
  run ember_mlp_graph "$B/examples/mlp" "${common[@]}" --graph on
  [ "${TUNE:-1}" = 1 ] && run ember_mlp_graph_tuned "$B/examples/mlp" "${common[@]}" --graph on --tune-gemm
  run torch_mlp_eager python3 benchmarks/pytorch_mlp.py "${common[@]}"
  run torch_mlp_graph python3 benchmarks/pytorch_mlp.py "${common[@]}" --graph
  run ember_cnn_eager "$B/examples/cnn" "${common[@]}" --graph off
  run ember_cnn_graph "$B/examples/cnn" "${common[@]}" --graph on
  [ "${TUNE:-1}" = 1 ] && run ember_cnn_graph_tuned "$B/examples/cnn" "${common[@]}" --graph on --tune-gemm --cudnn-benchmark
  run torch_cnn_eager python3 benchmarks/pytorch_cnn.py "${common[@]}"
  run torch_cnn_graph python3 benchmarks/pytorch_cnn.py "${common[@]}" --graph
  # PyTorch's best: the step in a CUDA graph, the fused SGD, and torch.compile (Inductor,
  # max-autotune) inside the graph; COMPILED=0 skips them (compiling takes minutes).
  if [ "${COMPILED:-1}" = 1 ]; then
    T=600 run torch_mlp_best python3 benchmarks/pytorch_mlp.py "${common[@]}" --graph --fused --compile
    T=600 run torch_cnn_best python3 benchmarks/pytorch_cnn.py "${common[@]}" --graph --fused --compile
  fi
done
[ "${COMPILED:-1}" = 1 ] && tar czf "$OUT/inductor-cache.tgz" -C "$TORCHINDUCTOR_CACHE_DIR" .
for seed in 0 1 2; do
  run acc_mlp_graph "$B/examples/mlp" --data "$DATA" --device cuda --seed $seed --graph on
  run acc_mlp_eager "$B/examples/mlp" --data "$DATA" --device cuda --seed $seed --graph off
done
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
def rows(label):
    f = out / f"{label}.jsonl"
    return [json.loads(l) for l in f.read_text().splitlines() if l.strip()] if f.exists() else []
print(f"{'run':21} {'samples/s (best, all)':>40} {'test acc':>9}")
for label in ("ember_mlp_eager", "ember_mlp_graph", "ember_mlp_graph_tuned",
              "torch_mlp_eager", "torch_mlp_graph", "torch_mlp_best",
              "ember_cnn_eager", "ember_cnn_graph", "ember_cnn_graph_tuned",
              "torch_cnn_eager", "torch_cnn_graph", "torch_cnn_best"):
    r = rows(label)
    s = [x["train_samples_per_s"] for x in r]
    print(f"{label:21} {max(s) if s else 0:>12.0f} {str([round(v) for v in s]):>27} "
          f"{r[-1]['test_acc'] if r else 0:>9.4f}")
for label in ("acc_mlp_graph", "acc_mlp_eager"):
    acc = [x["test_acc"] for x in rows(label)]
    print(f"{label}: seeds 0-2 test accuracy {acc}"
          + (f", mean {statistics.mean(acc):.4f}" if acc else ""))
PY
