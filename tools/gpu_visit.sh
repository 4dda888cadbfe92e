#!/usr/bin/env bash
# One whole visit to the GPU machine (see docs/gpu.md): configure Release for sm_90, build
# with -j16 outside the tree, run ctest with the GPU visible, run the benchmarks and their
# LibTorch twins, keep logs and JSON in OUT_DIR, and print a summary table last.
# Usage (on the device, from the repo root): tools/gpu_visit.sh "$OUT"
set -uo pipefail
OUT="${1:?usage: tools/gpu_visit.sh OUT_DIR}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-/tmp/ember-gpu-build}"
JOBS="${JOBS:-16}"
mkdir -p "$OUT"
cd "$ROOT"
# The device keeps NVLink multicast off; keep it so in anything started from here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

declare -A status
# The device returns at most 8 files from OUT: machine.txt, build.log, tests.log, bench.log,
# two benchmark JSONs and summary.txt.
step() {  # step NAME LOGFILE command...: runs, appends to the log, records ok/FAILED and time
  local name="$1" logf="$2" t0=$SECONDS
  shift 2
  echo "== $name" >&2
  echo "== $name: $*" >>"$OUT/$logf"
  if "$@" >>"$OUT/$logf" 2>&1; then status[$name]="ok $((SECONDS - t0))s"; else
    status[$name]="FAILED $((SECONDS - t0))s (see $logf)"
    tail -n 30 "$OUT/$logf" >&2
  fi
}

{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -n 2
  cmake --version | head -n 1
  g++ --version | head -n 1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} >"$OUT/machine.txt" 2>&1

# LibTorch from the PyTorch wheel, for the benchmark twins (skipped when absent).
TORCH_PREFIX="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"

CONFIG=(-S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON
  -DCMAKE_CUDA_ARCHITECTURES=90)
step configure build.log cmake "${CONFIG[@]}" ${TORCH_PREFIX:+-DCMAKE_PREFIX_PATH="$TORCH_PREFIX"}
if [[ "${status[configure]}" == FAILED* ]]; then  # LibTorch's package can fail: retry without
  rm -rf "$BUILD"
  step configure build.log cmake "${CONFIG[@]}" -DEMBER_BENCH_LIBTORCH=OFF
fi
step build build.log cmake --build "$BUILD" -j "$JOBS"
step ctest tests.log ctest --test-dir "$BUILD" --output-on-failure -j 8 --timeout 300
step cuda_smoke tests.log "$BUILD/tests/cuda_smoke_test"

BENCH_ARGS=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
  --benchmark_out_format=json)
for prog in micro_bench libtorch_micro_bench; do
  if [ -x "$BUILD/benchmarks/$prog" ]; then
    step "$prog" bench.log "$BUILD/benchmarks/$prog" "${BENCH_ARGS[@]}" \
      --benchmark_out="$OUT/$prog.json"
  else
    status[$prog]="not built (Google Benchmark or LibTorch missing)"
  fi
done

# ---- summary, last ----
summary() {
echo "== ember GPU visit: $(head -n 2 "$OUT/machine.txt" | tail -n 1)"
for name in configure build ctest cuda_smoke micro_bench libtorch_micro_bench; do
  printf '%-22s %s\n' "$name" "${status[$name]:-skipped}"
done
grep -E 'tests passed|tests failed' "$OUT/tests.log" 2>/dev/null
grep -E '^\[  (PASSED|SKIPPED) \]' "$OUT/tests.log" 2>/dev/null | tail -n 2 | sed 's/^/cuda_smoke_test: /'
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(out, name + ".json")) as f:
            rows = json.load(f)["benchmarks"]
    except (OSError, ValueError, KeyError):
        return {}
    res = {}
    for b in rows:
        if b.get("aggregate_name") != "median":
            continue
        key = b["run_name"].replace("matmul_mnk/", "").replace("/real_time", "")
        ns = b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        if key.startswith(("add_", "sum_")):
            res[key] = (b["bytes_per_second"] / 1e9, "GB/s", True)
        elif key.startswith("sgemm"):
            res[key] = (b["FLOPS"] / 1e9, "GFLOP/s", True)
        elif key.startswith("tiny"):
            res[key] = (ns, "ns/op", False)
        else:
            res[key] = (ns / 1e3, "us", False)
    return res
e, t = load("micro_bench"), load("libtorch_micro_bench")
if e or t:
    print(f"{'workload':<18} {'unit':<8} {'ember':>10} {'libtorch':>10} {'ratio':>7}")
    for k in sorted(set(e) | set(t)):
        ev, tv = e.get(k), t.get(k)
        unit = (ev or tv)[1]
        ratio = ""
        if ev and tv and ev[0] > 0 and tv[0] > 0:
            ratio = f"{(ev[0] / tv[0]) if ev[2] else (tv[0] / ev[0]):.2f}x"
        f = lambda v: f"{v[0]:.1f}" if v else "-"
        print(f"{k:<18} {unit:<8} {f(ev):>10} {f(tv):>10} {ratio:>7}")
PY
}
summary | tee "$OUT/summary.txt"
