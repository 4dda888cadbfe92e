#!/usr/bin/env bash
# Issue 16's starting point: the kernels of one training step (name, launches, GPU time) of the
# MLP and the CNN (batch 128, SGD, fp32, TF32 off), ember's examples and PyTorch's eager twins
# (tools/pytorch_roundtrip.py train), each from two ncu runs of STEPS_A and STEPS_B steps whose
# difference is STEPS_B - STEPS_A steps (tools/profile_step.py). Writes OUT/<label>.json.
# Usage (GPU machine, repo root, after a build with examples in $B, data in .device/data):
#   B=/tmp/ember-gpu-build tools/gpu_profile_step.sh OUT
set -uo pipefail
OUT="$1"; mkdir -p "$OUT"
B="${B:-/tmp/ember-gpu-build}"; DATA="${DATA:-.device/data}"; A="${STEPS_A:-10}"; Z="${STEPS_B:-30}"
NCU=(ncu --csv --print-units base --clock-control none --metrics gpu__time_duration.sum
  --target-processes all)
command -v ncu >/dev/null || { echo "no ncu on PATH"; exit 1; }
profile() {  # profile LABEL COMMAND... (the command takes --max-steps N appended)
  local label=$1; shift
  for n in "$A" "$Z"; do
    timeout 150 "${NCU[@]}" "$@" --max-steps "$n" >"$OUT/$label.$n.csv" 2>"$OUT/$label.$n.err" ||
      { echo "$label $n steps: failed"; tail -3 "$OUT/$label.$n.err"; return 1; }
  done
  python3 tools/profile_step.py "$OUT/$label.$A.csv" "$OUT/$label.$Z.csv" "$A" "$Z" "$label" \
    >"$OUT/$label.json"
  rm -f "$OUT/$label.$A.csv" "$OUT/$label.$Z.csv"
}
# WHICH picks the runs (default: all); ember's examples run with --graph on (the default on
# CUDA) and off; CNN_ARGS adds arguments to ember's CNN (say --cudnn-benchmark).
WHICH="${WHICH:-ember_mlp_graph ember_mlp_eager torch_mlp ember_cnn_graph ember_cnn_eager torch_cnn}"
for w in $WHICH; do
  mode=off; [ "${w##*_}" = graph ] && mode=on
  case $w in
    ember_mlp_graph | ember_mlp_eager)
      profile "$w" "$B/examples/mlp" --device cuda --data "$DATA" --epochs 1 \
        --graph $mode ;;
    ember_cnn_graph | ember_cnn_eager)
      # shellcheck disable=SC2086
      profile "$w" "$B/examples/cnn" --device cuda --data "$DATA" --epochs 1 --test-samples 1000 \
        --graph $mode ${CNN_ARGS:-} ;;
    torch_mlp | torch_cnn)
      profile "$w" python3 tools/pytorch_roundtrip.py train --model "${w#torch_}" --epochs 1 \
        --device cuda --data "$DATA" --out "/tmp/profile_$w.pt" ;;
  esac
done
