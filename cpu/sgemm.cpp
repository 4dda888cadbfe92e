// Packed float32 GEMM (the BLIS loop nest): B is packed into column slivers, A into row
// slivers, and a micro-kernel keeps its accumulators in registers. Any strides are packed
// (transposed operands through register transposes), and a product is cut into one
// independent tile per thread, each packing its own operands. The loops here serve two
// kernels: AVX2's 6x16 (this file) and AVX-512's 12x32 (sgemm_avx512.cpp), picked at run time.
#include <ember/cpu/sgemm.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/cpu/parallel.h>
#include <ember/cpu/sgemm_kernels.h>

namespace ember {
namespace cpu {

#if defined(__AVX2__) && defined(__FMA__)  // kHasPackedSgemm
namespace {

// ---- the AVX2/FMA kernel ----

// Register block (kMr x kNr), and cache blocks: a kc x kNr sliver of B stays in L1 (kc <=
// kKc), a kMc x kc block of A in L2, a kc x kNc panel of B in L2/L3.
constexpr int64_t kMr = 6, kNr = 16, kKc = 256, kMc = 144, kNc = 2048;

// r[i] = column i of the 8x8 matrix whose rows are r[0..7].
inline void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// Lanes [0, n) set: for masked loads and stores of a partial vector.
inline __m256i lane_mask(int64_t n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), idx);
}

// bp: for each kNr-column sliver, kc rows of kNr floats, zero-padded past nc.
void pack_b(float* bp, StridedMatrix b, int64_t kc, int64_t nc) {
  for (int64_t j0 = 0; j0 < nc; j0 += kNr, bp += kc * kNr) {
    const int64_t w = std::min(kNr, nc - j0);
    const float* src = b.p + j0 * b.cs;
    if (b.cs == 1) {  // rows of B are contiguous
      if (w == kNr) {
        for (int64_t p = 0; p < kc; ++p) {
          const float* s = src + p * b.rs;
          _mm256_store_ps(bp + p * kNr, _mm256_loadu_ps(s));
          _mm256_store_ps(bp + p * kNr + 8, _mm256_loadu_ps(s + 8));
        }
      } else {
        const __m256i m0 = lane_mask(w), m1 = lane_mask(w - 8);
        for (int64_t p = 0; p < kc; ++p) {
          const float* s = src + p * b.rs;
          _mm256_store_ps(bp + p * kNr, _mm256_maskload_ps(s, m0));
          _mm256_store_ps(bp + p * kNr + 8, _mm256_maskload_ps(s + 8, m1));
        }
      }
    } else if (b.rs == 1) {  // columns of B are contiguous (a transposed view): transpose 8x8
      int64_t p = 0;
      for (; p + 8 <= kc; p += 8) {
        for (int64_t h = 0; h < 2; ++h) {
          __m256 r[8];
          const float* s = src + 8 * h * b.cs + p;
          if (w == kNr) {  // the common case, without a test per column
            for (int64_t j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(s + j * b.cs);
          } else {
            for (int64_t j = 0; j < 8; ++j) {
              r[j] = 8 * h + j < w ? _mm256_loadu_ps(s + j * b.cs) : _mm256_setzero_ps();
            }
          }
          transpose8(r);
          for (int64_t q = 0; q < 8; ++q) _mm256_store_ps(bp + (p + q) * kNr + 8 * h, r[q]);
        }
      }
      for (; p < kc; ++p) {
        for (int64_t j = 0; j < kNr; ++j) bp[p * kNr + j] = j < w ? src[j * b.cs + p] : 0.f;
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t j = 0; j < kNr; ++j) bp[p * kNr + j] = j < w ? src[p * b.rs + j * b.cs] : 0.f;
      }
    }
  }
}

// ap: for each kMr-row sliver, kc columns of kMr floats. Rows past mc are left unset: the
// micro-kernel of a short sliver never reads them.
void pack_a(float* ap, StridedMatrix a, int64_t mc, int64_t kc) {
  for (int64_t i0 = 0; i0 < mc; i0 += kMr, ap += kc * kMr) {
    const int64_t h = std::min(kMr, mc - i0);
    const float* src = a.p + i0 * a.rs;
    if (a.rs == 1) {  // the sliver's column at each step is contiguous (a transposed view)
      // 8-float copies; each spills 2 floats into the next slot, rewritten next. Plain
      // loads while 8 rows of the block remain, masked ones (no overread) at its end.
      if (i0 + 8 <= mc) {
        for (int64_t p = 0; p < kc; ++p) {
          _mm256_storeu_ps(ap + p * kMr, _mm256_loadu_ps(src + p * a.cs));
        }
      } else {
        const __m256i mask = lane_mask(h);
        for (int64_t p = 0; p < kc; ++p) {
          _mm256_storeu_ps(ap + p * kMr, _mm256_maskload_ps(src + p * a.cs, mask));
        }
      }
    } else if (a.cs == 1) {  // rows of A are contiguous: transpose 8 steps at a time
      int64_t p = 0;
      for (; p + 8 <= kc; p += 8) {
        __m256 r[8];
        r[6] = r[7] = _mm256_setzero_ps();
        if (h == kMr) {
          for (int64_t i = 0; i < kMr; ++i) r[i] = _mm256_loadu_ps(src + i * a.rs + p);
        } else {
          for (int64_t i = 0; i < kMr; ++i) {
            r[i] = i < h ? _mm256_loadu_ps(src + i * a.rs + p) : _mm256_setzero_ps();
          }
        }
        transpose8(r);
        // Each store spills 2 floats into the next step's slot, rewritten by the next store.
        for (int64_t q = 0; q < 8; ++q) _mm256_storeu_ps(ap + (p + q) * kMr, r[q]);
      }
      for (; p < kc; ++p) {
        for (int64_t i = 0; i < h; ++i) ap[p * kMr + i] = src[i * a.rs + p];
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t i = 0; i < h; ++i) ap[p * kMr + i] = src[i * a.rs + p * a.cs];
      }
    }
  }
}

