// The index walks on CUDA (cuda/index.cu, cuda/scatter.cu): a collapsed common::IndexWalk in
// fixed-size arrays a kernel takes by value, the kernels' loop over its elements, their launch,
// and the byte compare-and-swap their uint8 atomics use. Private to cuda/.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include <ember/common/index_geometry.h>
#include <ember/core/error.h>
#include <ember/cuda/api.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {

// The iteration shape (collapsed) and each operand's strides in elements, slots as in
// common::IndexSlot (dst, src, index).
struct IndexLayout {
  int ndim = 0;
  int64_t sizes[kMaxLaunchDims];
  int64_t strides[3][kMaxLaunchDims];

  // The kernels' grid-stride loop over the walk's n elements (row-major over sizes):
  // f(off, x) with the element's three operand offsets and its index value x = idx[off[kIdx]].
  template <class F>
  __device__ void for_each_element(const int64_t* idx, int64_t n, const F& f) const {
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(blockDim.x) * gridDim.x) {
      int64_t off[3] = {0, 0, 0};
      int64_t rest = i;
      for (int d = ndim - 1; d >= 0; --d) {
        const int64_t c = rest % sizes[d];
        rest /= sizes[d];
        for (int k = 0; k < 3; ++k) off[k] += c * strides[k][d];
      }
      f(off, idx[off[common::kIdx]]);
    }
  }
};

// Throws "name: more than 8 non-mergeable dims are not supported on CUDA" past kMaxLaunchDims.
inline IndexLayout make_index_layout(const char* name, const common::IndexWalk& w) {
  const StridedGeometry g = w.collapse();
  EMBER_CHECK(g.sizes.size() <= static_cast<size_t>(kMaxLaunchDims), name, ": more than ",
              kMaxLaunchDims, " non-mergeable dims are not supported on CUDA");
  IndexLayout layout;
  layout.ndim = static_cast<int>(g.sizes.size());
  for (int d = 0; d < layout.ndim; ++d) {
    layout.sizes[d] = g.sizes[d];
    for (int k = 0; k < 3; ++k) layout.strides[k][d] = g.strides[k][d];
  }
  return layout;
}

// *p = update(*p) atomically for a one-byte T (CUDA has no byte atomics): compare-and-swap on the
// aligned 32-bit word holding the byte, leaving the other three bytes as they are. The word may
// extend past the tensor's last byte: ember's CUDA allocator hands out whole 32-bit words
// (512-byte blocks, or rounded up when caching is off), so it stays in the block.
template <class T, class Update>
__device__ void atomic_update_byte(T* p, const Update& update) {
  static_assert(sizeof(T) == 1, "atomic_update_byte takes one-byte types");
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
  const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const T cur = static_cast<T>((assumed >> shift) & 0xffu);
    const unsigned int next = static_cast<unsigned int>(update(cur)) & 0xffu;
    old = atomicCAS(word, assumed, (assumed & ~(0xffu << shift)) | (next << shift));
  } while (assumed != old);
}

// A kernel over the walk's n elements: (dst, src, index, n, layout, step, limit).
template <class T>
using IndexKernel = void (*)(T*, const T*, const int64_t*, int64_t, IndexLayout, int64_t, int64_t);

// Runs kernel over w on dst's device and current stream, blocks of 256 threads, at most 4096
// blocks (several waves on an H200; the kernels' grid-stride loops do the rest).
template <class T>
void launch_index_kernel(const char* name, IndexKernel<T> kernel, const Tensor& dst,
                         const Tensor& src, const Tensor& index, const common::IndexWalk& w) {
  constexpr int kBlock = 256;
  const int64_t n = w.numel();
  if (n == 0) return;
  const IndexLayout layout = make_index_layout(name, w);
  DeviceGuard guard(dst.device().index());
  kernel<<<grid_blocks(n, kBlock, 4096), kBlock, 0, current_stream()>>>(
      dst.data_ptr<T>(), src.data_ptr<T>(), index.data_ptr<int64_t>(), n, layout, w.step, w.limit);
  EMBER_CUDA_KERNEL_CHECK(name);
}

}  // namespace cuda
}  // namespace ember
