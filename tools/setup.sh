#!/usr/bin/env bash
# README's first command: installs the Debian packages ember needs (only those missing),
# builds ember in build/ and runs the main job, examples/demo. Works with or without CUDA.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$EMBER_ROOT"

PACKAGES=(cmake g++ ninja-build libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev nlohmann-json3-dev libcli11-dev dataset-fashion-mnist)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  SUDO=()
  if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
fi

log "configuring build/ (CUDA is used when nvcc is found)"
ember_configure build -DCMAKE_BUILD_TYPE=Release
log "building the demo"
cmake --build build -j "$JOBS" --target demo
log "running examples/demo"
build/examples/demo