// c[H, w] (row stride ldc, w <= 16) = alpha * ap @ bp + beta * c over kc packed steps;
// beta == 0 never reads c.
template <int H>
void micro_kernel(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int64_t w,
                  float alpha, float beta) {
  __m256 acc[H][2];
#pragma GCC unroll 8
  for (int i = 0; i < H; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  // c is read (beta != 0) or written at the end: start fetching its lines now.
  for (int i = 0; i < H; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + kNr - 1), _MM_HINT_T0);
  }
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p, a += kMr, b += kNr) {
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
#pragma GCC unroll 8
    for (int i = 0; i < H; ++i) {
      const __m256 x = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(x, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(x, b1, acc[i][1]);
    }
  }
  // The epilogue works from memory: indexing acc there would make GCC spill the
  // accumulators to the stack on every step of the loop above.
  alignas(32) float tile[H * kNr];
#pragma GCC unroll 8
  for (int i = 0; i < H; ++i) {
    _mm256_store_ps(tile + i * kNr, acc[i][0]);
    _mm256_store_ps(tile + i * kNr + 8, acc[i][1]);
  }
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
  const __m256i mask[2] = {lane_mask(w), lane_mask(w - 8)};
  for (int64_t i = 0; i < H; ++i) {
    for (int64_t h = 0; h < 2; ++h) {
      if (8 * h >= w) continue;
      float* dst = c + i * ldc + 8 * h;
      __m256 v = _mm256_load_ps(tile + i * kNr + 8 * h);
      if (alpha != 1.f) v = _mm256_mul_ps(v, va);
      if (w == kNr) {
        if (beta == 1.f) {
          v = _mm256_add_ps(v, _mm256_loadu_ps(dst));
        } else if (beta != 0.f) {
          v = _mm256_fmadd_ps(vb, _mm256_loadu_ps(dst), v);
        }
        _mm256_storeu_ps(dst, v);
      } else {
        if (beta != 0.f) v = _mm256_fmadd_ps(vb, _mm256_maskload_ps(dst, mask[h]), v);
        _mm256_maskstore_ps(dst, mask[h], v);
      }
    }
  }
}

using MicroKernel = void (*)(int64_t, const float*, const float*, float*, int64_t, int64_t, float,
                             float);
constexpr MicroKernel kKernels[kMr + 1] = {nullptr,         micro_kernel<1>, micro_kernel<2>,
                                           micro_kernel<3>, micro_kernel<4>, micro_kernel<5>,
                                           micro_kernel<6>};

