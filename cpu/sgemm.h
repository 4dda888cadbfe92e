// Packed float32 GEMM with an AVX2/FMA or AVX-512 micro-kernel (cpu/sgemm.cpp,
// cpu/sgemm_avx512.cpp), used by cpu/gemm.cpp for large products: Eigen's kernel reaches ~75%
// of a tuned BLAS on this class of CPU. Private.
#pragma once

#include <cstdint>

namespace ember {
namespace cpu {

// A matrix by element strides: element (i, j) is at p[i * rs + j * cs].
struct StridedMatrix {
  const float* p;
  int64_t rs, cs;
};

// Whether this build has the kernels (AVX2 and FMA enabled); without them, callers use Eigen.
#if defined(__AVX2__) && defined(__FMA__)
constexpr bool kHasPackedSgemm = true;
#else
constexpr bool kHasPackedSgemm = false;
#endif

// c[m, n] (row stride ldc) = alpha * a[m, k] @ b[k, n] + beta * c; beta == 0 never reads c.
// Any strides (transposed views are packed as they are). When `parallel`, cuts c into one
// tile per CPU thread in a single parallel_for. Without kHasPackedSgemm it throws.
void sgemm_packed(int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix a, StridedMatrix b,
                  float beta, float* c, int64_t ldc, bool parallel);

// The micro-kernel sgemm_packed runs: "avx512" where the CPU runs AVX-512, else "avx2" ("none"
// without kHasPackedSgemm). EMBER_SGEMM=avx2 in the environment, read at the first product,
// forces the AVX2 kernel (EMBER_SGEMM=avx512 is honoured only where the CPU runs it).
const char* sgemm_kernel_name();

// Switches later products to the kernel `name` ("avx2", "avx512", or "auto" for the fastest);
// false, changing nothing, when this CPU or build lacks it. For tests and benchmarks.
bool set_sgemm_kernel(const char* name);

}  // namespace cpu
}  // namespace ember
