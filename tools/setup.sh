#!/usr/bin/env bash
# README's first command: installs the Debian packages ember needs (only those missing),
# builds ember in build/ and runs the main job, examples/demo. Works with or without CUDA.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$EMBER_ROOT"

# The data set is for the examples that train on Fashion-MNIST.
ember_install_missing "${EMBER_BUILD_PACKAGES[@]}" dataset-fashion-mnist

log "configuring build/ (CUDA is used when nvcc is found)"
ember_configure build -DCMAKE_BUILD_TYPE=Release
log "building the demo"
cmake --build build -j "$JOBS" --target demo
log "running examples/demo"
build/examples/demo
