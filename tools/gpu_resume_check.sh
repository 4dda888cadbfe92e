#!/usr/bin/env bash
# A short GPU visit for checkpoints (issue 15): builds the library, the state/checkpoint test
# programs and the examples, runs their tests with the GPU (CUDA variants included), then checks
# --save/--resume on CUDA: 2 epochs straight against 1 epoch saved and a new process resuming,
# for the MLP (SGD) and the CNN (--bn --optimizer adam, with and without --deterministic).
# Usage (on the device, from the repo root, Fashion-MNIST in .device/data): tools/gpu_resume_check.sh OUT
set -uo pipefail
OUT="$1"; B=/tmp/eb; S=$SECONDS; mkdir -p "$OUT"
CONFIG=(-DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DEMBER_BENCH_LIBTORCH=OFF)
if [ ! -f /usr/include/zlib.h ] && [ -f .device/include/zlib.h ]; then  # as tools/gpu_visit.sh
  ZLIB_SO="$(ls /usr/lib/x86_64-linux-gnu/libz.so* /lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -n 1)"
  [ -n "$ZLIB_SO" ] && CONFIG+=(-DZLIB_INCLUDE_DIR="$PWD/.device/include" -DZLIB_LIBRARY="$ZLIB_SO")
fi
cmake -S . -B $B -G Ninja "${CONFIG[@]}" >"$OUT/build.log" 2>&1
# TESTS: the test programs to build and run; RESUME=0 skips the examples' resume runs.
TESTS="${TESTS:-test_optim_state test_rng_state test_serialize_checkpoint test_serialize_pt test_data_sampler_state}"
TARGETS="$TESTS"; [ "${RESUME:-1}" = 0 ] || TARGETS="$TARGETS mlp cnn"
timeout "${BUILD_S:-200}" cmake --build $B -j16 --target $TARGETS -- -k 0 >>"$OUT/build.log" 2>&1
echo "build rc $? at $((SECONDS - S))s"; grep -E "error|FAILED" "$OUT/build.log" | head -20
for t in $TESTS; do
  [ -x $B/tests/$t ] || { echo "$t not built"; continue; }
  timeout 60 $B/tests/$t --gtest_brief=1 >>"$OUT/tests.log" 2>&1; echo "$t rc $?"
done
grep -E "FAILED|Failure|SKIPPED|PASSED" "$OUT/tests.log" | head -30
losses() { sed -e 's/"epoch_s":[^,]*,//' -e 's/,"train_samples_per_s":[^}]*//' "$1"; }
resume() {  # name program options...: straight vs saved + resumed on CUDA
  local name=$1 prog=$2; shift 2; local d=$OUT/$name; mkdir -p $d
  [ -x "$prog" ] || { echo "$name: not built"; return; }
  timeout 60 $prog --device cuda --data .device/data --seed 3 --epochs 2 --metrics $d/straight.jsonl "$@" >$d/log 2>&1
  timeout 60 $prog --device cuda --data .device/data --seed 3 --epochs 1 --metrics $d/first.jsonl --save $d/c.ckpt "$@" >>$d/log 2>&1
  timeout 60 $prog --device cuda --data .device/data --seed 3 --epochs 2 --metrics $d/second.jsonl --resume $d/c.ckpt "$@" >>$d/log 2>&1
  losses $d/straight.jsonl >$d/want; { losses $d/first.jsonl; losses $d/second.jsonl; } >$d/got
  if cmp -s $d/want $d/got; then echo "$name: resume exact on CUDA"; else echo "$name: resume DIFFERS on CUDA"; cat $d/want $d/got; fi
}
[ "${RESUME:-1}" = 0 ] && { echo "done at $((SECONDS - S))s"; exit 0; }
resume mlp_sgd $B/examples/mlp --max-steps 200 --batch-size 128
resume cnn_adam $B/examples/cnn --bn --optimizer adam --max-steps 100 --batch-size 64 --test-samples 1000
resume cnn_adam_det $B/examples/cnn --bn --optimizer adam --max-steps 100 --batch-size 64 --test-samples 1000 --deterministic
echo "done at $((SECONDS - S))s"
