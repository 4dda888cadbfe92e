// check_kernel: the launch check every kernel launcher calls, with EMBER_CUDA_SYNC=1's
// synchronize-and-report mode.
#include <ember/cuda/check.h>

#include <cstdlib>
#include <cstring>

#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace detail {

bool sync_after_kernels() {
  static const bool on = [] {
    const char* v = std::getenv("EMBER_CUDA_SYNC");
    return v != nullptr && std::strcmp(v, "0") != 0 && *v != '\0';
  }();
  return on;
}

void check_kernel(const char* op, const char* file, int line) {
  cudaError_t err = cudaGetLastError();
  if (__builtin_expect(err != cudaSuccess, 0)) {
    ::ember::detail::throw_error(::ember::detail::str(
        op, ": CUDA error ", cudaGetErrorName(err), " (", cudaGetErrorString(err),
        ") launching the kernel at ", file, ":", line));
  }
  if (!sync_after_kernels()) return;
  err = cudaStreamSynchronize(current_stream());
  if (err != cudaSuccess) {
    cudaGetLastError();
    ::ember::detail::throw_error(::ember::detail::str(
        op, ": CUDA error ", cudaGetErrorName(err), " (", cudaGetErrorString(err),
        ") while running the kernel launched at ", file, ":", line, " (EMBER_CUDA_SYNC=1)"));
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace ember
