#!/usr/bin/env bash
# The LibTorch-twin test's snippet selection: joins tests/twin/snippets_*.cpp into one file
# (ported to ember with --port), compiles it with -fsyntax-only, and drops each snippet that a
# compiler error points into, until the rest compiles: one missing call hides nothing else.
# Usage: tools/twin-select.sh [--port] OUT.cpp MISSING.txt -- CXX FLAGS... -- SNIPPETS...
# OUT.cpp gets the snippets that compile (with blank lines where the others were); MISSING.txt
# the names of the others, one per line. An error in a file's preamble (the lines before its
# first snippet) drops that file's snippets; one that points into no snippet file fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
port=0
if [ "${1:-}" = --port ]; then port=1; shift; fi
out=$1 missing=$2
shift 2
[ "$1" = -- ] || { echo "usage: $0 [--port] OUT.cpp MISSING.txt -- CXX FLAGS... -- SNIPPETS..." >&2; exit 2; }
shift
compile=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do compile+=("$1"); shift; done
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/twin_snippets.cpp
{
  echo '#include "twin.h"'
  for f in "$@"; do
    echo "// twin-file: $(basename "$f")"
    if [ $port = 1 ]; then "$here/port-from-libtorch.sh" "$f"; else cat "$f"; fi
  done
} >"$src"
# line -> snippet name, or "@FILE" for a line of FILE's preamble; a snippet runs from its
# TWIN( line to the line before the next TWIN( or file marker.
map_lines() {
  awk '/^\/\/ twin-file: /{file=$3; cur="@" file}
       match($0,/^TWIN\(([A-Za-z0-9_]+)\)/){cur=substr($0,6,RLENGTH-6)}
       {print NR, cur, file}' "$src"
}
: >"$work/dropped"
for round in 1 2 3 4 5 6 7 8; do
  if "${compile[@]}" -fsyntax-only -x c++ "$src" >"$work/log" 2>&1; then
    sort -u "$work/dropped" >"$missing"
    cp "$src" "$out"
    echo "twin-select: $(grep -c '^TWIN(' "$out") snippets compile, $(wc -l <"$missing") dropped"
    exit 0
  fi
  # Locations at a line's start (errors, notes, "required from here"); not "In file included from".
  grep -oE "^[^ ]*twin_snippets\.cpp:[0-9]+:" "$work/log" |
    sed -E "s/.*twin_snippets\.cpp:([0-9]+):/\1/" | sort -un >"$work/lines"
  map_lines >"$work/map"
  # What to drop: the snippets errors point into; for a preamble error, the file's snippets.
  awk 'NR==FNR{l[$1]=1; next} ($1 in l){print $2}' "$work/lines" "$work/map" | sort -u >"$work/bad"
  if [ ! -s "$work/bad" ] || grep -qxE '@|' "$work/bad"; then
    echo "twin-select: an error outside the snippet files (or none that points into them):" >&2
    head -40 "$work/log" >&2
    exit 1
  fi
  awk 'NR==FNR{if ($1 ~ /^@/) f[substr($1,2)]=1; next} (f[$3] && $2 !~ /^@/){print $2}' \
    "$work/bad" "$work/map" | sort -u >"$work/bad_files"
  { grep -v '^@' "$work/bad" || true; cat "$work/bad_files"; } | sort -u >"$work/bad_snippets"
  cat "$work/bad_snippets" >>"$work/dropped"
  echo "twin-select: round $round drops $(wc -l <"$work/bad_snippets") snippets" \
    "$(grep '^@' "$work/bad" | tr '\n' ' ')" >&2
  # Blank the dropped snippets' lines, and the preambles that failed (line numbers stay the same).
  awk 'FILENAME==ARGV[1]{d[$1]=1; next} FILENAME==ARGV[2]{key[$1]=$2; next}
       {k=key[FNR]; print ((k in d) ? "" : $0)}' "$work/bad" "$work/map" "$src" >"$src.new"
  awk 'FILENAME==ARGV[1]{d[$1]=1; next} FILENAME==ARGV[2]{key[$1]=$2; next}
       {k=key[FNR]; print ((k in d) ? "" : $0)}' "$work/bad_snippets" "$work/map" "$src.new" >"$src"
  rm -f "$src.new"
done
echo "twin-select: still failing after 8 rounds" >&2
head -40 "$work/log" >&2
exit 1
