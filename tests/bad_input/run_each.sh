#!/usr/bin/env bash
# Runs every case of a GoogleTest binary (the bad-input suite, test_bad_input) in a fresh process
# (the binary exec'd with --gtest_filter=Suite.Case), so one crash can't hide the others.
#
#   tests/bad_input/run_each.sh BINARY [--jobs N] [--timeout S]
#
# Counts per suite (area): passed, failed (an assertion, an uncaught exception, a leak report),
# crashed (killed by a signal: segfault, abort; or an AddressSanitizer/UBSan report), hung (no
# exit within the timeout, 30 s), skipped; prints a table, the slowest cases and the last lines
# of each case that did not pass; exits 1 if any failed, crashed or hung (or none was found).
set -u

binary=""
jobs=$(nproc 2>/dev/null || echo 2)
timeout_s=30
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) binary="$1"; shift ;;
  esac
done
if [ -z "$binary" ] || [ ! -x "$binary" ]; then
  echo "run_each.sh: no executable test binary given ('$binary')" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ember_run_each_XXXXXX")
trap 'rm -rf "$work"' EXIT

# --gtest_list_tests prints "Suite." lines, then "  Case" lines (with "  # ..." comments for
# parameterized cases).
if ! "$binary" --gtest_list_tests > "$work/list" 2> "$work/list.err"; then
  echo "run_each.sh: $binary --gtest_list_tests failed:" >&2
  cat "$work/list.err" >&2
  exit 1
fi
awk '/^[^ ]/ { suite = $1 } /^  / { print suite $1 }' "$work/list" > "$work/cases"
total=$(wc -l < "$work/cases")
if [ "$total" -eq 0 ]; then
  echo "run_each.sh: $binary lists no tests" >&2
  exit 1
fi

# Case n: "suite name outcome seconds n" in $work/results/<n>.res, its output in <n>.log.
# timeout(1) execs the binary in a new process; 124 means it outlived the limit, 128 + N that
# signal N ended it (timeout reports the child's signal that way, as the shell does).
mkdir -p "$work/results"
run_case() {
  local n="$1" name="$2" log="$work/results/$1.log"
  local start end rc outcome
  start=$(date +%s.%N)
  timeout -k 5 "$timeout_s" "$binary" --gtest_filter="$name" --gtest_color=no > "$log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  if [ $rc -eq 0 ]; then
    if grep -q '^\[  SKIPPED \] 1 test' "$log"; then
      outcome=skipped
    elif grep -q '^\[  PASSED  \] 1 test' "$log"; then
      outcome=passed
    else
      outcome=failed  # exit 0 without running the case (a filter that matched nothing)
    fi
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    outcome=hung
  elif [ $rc -gt 128 ]; then
    outcome=crashed
    echo "(killed by signal $((rc - 128)): SIG$(kill -l $((rc - 128)) 2>/dev/null))" >> "$log"
  elif grep -q -E '^==[0-9]+==ERROR: AddressSanitizer|runtime error: ' "$log"; then
    outcome=crashed  # a sanitizer's report (ASan and UBSan exit with 1 unless told to abort)
  else
    outcome=failed
  fi
  printf '%s %s %s %s %s\n' "${name%%.*}" "$name" "$outcome" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')" "$n" > "$work/results/$n.res"
}

started=$(date +%s.%N)
n=0
while IFS= read -r name; do
  n=$((n + 1))
  run_case "$n" "$name" &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done < "$work/cases"
wait
finished=$(date +%s.%N)

cat "$work/results"/*.res | sort -k5,5n > "$work/all"
awk -v elapsed="$(awk -v a="$started" -v b="$finished" 'BEGIN { printf "%.1f", b - a }')" \
    -v jobs="$jobs" '
  { cases[$1]++; count[$1, $3]++; total[$3]++; n++; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END {
    printf "%-16s %6s %7s %7s %8s %5s %8s\n", "area (suite)", "cases", "passed", "failed", "crashed", "hung", "skipped"
    for (i = 1; i <= k; i++) {
      s = order[i]
      printf "%-16s %6d %7d %7d %8d %5d %8d\n", s, cases[s], count[s, "passed"], count[s, "failed"], count[s, "crashed"], count[s, "hung"], count[s, "skipped"]
    }
    printf "%-16s %6d %7d %7d %8d %5d %8d\n", "total", n, total["passed"], total["failed"], total["crashed"], total["hung"], total["skipped"]
    printf "%d cases, one process each, %d at a time: %s s\n", n, jobs, elapsed
  }' "$work/all"

echo "slowest: $(sort -k4,4nr "$work/all" | head -n 3 | awk '{ printf "%s%s %s s", sep, $2, $4; sep = ", " }')"

bad=$(awk '$3 == "failed" || $3 == "crashed" || $3 == "hung"' "$work/all")
if [ -n "$bad" ]; then
  echo
  echo "cases that did not pass:"
  while read -r suite name outcome seconds n; do
    echo "--- $name: $outcome ($seconds s)"
    tail -n 15 "$work/results/$n.log"
  done <<< "$bad"
  exit 1
fi
exit 0
