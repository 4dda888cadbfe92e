#!/bin/sh
# ctest examples.mlp_resume and examples.cnn_resume: `resume_smoke.sh PROGRAM OPTIONS...` checks
# that --save/--resume is exact on the CPU (one thread, the same seed): 2 epochs straight, then
# 1 epoch with --save and a second process resuming it, must print the same per-epoch losses
# and accuracy (--metrics, to the last digit) and save the same checkpoint, byte for byte. Then
# Ctrl-C: a run with --save gets SIGINT after a training step, must exit 130 with the
# checkpoint written; so must a second run resuming it on the same path; and resuming that
# (mid-epoch) must end as the straight run did. Also a resume with another optimizer must fail
# with a clear error. Skipped (77) without Debian's dataset-fashion-mnist.
data=/usr/share/datasets/fashion-mnist
[ -f "$data/train-images-idx3-ubyte.gz" ] || { echo "no Fashion-MNIST in $data: skipped"; exit 77; }
program=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
train() { "$program" --device cpu --threads 1 --seed 3 "$@"; }

# The per-epoch lines without their timings.
losses() { sed -e 's/"epoch_s":[^,]*,//' -e 's/,"train_samples_per_s":[^}]*//' "$1"; }

# 1. Straight against saved and resumed at the epoch boundary.
train "$@" --epochs 2 --metrics "$tmp/straight.jsonl" --save "$tmp/straight.ckpt" \
  >"$tmp/straight.out" || fail "the straight run"
train "$@" --epochs 1 --metrics "$tmp/first.jsonl" --save "$tmp/run.ckpt" >/dev/null ||
  fail "the first epoch with --save"
[ -s "$tmp/run.ckpt" ] || fail "--save wrote no checkpoint"
train "$@" --epochs 2 --metrics "$tmp/second.jsonl" --resume "$tmp/run.ckpt" \
  --save "$tmp/run.ckpt" >"$tmp/second.out" || fail "the resumed run"
cat "$tmp/second.out"
grep -q "resumed from $tmp/run.ckpt at the end of epoch 1" "$tmp/second.out" ||
  fail "no 'resumed from' line"
losses "$tmp/straight.jsonl" >"$tmp/want"
{ losses "$tmp/first.jsonl"; losses "$tmp/second.jsonl"; } >"$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
  echo "straight:"; cat "$tmp/want"; echo "saved and resumed:"; cat "$tmp/got"
  fail "resuming at the epoch boundary changed the losses"
fi
cmp -s "$tmp/straight.ckpt" "$tmp/run.ckpt" ||
  fail "the final checkpoints differ (parameters or optimizer state not bit-exact)"
echo "epoch-boundary resume: the same losses and checkpoint as the straight run"

# 2. Ctrl-C, twice: after step 7 of the first epoch, then after --max-steps more steps of a run
# resuming that checkpoint and saving over it (mid-epoch 2). The program raises SIGINT itself
# at those steps (EMBER_EXAMPLE_SIGINT_AFTER), through its handler: a signal sent from outside
# would land wherever the machine's load puts it, possibly after the run has ended.
max_steps=7 after=""
for arg in "$@"; do
  [ "$after" = --max-steps ] && max_steps=$arg
  after=$arg
done
interrupt_after=7
interrupt() {
  rm -f "$tmp/int.out"
  EMBER_EXAMPLE_SIGINT_AFTER=$interrupt_after "$program" --device cpu --threads 1 --seed 3 "$@" \
    >"$tmp/int.out" 2>&1
  status=$?
  cat "$tmp/int.out"
  [ "$status" = 130 ] || fail "exit status $status after SIGINT, not 130"
  grep -q "checkpoint saved to $tmp/int.ckpt" "$tmp/int.out" || fail "no line saying where"
  [ -s "$tmp/int.ckpt" ] || fail "no checkpoint after SIGINT"
}
interrupt "$@" --epochs 2 --save "$tmp/int.ckpt"
interrupt_after=$max_steps
interrupt "$@" --epochs 2 --save "$tmp/int.ckpt" --resume "$tmp/int.ckpt"
train "$@" --epochs 2 --metrics "$tmp/int.jsonl" --resume "$tmp/int.ckpt" \
  --save "$tmp/int.ckpt" >"$tmp/int2.out" || fail "resuming after SIGINT"
cat "$tmp/int2.out"
# The resumed run reports the epochs it finished; they must match the straight run's.
n=$(wc -l <"$tmp/int.jsonl")
[ "$n" -ge 1 ] || fail "the resumed run wrote no epoch"
losses "$tmp/int.jsonl" >"$tmp/got"
losses "$tmp/straight.jsonl" | tail -n "$n" >"$tmp/want"
if ! cmp -s "$tmp/want" "$tmp/got"; then
  echo "straight:"; cat "$tmp/want"; echo "interrupted and resumed:"; cat "$tmp/got"
  fail "resuming after Ctrl-C changed the losses"
fi
cmp -s "$tmp/straight.ckpt" "$tmp/int.ckpt" || fail "the final checkpoints differ after Ctrl-C"
echo "Ctrl-C: exit 130, checkpoint saved, the resumed run ends as the straight run"

# 3. A checkpoint of another optimizer is refused before anything is loaded.
other=adam rest="" after=""
for arg in "$@"; do  # these options with --optimizer swapped
  if [ "$after" = --optimizer ]; then
    [ "$arg" = adam ] && other=sgd
  elif [ "$arg" != --optimizer ]; then
    rest="$rest $arg"
  fi
  after=$arg
done
# shellcheck disable=SC2086 # $rest is a list of options
if train $rest --optimizer $other --epochs 3 --resume "$tmp/run.ckpt" >/dev/null 2>"$tmp/err"; then
  fail "resuming with --optimizer $other succeeded"
fi
cat "$tmp/err"
grep -q "saved with optimizer" "$tmp/err" || fail "no clear error for another optimizer"
echo "OK"
