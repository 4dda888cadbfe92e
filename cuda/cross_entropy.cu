// CUDA kernels of the fused cross entropy (class-index targets), one launch each way.
// Forward: a row per sub-warp, warp or block computes logsumexp and the row's loss; for the
// mean/sum, blocks write partials and the last block to finish (atomic ticket after a
// __threadfence) adds them in a fixed order, so results are deterministic. Backward: one
// pass writing grad_input = scale * (softmax * s - q). Same math as cpu/cross_entropy.cpp.
// Out-of-range targets (not ignore_index) read nothing out of bounds: their row's loss and
// gradient are NaN (checking on the host would need a device-to-host copy per call).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/row_reduce.cuh>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kRowThreads = 512;    // block per row, for rows of more than 1024 classes
constexpr int kBlockThreads = 256;  // threads per block when a warp (or less) takes a row
constexpr int kMaxBlocks = 1024;    // forward grid cap: the partials the last block adds

// Per (device, stream): the forward's partials [kMaxBlocks][2] and its ticket counter.
// Work on one stream runs in order, so launches never share them; the last block resets the
// counter to 0, so no memset is needed per launch. Created once, never freed.
struct Workspace {
  double* partials = nullptr;
  unsigned int* counter = nullptr;
};

Workspace workspace(int device, cudaStream_t stream) {
  thread_local int cached_device = -1;
  thread_local cudaStream_t cached_stream = nullptr;
  thread_local Workspace cached;
  if (cached.counter != nullptr && cached_device == device && cached_stream == stream) {
    return cached;
  }
  static std::mutex mutex;
  static auto* spaces = new std::map<std::pair<int, cudaStream_t>, Workspace>();
  std::lock_guard<std::mutex> lock(mutex);
  Workspace& ws = (*spaces)[{device, stream}];
  if (ws.counter == nullptr) {
    const size_t bytes = sizeof(double) * 2 * kMaxBlocks + sizeof(unsigned int);
    void* p = nullptr;
    EMBER_CUDA_CHECK(cudaMalloc(&p, bytes));
    EMBER_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream));
    ws.partials = static_cast<double*>(p);
    ws.counter = reinterpret_cast<unsigned int*>(ws.partials + 2 * kMaxBlocks);
  }
  cached_device = device;
  cached_stream = stream;
  cached = ws;
  return ws;
}

using row::all_reduce;
using row::exp_of;
using row::log_of;
using row::Max;
using row::Sum;

// Sums buf[0..n) (n a power of two, buf in shared memory) in a fixed tree; every thread of
// the block must call it. The result is in buf[0].
__device__ void tree_sum(double* buf, int n, int tid) {
  for (int half = n / 2; half > 0; half /= 2) {
    __syncthreads();
    if (tid < half) buf[tid] += buf[tid + half];
  }
  __syncthreads();
}

template <class T>
struct Params {
  T* out;              // [] (mean, sum) or [N] (none)
  T* lse;              // [N]
  T* aux;              // [2]: total weight, sum of the class weights
  T* grad_input;       // [N, C] (backward)
  const T* grad_out;   // [] or [N] (backward)
  const T* x;          // [N, C] contiguous
  const int64_t* tgt;  // [N]
  const T* w;          // [C] or null
  int64_t n, c, ignore_index;
  int reduction;  // 0 none, 1 mean, 2 sum
  T eps;          // label smoothing
};

