#!/usr/bin/env bash
# One whole visit to the GPU machine (see docs/gpu.md): configure Release for sm_90, build
# with -j16 outside the tree, run ctest with the GPU visible, time ember's GPU benchmarks
# against their LibTorch and PyTorch twins, run compute-sanitizer (memcheck, racecheck) over
# the CUDA test programs with the time left, and print a summary table last.
# Usage (on the device, from the repo root): tools/gpu_visit.sh "$OUT"
# The whole visit fits in VISIT_BUDGET_S seconds (default 570: the device allows 600 per call).
set -uo pipefail
OUT="${1:?usage: tools/gpu_visit.sh OUT_DIR}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-/tmp/ember-gpu-build}"
JOBS="${JOBS:-16}"
BUDGET="${VISIT_BUDGET_S:-570}"
SCRATCH="$(mktemp -d)"  # raw benchmark JSON and per-run sanitizer logs, merged into OUT
mkdir -p "$OUT"
cd "$ROOT" || exit 1
# The device keeps NVLink multicast off; keep it so in anything started from here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

# The device returns at most 8 files from OUT: machine.txt, build.log, tests.log,
# sanitizer.log, bench.log (also the conv_bench step), bench.json (all the benchmarks, merged),
# mlp.log (the mlp and cnn steps) and summary.txt.
# The MLP and CNN runs need Fashion-MNIST's .gz files in MLP_DATA (default .device/data) and,
# for the examples and their LibTorch twins, CLI11 and nlohmann-json headers (.device/include).
# SANITIZE=0 skips compute-sanitizer (a visit that only times); SKIP="mlp cnn cuda_bench ..."
# skips the steps so named (their names are the summary's).
declare -A status
left() { echo $((BUDGET - SECONDS)); }  # seconds left in the visit
step() {  # step NAME LOGFILE LIMIT_S command...: runs under a time limit, logs, records status
  local name="$1" logf="$2" limit="$3" t0=$SECONDS rc
  shift 3
  if ((limit < 10)); then status[$name]="skipped (out of time)"; return 1; fi
  if [[ " ${SKIP:-} " == *" $name "* ]]; then status[$name]="skipped (SKIP)"; return 1; fi
  echo "== $name (limit ${limit}s)" >&2
  echo "== $name: $*" >>"$OUT/$logf"
  if declare -F "$1" >/dev/null; then  # a shell function keeps its own time limits
    "$@" >>"$OUT/$logf" 2>&1
  else
    timeout --kill-after=10 "$limit" "$@" >>"$OUT/$logf" 2>&1
  fi
  rc=$?
  if ((rc == 0)); then status[$name]="ok $((SECONDS - t0))s"; return 0; fi
  ((rc == 124)) && status[$name]="TIMED OUT ${limit}s" || status[$name]="FAILED rc=$rc $((SECONDS - t0))s"
  status[$name]+=" (see $logf)"
  tail -n 30 "$OUT/$logf" >&2
  return 1
}
min() { echo $(($1 < $2 ? $1 : $2)); }
# within MAX_S command...: for the steps that are shell functions; runs the command under a
# limit of MAX_S seconds or what is left until $deadline (the caller sets it), whichever is
# less; 124 without running it when under 5 s are left.
within() {
  local t=$1
  shift
  ((deadline - SECONDS < t)) && t=$((deadline - SECONDS))
  if ((t < 5)); then echo "== out of time, not run: $*"; return 124; fi
  timeout --kill-after=5 "$t" "$@"
}

{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -n 2
  cmake --version | head -n 1
  g++ --version | head -n 1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  command -v compute-sanitizer
} >"$OUT/machine.txt" 2>&1

# ---- configure and build ----
# LibTorch from the PyTorch wheel, for libtorch_cuda_bench (skipped when absent).
TORCH_PREFIX="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
CONFIG=(-S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON
  -DCMAKE_CUDA_ARCHITECTURES=90 -DEMBER_BUILD_EXAMPLES=ON)
