#!/usr/bin/env bash
# The layering rules of docs/design.md, checked on the sources (ctest: layers.includes): which
# of ember's folders each folder may include, and where vendor headers (Eigen, CUDA, cuBLAS,
# cuDNN, NVRTC) may appear. Prints every violation and exits 1 if there is one.
# Usage: tests/check_layers.sh [REPO_ROOT]
set -uo pipefail
cd "${1:-$(dirname "$0")/..}" || exit 2
fail=0

# includes FOLDER: "file:line:folder/header" for each #include <ember/...> of the folder's files
includes() {
  grep -rnoE '^#include <ember/[a-z_]+(/[a-z_./]+)?>' --include='*.h' --include='*.cpp' \
    --include='*.cu' --include='*.cuh' --include='*.def' "$1" 2>/dev/null |
    sed -E 's/#include <ember\/(.*)>/\1/'
}

# allow FOLDER REGEX [EXCEPTION_REGEX]: every ember include of FOLDER's files must match REGEX
# ("folder/header"), or the whole "file:line:header" must match EXCEPTION_REGEX.
allow() {
  local folder="$1" ok="$2" except="${3:-^$}" line header
  while IFS= read -r line; do
    header="${line##*:}"
    if [[ "$header" =~ $ok ]] || [[ "$line" =~ $except ]]; then continue; fi
    echo "layering: $line: $folder/ may not include <ember/$header>"
    fail=1
  done < <(includes "$folder")
}

# Backends: core/, common/ and their own folder.
allow cpu '^(core|cpu|common)/'
allow cuda '^(core|cuda|common)/'
allow common '^(core|common)/'
# autograd/ sits on core/.
allow autograd '^(core|autograd)/'
# core/: itself only (autograd/'s recording forms come through tables autograd fills); the
# backends reach it through registration and the device hooks (core/device_hooks.h) only.
allow core '^core/'
# backends/: the registry above core, which calls each backend's register_backend().
allow backends '^(core|cpu|cuda|autograd|backends)/'
# The frontend: the public API only (no backend internals, no common/).
for f in nn optim data serialize; do
  allow "$f" '^(core|autograd|nn|optim|data|serialize)/|^cuda/(api|graph|module)\.h$'
done

# Above core/, kernels run through core's front-ends (core/native.h for the fused and layer
# primitives), never through the dispatcher directly.
while IFS= read -r line; do
  echo "layering: $line: a direct kernel call above core/ (use core/native.h)"
  fail=1
done < <(grep -rn 'kernel<Op::' --include='*.h' --include='*.cpp' nn optim autograd data serialize)

# Vendor headers only in the backends (public headers stay light; CPU-only builds work).
while IFS= read -r line; do
  echo "layering: $line: a vendor header outside cpu/ and cuda/"
  fail=1
done < <(grep -rnE '^#include <(Eigen/|unsupported/Eigen|cuda_runtime|cuda\.h|cublas|cudnn|nvrtc)' \
  --include='*.h' --include='*.cpp' core autograd backends nn optim data serialize common ember.h \
  tests examples benchmarks fuzz docs/examples)
while IFS= read -r line; do
  echo "layering: $line: Eigen outside cpu/"
  fail=1
done < <(grep -rnE '^#include <(Eigen/|unsupported/Eigen)' cuda)

[ "$fail" = 0 ] && echo "layering: every include follows docs/design.md's rules"
exit "$fail"
