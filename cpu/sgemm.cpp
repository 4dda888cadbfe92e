// Packed float32 GEMM (the BLIS loop nest): B is packed into 16-wide column slivers, A into
// 6-high row slivers, and a 6x16 AVX2/FMA micro-kernel keeps the 12 accumulators in registers.
// Any strides are packed, so transposed operands cost nothing extra.
#include <ember/cpu/sgemm.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {

#if defined(__AVX2__) && defined(__FMA__)  // kHasPackedSgemm
namespace {

// Register block (kMr x kNr), and cache blocks: a kKc x kNr sliver of B stays in L1, a
// kMc x kKc block of A in L2, a kKc x kNc panel of B in L3.
constexpr int64_t kMr = 6, kNr = 16, kKc = 256, kMc = 144, kNc = 4096;

// A 64-byte aligned scratch buffer per thread, grown on demand and kept for later calls.
float* scratch(int slot, size_t n) {
  struct Buffer {
    std::unique_ptr<float[], void (*)(void*)> p{nullptr, std::free};
    size_t size = 0;
  };
  thread_local Buffer buffers[2];
  Buffer& b = buffers[slot];
  if (b.size < n) {
    const size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    b.p.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    EMBER_CHECK(b.p != nullptr, "addmm: out of memory for a ", bytes, "-byte packing buffer");
    b.size = n;
  }
  return b.p.get();
}

// bp: for each kNr-column sliver, kc rows of kNr floats, zero-padded past n.
void pack_b(float* bp, StridedMatrix b, int64_t kc, int64_t nc) {
  for (int64_t j0 = 0; j0 < nc; j0 += kNr, bp += kc * kNr) {
    const int64_t w = std::min(kNr, nc - j0);
    const float* src = b.p + j0 * b.cs;
    if (w == kNr && b.cs == 1) {
      for (int64_t p = 0; p < kc; ++p)
        std::memcpy(bp + p * kNr, src + p * b.rs, sizeof(float) * kNr);
      continue;
    }
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t j = 0; j < kNr; ++j) bp[p * kNr + j] = j < w ? src[p * b.rs + j * b.cs] : 0.f;
    }
  }
}

// ap: for each kMr-row sliver, kc columns of kMr floats, zero-padded past m.
void pack_a(float* ap, StridedMatrix a, int64_t mc, int64_t kc) {
  for (int64_t i0 = 0; i0 < mc; i0 += kMr, ap += kc * kMr) {
    const int64_t h = std::min(kMr, mc - i0);
    const float* src = a.p + i0 * a.rs;
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t i = 0; i < kMr; ++i) ap[p * kMr + i] = i < h ? src[i * a.rs + p * a.cs] : 0.f;
    }
  }
}

// c[6, 16] (row stride ldc) = alpha * ap @ bp + beta * c, over kc packed steps.
void micro_kernel(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, float alpha,
                  float beta) {
  __m256 acc[kMr][2];
  for (int i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p, a += kMr, b += kNr) {
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
    for (int i = 0; i < kMr; ++i) {
      const __m256 x = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(x, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(x, b1, acc[i][1]);
    }
  }
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
  for (int i = 0; i < kMr; ++i) {
    for (int h = 0; h < 2; ++h) {
      float* dst = c + i * ldc + 8 * h;
      __m256 v = _mm256_mul_ps(acc[i][h], va);
      if (beta != 0.f) v = _mm256_fmadd_ps(vb, _mm256_loadu_ps(dst), v);
      _mm256_storeu_ps(dst, v);
    }
  }
}

// c[mc, nc] from packed blocks; ragged edge tiles go through a local tile.
void macro_kernel(int64_t mc, int64_t nc, int64_t kc, const float* ap, const float* bp, float* c,
                  int64_t ldc, float alpha, float beta) {
  alignas(64) float tile[kMr * kNr];
  for (int64_t j0 = 0; j0 < nc; j0 += kNr) {
    const int64_t w = std::min(kNr, nc - j0);
    for (int64_t i0 = 0; i0 < mc; i0 += kMr) {
      const int64_t h = std::min(kMr, mc - i0);
      float* dst = c + i0 * ldc + j0;
      if (w == kNr && h == kMr) {
        micro_kernel(kc, ap + i0 * kc, bp + j0 * kc, dst, ldc, alpha, beta);
        continue;
      }
      micro_kernel(kc, ap + i0 * kc, bp + j0 * kc, tile, kNr, alpha, 0.f);
      for (int64_t i = 0; i < h; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          float& out = dst[i * ldc + j];
          out = tile[i * kNr + j] + (beta != 0.f ? beta * out : 0.f);
        }
      }
    }
  }
}

}  // namespace

void sgemm_packed(int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix a, StridedMatrix b,
                  float beta, float* c, int64_t ldc, bool parallel) {
  const int64_t threads = parallel ? get_num_threads() : 1;
  // Row blocks: a whole number per thread, each at most kMc and a multiple of kMr.
  const int64_t per_thread = (m + threads * kMc - 1) / (threads * kMc);
  int64_t mc = (m + per_thread * threads - 1) / (per_thread * threads);
  mc = (mc + kMr - 1) / kMr * kMr;
  const int64_t mblocks = (m + mc - 1) / mc;
  for (int64_t jc = 0; jc < n; jc += kNc) {
    const int64_t nc = std::min(kNc, n - jc);
    // Too few row blocks to occupy every thread: split the columns as well.
    const int64_t nsplit = std::min((threads + mblocks - 1) / mblocks, (nc + kNr - 1) / kNr);
    const int64_t ncol = ((nc + nsplit - 1) / nsplit + kNr - 1) / kNr * kNr;
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      float* bp = scratch(0, static_cast<size_t>((nc + kNr - 1) / kNr * kNr * kc));
      pack_b(bp, StridedMatrix{b.p + pc * b.rs + jc * b.cs, b.rs, b.cs}, kc, nc);
      const float step_beta = pc == 0 ? beta : 1.f;  // later k blocks accumulate
      const int64_t items = mblocks * nsplit;
      parallel_range(items, threads > 1 ? 1 : items, [&](int64_t w0, int64_t w1) {
        for (int64_t w = w0; w < w1; ++w) {
          const int64_t ic = (w / nsplit) * mc, h = std::min(mc, m - ic);
          const int64_t j0 = (w % nsplit) * ncol, width = std::min(ncol, nc - j0);
          if (width <= 0) continue;
          float* ap = scratch(1, static_cast<size_t>((h + kMr - 1) / kMr * kMr * kc));
          pack_a(ap, StridedMatrix{a.p + ic * a.rs + pc * a.cs, a.rs, a.cs}, h, kc);
          macro_kernel(h, width, kc, ap, bp + j0 * kc, c + ic * ldc + jc + j0, ldc, alpha,
                       step_beta);
        }
      });
    }
  }
}

#endif

}  // namespace cpu
}  // namespace ember
