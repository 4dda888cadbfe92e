#!/bin/sh
# ctest examples.mlp_roundtrip and examples.cnn_roundtrip: `roundtrip_smoke.sh PROGRAM OPTIONS...`
# trains a few steps on the CPU with --export, then evaluates the exported weights alone
# (--weights FILE --epochs 0): the test loss and accuracy must be the training run's last ones,
# to the last digit (--metrics), and --weights with --resume must be refused. PyTorch's side is
# tools/pytorch_roundtrip.py (tools/gpu_roundtrip_check.sh). Skipped (77) without Debian's
# dataset-fashion-mnist.
data=/usr/share/datasets/fashion-mnist
[ -f "$data/train-images-idx3-ubyte.gz" ] || { echo "no Fashion-MNIST in $data: skipped"; exit 77; }
program=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { "$program" --device cpu --threads 1 --seed 5 "$@"; }

# The test loss and accuracy of a --metrics file's last line.
last_test() { tail -n 1 "$1" | sed -e 's/.*\("test_acc":[^,}]*\).*\("test_loss":[^,}]*\).*/\1 \2/'; }

run "$@" --epochs 1 --metrics "$tmp/train.jsonl" --export "$tmp/model.safetensors" \
  >"$tmp/train.out" || fail "the training run"
cat "$tmp/train.out"
[ -s "$tmp/model.safetensors" ] || fail "--export wrote no file"
run "$@" --epochs 0 --weights "$tmp/model.safetensors" --metrics "$tmp/eval.jsonl" \
  >"$tmp/eval.out" || fail "the evaluation run (--epochs 0)"
cat "$tmp/eval.out"
grep -q "no training (--epochs 0): test loss" "$tmp/eval.out" || fail "no evaluation line"
if [ "$(wc -l <"$tmp/eval.jsonl")" != 1 ] || ! grep -q '"epoch":0' "$tmp/eval.jsonl"; then
  fail "--metrics: not one line for epoch 0"
fi
want=$(last_test "$tmp/train.jsonl") got=$(last_test "$tmp/eval.jsonl")
echo "trained: $want"
echo "loaded:  $got"
if [ -z "$want" ] || [ "$want" != "$got" ]; then fail "the exported weights evaluate differently"; fi
[ "$(tail -n 1 "$tmp/train.out" | grep -o '"test_correct":[0-9]*')" = \
  "$(tail -n 1 "$tmp/eval.out" | grep -o '"test_correct":[0-9]*')" ] ||
  fail "the result JSONs' test_correct differ"

if run "$@" --epochs 0 --weights "$tmp/model.safetensors" --resume "$tmp/model.safetensors" \
  >/dev/null 2>"$tmp/err"; then
  fail "--weights with --resume was accepted"
fi
echo "OK"
