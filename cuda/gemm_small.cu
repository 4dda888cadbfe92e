// A one-launch float32 GEMM for small products (the MLP's 128x784x512 and smaller), used in
// place of cuBLAS below a size limit: cuBLAS spends 10-15 us of host time per call there
// (heuristics, split-K with a second kernel), against one 4 us launch for this kernel, and
// such products are bound by host time, not by the GPU's. Larger ones still go to cuBLAS.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>

#include <ember/cuda/check.h>
#include <ember/cuda/gemm_small.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kTile = 32;            // output tile: kTile x kTile per block
constexpr int kDepth = 32;           // k per shared-memory stage
constexpr int kPer = 2;              // each thread computes kPer x kPer outputs
constexpr int kSide = kTile / kPer;  // 16 x 16 threads
constexpr int kThreads = kSide * kSide;

// c [m, n] (row-major, contiguous) = alpha * A [m, k] @ B [k, n] + beta * c (+ bias[j] when
// bias is set); beta == 0: c is not read. A(i, l) = a[i * sa0 + l * sa1], B(l, j) = b[l * sb0 + j *
// sb1]; one of each pair of strides is 1 (core's gemm_operand), so tiles are loaded along the unit
// stride.
__global__ void __launch_bounds__(kThreads)
    sgemm_small_kernel(int m, int n, int k, const float* __restrict__ a, int64_t sa0, int64_t sa1,
                       const float* __restrict__ b, int64_t sb0, int64_t sb1, float* __restrict__ c,
                       float alpha, float beta, const float* __restrict__ bias) {
  __shared__ float As[kDepth][kTile + 1];  // As[l][i]
  __shared__ float Bs[kDepth][kTile + 1];  // Bs[l][j]
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int tid = threadIdx.x;
  const int ty = tid / kSide, tx = tid % kSide;
  const bool a_k_unit = sa1 == 1, b_n_unit = sb1 == 1;
  float acc[kPer][kPer] = {};
  for (int l0 = 0; l0 < k; l0 += kDepth) {
    // kTile * kDepth elements per operand, kThreads at a time, the unit-stride index fastest.
    for (int t = tid; t < kTile * kDepth; t += kThreads) {
      const int i = a_k_unit ? t / kDepth : t % kTile;
      const int l = a_k_unit ? t % kDepth : t / kTile;
      const int gi = row0 + i, gl = l0 + l;
      As[l][i] = gi < m && gl < k ? a[gi * sa0 + gl * sa1] : 0.0f;
      const int j = b_n_unit ? t % kTile : t / kDepth;
      const int lb = b_n_unit ? t / kTile : t % kDepth;
      const int gj = col0 + j, glb = l0 + lb;
      Bs[lb][j] = gj < n && glb < k ? b[glb * sb0 + gj * sb1] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int l = 0; l < kDepth; ++l) {
      float ra[kPer], rb[kPer];
#pragma unroll
      for (int p = 0; p < kPer; ++p) {
        ra[p] = As[l][ty + p * kSide];
        rb[p] = Bs[l][tx + p * kSide];
      }
#pragma unroll
      for (int p = 0; p < kPer; ++p) {
#pragma unroll
        for (int q = 0; q < kPer; ++q) acc[p][q] = fmaf(ra[p], rb[q], acc[p][q]);
      }
    }
    __syncthreads();
  }
  // Threads of a warp write neighbouring columns: coalesced stores.
#pragma unroll
  for (int p = 0; p < kPer; ++p) {
    const int gi = row0 + ty + p * kSide;
    if (gi >= m) continue;
#pragma unroll
    for (int q = 0; q < kPer; ++q) {
      const int gj = col0 + tx + q * kSide;
      if (gj >= n) continue;
      float* out = c + static_cast<int64_t>(gi) * n + gj;
      float v = beta == 0.0f ? alpha * acc[p][q] : alpha * acc[p][q] + beta * *out;
      if (bias != nullptr) v += bias[gj];
      *out = v;
    }
  }
}

int64_t small_gemm_limit() {
  static const int64_t limit = [] {
    const char* env = std::getenv("EMBER_CUDA_SMALL_GEMM_MACS");
    return env ? std::strtoll(env, nullptr, 10) : int64_t{1} << 26;
  }();
  return limit;
}

}  // namespace

bool small_gemm_applies(int64_t m, int64_t n, int64_t k) {
  // The grid's y dimension (row tiles) is limited to 65535.
  return m > 0 && n > 0 && k > 0 && m <= int64_t{65535} * kTile && n < (1 << 30) && k < (1 << 30) &&
         m * n * k <= small_gemm_limit();
}

void small_sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t sa0, int64_t sa1,
                 const float* b, int64_t sb0, int64_t sb1, float* c, float alpha, float beta,
                 const float* bias) {
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                  static_cast<unsigned>((m + kTile - 1) / kTile));
  sgemm_small_kernel<<<grid, kThreads, 0, current_stream()>>>(
      static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), a, sa0, sa1, b, sb0, sb1, c,
      alpha, beta, bias);
  EMBER_CUDA_KERNEL_CHECK("addmm");
}

}  // namespace cuda
}  // namespace ember
