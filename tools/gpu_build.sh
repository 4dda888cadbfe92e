#!/usr/bin/env bash
# Configures and builds ember on the GPU machine (Release, sm_90, zlib's headers from
# .device/include when the machine lacks them) within a time limit; extra arguments go to
# cmake's configure step; TARGETS="a b" builds only those. Usage:
#   [TARGETS="..."] tools/gpu_build.sh BUILD LOG SECONDS [-DOPTION=...]
set -uo pipefail
B="${1:?usage: tools/gpu_build.sh BUILD LOG SECONDS [cmake options]}"; LOG="${2:?}"; LIMIT="${3:-230}"
shift 3
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CONFIG=(-S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON
  -DCMAKE_CUDA_ARCHITECTURES=90 -DEMBER_BENCH_LIBTORCH=OFF "$@")
if [ ! -f /usr/include/zlib.h ] && [ -f "$ROOT/.device/include/zlib.h" ]; then
  ZLIB_SO="$(ls /usr/lib/x86_64-linux-gnu/libz.so* /lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -n 1)"
  [ -n "$ZLIB_SO" ] && CONFIG+=(-DZLIB_INCLUDE_DIR="$ROOT/.device/include" -DZLIB_LIBRARY="$ZLIB_SO")
fi
S=$SECONDS
cmake "${CONFIG[@]}" >"$LOG" 2>&1 || { echo "configure failed"; tail -20 "$LOG"; exit 1; }
# shellcheck disable=SC2086
timeout "$LIMIT" cmake --build "$B" -j16 ${TARGETS:+--target $TARGETS} -- -k 0 >>"$LOG" 2>&1
rc=$?
echo "build rc $rc in $((SECONDS - S)) s"
grep -E "error:|FAILED" "$LOG" | head -20
exit $rc
