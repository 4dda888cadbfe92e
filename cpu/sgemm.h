// Packed float32 GEMM with an AVX2/FMA micro-kernel (cpu/sgemm.cpp), used by cpu/gemm.cpp for
// large products: Eigen's kernel reaches ~75% of a tuned BLAS on this class of CPU. Private.
#pragma once

#include <cstdint>

namespace ember {
namespace cpu {

// A matrix by element strides: element (i, j) is at p[i * rs + j * cs].
struct StridedMatrix {
  const float* p;
  int64_t rs, cs;
};

// Whether this build has the kernel (AVX2 and FMA enabled); without it, callers use Eigen.
#if defined(__AVX2__) && defined(__FMA__)
constexpr bool kHasPackedSgemm = true;
#else
constexpr bool kHasPackedSgemm = false;
#endif

// c[m, n] (row stride ldc) = alpha * a[m, k] @ b[k, n] + beta * c; beta == 0 never reads c.
// Any strides (transposed views are packed as they are). When `parallel`, cuts c into one
// tile per CPU thread in a single parallel_for. Only defined when kHasPackedSgemm.
void sgemm_packed(int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix a, StridedMatrix b,
                  float beta, float* c, int64_t ldc, bool parallel);

}  // namespace cpu
}  // namespace ember
