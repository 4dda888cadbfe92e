// CUDA softmax and log_softmax along any dim, numerically stable (the row max is subtracted
// before exp), fused in one kernel: max, sum of exp, write. float32 and float64.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include <ember/common/softmax_geometry.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/row_reduce.cuh>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kRowThreads = 512;         // block per row, for long rows
constexpr int kWarpBlock = 256;          // threads per block when a warp (or less) takes a row
constexpr int kColThreads = 256;         // threads per block of the column kernel
constexpr int64_t kColumnLanes = 16384;  // fewer lanes than this: one row per warp/block

using Geometry = common::SoftmaxGeometry;  // common/softmax_geometry.h

using row::all_reduce;
using row::exp_of;
using row::log_of;
using row::Max;
using row::Sum;

// One row per blockDim.x threads (a sub-warp, a warp or the block), blockDim.y rows per
// block. Every thread reaches the all_reduce calls, valid row or not.
template <class T, bool kLog>
__global__ void __launch_bounds__(kRowThreads)
    softmax_rows(T* __restrict__ out, const T* __restrict__ in, int64_t rows, Geometry g) {
  __shared__ T warp_max[32];
  __shared__ T warp_sum[32];
  const int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const bool valid = row < rows;
  const int64_t o = valid ? row / g.inner : 0, j = valid ? row - o * g.inner : 0;
  const T* x = in + o * g.outer_stride + j * g.inner_stride;
  T* y = out + o * g.size * g.inner + j;
  const int64_t n = valid ? g.size : 0;

  T m = -std::numeric_limits<T>::infinity();
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) m = Max()(m, x[i * g.stride]);
  m = all_reduce(m, Max(), warp_max);
  T s = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += exp_of(x[i * g.stride] - m);
  s = all_reduce(s, Sum(), warp_sum);
  if (kLog) {
    const T log_s = log_of(s);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      y[i * g.inner] = (x[i * g.stride] - m) - log_s;  // x - max first: exact for the largest
    }
  } else {
    const T inv = T(1) / s;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      y[i * g.inner] = exp_of(x[i * g.stride] - m) * inv;
    }
  }
}

// dim not innermost, with many lanes: one thread per lane (o, j); neighbouring threads read
// neighbouring j, so each of the three passes over the dim is coalesced.
template <class T, bool kLog>
__global__ void softmax_cols(T* __restrict__ out, const T* __restrict__ in, int64_t lanes,
                             Geometry g) {
  for (int64_t l = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; l < lanes;
       l += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t o = l / g.inner, j = l - o * g.inner;
    const T* x = in + o * g.outer_stride + j * g.inner_stride;
    T* y = out + o * g.size * g.inner + j;
    T m = -std::numeric_limits<T>::infinity();
    for (int64_t d = 0; d < g.size; ++d) m = Max()(m, x[d * g.stride]);
    T s = 0;
    for (int64_t d = 0; d < g.size; ++d) s += exp_of(x[d * g.stride] - m);
    if (kLog) {
      const T log_s = log_of(s);
      for (int64_t d = 0; d < g.size; ++d) y[d * g.inner] = (x[d * g.stride] - m) - log_s;
    } else {
      const T inv = T(1) / s;
      for (int64_t d = 0; d < g.size; ++d) y[d * g.inner] = exp_of(x[d * g.stride] - m) * inv;
    }
  }
}

template <class T, bool kLog>
void launch(const Tensor& out, const Tensor& in, const Geometry& g) {
  T* y = out.data_ptr<T>();
  const T* x = in.data_ptr<T>();
  const int64_t lanes = g.outer * g.inner;
  const cudaStream_t stream = current_stream();
  const char* name = kLog ? "log_softmax" : "softmax";
  if (g.inner > 1 && lanes >= kColumnLanes) {
    const int64_t blocks = std::min<int64_t>((lanes + kColThreads - 1) / kColThreads, 1 << 20);
    softmax_cols<T, kLog>
        <<<static_cast<unsigned>(blocks), kColThreads, 0, stream>>>(y, x, lanes, g);
    EMBER_CUDA_KERNEL_CHECK(name);
    return;
  }
  int tx = kRowThreads;
  if (g.size <= 1024) {
    tx = 1;
    while (tx < 32 && tx < g.size) tx *= 2;
  }
  const int ty = tx == kRowThreads ? 1 : kWarpBlock / tx;
  const int64_t blocks = (lanes + ty - 1) / ty;
  EMBER_CHECK(blocks < (int64_t(1) << 31), name, ": too many rows for the CUDA kernel (", lanes,
              ")");
  softmax_rows<T, kLog><<<static_cast<unsigned>(blocks), dim3(tx, ty), 0, stream>>>(y, x, lanes, g);
  EMBER_CUDA_KERNEL_CHECK(name);
}

template <bool kLog>
void softmax_kernel(const Tensor& out, const Tensor& in_, int64_t dim) {
  DeviceGuard guard(out.device().index());
  Geometry g;
  const Tensor in = common::softmax_geometry(in_, dim, g);  // contiguous when dims do not merge
  if (in.numel() == 0) return;
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), kLog ? "log_softmax" : "softmax",
                                [&] { launch<scalar_t, kLog>(out, in, g); });
}

}  // namespace

void register_softmax_kernels() {
  register_kernel<Op::softmax>(kCUDA, softmax_kernel<false>);
  register_kernel<Op::log_softmax>(kCUDA, softmax_kernel<true>);
}

}  // namespace cuda
}  // namespace ember
