#!/usr/bin/env bash
# README's second command, and all that CI (.ci/run) does: builds everything in build/, runs
# ctest, builds and runs an outside consumer against an installed ember, then repeats the
# build and tests with address and undefined-behaviour sanitizers in build-asan/.
# Installs missing build packages first (a no-op on a prepared machine).
# EMBER_TEST_SANITIZE=0 skips the sanitizer pass (for a quick local run).
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$EMBER_ROOT"
start=$SECONDS
ember_install_missing "${EMBER_BUILD_PACKAGES[@]}"

log "configure and build (build/)"
# One ctest test per GoogleTest program (EMBER_TEST_PER_CASE=OFF): the same cases, ~2,800 fewer
# process starts. Reconfigure with -DEMBER_TEST_PER_CASE=ON to select single cases by name.
ember_configure build -DCMAKE_BUILD_TYPE=Release -DEMBER_TEST_PER_CASE=OFF
cmake --build build -j "$JOBS"
log "ctest (build/)"
ctest --test-dir build --output-on-failure -j "$JOBS"

log "install and build an outside consumer (tests/consumer)"
rm -rf build/install build/consumer
cmake --install build --prefix build/install >/dev/null
cmake -S tests/consumer -B build/consumer -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$EMBER_ROOT/build/install" >/dev/null
cmake --build build/consumer -j "$JOBS"
build/consumer/consumer

if [ "${EMBER_TEST_SANITIZE:-1}" != 0 ]; then
  # CPU-only: no GPU in CI, and the CUDA runtime does not run under ASan without tuning.
  # -O1 with assertions on: at -O3 the sanitized build takes twice as long to compile. The
  # examples (and the docs' examples) ran in the first pass; skipping them here saves minutes.
  log "configure and build with -DEMBER_SANITIZE=address,undefined (build-asan/)"
  ember_configure build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O1 \
    -DEMBER_SANITIZE=address,undefined -DEMBER_CUDA=OFF -DEMBER_BUILD_BENCHMARKS=OFF \
    -DEMBER_BUILD_EXAMPLES=OFF -DEMBER_TEST_PER_CASE=OFF
  cmake --build build-asan -j "$JOBS"
  log "ctest (build-asan/)"
  # allocator_may_return_null: a huge request returns null (ember's OutOfMemoryError, as in the
  # first pass) instead of aborting, so the out-of-memory cases run here too.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$JOBS"
fi
log "all tests passed in $((SECONDS - start)) s"