// c[mc, nc] from packed blocks, one B sliver (in L1) against every A sliver (in L2).
void macro_kernel(int64_t mc, int64_t nc, int64_t kc, const float* ap, const float* bp, float* c,
                  int64_t ldc, float alpha, float beta) {
  for (int64_t j0 = 0; j0 < nc; j0 += kNr) {
    const int64_t w = std::min(kNr, nc - j0);
    int64_t i0 = 0;
    for (; i0 + kMr <= mc; i0 += kMr) {
      micro_kernel<kMr>(kc, ap + i0 * kc, bp + j0 * kc, c + i0 * ldc + j0, ldc, w, alpha, beta);
    }
    if (i0 < mc) {
      kKernels[mc - i0](kc, ap + i0 * kc, bp + j0 * kc, c + i0 * ldc + j0, ldc, w, alpha, beta);
    }
  }
}

constexpr SgemmKernel kAvx2{"avx2", kMr, kNr, kKc, kMc, kNc, pack_a, pack_b, macro_kernel};

// ---- kernel choice ----

bool cpu_runs_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}

// The kernel named `name` ("avx2", "avx512"), the fastest one this CPU runs for "auto", or
// nullptr when this CPU or build lacks it.
const SgemmKernel* find_kernel(const char* name) {
  static const SgemmKernel* const avx512 = cpu_runs_avx512() ? avx512_sgemm_kernel() : nullptr;
  if (std::strcmp(name, "auto") == 0) return avx512 != nullptr ? avx512 : &kAvx2;
  if (std::strcmp(name, "avx512") == 0) return avx512;
  if (std::strcmp(name, "avx2") == 0) return &kAvx2;
  return nullptr;
}

std::atomic<const SgemmKernel*> g_kernel{nullptr};

// The kernel in use: on the first call, EMBER_SGEMM's choice when this CPU runs it, else "auto".
const SgemmKernel& current_kernel() {
  const SgemmKernel* k = g_kernel.load(std::memory_order_acquire);
  if (k == nullptr) {
    const char* env = std::getenv("EMBER_SGEMM");
    k = env != nullptr ? find_kernel(env) : nullptr;
    if (k == nullptr) k = find_kernel("auto");
    const SgemmKernel* expected = nullptr;
    if (!g_kernel.compare_exchange_strong(expected, k, std::memory_order_acq_rel)) k = expected;
  }
  return *k;
}

// ---- the loops, for any kernel ----

// A 64-byte aligned scratch buffer per thread, grown on demand and kept for later calls.
float* scratch(int slot, size_t n) {
  struct Buffer {
    std::unique_ptr<float[], void (*)(void*)> p{nullptr, std::free};
    size_t size = 0;
  };
  thread_local Buffer buffers[3];
  Buffer& b = buffers[slot];
  n += kSgemmSlack;
  if (b.size < n) {
    const size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    b.p.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    EMBER_CHECK(b.p != nullptr, "addmm: out of memory for a ", bytes, "-byte packing buffer");
    b.size = n;
  }
  return b.p.get();
}

// ceil(n / parts) rounded up to a multiple of align.
int64_t split_size(int64_t n, int64_t parts, int64_t align) {
  return ((n + parts - 1) / parts + align - 1) / align * align;
}

// c[m, n] = alpha * a @ b + beta * c on the calling thread, over the whole k.
void sgemm_tile(const SgemmKernel& kr, int64_t m, int64_t n, int64_t k, float alpha,
                StridedMatrix a, StridedMatrix b, float beta, float* c, int64_t ldc) {
  // Equal k blocks (784 = 4 x 196, not 3 x 256 + 16): a thin last block would pay a full
  // pass over c for little work.
  const int64_t kc_max = split_size(k, (k + kr.kc - 1) / kr.kc, 1);
  const int64_t mc_max = split_size(m, (m + kr.mc - 1) / kr.mc, kr.mr);
  for (int64_t jc = 0; jc < n; jc += kr.nc) {
    const int64_t nc = std::min(kr.nc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kc_max) {
      const int64_t kc = std::min(kc_max, k - pc);
      float* bp = scratch(0, static_cast<size_t>((nc + kr.nr - 1) / kr.nr * kr.nr * kc));
      kr.pack_b(bp, StridedMatrix{b.p + pc * b.rs + jc * b.cs, b.rs, b.cs}, kc, nc);
      const float step_beta = pc == 0 ? beta : 1.f;  // later k blocks accumulate
      for (int64_t ic = 0; ic < m; ic += mc_max) {
        const int64_t mc = std::min(mc_max, m - ic);
        float* ap = scratch(1, static_cast<size_t>((mc + kr.mr - 1) / kr.mr * kr.mr * kc));
        kr.pack_a(ap, StridedMatrix{a.p + ic * a.rs + pc * a.cs, a.rs, a.cs}, mc, kc);
        kr.macro_kernel(mc, nc, kc, ap, bp, c + ic * ldc + jc, ldc, alpha, step_beta);
      }
    }
  }
}

