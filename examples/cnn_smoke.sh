#!/bin/sh
# ctest examples.cnn_smoke: a few training steps of examples/cnn on the CPU (plain, then with
# --bn and Adam), checking that the last line is the result JSON, that --metrics writes one JSON
# line per epoch and --plot a PNG (when gnuplot is installed); skipped (77) without Debian's
# dataset-fashion-mnist.
data=/usr/share/datasets/fashion-mnist
[ -f "$data/train-images-idx3-ubyte.gz" ] || { echo "no Fashion-MNIST in $data: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for extra in "" "--bn --optimizer adam --metrics $tmp/epochs.jsonl --plot $tmp/curves.png"; do
  # shellcheck disable=SC2086 # $extra is a list of options
  out=$("$1" --device cpu --epochs 2 --max-steps 5 --batch-size 32 --test-samples 200 \
    --threads 1 $extra) || exit 1
  echo "$out"
  echo "$out" | tail -n 1 | grep -q '"train_samples_per_s"' || { echo "no result JSON last"; exit 1; }
done
[ "$(grep -c '"test_acc"' "$tmp/epochs.jsonl")" = 2 ] || { echo "--metrics: not 2 epoch lines"; exit 1; }
if command -v gnuplot >/dev/null; then
  [ -s "$tmp/curves.png" ] || { echo "--plot: no PNG written"; exit 1; }
fi
