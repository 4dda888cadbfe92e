#!/bin/sh
# ctest examples.mlp_smoke: a few training steps of examples/mlp on the CPU, checking that the
# last line is the result JSON; skipped (77) without Debian's dataset-fashion-mnist.
data=/usr/share/datasets/fashion-mnist
[ -f "$data/train-images-idx3-ubyte.gz" ] || { echo "no Fashion-MNIST in $data: skipped"; exit 77; }
out=$("$1" --device cpu --epochs 2 --max-steps 20 --batch-size 64 --threads 1) || exit 1
echo "$out"
echo "$out" | tail -n 1 | grep -q '"train_samples_per_s"' || { echo "no result JSON last"; exit 1; }
