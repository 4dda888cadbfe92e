// The AVX-512 half of the packed SGEMM (see sgemm_kernels.h): a 12x32 micro-kernel with 24 zmm
// accumulators, packing into 12-row and 32-column slivers (16x16 register transposes for
// transposed operands), masked loads and stores at ragged edges. This file alone is compiled
// for AVX-512 (CMakeLists.txt); sgemm.cpp calls it only on a CPU that runs AVX-512. It
// includes no library header with inline code, so no AVX-512 copy of a shared inline function
// can reach the rest of the program.
#include <ember/cpu/sgemm_kernels.h>

#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && \
    defined(__AVX512DQ__) && defined(__FMA__)
// GCC 12 warns that its own AVX-512 intrinsics read an uninitialized pass-through vector
// (GCC bug 105593, fixed in 13); the warning would otherwise fire on every shuffle here.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace ember {
namespace cpu {
namespace {

// Register block: 12 rows x 2 zmm = 24 accumulators, 2 for the B row, broadcasts from memory.
// Cache blocks (Sapphire Rapids: 48 KiB L1d, 2 MiB L2 per core): a kc x 32 B sliver (32 KiB)
// stays in L1 while the A slivers of a kMc x kc block (in L2) stream past it.
constexpr int64_t kMr = 12, kNr = 32, kKc = 256, kMc = 288, kNc = 2048;

inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// Lanes [0, n) of 16 set.
inline __mmask16 lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}

// r[i] = column i of the 16x16 matrix whose rows are r[0..15].
inline void transpose16(__m512 r[16]) {
  __m512 t[16], u[16];
  for (int k = 0; k < 8; ++k) {
    t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  // u[4g + c], lane L: column 4L + c of rows 4g..4g+3.
  for (int g = 0; g < 4; ++g) {
    u[4 * g + 0] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0x44);
    u[4 * g + 1] = _mm512_shuffle_ps(t[4 * g], t[4 * g + 2], 0xEE);
    u[4 * g + 2] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
    u[4 * g + 3] = _mm512_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
  }
  // A 4x4 transpose of 128-bit lanes across u[c], u[4 + c], u[8 + c], u[12 + c].
  for (int c = 0; c < 4; ++c) {
    const __m512 v0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
    const __m512 v1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
    const __m512 v2 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
    const __m512 v3 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
    r[c] = _mm512_shuffle_f32x4(v0, v2, 0x88);
    r[4 + c] = _mm512_shuffle_f32x4(v1, v3, 0x88);
    r[8 + c] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
    r[12 + c] = _mm512_shuffle_f32x4(v1, v3, 0xDD);
  }
}

void pack_b(float* bp, StridedMatrix b, int64_t kc, int64_t nc) {
  for (int64_t j0 = 0; j0 < nc; j0 += kNr, bp += kc * kNr) {
    const int64_t w = min64(kNr, nc - j0);
    const float* src = b.p + j0 * b.cs;
    if (b.cs == 1) {  // rows of B are contiguous
      const __mmask16 m0 = lanes(w), m1 = lanes(w - 16);
      for (int64_t p = 0; p < kc; ++p) {
        const float* s = src + p * b.rs;
        _mm512_store_ps(bp + p * kNr, _mm512_maskz_loadu_ps(m0, s));
        _mm512_store_ps(bp + p * kNr + 16, _mm512_maskz_loadu_ps(m1, s + 16));
      }
    } else if (b.rs == 1) {  // columns of B are contiguous (a transposed view): 16x16 blocks
      for (int64_t h = 0; h < 2; ++h) {
        const int64_t cols = w - 16 * h;  // columns of this half present (may be <= 0)
        for (int64_t p = 0; p < kc; p += 16) {
          const __mmask16 steps = lanes(kc - p);
          __m512 r[16];
          for (int64_t j = 0; j < 16; ++j) {
            r[j] = j < cols ? _mm512_maskz_loadu_ps(steps, src + (16 * h + j) * b.cs + p)
                            : _mm512_setzero_ps();
          }
          transpose16(r);
          const int64_t q_end = min64(16, kc - p);
          for (int64_t q = 0; q < q_end; ++q) _mm512_store_ps(bp + (p + q) * kNr + 16 * h, r[q]);
        }
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t j = 0; j < kNr; ++j) bp[p * kNr + j] = j < w ? src[p * b.rs + j * b.cs] : 0.f;
      }
    }
  }
}

