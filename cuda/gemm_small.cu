// A one-launch float32 GEMM for small products (the MLP's 128x784x512 and smaller), used in
// place of cuBLAS below a size limit: cuBLAS spends 10-15 us of host time per call there
// (heuristics, split-K with a second kernel), against one 4 us launch for this kernel, and
// such products are bound by host time, not by the GPU's. Larger ones still go to cuBLAS.
// (Until 2026-12-05 each thread computed 2 x 2 outputs over the whole k, one shared-memory load
// per multiply-add: 41 us of GPU time for 128x784x512 on the H200, where cuBLAS takes 20.)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>

#include <ember/cuda/check.h>
#include <ember/cuda/gemm_small.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kTile = 32;                          // output tile: kTile x kTile per block
constexpr int kDepth = 32;                         // k per shared-memory stage
constexpr int kGroups = 4;                         // the block's threads split each stage's k
constexpr int kGroupDepth = kDepth / kGroups;      // k per group and stage
constexpr int kPer = 4;                            // each thread computes kPer x kPer outputs
constexpr int kSide = kTile / kPer;                // 8 x 8 threads per group
constexpr int kThreads = kGroups * kSide * kSide;  // 256
constexpr int kLoads = kTile * kDepth / kThreads;  // elements of each operand per thread and stage
constexpr int kPitch = kTile + 4;                  // row pitch of the tiles: float4-aligned rows

// c [m, n] (row-major, contiguous) = alpha * A [m, k] @ B [k, n] + beta * c (+ bias[j] when
// bias is set); beta == 0: c is not read. A(i, l) = a[i * sa0 + l * sa1], B(l, j) = b[l * sb0 + j *
// sb1]; one of each pair of strides is 1 (core's gemm_operand), so tiles are loaded along the unit
// stride. Each stage's kDepth values of k are split over kGroups groups of threads, each of which
// accumulates a whole kTile x kTile partial tile (kPer x kPer outputs per thread, read from shared
// memory as float4s: 16 independent multiply-add chains for 2 loads); the next stage's operands
// are loaded into registers while this one is computed; the groups' partial tiles are summed in a
// fixed order at the end, so results are the same from run to run.
__global__ void __launch_bounds__(kThreads)
    sgemm_small_kernel(int m, int n, int k, const float* __restrict__ a, int64_t sa0, int64_t sa1,
                       const float* __restrict__ b, int64_t sb0, int64_t sb1, float* __restrict__ c,
                       float alpha, float beta, const float* __restrict__ bias) {
  __shared__ __align__(16) float As[kDepth][kPitch];  // As[l][i]
  __shared__ __align__(16) float Bs[kDepth][kPitch];  // Bs[l][j]
  __shared__ __align__(16) float partial[kGroups][kTile * kPitch];
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int tid = threadIdx.x;
  const int group = tid / (kSide * kSide), t = tid % (kSide * kSide);
  const int ty = t / kSide, tx = t % kSide;  // rows ty * kPer + p, columns tx * kPer + q
  const bool a_k_unit = sa1 == 1, b_n_unit = sb1 == 1;
  // Element e = tid + r * kThreads of each operand's stage, the unit-stride index fastest.
  auto a_row = [&](int e) { return a_k_unit ? e / kDepth : e % kTile; };
  auto a_depth = [&](int e) { return a_k_unit ? e % kDepth : e / kTile; };
  auto b_col = [&](int e) { return b_n_unit ? e % kTile : e / kDepth; };
  auto b_depth = [&](int e) { return b_n_unit ? e / kTile : e % kDepth; };
  float ra[kLoads], rb[kLoads];
  auto load = [&](int l0) {
#pragma unroll
    for (int r = 0; r < kLoads; ++r) {
      const int e = tid + r * kThreads;
      const int gi = row0 + a_row(e), gl = l0 + a_depth(e);
      ra[r] = gi < m && gl < k ? a[gi * sa0 + gl * sa1] : 0.0f;
      const int gj = col0 + b_col(e), glb = l0 + b_depth(e);
      rb[r] = gj < n && glb < k ? b[glb * sb0 + gj * sb1] : 0.0f;
    }
  };
  float acc[kPer][kPer] = {};
  load(0);
  for (int l0 = 0; l0 < k; l0 += kDepth) {
#pragma unroll
    for (int r = 0; r < kLoads; ++r) {
      const int e = tid + r * kThreads;
      As[a_depth(e)][a_row(e)] = ra[r];
      Bs[b_depth(e)][b_col(e)] = rb[r];
    }
    __syncthreads();
    if (l0 + kDepth < k) load(l0 + kDepth);  // in flight while this stage is computed
#pragma unroll
    for (int ll = 0; ll < kGroupDepth; ++ll) {
      const int l = group * kGroupDepth + ll;
      const float4 va = *reinterpret_cast<const float4*>(&As[l][ty * kPer]);
      const float4 vb = *reinterpret_cast<const float4*>(&Bs[l][tx * kPer]);
      const float fa[kPer] = {va.x, va.y, va.z, va.w}, fb[kPer] = {vb.x, vb.y, vb.z, vb.w};
#pragma unroll
      for (int p = 0; p < kPer; ++p) {
#pragma unroll
        for (int q = 0; q < kPer; ++q) acc[p][q] = fmaf(fa[p], fb[q], acc[p][q]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int p = 0; p < kPer; ++p) {
    *reinterpret_cast<float4*>(&partial[group][(ty * kPer + p) * kPitch + tx * kPer]) =
        make_float4(acc[p][0], acc[p][1], acc[p][2], acc[p][3]);
  }
  __syncthreads();
  // kTile * kTile / kThreads outputs per thread; a warp writes 32 neighbouring columns.
  for (int e = tid; e < kTile * kTile; e += kThreads) {
    const int i = e / kTile, j = e % kTile;
    const int gi = row0 + i, gj = col0 + j;
    if (gi >= m || gj >= n) continue;
    float sum = partial[0][i * kPitch + j];
#pragma unroll
    for (int g = 1; g < kGroups; ++g) sum += partial[g][i * kPitch + j];
    float* out = c + static_cast<int64_t>(gi) * n + gj;
    float v = beta == 0.0f ? alpha * sum : alpha * sum + beta * *out;
    if (bias != nullptr) v += bias[gj];
    *out = v;
  }
}

int64_t env_or(const char* name, int64_t fallback) {
  const char* env = std::getenv(name);
  return env ? std::strtoll(env, nullptr, 10) : fallback;
}

int64_t small_gemm_limit() {
  static const int64_t limit = env_or("EMBER_CUDA_SMALL_GEMM_MACS", int64_t{1} << 26);
  return limit;
}

// Each block walks the whole k alone, where cuBLAS splits a long k over more blocks: the CNN's
// fc1 forward (128x3136 @ 3136x128, 16 blocks) took 52 us here and 14 in cuBLAS on an H100.
int64_t small_gemm_max_k() {
  static const int64_t max_k = env_or("EMBER_CUDA_SMALL_GEMM_MAX_K", 1024);
  return max_k;
}

}  // namespace

bool small_gemm_applies(int64_t m, int64_t n, int64_t k) {
  // The grid's y dimension (row tiles) is limited to 65535.
  return m > 0 && n > 0 && k > 0 && m <= int64_t{65535} * kTile && n < (1 << 30) &&
         k <= small_gemm_max_k() && k < (1 << 30) && m * n * k <= small_gemm_limit();
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
