#!/usr/bin/env bash
# Issue 18 on the GPU machine: the CUDA soak (eagerly, and with graphs over 4 batch sizes) and
# compute-sanitizer's four tools (memcheck, racecheck, initcheck, synccheck) over the CUDA test
# programs, in parallel, until a deadline; prints the error counts per tool last.
# Usage (on the device, after a build): tools/gpu_reliability.sh BUILD OUT SOAK_STEPS SAN_SECONDS
#   [PART]   PART (1 or 2, default both) picks half of the sanitizer runs, for two visits.
set -uo pipefail
B="${1:?usage: BUILD OUT SOAK_STEPS SAN_SECONDS [PART]}"; OUT="${2:?}"; STEPS="${3:-20000}"
SAN_S="${4:-240}"; PART="${5:-0}"
mkdir -p "$OUT/san"
T="$B/tests"

# ---- soak: eager (batch sizes 1..512), then graphs (1, 64, 256, 512) ----
if [ "$STEPS" -gt 0 ]; then
  "$T/soak" --device cuda --steps "$STEPS" --every 250 --csv "$OUT/soak_cuda.csv" \
    >"$OUT/soak_cuda.log" 2>&1
  echo "soak cuda eager rc $?: $(tail -1 "$OUT/soak_cuda.log")"
  "$T/soak" --device cuda --graph --steps "$STEPS" --every 250 --csv "$OUT/soak_cuda_graph.csv" \
    >"$OUT/soak_cuda_graph.log" 2>&1
  echo "soak cuda graph rc $?: $(tail -1 "$OUT/soak_cuda_graph.log")"
fi

# ---- compute-sanitizer ----
# Small shapes in the parity sweep (EMBER_PARITY_SMALL); no caching (EMBER_CUDA_NO_CACHING)
# so that memcheck and initcheck see each tensor's own allocation, except for programs that
# test the allocator or capture graphs. API errors that error-path tests provoke on purpose
# are not reported (--report-api-errors no).
# Quick programs first: with JOBS at a time until the deadline, the slow parity sweeps come last.
# PROGRAMS_LIST / TOOLS_LIST (space-separated) narrow the runs.
DEFAULT_PROGRAMS=(cuda_smoke_test cuda_runtime_test test_cuda_batch test_cuda_oom test_cuda_graph
  test_cuda_module test_cuda_kernels_misc test_cuda_pool test_nn_loss_cuda test_optim_cuda
  test_threads test_cuda_conv test_cuda_elementwise_kernel test_cuda_parity/8)
read -ra PROGRAMS <<<"${PROGRAMS_LIST:-${DEFAULT_PROGRAMS[*]}}"
read -ra TOOLS <<<"${TOOLS_LIST:-memcheck racecheck initcheck synccheck}"
# RUNS_LIST="tool:program[/SHARDS] ..." names the runs instead; PROGRAM/SHARDS runs the program
# as SHARDS GoogleTest shards (GTEST_TOTAL_SHARDS), each its own run; PROGRAM/SHARDS@I,J,...
# runs only the shards numbered I, J, ... (0-based) of the SHARDS.
RUNS=()
if [ -n "${RUNS_LIST:-}" ]; then
  read -ra RUNS <<<"$RUNS_LIST"
else
  i=0
  for prog in "${PROGRAMS[@]}"; do
    for tool in "${TOOLS[@]}"; do
      i=$((i + 1))
      if [ "$PART" = 1 ] && ((i % 2 == 0)); then continue; fi
      if [ "$PART" = 2 ] && ((i % 2 == 1)); then continue; fi
      RUNS+=("$tool:$prog")
    done
  done
fi
JOBS="${JOBS:-12}"
deadline=$((SECONDS + SAN_S))
i=0
for run in "${RUNS[@]}"; do
  tool="${run%%:*}"; prog="${run#*:}"; shards=1; picked=""
  case "$prog" in *@*) picked=",${prog#*@},"; prog="${prog%@*}" ;; esac
  case "$prog" in */*) shards="${prog#*/}"; prog="${prog%/*}" ;; esac
  [ -x "$T/$prog" ] || continue
  nocache=1
  case "$prog" in cuda_runtime_test | test_cuda_graph | test_cuda_oom | cuda_smoke_test) nocache=0 ;; esac
  for ((shard = 0; shard < shards; shard++)); do
    [ -z "$picked" ] || [[ "$picked" == *",$shard,"* ]] || continue
    i=$((i + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    left=$((deadline - SECONDS))
    ((left >= 20)) || break 2
    name="$prog"; ((shards > 1)) && name="$prog[$shard/$shards]"
    # RACECHECK_FILTER (e.g. kns=ember): racecheck instruments only the kernels it names, so
    # the vendor's (cuBLAS, cuDNN) run at full speed; racecheck reports shared-memory hazards only.
    filter=()
    [ "$tool" = racecheck ] && [ -n "${RACECHECK_FILTER:-}" ] && filter=(--kernel-name "$RACECHECK_FILTER")
    (
      echo "== $tool $name"
      GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard EMBER_PARITY_SMALL=1 \
        EMBER_CUDA_NO_CACHING=$nocache timeout "$left" compute-sanitizer \
        --tool "$tool" --report-api-errors no --print-limit 20 ${filter[@]+"${filter[@]}"} \
        "$T/$prog" --gtest_brief=1 2>&1 |
        grep -vE '^\[ +(RUN|OK) +\]' | tail -n 120
      echo "== exit ${PIPESTATUS[0]}"
    ) >"$OUT/san/$i.log" 2>&1 &
  done
done
wait

# ---- the counts per tool: programs finished, timed out, errors (hazards for racecheck) ----
python3 - "$OUT/san" <<'PY' | tee "$OUT/sanitizer_summary.txt"
import glob, re, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.log")):
    text = open(f).read()
    m = re.match(r"== (\w+) (\S+)", text)
    if not m or "not built" in text:
        continue
    tool, prog = m.groups()
    r = rows.setdefault(tool, {"runs": 0, "finished": 0, "timed_out": [], "errors": 0, "with_errors": [], "failed": []})
    r["runs"] += 1
    ex = re.search(r"== exit (\d+)", text)
    code = int(ex.group(1)) if ex else -1
    if code == 124:
        r["timed_out"].append(prog)
    else:
        r["finished"] += 1
        if code != 0:
            r["failed"].append(f"{prog} (exit {code})")
    n = sum(int(x) for x in re.findall(r"ERROR SUMMARY: (\d+) error", text))
    n += sum(int(x) for x in re.findall(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) error", text))
    r["errors"] += n
    if n:
        r["with_errors"].append(f"{prog} ({n})")
for tool, r in rows.items():
    print(f"{tool}: {r['runs']} programs, {r['finished']} finished, {len(r['timed_out'])} timed out "
          f"({' '.join(r['timed_out']) or '-'}), errors {r['errors']} "
          f"({' '.join(r['with_errors']) or '-'}), nonzero exits: {' '.join(r['failed']) or '-'}")
PY
# One file comes back from the machine more surely than eighty.
cat "$OUT"/san/*.log >"$OUT/sanitizer.log" 2>/dev/null && rm -rf "$OUT/san"