// One row per blockDim.x threads, blockDim.y rows per block, rows strided over the grid.
template <class T>
__global__ void __launch_bounds__(kRowThreads) forward_kernel(Params<T> p, Workspace ws) {
  __shared__ T buf_a[32], buf_b[32], buf_c[32], buf_d[32];
  __shared__ double acc_loss[kRowThreads], acc_weight[kRowThreads];
  __shared__ bool is_last;
  const bool smooth = p.eps > T(0);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  double my_loss = 0, my_weight = 0;  // the row group's lane 0 keeps its rows' totals
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.y; base < p.n;
       base += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const int64_t row = base + threadIdx.y;
    const bool valid = row < p.n;
    const int64_t t = valid ? p.tgt[row] : p.ignore_index;
    const bool ignored = t == p.ignore_index;
    const int64_t len = valid && !ignored ? p.c : 0;
    const T* x = p.x + (valid ? row : 0) * p.c;
    T m = -std::numeric_limits<T>::infinity();
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) m = Max()(m, x[i]);
    m = all_reduce(m, Max(), buf_a);
    T s = 0, shifted = 0, wsum = 0;
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) {
      const T d = x[i] - m;
      s += exp_of(d);
      if (smooth) shifted += p.w ? p.w[i] * d : d;
    }
    s = all_reduce(s, Sum(), buf_b);
    if (smooth) shifted = all_reduce(shifted, Sum(), buf_c);
    if (smooth && p.w) {  // over every class, ignored row or not (row 0 writes it to aux)
      for (int64_t i = threadIdx.x; i < (valid ? p.c : 0); i += blockDim.x) wsum += p.w[i];
      wsum = all_reduce(wsum, Sum(), buf_d);
    }
    if (!p.w) wsum = static_cast<T>(p.c);
    if (threadIdx.x == 0 && valid) {
      const T lse = m + log_of(s);
      T loss = 0, wt = 0;
      if (!ignored) {
        if (t < 0 || t >= p.c) {
          loss = nan;
        } else {
          wt = p.w ? p.w[t] : T(1);
          loss = (T(1) - p.eps) * wt * (lse - x[t]);
          if (smooth) loss += p.eps / static_cast<T>(p.c) * ((lse - m) * wsum - shifted);
        }
      }
      p.lse[row] = ignored ? T(0) : lse;
      if (p.reduction == 0) p.out[row] = loss;
      my_loss += loss;
      my_weight += wt;
      if (row == 0) p.aux[1] = wsum;
    }
  }
  if (p.reduction == 0) return;

  // Block partial: the rows' totals added in a fixed tree.
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int threads = blockDim.x * blockDim.y;
  if (threadIdx.x == 0) {
    acc_loss[threadIdx.y] = my_loss;
    acc_weight[threadIdx.y] = my_weight;
  }
  tree_sum(acc_loss, blockDim.y, tid);
  tree_sum(acc_weight, blockDim.y, tid);
  if (tid == 0) {
    ws.partials[2 * blockIdx.x] = acc_loss[0];
    ws.partials[2 * blockIdx.x + 1] = acc_weight[0];
    __threadfence();  // the partials are visible before the ticket says so
    is_last = atomicAdd(ws.counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;

  // The last block: every partial, in block order within each thread, then a fixed tree.
  __threadfence();
  double l = 0, w = 0;
  for (int b = tid; b < static_cast<int>(gridDim.x); b += threads) {
    l += __ldcg(ws.partials + 2 * b);
    w += __ldcg(ws.partials + 2 * b + 1);
  }
  acc_loss[tid] = l;
  acc_weight[tid] = w;
  tree_sum(acc_loss, threads, tid);
  tree_sum(acc_weight, threads, tid);
  if (tid == 0) {
    const double total = acc_loss[0], total_weight = acc_weight[0];
    p.out[0] = static_cast<T>(p.reduction == 1 ? total / total_weight : total);
    p.aux[0] = static_cast<T>(total_weight);
    *ws.counter = 0;  // ready for the next launch on this stream
  }
}

template <class T>
__global__ void __launch_bounds__(kRowThreads) backward_kernel(Params<T> p) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T g_all =
      p.reduction == 0 ? T(0) : (p.reduction == 1 ? p.grad_out[0] / p.aux[0] : p.grad_out[0]);
  const T wsum = p.w ? p.aux[1] : static_cast<T>(p.c);
  const T eps_c = p.eps / static_cast<T>(p.c);
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; row < p.n;
       row += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const T* x = p.x + row * p.c;
    T* gi = p.grad_input + row * p.c;
    const int64_t t = p.tgt[row];
    if (t == p.ignore_index) {
      for (int64_t i = threadIdx.x; i < p.c; i += blockDim.x) gi[i] = T(0);
      continue;
    }
    const bool in_range = t >= 0 && t < p.c;
    const T scale = p.reduction == 0 ? p.grad_out[row] : g_all;
    const T wt = !in_range ? nan : (p.w ? p.w[t] : T(1));
    const T s = (T(1) - p.eps) * wt + eps_c * wsum;  // sum_c q_c
    const T lse = p.lse[row];
    for (int64_t i = threadIdx.x; i < p.c; i += blockDim.x) {
      // q_c = (1 - eps) w_t [c == t] + eps / C w_c
      T q = eps_c * (p.w ? p.w[i] : T(1));
      if (i == t) q += (T(1) - p.eps) * wt;
      gi[i] = scale * (exp_of(x[i] - lse) * s - q);
    }
  }
}

