// CUDA batch-norm kernels (core/ops.def's batch_norm family) over a contiguous [N, C, S] input.
// Per-channel sums: a grid of (channel, split) blocks, each thread with several loads in flight,
// writes double partials; a second kernel adds the splits per channel and finishes the
// statistics. The elementwise passes are one thread per element.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/dtype.h>
#include <ember/core/error.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/device_props.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // loads in flight per thread in the sums
constexpr int64_t kMaxBlocks = 1 << 16;
constexpr int64_t kPerBlock = 2 * kUnroll * kThreads;  // elements a sum block takes at least

__device__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Sums a and b over the block; thread 0 writes them to out[0] and out[1].
__device__ void block_sums_to(double a, double b, double* out) {
  __shared__ double sa[kThreads / 32], sb[kThreads / 32];
  a = warp_sum(a);
  b = warp_sum(b);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    sa[warp] = a;
    sb[warp] = b;
  }
  __syncthreads();
  if (warp == 0) {
    a = warp_sum(lane < kThreads / 32 ? sa[lane] : 0.0);
    b = warp_sum(lane < kThreads / 32 ? sb[lane] : 0.0);
    if (lane == 0) {
      out[0] = a;
      out[1] = b;
    }
  }
}

// The element offset of the j-th element of channel c (j = n S + s) in [N, C, S].
template <class I>
__device__ __forceinline__ I channel_offset(I j, I c, I s_len, I channels) {
  const I n = j / s_len;
  return (n * channels + c) * s_len + (j - n * s_len);
}

// Block (c, split) of the sums: the split's slice [begin, end) of channel c's N S elements.
// Writes partial[(split C + c) 2 + {0, 1}]. With dy == nullptr (statistics): sums of x - r and
// (x - r)^2 with r = x's first element of the channel (one pass, no cancellation); otherwise
// (backward): sums of dy and dy (x - mean[c]).
template <class T, class I>
__global__ void channel_sums(const T* __restrict__ x, const T* __restrict__ dy,
                             const T* __restrict__ mean, I n_s, I s_len, I channels, I chunk,
                             double* partial) {
  const I c = blockIdx.x;
  const I split = blockIdx.y;
  const double r = dy == nullptr ? static_cast<double>(x[c * s_len]) : static_cast<double>(mean[c]);
  const I begin = split * chunk;
  const I end = min(begin + chunk, n_s);
  double a = 0, b = 0;
  for (I j = begin + threadIdx.x; j < end; j += kUnroll * I(blockDim.x)) {
    T xv[kUnroll], gv[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const I jj = j + u * I(blockDim.x);
      const bool in_range = jj < end;
      const I off = in_range ? channel_offset(jj, c, s_len, channels) : I(0);
      xv[u] = in_range ? x[off] : T(0);
      gv[u] = in_range && dy != nullptr ? dy[off] : T(0);
      if (!in_range && dy == nullptr) xv[u] = static_cast<T>(r);  // adds 0 below
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const double d = static_cast<double>(xv[u]) - r;
      if (dy == nullptr) {
        a += d;
        b += d * d;
      } else {
        const double g = static_cast<double>(gv[u]);
        a += g;
        b += g * d;
      }
    }
  }
  block_sums_to(a, b, partial + (static_cast<int64_t>(split) * channels + c) * 2);
}

// Channel c's two sums, added over the splits of partial [splits, C, 2] in split order.
__device__ __forceinline__ void add_splits(const double* partial, int splits, int64_t channels,
                                           int64_t c, double& s1, double& s2) {
  s1 = 0;
  s2 = 0;
  for (int k = 0; k < splits; ++k) {
    s1 += partial[(k * channels + c) * 2];
    s2 += partial[(k * channels + c) * 2 + 1];
  }
}

template <class T>
__global__ void finish_stats(const double* partial, const T* x, int64_t s_len, int splits,
                             int64_t channels, double count, double eps, T* mean, T* var,
                             T* invstd) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= channels) return;
  double s1, s2;
  add_splits(partial, splits, channels, c, s1, s2);
  const double d = s1 / count;
  const double biased = fmax(s2 / count - d * d, 0.0);
  mean[c] = static_cast<T>(static_cast<double>(x[c * s_len]) + d);
  var[c] = static_cast<T>(biased);
  invstd[c] = static_cast<T>(1.0 / sqrt(biased + eps));
}

template <class T>
__global__ void finish_backward(const double* partial, int splits, int64_t channels, T* sum_dy,
                                T* sum_dy_xmu) {
  const int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= channels) return;
  double s1, s2;
  add_splits(partial, splits, channels, c, s1, s2);
  sum_dy[c] = static_cast<T>(s1);
  sum_dy_xmu[c] = static_cast<T>(s2);
}

