#!/usr/bin/env bash
# Runs ember's examples/mlp and its LibTorch twin (benchmarks/libtorch_mlp) alternately with the
# same options, ROUNDS times each, and prints the median steady samples/s of each and their
# ratio. Options after the build folder go to both programs.
# Usage: tools/mlp_compare.sh [BUILD_DIR] [--device cpu --batch-size 128 --epochs 3 ...]
# Env: ROUNDS (default 3), OUT (a folder for the raw logs and summary JSON, optional).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/tools/common.sh"
ember_openblas_coretype
BUILD="${1:-$ROOT/build}"
shift || true
ROUNDS="${ROUNDS:-3}"
EMBER="$BUILD/examples/mlp"
TORCH="$BUILD/benchmarks/libtorch_mlp"
for p in "$EMBER" "$TORCH"; do
  [ -x "$p" ] || { echo "missing $p (build with LibTorch found; see docs/mlp.md)" >&2; exit 1; }
done
LOGS="${OUT:-$(mktemp -d)}"
mkdir -p "$LOGS"

for r in $(seq 1 "$ROUNDS"); do
  for prog in ember torch; do
    bin="$EMBER"
    [ "$prog" = torch ] && bin="$TORCH"
    "$bin" "$@" > "$LOGS/$prog.$r.log"
    echo "round $r $prog: $(tail -n 1 "$LOGS/$prog.$r.log")"
  done
done

python3 - "$LOGS" "$ROUNDS" "$*" <<'PY'
import json, statistics, sys
logs, rounds, args = sys.argv[1], int(sys.argv[2]), sys.argv[3]
res = {}
for prog in ("ember", "torch"):
    runs = [json.loads(open(f"{logs}/{prog}.{r}.log").read().strip().splitlines()[-1])
            for r in range(1, rounds + 1)]
    res[prog] = {"samples_per_s": statistics.median(x["train_samples_per_s"] for x in runs),
                 "test_acc": statistics.median(x["test_acc"] for x in runs)}
ratio = res["ember"]["samples_per_s"] / res["torch"]["samples_per_s"]
summary = {"args": args, "rounds": rounds, "ember": res["ember"], "libtorch": res["torch"],
           "ratio": ratio}
json.dump(summary, open(f"{logs}/mlp_compare.json", "w"))
print(f"mlp {args}: ember {res['ember']['samples_per_s']:.0f} samples/s "
      f"(acc {100*res['ember']['test_acc']:.2f}%), LibTorch {res['torch']['samples_per_s']:.0f} "
      f"samples/s (acc {100*res['torch']['test_acc']:.2f}%), ratio {ratio:.2f}x "
      f"(medians of {rounds} alternating runs)")
PY
