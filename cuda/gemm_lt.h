// float32 products through cuBLASLt with a fused epilogue (cuda/gemm_lt.cpp): linear's bias
// (BIAS) forward and its bias gradient (BGRADB) backward, for cuda/gemm.cpp. Private to cuda/.
#pragma once

#include <cublasLt.h>

#include <cstddef>

namespace ember {
namespace cuda {

// Column-major D [m x n] (leading dimension ldd) = alpha * op(A) [m x k] @ op(B) [k x n] with
// `epilogue`: BIAS adds bias [m] to every column of D; BGRADB writes op(B)'s sums over k
// into bias [n]. Full fp32 unless tf32.
struct LtProblem {
  cublasOperation_t trans_a, trans_b;
  int m, n, k, lda, ldb, ldd;
  cublasLtEpilogue_t epilogue;
  bool tf32;
};

// Runs the product on the current stream of `device` (already current) with the workspace
// given, and returns true; or returns false, having launched nothing, when cuBLASLt offers no
// algorithm for it (the caller then runs its plain path). Descriptors and the chosen
// algorithm are cached per (thread, device) and problem, so a repeated shape costs one
// cublasLtMatmul call of host time.
bool lt_matmul(int device, const LtProblem& p, const float* a, const float* b, float* d,
               float* bias, float alpha, void* workspace, size_t workspace_bytes);

// Makes the calling thread's cuBLASLt handle for `device` before a capture begins (creating
// one during a capture is refused).
void prepare_lt_for_capture(int device);

}  // namespace cuda
}  // namespace ember