unsigned blocks_for(int64_t n) { return grid_blocks(n, kThreads, kMaxBlocks); }

struct Geometry {
  int64_t n, c, s;
  explicit Geometry(const Tensor& in) : n(in.size(0)), c(in.size(1)), s(in.size(2)) {}
};

void check_geometry(const char* op, const Tensor& in) {
  EMBER_CHECK(in.dim() == 3 && in.is_contiguous(), op,
              ": the CUDA kernel expects a contiguous [N, C, S] input, got ",
              shape_str(in.sizes()));
  EMBER_CHECK(in.size(1) <= INT32_MAX, op, ": too many channels (", in.size(1), ")");
}

template <class T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// Runs channel_sums over every channel (dy == nullptr: the statistics), returning the
// [splits, C, 2] double partials and the split count.
template <class T>
Tensor launch_sums(const Geometry& g, const Tensor& like, const T* x, const T* dy, const T* mean,
                   int* splits_out, cudaStream_t stream) {
  const int64_t per_channel = g.n * g.s;
  // Enough blocks to fill the GPU several times over, none with fewer than kPerBlock elements.
  const int64_t want = (8 * int64_t(sm_count(like.device().index())) + g.c - 1) / g.c;
  const int64_t splits =
      std::max<int64_t>(1, std::min({want, per_channel / kPerBlock, int64_t(65535)}));
  const int64_t chunk = (per_channel + splits - 1) / splits;
  Tensor partial = empty_on({splits, g.c, 2}, kFloat64, like.device());
  const dim3 grid(static_cast<unsigned>(g.c), static_cast<unsigned>(splits));
  with_index_type(like.numel(), [&](auto index_tag) {
    using I = decltype(index_tag);
    channel_sums<T, I><<<grid, kThreads, 0, stream>>>(x, dy, mean, I(per_channel), I(g.s), I(g.c),
                                                      I(chunk), partial.data_ptr<double>());
  });
  *splits_out = static_cast<int>(splits);
  return partial;
}

void batch_norm_stats_kernel(const Tensor& mean, const Tensor& var, const Tensor& invstd,
                             const Tensor& in, double eps) {
  check_geometry("batch_norm_stats", in);
  const Geometry g(in);
  if (g.n * g.s == 0 || g.c == 0) return;
  DeviceGuard guard(in.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "batch_norm_stats", [&] {
    cudaStream_t stream = current_stream();
    const scalar_t* x = in.data_ptr<scalar_t>();
    int splits = 1;
    const Tensor partial = launch_sums<scalar_t>(g, in, x, nullptr, nullptr, &splits, stream);
    finish_stats<<<blocks_for(g.c), kThreads, 0, stream>>>(
        partial.data_ptr<double>(), x, g.s, splits, g.c, static_cast<double>(g.n * g.s), eps,
        mean.data_ptr<scalar_t>(), var.data_ptr<scalar_t>(), invstd.data_ptr<scalar_t>());
    EMBER_CUDA_KERNEL_CHECK("batch_norm_stats");
  });
}

void batch_norm_backward_reduce_kernel(const Tensor& sum_dy, const Tensor& sum_dy_xmu,
                                       const Tensor& grad_out, const Tensor& in,
                                       const Tensor& mean) {
  check_geometry("batch_norm_backward_reduce", in);
  const Geometry g(in);
  if (g.c == 0) return;
  DeviceGuard guard(in.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "batch_norm_backward_reduce", [&] {
    cudaStream_t stream = current_stream();
    int splits = 1;
    const Tensor partial =
        launch_sums<scalar_t>(g, in, in.data_ptr<scalar_t>(), grad_out.data_ptr<scalar_t>(),
                              mean.data_ptr<scalar_t>(), &splits, stream);
    finish_backward<<<blocks_for(g.c), kThreads, 0, stream>>>(partial.data_ptr<double>(), splits,
                                                              g.c, sum_dy.data_ptr<scalar_t>(),
                                                              sum_dy_xmu.data_ptr<scalar_t>());
    EMBER_CUDA_KERNEL_CHECK("batch_norm_backward_reduce");
  });
}

