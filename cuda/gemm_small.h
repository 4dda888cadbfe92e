// The one-launch float32 GEMM for small products (cuda/gemm_small.cu), which cuda/gemm.cpp
// uses instead of cuBLAS below EMBER_CUDA_SMALL_GEMM_MACS multiply-adds (default 2^26) and up to
// EMBER_CUDA_SMALL_GEMM_MAX_K (default 1024) values of k.
#pragma once

#include <cstdint>

namespace ember {
namespace cuda {

// Whether an [m, k] @ [k, n] product is small enough, and its k short enough, for small_sgemm.
bool small_gemm_applies(int64_t m, int64_t n, int64_t k);

// c [m, n] (contiguous) = alpha * A @ B + beta * c (c not read when beta == 0), on the current
// stream; A(i, l) = a[i * sa0 + l * sa1], B(l, j) = b[l * sb0 + j * sb1]. A non-null bias [n]
// is added to every row after the product.
void small_sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t sa0, int64_t sa1,
                 const float* b, int64_t sb0, int64_t sb1, float* c, float alpha, float beta,
                 const float* bias = nullptr);

}  // namespace cuda
}  // namespace ember
