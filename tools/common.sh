# Shared helpers for tools/*.sh (sourced, not run): repo root, job count, cmake generator.
# Ninja when present (faster no-op rebuilds), but never switch an existing build's generator.

EMBER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"

# ember_configure BUILD_DIR [cmake args...]
ember_configure() {
  local dir="$1"
  shift
  local gen=()
  if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
  cmake -S "$EMBER_ROOT" -B "$dir" "${gen[@]}" "$@"
}

log() { printf '\n== %s\n' "$*"; }
