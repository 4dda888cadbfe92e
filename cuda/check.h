// EMBER_CUDA_CHECK / EMBER_CUBLAS_CHECK: wrap every CUDA runtime and cuBLAS call so that a
// failure throws ember::Error with the vendor's message and file:line. Private to cuda/.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <ember/core/error.h>

namespace ember {
namespace cuda {
namespace detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* expr, const char* file,
                                          int line) {
  // Clear the sticky "last error" so the next, unrelated call does not report this one again.
  cudaGetLastError();
  ::ember::detail::throw_error(::ember::detail::str("CUDA error ", cudaGetErrorName(err), " (",
                                                    cudaGetErrorString(err), ") in ", expr, " at ",
                                                    file, ":", line));
}

[[noreturn]] inline void throw_cublas_error(cublasStatus_t s, const char* expr, const char* file,
                                            int line) {
  ::ember::detail::throw_error(::ember::detail::str("cuBLAS error ", cublasGetStatusName(s), " (",
                                                    cublasGetStatusString(s), ")", " in ", expr,
                                                    " at ", file, ":", line));
}

// Whether EMBER_CUDA_SYNC=1 (non-empty, not "0") asks to synchronize after every kernel.
bool sync_after_kernels();

// After a kernel launch: reports a launch error, and with EMBER_CUDA_SYNC=1 in the
// environment synchronizes the current stream so that a fault surfaces at the op that
// caused it. `op` names the op ("add", "sum") in the error.
void check_kernel(const char* op, const char* file, int line);

}  // namespace detail
}  // namespace cuda
}  // namespace ember

#define EMBER_CUDA_KERNEL_CHECK(op) ::ember::cuda::detail::check_kernel(op, __FILE__, __LINE__)

#define EMBER_CUDA_CHECK(expr)                                                             \
  do {                                                                                     \
    cudaError_t ember_cuda_err_ = (expr);                                                  \
    if (__builtin_expect(ember_cuda_err_ != cudaSuccess, 0)) {                             \
      ::ember::cuda::detail::throw_cuda_error(ember_cuda_err_, #expr, __FILE__, __LINE__); \
    }                                                                                      \
  } while (0)

#define EMBER_CUBLAS_CHECK(expr)                                                              \
  do {                                                                                        \
    cublasStatus_t ember_cublas_st_ = (expr);                                                 \
    if (__builtin_expect(ember_cublas_st_ != CUBLAS_STATUS_SUCCESS, 0)) {                     \
      ::ember::cuda::detail::throw_cublas_error(ember_cublas_st_, #expr, __FILE__, __LINE__); \
    }                                                                                         \
  } while (0)

// Checks the launch of the kernel just issued (bad configuration, missing arch image).
#define EMBER_CUDA_CHECK_LAUNCH() EMBER_CUDA_CHECK(cudaGetLastError())
