#!/usr/bin/env bash
# Makes tests/ports/<name>.libtorch.txt, the LibTorch side of ctest ports.<name>: builds each
# tests/ports/<name>.cpp (LibTorch source; compare_output.cpp aside) against LibTorch 2.x, runs
# it and keeps its output. Not part of CI (LibTorch is not a dependency); rerun it after changing
# a program. LIBTORCH names the torch/ folder of an unpacked PyPI wheel (`pip download torch
# --no-deps`, then unzip torch/include/* torch/lib/*). mnist_cnn reads MNIST_DIR (default:
# Debian's dataset-fashion-mnist); LibTorch reads only plain IDX files, so .gz ones are
# decompressed into a scratch folder first.
# Usage: tools/ports-libtorch.sh [NAME...]   (default: every program)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
T=${LIBTORCH:-/opt/libtorch2/torch}
mnist=${MNIST_DIR:-/usr/share/datasets/fashion-mnist}
[ -d "$T/include/torch" ] || { echo "$0: no LibTorch headers under $T (set LIBTORCH)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n "s/^__version__ = '\(.*\)'/\1/p" "$T/version.py" 2>/dev/null || true)

if [ $# -eq 0 ]; then
  for f in "$root"/tests/ports/*.cpp; do
    name=$(basename "$f" .cpp)
    [ "$name" = compare_output ] || set -- "$@" "$name"
  done
fi

for name in "$@"; do
  src=$root/tests/ports/$name.cpp
  [ -f "$src" ] || { echo "$0: no $src" >&2; exit 1; }
  args=()
  if [ "$name" = mnist_cnn ]; then
    mkdir -p "$work/mnist"
    for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte \
             t10k-labels-idx1-ubyte; do
      if [ -f "$mnist/$f" ]; then
        ln -sf "$mnist/$f" "$work/mnist/$f"
      elif [ -f "$mnist/$f.gz" ]; then
        gzip -dc "$mnist/$f.gz" >"$work/mnist/$f"
      else
        echo "$0: $mnist has no $f (set MNIST_DIR)" >&2
        exit 1
      fi
    done
    args=("$work/mnist")
  fi
  echo "$0: building $name against LibTorch ${version:-(unknown version)}"
  g++ -std=c++20 -O1 -I"$T/include" -I"$T/include/torch/csrc/api/include" "$src" \
    -L"$T/lib" -ltorch_cpu -lc10 -Wl,-rpath,"$T/lib" -o "$work/$name"
  OMP_NUM_THREADS=1 "$work/$name" "${args[@]}" >"$work/$name.txt" || {
    echo "$0: $name failed (exit $?):" >&2
    cat "$work/$name.txt" >&2
    exit 1
  }
  {
    echo "# LibTorch ${version:-unknown}: tools/ports-libtorch.sh $name"
    cat "$work/$name.txt"
  } >"$root/tests/ports/$name.libtorch.txt"
  echo "$0: tests/ports/$name.libtorch.txt: $(wc -l <"$work/$name.txt") lines"
done