// Threads per row (a power of two) and rows per block for rows of c classes.
dim3 row_block(int64_t c) {
  if (c > 1024) return dim3(kRowThreads, 1);
  int tx = 1;
  while (tx < 32 && tx < c) tx *= 2;
  return dim3(tx, kBlockThreads / tx);
}

template <class T>
Params<T> params(const Tensor& input, const Tensor& target, const Tensor& weight,
                 const CrossEntropyArgs& args) {
  Params<T> p{};
  p.x = input.data_ptr<T>();
  p.tgt = target.data_ptr<int64_t>();
  p.w = weight.defined() ? weight.data_ptr<T>() : nullptr;
  p.n = input.size(0);
  p.c = input.size(1);
  p.ignore_index = args.ignore_index;
  p.reduction = static_cast<int>(args.reduction);
  p.eps = static_cast<T>(args.label_smoothing);
  return p;
}

void forward(const Tensor& out, const Tensor& lse, const Tensor& aux, const Tensor& input,
             const Tensor& target, const Tensor& weight, const CrossEntropyArgs& args) {
  const int device = input.device().index();
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream();
  const Workspace ws = workspace(device, stream);
  EMBER_DISPATCH_FLOATING_TYPES(input.dtype(), "cross_entropy", [&] {
    Params<scalar_t> p = params<scalar_t>(input, target, weight, args);
    p.out = out.data_ptr<scalar_t>();
    p.lse = lse.data_ptr<scalar_t>();
    p.aux = aux.data_ptr<scalar_t>();
    const dim3 block = row_block(p.c);
    // at least one block: with no rows it still writes the mean (NaN) or sum (0)
    const int64_t blocks = std::clamp<int64_t>((p.n + block.y - 1) / block.y, 1, kMaxBlocks);
    forward_kernel<scalar_t><<<static_cast<unsigned>(blocks), block, 0, stream>>>(p, ws);
    EMBER_CUDA_KERNEL_CHECK("cross_entropy");
  });
}

void backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
              const Tensor& target, const Tensor& weight, const Tensor& lse, const Tensor& aux,
              const CrossEntropyArgs& args) {
  if (input.numel() == 0) return;
  DeviceGuard guard(input.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(input.dtype(), "cross_entropy_backward", [&] {
    Params<scalar_t> p = params<scalar_t>(input, target, weight, args);
    p.grad_input = grad_input.data_ptr<scalar_t>();
    p.grad_out = grad_out.data_ptr<scalar_t>();
    p.lse = lse.data_ptr<scalar_t>();
    p.aux = aux.data_ptr<scalar_t>();
    const dim3 block = row_block(p.c);
    const int64_t blocks = std::min<int64_t>((p.n + block.y - 1) / block.y, 1 << 20);
    backward_kernel<scalar_t><<<static_cast<unsigned>(blocks), block, 0, current_stream()>>>(p);
    EMBER_CUDA_KERNEL_CHECK("cross_entropy_backward");
  });
}

}  // namespace

void register_cross_entropy_kernels() {
  register_kernel<Op::cross_entropy>(kCUDA, forward);
  register_kernel<Op::cross_entropy_backward>(kCUDA, backward);
}

}  // namespace cuda
}  // namespace ember
