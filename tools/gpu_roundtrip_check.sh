#!/usr/bin/env bash
# A GPU visit for weights between ember and PyTorch (issue 15): builds examples/mlp and cnn, then
# for the MLP, the CNN and the CNN with BatchNorm: (a) ember trains on CUDA and writes the model
# with --export, PyTorch loads it (tools/pytorch_roundtrip.py eval) and evaluates it on CUDA;
# (b) PyTorch trains on CUDA and saves torch.save(model.state_dict()), ember loads it (--weights
# X.pt --epochs 0) and evaluates it on CUDA. Each pair of test accuracies must agree within TOL
# test images (default 2 of 10000); OUT/summary.json holds them all. Exit status 1 otherwise.
# Why not exactly: ember and PyTorch run the same float32 model through different kernels
# (cuBLAS/cuDNN algorithms, tilings, split-K, their own reductions), which add the same products
# in another order; the logits then differ in their last bits, and an image whose two largest
# logits are that close can flip its argmax. (On the CPU both ways agree to the image.)
# Usage (on the device, from the repo root, Fashion-MNIST in .device/data):
#   tools/gpu_roundtrip_check.sh OUT
# Environment: EPOCHS (2), MAX_STEPS (0: whole epochs), CASES ("mlp cnn cnn_bn"), TOL (2),
# DEVICE (cuda), DATA (.device/data), PYTHON (python3, with PyTorch), B (the build folder,
# /tmp/eb as tools/gpu_resume_check.sh), BUILD=0 (use the programs already built in $B).
set -uo pipefail
OUT="$1"; B="${B:-/tmp/eb}"; S=$SECONDS; mkdir -p "$OUT"
EPOCHS="${EPOCHS:-2}"; DEVICE="${DEVICE:-cuda}"; DATA="${DATA:-.device/data}"
PYTHON="${PYTHON:-python3}"; CASES="${CASES:-mlp cnn cnn_bn}"; TOL="${TOL:-2}"
STEPS=(); [ "${MAX_STEPS:-0}" -gt 0 ] && STEPS=(--max-steps "$MAX_STEPS")

if [ "${BUILD:-1}" != 0 ]; then  # configured as tools/gpu_resume_check.sh (the same $B is reused)
  CONFIG=(-DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DEMBER_BENCH_LIBTORCH=OFF)
  if [ ! -f /usr/include/zlib.h ] && [ -f .device/include/zlib.h ]; then  # as tools/gpu_visit.sh
    ZLIB_SO="$(ls /usr/lib/x86_64-linux-gnu/libz.so* /lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -n 1)"
    [ -n "$ZLIB_SO" ] && CONFIG+=(-DZLIB_INCLUDE_DIR="$PWD/.device/include" -DZLIB_LIBRARY="$ZLIB_SO")
  fi
  cmake -S . -B "$B" -G Ninja "${CONFIG[@]}" >"$OUT/build.log" 2>&1
  timeout "${BUILD_S:-300}" cmake --build "$B" -j16 --target mlp cnn -- -k 0 >>"$OUT/build.log" 2>&1
  echo "build rc $? at $((SECONDS - S))s"; grep -E "error|FAILED" "$OUT/build.log" | head -20
fi

# The last line of each program's stdout is its result JSON: kept as NAME.json beside NAME.log.
ember() { local d=$1 name=$2 prog=$3; shift 3
  timeout 180 "$B/examples/$prog" --device "$DEVICE" --data "$DATA" "$@" >"$d/$name.log" 2>&1
  echo "  $name rc $? at $((SECONDS - S))s"; tail -n 1 "$d/$name.log" >"$d/$name.json"
}
torch() { local d=$1 name=$2; shift 2
  timeout 240 "$PYTHON" tools/pytorch_roundtrip.py "$@" --device "$DEVICE" --data "$DATA" \
    >"$d/$name.log" 2>&1
  echo "  $name rc $? at $((SECONDS - S))s"; tail -n 1 "$d/$name.log" >"$d/$name.json"
}
for c in $CASES; do
  case $c in
    mlp) prog=mlp; extra=() ;;
    cnn) prog=cnn; extra=() ;;
    cnn_bn) prog=cnn; extra=(--bn) ;;
    *) echo "unknown case $c (mlp, cnn, cnn_bn)"; exit 2 ;;
  esac
  d="$OUT/$c"; mkdir -p "$d"; echo "$c:"
  [ -x "$B/examples/$prog" ] || { echo "  $B/examples/$prog not built"; continue; }
  # (a) ember -> PyTorch
  ember "$d" ember_train $prog "${extra[@]}" --epochs "$EPOCHS" "${STEPS[@]}" \
    --metrics "$d/ember_train.jsonl" --export "$d/ember.safetensors"
  torch "$d" torch_eval eval --model $prog "${extra[@]}" --weights "$d/ember.safetensors"
  # (b) PyTorch -> ember
  torch "$d" torch_train train --model $prog "${extra[@]}" --epochs "$EPOCHS" "${STEPS[@]}" \
    --out "$d/torch.pt"
  ember "$d" ember_eval $prog "${extra[@]}" --epochs 0 --weights "$d/torch.pt"
done

# summary.json: per case, each side's accuracy and correct count and the difference in images.
# shellcheck disable=SC2086 # $CASES is a list of cases
"$PYTHON" - "$OUT" "$TOL" "$DEVICE" "$EPOCHS" "${MAX_STEPS:-0}" $CASES <<'PY'
import json, os, sys
out, tol, device, epochs, max_steps, cases = sys.argv[1], int(sys.argv[2]), *sys.argv[3:6], sys.argv[6:]
def read(case, name):
    try:
        with open(os.path.join(out, case, name + ".json")) as f:
            r = json.loads(f.read())
        return {"test_acc": r["test_acc"], "test_correct": r["test_correct"],
                **({"gpu": r["gpu"], "framework": r["framework"]} if "gpu" in r else {})}
    except (OSError, ValueError, KeyError) as e:
        return {"error": f"{name}: no result ({type(e).__name__}); see {case}/{name}.log"}
def compare(trained, evaluated):
    ok = "error" not in trained and "error" not in evaluated
    diff = evaluated["test_correct"] - trained["test_correct"] if ok else None
    return {"trained": trained, "evaluated": evaluated, "diff_images": diff,
            "ok": ok and abs(diff) <= tol}
summary = {"device": device, "epochs": int(epochs), "max_steps": int(max_steps),
           "tolerance_images": tol, "cases": {}}
for c in cases:
    summary["cases"][c] = {
        "ember_to_pytorch": compare(read(c, "ember_train"), read(c, "torch_eval")),
        "pytorch_to_ember": compare(read(c, "torch_train"), read(c, "ember_eval"))}
summary["ok"] = all(w["ok"] for c in summary["cases"].values() for w in c.values())
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1)
for c, ways in summary["cases"].items():
    for way, r in ways.items():
        t, e = r["trained"], r["evaluated"]
        if r["diff_images"] is None:
            print(f"{c:7s} {way}: FAILED {t.get('error', '')} {e.get('error', '')}")
        else:
            print(f"{c:7s} {way}: trained {t['test_correct']} correct, evaluated "
                  f"{e['test_correct']} ({r['diff_images']:+d}) {'ok' if r['ok'] else 'DIFFERS'}")
print("summary: " + ("all within" if summary["ok"] else "NOT all within") + f" {tol} images")
sys.exit(0 if summary["ok"] else 1)
PY
rc=$?; echo "done at $((SECONDS - S))s"; exit $rc