void pack_a(float* ap, StridedMatrix a, int64_t mc, int64_t kc) {
  const __mmask16 sliver = lanes(kMr);
  for (int64_t i0 = 0; i0 < mc; i0 += kMr, ap += kc * kMr) {
    const int64_t h = min64(kMr, mc - i0);
    const float* src = a.p + i0 * a.rs;
    if (a.rs == 1) {  // the sliver's column at each step is contiguous (a transposed view)
      const __mmask16 rows = lanes(h);
      for (int64_t p = 0; p < kc; ++p) {
        _mm512_mask_storeu_ps(ap + p * kMr, sliver, _mm512_maskz_loadu_ps(rows, src + p * a.cs));
      }
    } else if (a.cs == 1) {  // rows of A are contiguous: transpose 16 steps at a time
      for (int64_t p = 0; p < kc; p += 16) {
        const __mmask16 steps = lanes(kc - p);
        __m512 r[16];
        for (int64_t i = 0; i < 16; ++i) {
          r[i] = i < h ? _mm512_maskz_loadu_ps(steps, src + i * a.rs + p) : _mm512_setzero_ps();
        }
        transpose16(r);
        const int64_t q_end = min64(16, kc - p);
        for (int64_t q = 0; q < q_end; ++q) _mm512_mask_storeu_ps(ap + (p + q) * kMr, sliver, r[q]);
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t i = 0; i < h; ++i) ap[p * kMr + i] = src[i * a.rs + p * a.cs];
      }
    }
  }
}

// c[H, w] (row stride ldc, w <= 32) = alpha * a @ b + beta * c over kc packed steps; beta == 0
// never reads c.
template <int H>
void micro_kernel(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int64_t w,
                  float alpha, float beta) {
  __m512 acc[H][2];
#pragma GCC unroll 12
  for (int i = 0; i < H; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    // c is read (beta != 0) or written at the end: start fetching its lines now.
#pragma GCC unroll 12
  for (int i = 0; i < H; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + kNr - 1), _MM_HINT_T0);
  }
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p, a += kMr, b += kNr) {
    const __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < H; ++i) {
      const __m512 x = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(x, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(x, b1, acc[i][1]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  const __mmask16 m0 = lanes(w), m1 = lanes(w - 16);
#pragma GCC unroll 12
  for (int i = 0; i < H; ++i) {
    float* dst = c + i * ldc;
    __m512 v0 = acc[i][0], v1 = acc[i][1];
    if (alpha != 1.f) v0 = _mm512_mul_ps(v0, va), v1 = _mm512_mul_ps(v1, va);
    if (w == kNr) {
      if (beta != 0.f) {
        v0 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(dst), v0);
        v1 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(dst + 16), v1);
      }
      _mm512_storeu_ps(dst, v0);
      _mm512_storeu_ps(dst + 16, v1);
    } else {  // masked lanes are neither read nor written (nor fault)
      if (beta != 0.f) {
        v0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, dst), v0);
        v1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, dst + 16), v1);
      }
      _mm512_mask_storeu_ps(dst, m0, v0);
      _mm512_mask_storeu_ps(dst + 16, m1, v1);
    }
  }
}

using MicroKernel = void (*)(int64_t, const float*, const float*, float*, int64_t, int64_t, float,
                             float);
constexpr MicroKernel kKernels[kMr + 1] = {
    nullptr,          micro_kernel<1>,  micro_kernel<2>, micro_kernel<3>, micro_kernel<4>,
    micro_kernel<5>,  micro_kernel<6>,  micro_kernel<7>, micro_kernel<8>, micro_kernel<9>,
    micro_kernel<10>, micro_kernel<11>, micro_kernel<12>};

// c[mc, nc] from packed blocks, one B sliver (in L1) against every A sliver (in L2).
void macro_kernel(int64_t mc, int64_t nc, int64_t kc, const float* ap, const float* bp, float* c,
                  int64_t ldc, float alpha, float beta) {
  for (int64_t j0 = 0; j0 < nc; j0 += kNr) {
    const int64_t w = min64(kNr, nc - j0);
    int64_t i0 = 0;
    for (; i0 + kMr <= mc; i0 += kMr) {
      micro_kernel<kMr>(kc, ap + i0 * kc, bp + j0 * kc, c + i0 * ldc + j0, ldc, w, alpha, beta);
    }
    if (i0 < mc) {
      kKernels[mc - i0](kc, ap + i0 * kc, bp + j0 * kc, c + i0 * ldc + j0, ldc, w, alpha, beta);
    }
  }
}

constexpr SgemmKernel kAvx512{"avx512", kMr, kNr, kKc, kMc, kNc, pack_a, pack_b, macro_kernel};

}  // namespace

const SgemmKernel* avx512_sgemm_kernel() { return &kAvx512; }

}  // namespace cpu
}  // namespace ember

#else  // a compiler or build without AVX-512

namespace ember {
namespace cpu {
const SgemmKernel* avx512_sgemm_kernel() { return nullptr; }
}  // namespace cpu
}  // namespace ember

#endif