# zlib's headers may be missing there (the library itself is present): use a copy brought
# along in .device/include with the runtime library.
if [ ! -f /usr/include/zlib.h ] && [ -f "$ROOT/.device/include/zlib.h" ]; then
  ZLIB_SO="$(ls /usr/lib/x86_64-linux-gnu/libz.so* /lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -n 1)"
  [ -n "$ZLIB_SO" ] && CONFIG+=(-DZLIB_INCLUDE_DIR="$ROOT/.device/include" -DZLIB_LIBRARY="$ZLIB_SO")
fi
if ! step configure build.log 120 cmake "${CONFIG[@]}" ${TORCH_PREFIX:+-DCMAKE_PREFIX_PATH="$TORCH_PREFIX"}; then
  rm -rf "$BUILD"  # LibTorch's CMake package can fail: retry without the twins
  step configure build.log 60 cmake "${CONFIG[@]}" -DEMBER_BENCH_LIBTORCH=OFF
fi
# -k 0: a target that fails to build doesn't stop the others (its tests then fail in ctest).
# A fresh build takes about 130 s: never give it less than 150 s, whatever the budget.
BUILD_LIMIT=$(min 330 $(($(left) - 180)))
((BUILD_LIMIT < 150)) && BUILD_LIMIT=150
step build build.log "$BUILD_LIMIT" cmake --build "$BUILD" -j "$JOBS" -- -k 0

# ---- tests: everything, with the GPU (CUDA suites skip without one) ----
# CTEST_S / CTEST_J: its time limit and parallelism (a visit with nothing else to do gives more).
step ctest tests.log "$(min "${CTEST_S:-180}" $(($(left) - 120)))" \
  ctest --test-dir "$BUILD" --output-on-failure -j "${CTEST_J:-8}" --timeout 150

# Small ops are batched by default (cuda/batch.h): the CUDA suites again with batching off,
# so that the ordinary kernels stay tested on small shapes too.
step ctest_nobatch tests.log "$(min 120 $(($(left) - 120)))" env EMBER_CUDA_BATCH=0 \
  ctest --test-dir "$BUILD" --output-on-failure -j 8 --timeout 150 \
  -R 'cuda|Cuda|gradcheck.OpTableCuda'

# ---- benchmarks: ember, LibTorch C++, PyTorch; same workload names ----
BENCH_ARGS=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
  --benchmark_out_format=json)
for prog in cuda_bench libtorch_cuda_bench; do
  if [ -x "$BUILD/benchmarks/$prog" ]; then
    step "$prog" bench.log "$(min 120 $(($(left) - 40)))" "$BUILD/benchmarks/$prog" \
      "${BENCH_ARGS[@]}" --benchmark_out="$SCRATCH/$prog.json"
  else
    status[$prog]="not built (Google Benchmark, CUDA or a CUDA LibTorch missing)"
  fi
done
step pytorch_cuda_bench bench.log "$(min 90 $(($(left) - 30)))" \
  bash -c "python3 '$ROOT/benchmarks/pytorch_cuda_bench.py' | tee '$SCRATCH/pytorch_cuda_bench.jsonl'"

# ---- cuDNN: conv2 of examples/cnn (b128, 32->64, 14x14, 3x3, fp32, TF32 off), forward and
# forward + backward, ember then PyTorch, with cuDNN's heuristics and with benchmark mode ----
conv_benches() {
  local deadline=$((SECONDS + $1)) rc=0 flags
  for flags in "" --cudnn-benchmark; do
    if [ -x "$BUILD/benchmarks/conv_bench" ]; then
      within 30 "$BUILD/benchmarks/conv_bench" $flags | tee -a "$SCRATCH/conv_bench.jsonl" || rc=1
    else
      echo "conv_bench not built"
      rc=1
    fi
    within 45 python3 "$ROOT/benchmarks/pytorch_conv_bench.py" $flags |
      tee -a "$SCRATCH/conv_bench.jsonl" || rc=1
  done
  return $rc
}
CONV_LIMIT=$(min 100 $(($(left) - 30)))
step conv_bench bench.log "$CONV_LIMIT" conv_benches "$CONV_LIMIT"

