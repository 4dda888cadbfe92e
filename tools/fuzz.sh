#!/usr/bin/env bash
# tools/fuzz.sh TARGET SECONDS: runs the libFuzzer target fuzz_TARGET (idx, safetensors, pt, ops, module)
# for SECONDS in a clang ASan+UBSan CPU build (build-fuzz/, configured once), on a working corpus
# build-fuzz/corpus/TARGET seeded from fuzz/corpus/TARGET. A crash leaves its reproducer in
# build-fuzz/ (crash-*, leak-*, timeout-*, oom-*) and makes the script exit non-zero; copy the
# reduced reproducer into fuzz/corpus/TARGET so that ctest fuzz.replay.TARGET keeps replaying it.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$EMBER_ROOT"

if [ $# -ne 2 ]; then
  echo "usage: $0 TARGET SECONDS   (TARGET: idx, safetensors, pt, ops or module)" >&2
  exit 2
fi
target="$1"
seconds="$2"
if [ ! -d "fuzz/corpus/$target" ]; then
  echo "fuzz.sh: no target '$target' (fuzz/corpus/$target is missing)" >&2
  exit 2
fi
build=build-fuzz
# -O1 as the CI sanitizer build: the library compiles twice as fast as at -O3, and the fuzzer
# spends its time in small inputs anyway.
# Configured on every run (seconds; nothing is rebuilt unless an option changed), so that a
# build folder made before an option existed gets it.
log "configure $build/ (clang, address+undefined, libFuzzer)"
ember_configure "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DEMBER_CUDA=OFF \
  -DEMBER_SANITIZE=address,undefined -DEMBER_FUZZ_ENGINE=ON -DEMBER_BUILD_FUZZ=ON \
  -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -DEMBER_BUILD_TESTS=OFF \
  -DEMBER_BUILD_BENCHMARKS=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
log "build fuzz_$target"
cmake --build "$build" -j "$JOBS" --target "fuzz_$target"

corpus="$build/corpus/$target"
mkdir -p "$corpus"
cp -n "fuzz/corpus/$target"/* "$corpus"/ 2>/dev/null || true
log "fuzz_$target for $seconds s (corpus $corpus: $(find "$corpus" -type f | wc -l) files)"
logfile="$build/fuzz_$target.log"
set +e
start=$SECONDS
# Leaks are findings too; -rss_limit_mb: an input that makes the reader allocate gigabytes is one.
(cd "$build" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  "./fuzz/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 \
  -timeout=25 "corpus/$target" 2>&1) | tee "$logfile" |
  grep -E 'pulse|DONE|INITED|ERROR|SUMMARY|finding|^stat::|Test unit written'
status=${PIPESTATUS[0]}
elapsed=$((SECONDS - start))
set -e
last=$(grep -E '^#[0-9]+' "$logfile" | tail -1 || true)
execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logfile")
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logfile")
cov=$(sed -En 's/.* cov: ([0-9]+) .*/\1/p' <<<"$last")
ft=$(sed -En 's/.* ft: ([0-9]+) .*/\1/p' <<<"$last")
files=$(find "$corpus" -type f | wc -l)
bytes=$(du -sb "$corpus" | cut -f1)
log "fuzz_$target: $elapsed s, ${runs:-?} runs, ${execs:-?} execs/s, cov ${cov:-?}, ft ${ft:-?}," \
  "corpus $files files / $bytes bytes (last status: $last)"
if [ "$status" != 0 ]; then
  echo "fuzz.sh: fuzz_$target found a problem (exit $status); reproducer in $build/:" >&2
  ls -1 "$build" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' >&2 || true
  echo "reduce one with: $build/fuzz/fuzz_$target -minimize_crash=1 -runs=20000 $build/crash-..." \
    "(EMBER_FUZZ_VERBOSE=1 with a single input says what each step did)" >&2
  exit 1
fi
