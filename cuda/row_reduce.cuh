// Device helpers shared by the row-wise kernels (cuda/softmax.cu, cuda/cross_entropy.cu):
// exp/log overloads per float type, max/sum functors, and a deterministic all-reduce of one
// value over the blockDim.x threads of a row.
#pragma once

#include <cuda_runtime.h>

namespace ember {
namespace cuda {
namespace row {

__device__ inline float exp_of(float x) { return expf(x); }
__device__ inline double exp_of(double x) { return ::exp(x); }
__device__ inline float log_of(float x) { return logf(x); }
__device__ inline double log_of(double x) { return ::log(x); }

struct Max {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return b > a ? b : a;
  }
};
struct Sum {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

// Combines v over the blockDim.x threads sharing threadIdx.y and gives every one of them the
// result. xor butterflies give all lanes bit-identical values (op is commutative); above 32
// threads (blockDim.y == 1) every thread folds the warps' values in the same order through
// warp_values (shared memory). Consecutive calls must use different buffers.
template <class T, class Op>
__device__ T all_reduce(T v, Op op, T* warp_values) {
  const int width = blockDim.x < 32 ? blockDim.x : 32;
  for (int off = width / 2; off > 0; off /= 2) {
    v = op(v, __shfl_xor_sync(0xffffffffu, v, off, width));
  }
  if (blockDim.x <= 32) return v;
  if (threadIdx.x % 32 == 0) warp_values[threadIdx.x / 32] = v;
  __syncthreads();
  v = warp_values[0];
  for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) v = op(v, warp_values[w]);
  return v;
}

}  // namespace row
}  // namespace cuda
}  // namespace ember
