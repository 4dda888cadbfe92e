// The instruction-set half of the packed SGEMM: block sizes, the two packing routines and the
// macro-kernel of one micro-kernel. cpu/sgemm.cpp runs the BLIS loops around whichever kernel
// the CPU supports: AVX2 (in sgemm.cpp) or AVX-512 (sgemm_avx512.cpp, built for AVX-512 and
// chosen at run time). Private to cpu/.
#pragma once

#include <cstdint>

#include <ember/cpu/sgemm.h>

namespace ember {
namespace cpu {

struct SgemmKernel {
  const char* name;
  // Register block mr x nr. Cache blocks: kc steps of k per packed block, mc rows of A per
  // packed block, nc columns of B per packed panel.
  int64_t mr, nr, kc, mc, nc;
  // ap: for each mr-row sliver of a[mc, kc], kc columns of mr floats. Rows past mc may be left
  // unset: the micro-kernel of a short sliver never reads them. Writes up to kSgemmSlack
  // floats past the last sliver.
  void (*pack_a)(float* ap, StridedMatrix a, int64_t mc, int64_t kc);
  // bp (64-byte aligned): for each nr-column sliver of b[kc, nc], kc rows of nr floats,
  // zero-padded past nc.
  void (*pack_b)(float* bp, StridedMatrix b, int64_t kc, int64_t nc);
  // c[mc, nc] (row stride ldc) = alpha * a @ b + beta * c from the packed blocks; beta == 0
  // never reads c.
  void (*macro_kernel)(int64_t mc, int64_t nc, int64_t kc, const float* ap, const float* bp,
                       float* c, int64_t ldc, float alpha, float beta);
};

// Floats a packing routine may write past the end of its packed block.
constexpr int64_t kSgemmSlack = 16;

// The AVX-512 kernel (12x32), or nullptr when the compiler could not build it. The caller
// checks that the CPU runs AVX-512 (F, VL, BW, DQ) before using it.
const SgemmKernel* avx512_sgemm_kernel();

}  // namespace cpu
}  // namespace ember