// out = (x - mean[c]) invstd[c] weight[c] + bias[c]; c = (i / S) % C.
template <class T, class I>
__global__ void apply_forward(const T* __restrict__ x, const T* __restrict__ mean,
                              const T* __restrict__ invstd, const T* __restrict__ weight,
                              const T* __restrict__ bias, T* __restrict__ out, I total, I s_len,
                              I channels) {
  for (I i = blockIdx.x * I(blockDim.x) + threadIdx.x; i < total; i += I(blockDim.x) * gridDim.x) {
    const I c = (i / s_len) % channels;
    const T w = weight != nullptr ? weight[c] : T(1);
    const T b = bias != nullptr ? bias[c] : T(0);
    out[i] = (x[i] - mean[c]) * (invstd[c] * w) + b;
  }
}

// grad_in = (dy - sum_dy[c] / M - (x - mean[c]) invstd[c]^2 sum_dy_xmu[c] / M) invstd[c] w[c].
template <class T, class I>
__global__ void apply_backward(const T* __restrict__ dy, const T* __restrict__ x,
                               const T* __restrict__ mean, const T* __restrict__ invstd,
                               const T* __restrict__ weight, const T* __restrict__ sum_dy,
                               const T* __restrict__ sum_dy_xmu, T inv_count,
                               T* __restrict__ grad_in, I total, I s_len, I channels) {
  for (I i = blockIdx.x * I(blockDim.x) + threadIdx.x; i < total; i += I(blockDim.x) * gridDim.x) {
    const I c = (i / s_len) % channels;
    const T is = invstd[c];
    const T w = weight != nullptr ? weight[c] : T(1);
    const T proj = is * is * sum_dy_xmu[c] * inv_count;
    grad_in[i] = (dy[i] - sum_dy[c] * inv_count - (x[i] - mean[c]) * proj) * (is * w);
  }
}

// What the two elementwise passes share: checks in; unless it is empty, calls
// launch(T{}, I{}, stream) on its device with T its dtype (float32 or float64) and I the index
// type for its elements (cuda/launch.h), then checks the launch.
template <class Launch>
void launch_elementwise(const char* op, const Tensor& in, const Launch& launch) {
  check_geometry(op, in);
  if (in.numel() == 0) return;
  DeviceGuard guard(in.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), op, [&] {
    cudaStream_t stream = current_stream();
    with_index_type(in.numel(), [&](auto index_tag) { launch(scalar_t{}, index_tag, stream); });
    EMBER_CUDA_KERNEL_CHECK(op);
  });
}

void batch_norm_apply_kernel(const Tensor& out, const Tensor& in, const Tensor& mean,
                             const Tensor& invstd, const Tensor& weight, const Tensor& bias) {
  launch_elementwise("batch_norm_apply", in, [&](auto t, auto index_tag, cudaStream_t stream) {
    using T = decltype(t);
    using I = decltype(index_tag);
    const Geometry g(in);
    const int64_t total = in.numel();
    apply_forward<T, I><<<blocks_for(total), kThreads, 0, stream>>>(
        in.data_ptr<T>(), mean.data_ptr<T>(), invstd.data_ptr<T>(), data_or_null<T>(weight),
        data_or_null<T>(bias), out.data_ptr<T>(), I(total), I(g.s), I(g.c));
  });
}

void batch_norm_backward_apply_kernel(const Tensor& grad_in, const Tensor& grad_out,
                                      const Tensor& in, const Tensor& mean, const Tensor& invstd,
                                      const Tensor& weight, const Tensor& sum_dy,
                                      const Tensor& sum_dy_xmu) {
  launch_elementwise(
      "batch_norm_backward_apply", in, [&](auto t, auto index_tag, cudaStream_t stream) {
        using T = decltype(t);
        using I = decltype(index_tag);
        const Geometry g(in);
        const int64_t total = in.numel();
        const T inv_count = T(1) / static_cast<T>(g.n * g.s);
        apply_backward<T, I><<<blocks_for(total), kThreads, 0, stream>>>(
            grad_out.data_ptr<T>(), in.data_ptr<T>(), mean.data_ptr<T>(), invstd.data_ptr<T>(),
            data_or_null<T>(weight), sum_dy.data_ptr<T>(), sum_dy_xmu.data_ptr<T>(), inv_count,
            grad_in.data_ptr<T>(), I(total), I(g.s), I(g.c));
      });
}

}  // namespace

void register_batch_norm_kernels() {
  register_kernel<Op::batch_norm_stats>(kCUDA, batch_norm_stats_kernel);
  register_kernel<Op::batch_norm_apply>(kCUDA, batch_norm_apply_kernel);
  register_kernel<Op::batch_norm_backward_reduce>(kCUDA, batch_norm_backward_reduce_kernel);
  register_kernel<Op::batch_norm_backward_apply>(kCUDA, batch_norm_backward_apply_kernel);
}

}  // namespace cuda
}  // namespace ember