# ---- TF32 8192^3 batch by batch from an idle GPU, ember then PyTorch, with nvidia-smi
# sampling clocks, power and the clock event reasons (0x4: SW power cap) every 100 ms ----
tf32_idle() {
  local smi
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv -lms 100 >"$SCRATCH/smi.csv" 2>&1 &
  smi=$!
  timeout 40 "$BUILD/benchmarks/tf32_from_idle"
  timeout 40 python3 "$ROOT/benchmarks/pytorch_tf32_from_idle.py"
  kill "$smi" 2>/dev/null
  echo "== nvidia-smi during the two runs (SM MHz, W, C, reasons; idle samples left out)"
  awk -F', ' 'NR == 1 || $2 + 0 < 1900 || $3 + 0 > 200' "$SCRATCH/smi.csv"
}
step tf32_idle bench.log "$(min 100 $(($(left) - 60)))" tf32_idle

# ---- the MLP workload (../shared/PERF.md): ember vs LibTorch alternately, PyTorch, accuracy ----
MLP_DATA="${MLP_DATA:-$ROOT/.device/data}"
mlp_runs() {
  local bs lr
  [ -f "$MLP_DATA/train-images-idx3-ubyte.gz" ] || { echo "no Fashion-MNIST in $MLP_DATA"; return 1; }
  for bs in 128 1024; do
    lr=0.05
    ((bs == 1024)) && lr=0.1
    echo "== batch $bs: ember and LibTorch alternately"
    ROUNDS=3 OUT="$SCRATCH/mlp$bs" timeout 150 "$ROOT/tools/mlp_compare.sh" "$BUILD" \
      --data "$MLP_DATA" --device cuda --epochs 3 --batch-size $bs --lr $lr
    cat "$SCRATCH"/mlp$bs/*.log
    cp "$SCRATCH/mlp$bs/mlp_compare.json" "$SCRATCH/mlp_compare_$bs.json" 2>/dev/null
    echo "== batch $bs: PyTorch"
    timeout 60 python3 "$ROOT/benchmarks/pytorch_mlp.py" --data "$MLP_DATA" --epochs 3 \
      --batch-size $bs --lr $lr | tee "$SCRATCH/pytorch_mlp_$bs.log"
  done
  echo "== accuracy: mlp with its defaults (5 epochs, batch 128, SGD lr 0.05 momentum 0.9)"
  timeout 60 "$BUILD/examples/mlp" --data "$MLP_DATA" | tee "$SCRATCH/mlp_default.log"
  local seed
  for seed in 1 2 3 4; do  # the spread over seeds, for the accuracy target
    timeout 60 "$BUILD/examples/mlp" --data "$MLP_DATA" --seed $seed | tee "$SCRATCH/mlp_seed$seed.log"
  done
}
step mlp mlp.log "$(min 200 $(($(left) - 60)))" mlp_runs

# ---- the CNN workload (../shared/PERF.md, docs/cnn.md): ember vs LibTorch alternately at
# batch 128 with TF32 off, PyTorch eager and with the step in a CUDA graph, the same with TF32
# on, the accuracy with the defaults, and --bn with Adam for 10 epochs (ember and PyTorch) ----
cnn_runs() {
  local deadline=$((SECONDS + $1)) rc=0
  local common=(--data "$MLP_DATA" --device cuda --epochs 3 --batch-size 128)
  local pt="$ROOT/benchmarks/pytorch_cnn.py"
  [ -f "$MLP_DATA/train-images-idx3-ubyte.gz" ] || { echo "no Fashion-MNIST in $MLP_DATA"; return 1; }
  echo "== batch 128, TF32 off: ember and LibTorch alternately"
  ROUNDS=2 OUT="$SCRATCH/cnn" within 90 "$ROOT/tools/cnn_compare.sh" "$BUILD" "${common[@]}" || rc=1
  cat "$SCRATCH"/cnn/*.log 2>/dev/null
  cp "$SCRATCH/cnn/cnn_compare.json" "$SCRATCH/cnn_compare.json" 2>/dev/null
  echo "== batch 128, TF32 off: PyTorch eager, then the whole step in a CUDA graph"
  within 40 python3 "$pt" "${common[@]}" | tee "$SCRATCH/pytorch_cnn.log" || rc=1
  within 40 python3 "$pt" "${common[@]}" --graph | tee "$SCRATCH/pytorch_cnn_graph.log" || rc=1
  echo "== batch 128, TF32 on: ember and LibTorch, then PyTorch"
  ROUNDS=1 OUT="$SCRATCH/cnn_tf32" within 50 "$ROOT/tools/cnn_compare.sh" "$BUILD" "${common[@]}" \
    --tf32 || rc=1
  cat "$SCRATCH"/cnn_tf32/*.log 2>/dev/null
  cp "$SCRATCH/cnn_tf32/cnn_compare.json" "$SCRATCH/cnn_compare_tf32.json" 2>/dev/null
  within 40 python3 "$pt" "${common[@]}" --tf32 | tee "$SCRATCH/pytorch_cnn_tf32.log" || rc=1
  echo "== accuracy: cnn with its defaults (3 epochs, batch 128, SGD lr 0.05 momentum 0.9)"
  within 40 "$BUILD/examples/cnn" --data "$MLP_DATA" | tee "$SCRATCH/cnn_default.log" || rc=1
  echo "== accuracy: --bn --optimizer adam --epochs 10, ember then PyTorch"
  within 60 "$BUILD/examples/cnn" --data "$MLP_DATA" --bn --optimizer adam --epochs 10 |
    tee "$SCRATCH/cnn_bn_adam.log" || rc=1
  within 60 python3 "$pt" --data "$MLP_DATA" --bn --optimizer adam --epochs 10 |
    tee "$SCRATCH/pytorch_cnn_bn_adam.log" || rc=1
  return $rc
}
CNN_LIMIT=$(min 240 $(($(left) - 60)))
step cnn mlp.log "$CNN_LIMIT" cnn_runs "$CNN_LIMIT"

# ---- compute-sanitizer over the CUDA test programs, in parallel, with the time left ----
# Small shapes for the parity sweep (each launch is ~100x slower under the tools), and a few
# gradcheck entries; racecheck only where kernels share memory (reductions, softmax, scatter).
T="$BUILD/tests"
GRAD_FILTER='OpTableCuda.add*:OpTableCuda.mul*:OpTableCuda.sum*:OpTableCuda.mm*:OpTableCuda.softmax*:OpTableCuda.index_select*'
RACE_FILTER='*sum*:*mean*:*amax*:*var*:*norm*:*max_dim*:*softmax*:*scatter_add*:*all*'
# The parity sweep in three parts (by op name) so that they run side by side.
PARITY_1='*Sweep/a*:*Sweep/b*:*Sweep/c*:*Sweep/d*:*Sweep/e*'
PARITY_2='*Sweep/f*:*Sweep/g*:*Sweep/i*:*Sweep/l*:*Sweep/m*:*Sweep/n*'
PARITY_3='*Sweep/p*:*Sweep/r*:*Sweep/s*:*Sweep/t*:*Sweep/u*:*Sweep/w*:CudaParity.*'
SAN_RUNS=(
  "memcheck cuda_smoke_test"
  "memcheck cuda_runtime_test --gtest_filter=-*OutOfMemory*"
  "memcheck test_cuda_kernels_misc"
  "memcheck test_cuda_parity --gtest_filter=$PARITY_1"
  "memcheck test_cuda_parity --gtest_filter=$PARITY_2"
  "memcheck test_cuda_parity --gtest_filter=$PARITY_3"
  "memcheck test_gradcheck --gtest_filter=$GRAD_FILTER"
  "racecheck test_cuda_parity --gtest_filter=$RACE_FILTER"
  "racecheck cuda_smoke_test"
  "memcheck test_nn_loss_cuda"
  "racecheck test_nn_loss_cuda"
  "memcheck test_optim_cuda"
  "memcheck test_nn_containers --gtest_filter=*Cuda*"
  "memcheck test_cuda_batch"
  "memcheck test_cuda_module"
  "memcheck test_serialize --gtest_filter=*Cuda*"
  "racecheck test_cuda_batch"
)
sanitize() {
  local limit="$1" i=0 tool prog rest args
  command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not found"; return 1; }
  for run in "${SAN_RUNS[@]}"; do
    read -r tool prog rest <<<"$run"
    read -ra args <<<"$rest"  # no globbing of the filters' '*'
    i=$((i + 1))
    [ -x "$T/$prog" ] || { echo "== $tool $prog: not built" >"$SCRATCH/san$i.log"; continue; }
    # No cached blocks under memcheck, so overruns stay visible; except for the programs
    # that test the caching allocator itself.
    local nocache=1
    [[ "$prog" == cuda_smoke_test || "$prog" == cuda_runtime_test ]] && nocache=0
    ( echo "== $tool $prog $rest"
      EMBER_PARITY_SMALL=1 EMBER_CUDA_NO_CACHING=$nocache timeout "$limit" compute-sanitizer \
        --tool "$tool" --error-exitcode 99 --print-limit 20 "$T/$prog" "${args[@]}" 2>&1 |
        grep -vE '^\[ +(RUN|OK) +\]' | tail -n 150
      rc=${PIPESTATUS[0]}
      echo "== exit $rc$( ((rc == 124)) && echo ' (timed out: partial run)')" ) >"$SCRATCH/san$i.log" 2>&1 &
  done
  wait
  cat "$SCRATCH"/san*.log
  ! grep -qE '^== exit [1-9]' "$SCRATCH"/san*.log
}
SAN_LIMIT=$(min 240 $(($(left) - 25)))
if [ "${SANITIZE:-1}" = 0 ]; then
  status[sanitizer]="skipped (SANITIZE=0)"
else
  step sanitizer sanitizer.log $((SAN_LIMIT + 15)) sanitize "$SAN_LIMIT"
fi

# ---- merge the benchmark results into bench.json, then the summary, last ----
python3 - "$SCRATCH" "$OUT/bench.json" <<'PY'
import json, os, sys
scratch, out = sys.argv[1:]
# Work per call: bytes moved or floating-point operations.
WORK = {"add_2^28": (3 * 4 << 28, "GB/s"), "relu_2^28": (2 * 4 << 28, "GB/s"),
        "sum_2^28": (4 << 28, "GB/s"), "sgemm_4096": (2 * 4096**3, "TFLOP/s"),
        "tf32_8192": (2 * 8192**3, "TFLOP/s")}
def google(name):
    try:
        rows = json.load(open(os.path.join(scratch, name + ".json")))["benchmarks"]
    except (OSError, ValueError, KeyError):
        return {}
    res = {}
    for b in rows:
        if b.get("aggregate_name") != "median":
            continue
        key = b["run_name"].split("/")[0]
        sec = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[b["time_unit"]]
        if key in WORK:
            work, unit = WORK[key]
            res[key] = {"value": work / sec / (1e9 if unit == "GB/s" else 1e12), "unit": unit}
        else:
            res[key] = {"value": sec * 1e6, "unit": "us"}
    return res
def lines(name):
    res = {}
    try:
        for line in open(os.path.join(scratch, name + ".jsonl")):
            if line.startswith("{"):
                r = json.loads(line)
                res[r["name"]] = {"value": r["value"], "unit": r["unit"]}
    except OSError:
        pass
    return res
conv = []  # conv_bench and pytorch_conv_bench: one object per line, as printed
try:
    conv = [json.loads(l) for l in open(os.path.join(scratch, "conv_bench.jsonl")) if l.startswith("{")]
except (OSError, ValueError):
    pass
json.dump({"ember": google("cuda_bench"), "libtorch": google("libtorch_cuda_bench"),
           "pytorch": lines("pytorch_cuda_bench"), "conv": conv}, open(out, "w"), indent=1)
PY

summary() {
  echo "== ember GPU visit: $(sed -n 2p "$OUT/machine.txt")"
  for name in configure build ctest ctest_nobatch tf32_idle cuda_bench libtorch_cuda_bench pytorch_cuda_bench conv_bench mlp cnn sanitizer; do
    printf '%-20s %s\n' "$name" "${status[$name]:-skipped}"
  done
  grep -E 'tests passed|tests failed' "$OUT/tests.log" 2>/dev/null
  sed -n '/The following tests FAILED/,/^Errors while running/p' "$OUT/tests.log" 2>/dev/null |
    head -n 40
  grep -hE '^== (memcheck|racecheck)|ERROR SUMMARY|RACECHECK SUMMARY|^== exit' \
    "$OUT/sanitizer.log" 2>/dev/null
  python3 - "$OUT/bench.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit("no benchmark results")
# The issue's targets on the H200: (at least, at most).
TARGETS = {"add_2^28": (4100, None), "relu_2^28": (4000, None), "sum_2^28": (3500, None),
           "sgemm_4096": (48, None), "tf32_8192": (390, None), "tiny_add_8": (None, 3),
           "backward_8": (None, 15)}
f = lambda v: f"{v:.2f}" if v is not None else "-"
print(f"\n{'workload':<12} {'unit':<8} {'ember':>9} {'pytorch':>9} {'libtorch':>9} "
      f"{'vs pt':>6} {'vs lt':>6}  target")
for name, (lo, hi) in TARGETS.items():
    e, p, t = (r[k].get(name, {}).get("value") for k in ("ember", "pytorch", "libtorch"))
    unit = next((r[k][name]["unit"] for k in r if name in r[k]), "")
    higher = lo is not None
    # speed ratio: > 1 means ember is faster, whichever way the unit goes
    ratio = lambda o: f"{(e / o if higher else o / e):.2f}" if e and o else "-"
    goal = f">= {lo}" if higher else f"<= {hi}"
    met = "" if e is None else ("met" if (e >= lo if higher else e <= hi) else "MISSED")
    print(f"{name:<12} {unit:<8} {f(e):>9} {f(p):>9} {f(t):>9} {ratio(p):>6} {ratio(t):>6}"
          f"  {goal} {met}")
print("(vs pt / vs lt: ember's speed over PyTorch's / LibTorch's; > 1 means ember is faster)")
PY
  python3 - "$SCRATCH" <<'PY'
import json, os, sys
scratch = sys.argv[1]
TARGET = {128: 450e3, 1024: 1.2e6}
print(f"\n{'MLP samples/s':<14} {'ember':>10} {'libtorch':>10} {'pytorch':>10} {'vs lt':>6}  target")
for bs in (128, 1024):
    try:
        c = json.load(open(os.path.join(scratch, f"mlp_compare_{bs}.json")))
    except (OSError, ValueError):
        print(f"batch {bs:<8} no result"); continue
    try:
        pt = json.loads(open(os.path.join(scratch, f"pytorch_mlp_{bs}.log")).read().strip().splitlines()[-1])["train_samples_per_s"]
    except (OSError, ValueError, IndexError, KeyError):
        pt = float("nan")
    e, t = c["ember"]["samples_per_s"], c["libtorch"]["samples_per_s"]
    met = "met" if e >= TARGET[bs] else "MISSED"
    print(f"batch {bs:<8} {e:>10.0f} {t:>10.0f} {pt:>10.0f} {e / t:>6.2f}  >= {TARGET[bs]:.0f} {met}")
try:
    r = json.loads(open(os.path.join(scratch, "mlp_default.log")).read().strip().splitlines()[-1])
    print(f"mlp defaults: test accuracy {100 * r['test_acc']:.2f}% (target >= 88%), "
          f"{r['train_samples_per_s']:.0f} samples/s, wall {r['wall_s']:.1f} s")
    accs = [r['test_acc']]
    for seed in (1, 2, 3, 4):
        try:
            accs.append(json.loads(open(os.path.join(scratch, f"mlp_seed{seed}.log")).read().strip().splitlines()[-1])["test_acc"])
        except (OSError, ValueError, IndexError, KeyError):
            pass
    print(f"mlp seeds 0-{len(accs) - 1}: test accuracy " + ", ".join(f"{100 * a:.2f}" for a in accs) +
          f" (mean {100 * sum(accs) / len(accs):.2f}%)")
except (OSError, ValueError, IndexError, KeyError):
    print("mlp defaults: no result")
PY
  python3 - "$OUT/bench.json" <<'PY'
import json, sys
try:
    conv = json.load(open(sys.argv[1])).get("conv", [])
except (OSError, ValueError):
    conv = []
if not conv:
    print("\nconv2 (cuDNN): no result")
    sys.exit(0)
print(f"\n{'conv2 b128 32->64 14x14 3x3':<28} {'ember us':>9} {'pytorch us':>10} {'vs pt':>6} "
      f"{'ember TF/s':>10}  (device time; wall us ember / pytorch)")
for bench in (False, True):
    for name in ("conv2_fwd", "conv2_fwd_bwd"):
        row = {("ember" if r["framework"] == "ember" else "pytorch"): r for r in conv
               if r["name"] == name and r["cudnn_benchmark"] == bench}
        e, p = row.get("ember"), row.get("pytorch")
        f = lambda r, k: f"{r[k]:.1f}" if r else "-"
        ratio = f"{p['device_us'] / e['device_us']:.2f}" if e and p else "-"
        label = name + (" (benchmark)" if bench else "")
        print(f"{label:<28} {f(e, 'device_us'):>9} {f(p, 'device_us'):>10} {ratio:>6} "
              f"{f(e, 'tflops'):>10}  ({f(e, 'wall_us')} / {f(p, 'wall_us')})")
print("(vs pt: PyTorch's device time over ember's; > 1 means ember is faster)")
PY
  python3 - "$SCRATCH" <<'PY'
import json, os, sys
scratch = sys.argv[1]
def last(name):  # the result JSON: the last line of a log
    try:
        return json.loads(open(os.path.join(scratch, name)).read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return None
def compare(name):
    try:
        c = json.load(open(os.path.join(scratch, name)))
        return c["ember"], c["libtorch"]
    except (OSError, ValueError, KeyError):
        return None, None
n = lambda v: f"{v:.0f}" if v else "-"
pct = lambda r: f"{100 * r['test_acc']:.2f}%" if r else "-"
print(f"\n{'CNN b128 samples/s':<18} {'ember':>9} {'libtorch':>9} {'pytorch':>9} {'pt+graph':>9} "
      f"{'vs lt':>6} {'vs pt':>6} {'vs graph':>8}")
for label, cmp_name, pt_name, graph_name in (
        ("TF32 off", "cnn_compare.json", "pytorch_cnn.log", "pytorch_cnn_graph.log"),
        ("TF32 on", "cnn_compare_tf32.json", "pytorch_cnn_tf32.log", None)):
    e, t = compare(cmp_name)
    p, g = last(pt_name), last(graph_name) if graph_name else None
    es = e["samples_per_s"] if e else None
    ts = t["samples_per_s"] if t else None
    ps = p["train_samples_per_s"] if p else None
    gs = g["train_samples_per_s"] if g else None
    r = lambda o: f"{es / o:.2f}" if es and o else "-"
    print(f"{label:<18} {n(es):>9} {n(ts):>9} {n(ps):>9} {n(gs):>9} {r(ts):>6} {r(ps):>6} {r(gs):>8}")
    acc = lambda x: f"{100 * x['test_acc']:.2f}%" if x else "-"
    print(f"{'  test accuracy':<18} {acc(e):>9} {acc(t):>9} {pct(p):>9} {pct(g):>9}")
d = last("cnn_default.log")
print(f"cnn defaults (3 epochs, SGD): test accuracy {pct(d)}" +
      (f", {d['train_samples_per_s']:.0f} samples/s, wall {d['wall_s']:.1f} s" if d else ""))
eb, pb = last("cnn_bn_adam.log"), last("pytorch_cnn_bn_adam.log")
print(f"cnn --bn --optimizer adam --epochs 10: test accuracy ember {pct(eb)}, PyTorch {pct(pb)}" +
      (f"; ember {eb['train_samples_per_s']:.0f} samples/s" if eb else "") +
      (f", PyTorch {pb['train_samples_per_s']:.0f}" if pb else ""))
PY
}
summary | tee "$OUT/summary.txt"
rm -rf "$SCRATCH"
