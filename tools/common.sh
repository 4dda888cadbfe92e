# Shared helpers for tools/*.sh (sourced, not run): repo root, job count, cmake generator,
# and installing missing Debian packages.

EMBER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"

# What building and testing ember needs from Debian 12 (CUDA is optional and not from here).
EMBER_BUILD_PACKAGES=(cmake g++ ninja-build libeigen3-dev libgtest-dev libgmock-dev
  libbenchmark-dev zlib1g-dev nlohmann-json3-dev libcli11-dev)

log() { printf '\n== %s (%d s)\n' "$*" "$SECONDS"; }

# ember_install_missing PACKAGE...: apt-get installs only those not installed yet (sudo when
# not root), so that on a prepared machine this costs one dpkg-query per package.
ember_install_missing() {
  command -v dpkg-query >/dev/null 2>&1 || return 0  # not Debian: the user installs by hand
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
}

# ember_configure BUILD_DIR [cmake args...]: Ninja when present (faster no-op rebuilds), but
# never switches the generator of an existing build folder.
ember_configure() {
  local dir="$1"
  shift
  local gen=()
  if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
  cmake -S "$EMBER_ROOT" -B "$dir" "${gen[@]}" "$@"
}

# ember_openblas_coretype: LibTorch's GEMMs are OpenBLAS's. On a virtual machine whose CPU reports
# a generic model, Debian's OpenBLAS 0.3.21 picks its "Prescott" (SSE3) kernels: 5-6x slower
# than its AVX-512 ones, which would make every comparison wrong. Unless the caller set
# OPENBLAS_CORETYPE, export the best core type the CPU's flags allow (Cooperlake with
# avx512_bf16, SkylakeX with avx512f, Haswell with avx2) and say so on stderr. Benchmarks only.
ember_openblas_coretype() {
  [ -n "${OPENBLAS_CORETYPE:-}" ] && return 0
  local flags core=""
  flags="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
  if [[ " $flags " == *" avx512_bf16 "* ]]; then
    core=Cooperlake
  elif [[ " $flags " == *" avx512f "* ]]; then
    core=SkylakeX
  elif [[ " $flags " == *" avx2 "* ]]; then
    core=Haswell
  fi
  [ -z "$core" ] && return 0
  export OPENBLAS_CORETYPE="$core"
  echo "note: OPENBLAS_CORETYPE=$core for LibTorch's OpenBLAS (see tools/common.sh)" >&2
}
