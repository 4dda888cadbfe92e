#!/usr/bin/env bash
# README's first command: installs the Debian packages ember needs (only those missing),
# builds ember in build/ and runs the main job, examples/mlp: a Fashion-MNIST MLP trained for
# 5 epochs (on the GPU when there is one), its curves drawn into build/mlp.png.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$EMBER_ROOT"

# The data set is for the examples that train on Fashion-MNIST; gnuplot draws their curves.
ember_install_missing "${EMBER_BUILD_PACKAGES[@]}" dataset-fashion-mnist gnuplot-nox

log "configuring build/ (CUDA is used when nvcc is found)"
ember_configure build -DCMAKE_BUILD_TYPE=Release
log "building the examples"
cmake --build build -j "$JOBS" --target demo mlp
log "running examples/mlp (examples/demo is a shorter tour of tensors)"
build/examples/mlp --plot build/mlp.png --metrics build/mlp_metrics.jsonl
