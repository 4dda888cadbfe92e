#!/usr/bin/env bash
# The layering rules of docs/design.md, checked on libember's object files (ctest:
# layers.symbols): each object's undefined symbols are matched with the object that defines
# them (strong definitions only), and a reference from one folder to another must be one the
# rules allow. Catches calls through declarations written by hand, which the include check
# (check_layers.sh) cannot see. Usage: tests/check_symbols.sh OBJECT_DIR (CMakeFiles/ember.dir)
set -uo pipefail
dir="${1:?usage: check_symbols.sh OBJECT_DIR}"
cd "$dir" || exit 2
command -v nm >/dev/null || { echo "check_symbols: nm not found"; exit 2; }
mapfile -t objects < <(find . -name '*.o' | sed 's|^\./||' | sort)
if [ "${#objects[@]}" -lt 20 ]; then
  echo "check_symbols: only ${#objects[@]} objects under $dir (build the library first)"
  exit 2
fi
defs=$(mktemp) refs=$(mktemp)
trap 'rm -f "$defs" "$refs"' EXIT
for o in "${objects[@]}"; do
  nm --defined-only -P "$o" 2>/dev/null | awk -v o="$o" '$2 ~ /^[TDBR]$/ {print $1, o}' >>"$defs"
  nm -u -P "$o" 2>/dev/null | awk -v o="$o" '{print $1, o}' >>"$refs"
done
# allowed FROM_OBJECT TO_OBJECT: the rules, by folder (the object's path under the object dir).
awk '
function folder(o) { split(o, p, "/"); return p[1] }
function allowed(from, to, sym,    f, t) {
  f = folder(from); t = folder(to)
  if (f == t) return 1
  if (t == "core" && (f == "cpu" || f == "cuda" || f == "autograd")) return 1
  # core/ uses nothing above it but the one entry point it declares for the registry,
  # ember::register_backends() (autograd fills the tables of recording forms from there).
  if (f == "core" && t == "backends" && sym == "_ZN5ember17register_backendsEv") return 1
  # backends/: the registry above core (register_backend of each backend, the CPU check).
  if (f == "backends" && t ~ /^(core|cpu|cuda|autograd)$/) return 1
  public_cuda = (to ~ /^cuda\/(api|graph|module|stream)\.cpp\.o$/ || to ~ /^cuda\/no_cuda\//)
  # The frontend: core, autograd, each other, and the public CUDA API.
  if (f ~ /^(nn|optim|data|serialize)$/) {
    if (t ~ /^(core|autograd|nn|optim|data|serialize)$/) return 1
    if (t == "cuda" && public_cuda) return 1
  }
  return 0
}
NR == FNR { owner[$1] = $2; next }
($1 in owner) && !allowed($2, owner[$1], $1) {
  printf "layering: %s uses %s, defined in %s\n", $2, $1, owner[$1]; bad = 1
}
END { exit bad }
' "$defs" "$refs"
status=$?
if [ "$status" = 0 ]; then
  echo "layering: the symbols of ${#objects[@]} objects follow docs/design.md's rules"
fi
exit "$status"