void sgemm_run(const SgemmKernel& kr, int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix a,
               StridedMatrix b, float beta, float* c, int64_t ldc, bool parallel) {
  // A narrow output (the 10 classes of a classifier): column slivers would be mostly
  // padding, so solve c^T = b^T a^T (whose columns are c's rows) into scratch and add it
  // back transposed; that costs one pass over the small c.
  if (n < kr.nr && m >= 2 * kr.nr) {
    float* ct = scratch(2, static_cast<size_t>(n * m));
    sgemm_run(kr, n, m, k, alpha, StridedMatrix{b.p, b.cs, b.rs}, StridedMatrix{a.p, a.cs, a.rs},
              0.f, ct, m, parallel);
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      for (int64_t j = 0; j < n; ++j) {
        row[j] = beta == 0.f ? ct[j * m + i] : ct[j * m + i] + beta * row[j];
      }
    }
    return;
  }
  const int64_t threads = parallel ? get_num_threads() : 1;
  // One tile per thread, in a grid of tm x tn tiles: every tile packs its rows of A and its
  // columns of B, so the grid that packs least (per tile, mt + nt) wins, as long as the
  // tiles stay whole register blocks. Tiles are independent: no barrier, and a thread held
  // up by other load only delays its own tile (the pool hands its tile to whoever is free).
  int64_t tm = 1, tn = 1, best = -1;
  for (int64_t r = 1; r <= threads; ++r) {
    if (threads % r != 0) continue;
    const int64_t cols = threads / r;
    if ((r > 1 && m < r * kr.mr) || (cols > 1 && n < cols * kr.nr)) continue;
    const int64_t mt = split_size(m, r, kr.mr), nt = split_size(n, cols, kr.nr);
    const int64_t cost = mt * nt + 8 * (mt + nt);  // multiply-adds plus packing, per k
    if (best < 0 || cost < best) best = cost, tm = r, tn = cols;
  }
  if (tm * tn == 1) {
    sgemm_tile(kr, m, n, k, alpha, a, b, beta, c, ldc);
    return;
  }
  const int64_t mt = split_size(m, tm, kr.mr), nt = split_size(n, tn, kr.nr);
  parallel_for(0, tm * tn, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t i0 = (t / tn) * mt, j0 = (t % tn) * nt;
      const int64_t h = std::min(mt, m - i0), w = std::min(nt, n - j0);
      if (h <= 0 || w <= 0) continue;
      sgemm_tile(kr, h, w, k, alpha, StridedMatrix{a.p + i0 * a.rs, a.rs, a.cs},
                 StridedMatrix{b.p + j0 * b.cs, b.rs, b.cs}, beta, c + i0 * ldc + j0, ldc);
    }
  });
}

}  // namespace

void sgemm_packed(int64_t m, int64_t n, int64_t k, float alpha, StridedMatrix a, StridedMatrix b,
                  float beta, float* c, int64_t ldc, bool parallel) {
  sgemm_run(current_kernel(), m, n, k, alpha, a, b, beta, c, ldc, parallel);
}

const char* sgemm_kernel_name() { return current_kernel().name; }

bool set_sgemm_kernel(const char* name) {
  const SgemmKernel* k = find_kernel(name);
  if (k == nullptr) return false;
  g_kernel.store(k, std::memory_order_release);
  return true;
}

#else  // no packed kernel: callers use Eigen

void sgemm_packed(int64_t, int64_t, int64_t, float, StridedMatrix, StridedMatrix, float, float*,
                  int64_t, bool) {
  EMBER_CHECK(false, "addmm: this build has no packed SGEMM kernel (built without AVX2/FMA)");
}
const char* sgemm_kernel_name() { return "none"; }
bool set_sgemm_kernel(const char*) { return false; }

#endif

}  // namespace cpu
}  // namespace ember
