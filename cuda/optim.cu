// CUDA kernels of the fused optimizer steps (sgd_step, adam_step, rmsprop_step, adagrad_step):
// multi-tensor launches in the manner of PyTorch's multi_tensor_apply. The lists' pointers and
// sizes travel in the kernel's argument block, each block takes one chunk of one tensor, and
// one launch covers up to kMaxTensors tensors / kMaxBlocks chunks (more make a few launches).
// No host synchronization: hyperparameters are host values. Math, and which functor runs over
// which lists: common/optim_math.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include <ember/core/dispatch.h>
#include <ember/common/optim_math.h>
#include <ember/cuda/api.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kThreads = 512;
// Elements per block: the smallest power of two from kMinChunk to kMaxChunk whose kMaxBlocks
// chunks cover all the parameters, so that a small model's step (the MLP's 535k
// parameters) fills the GPU in one launch (265 blocks of 2048, 5 us) where a fixed 65536
// made 12 blocks that each walked 128 elements per thread (60 us), and a large one keeps few
// launches.
constexpr int64_t kMinChunk = 2048;
constexpr int64_t kMaxChunk = 65536;
constexpr int kMaxBlocks = 320;  // chunks per launch
// Tensors per launch, by list count, as PyTorch's depth_to_max_tensors: the argument block
// (pointers, sizes, block map) stays under the 4 KiB kernel-parameter limit.
constexpr int max_tensors(int n) {
  return n == 1 ? 110 : n == 2 ? 64 : n == 3 ? 48 : n == 4 ? 36 : 30;
}

template <int N>
struct ListMeta {
  static constexpr int kTensors = max_tensors(N);
  void* ptr[N][kTensors];
  int64_t numel[kTensors];
  int64_t chunk;  // elements per block
  unsigned char block_tensor[kMaxBlocks];
  int block_chunk[kMaxBlocks];
};

// Block b updates chunk meta.block_chunk[b] of tensor meta.block_tensor[b]; every list's
// tensor t has meta.numel[t] contiguous elements of T.
template <class T, class F>
__global__ void __launch_bounds__(kThreads)
    multi_tensor_kernel(const ListMeta<F::N> meta, const F f) {
  const int t = meta.block_tensor[blockIdx.x];
  const int64_t begin = static_cast<int64_t>(meta.block_chunk[blockIdx.x]) * meta.chunk;
  const int64_t end = meta.numel[t] < begin + meta.chunk ? meta.numel[t] : begin + meta.chunk;
  T* ptr[F::N];
#pragma unroll
  for (int k = 0; k < F::N; ++k) ptr[k] = static_cast<T*>(meta.ptr[k][t]);
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) f(ptr, i);
}

// Packs the lists (lists[k] empty = not used by this functor) into as few launches as fit.
template <class T, class F>
void multi_tensor_apply(const char* op, const F& f, std::initializer_list<TensorList> lists) {
  constexpr int N = F::N;
  static_assert(sizeof(ListMeta<N>) + sizeof(F) <= 4000, "kernel arguments over 4 KiB");
  const TensorList* used[N];
  int k = 0;
  for (const TensorList& list : lists)
    if (!list.empty()) used[k++] = &list;
  const TensorList params = *used[0];
  DeviceGuard guard(params[0].device().index());
  cudaStream_t stream = current_stream();

  ListMeta<N> meta;
  int64_t total = 0;
  for (const Tensor& p : params) total += p.numel();
  meta.chunk = kMinChunk;
  while (meta.chunk < kMaxChunk && meta.chunk * kMaxBlocks < total) meta.chunk *= 2;
  int nt = 0, nb = 0;
  auto launch = [&] {
    multi_tensor_kernel<T, F><<<nb, kThreads, 0, stream>>>(meta, f);
    EMBER_CUDA_KERNEL_CHECK(op);
    nb = 0;
  };
  for (size_t i = 0; i < params.size(); ++i) {
    const int64_t n = params[i].numel();
    if (n == 0) continue;
    for (int j = 0; j < N; ++j) meta.ptr[j][nt] = (*used[j])[i].data_ptr();
    meta.numel[nt] = n;
    const int64_t chunks = (n + meta.chunk - 1) / meta.chunk;
    for (int64_t c = 0; c < chunks; ++c) {
      meta.block_tensor[nb] = static_cast<unsigned char>(nt);
      meta.block_chunk[nb] = static_cast<int>(c);
      ++nb;
      const bool last_chunk = c + 1 == chunks;
      if (nb == kMaxBlocks || (last_chunk && nt + 1 == ListMeta<N>::kTensors)) {
        launch();
        if (last_chunk) {
          nt = -1;  // this tensor is done; the next one starts slot 0
        } else {    // the rest of this tensor's chunks continue in slot 0
          for (int j = 0; j < N; ++j) meta.ptr[j][0] = meta.ptr[j][nt];
          meta.numel[0] = n;
          nt = 0;
        }
      }
    }
    ++nt;
  }
  if (nb > 0) launch();
}

// The CUDA launches for optim_math's kernels.
struct MultiTensorApply {
  template <class T, class F>
  void operator()(T, const F& f, std::initializer_list<TensorList> lists) const {
    multi_tensor_apply<T>(F::kName, f, lists);
  }
};

}  // namespace

void register_optim_kernels() {
  register_kernel<Op::sgd_step>(kCUDA, &optim_math::sgd_step<MultiTensorApply>);
  register_kernel<Op::adam_step>(kCUDA, &optim_math::adam_step<MultiTensorApply>);
  register_kernel<Op::rmsprop_step>(kCUDA, &optim_math::rmsprop_step<MultiTensorApply>);
  register_kernel<Op::adagrad_step>(kCUDA, &optim_math::adagrad_step<MultiTensorApply>);
}

}  // namespace cuda
}  // namespace ember
