// CUDA index_select, gather and scatter_add over strided tensors (scatter_add with atomics).
// One walk as on the CPU: the indexed operand gets stride 0 along dim, and each element adds
// index * stride(dim) to its offset. Index values are checked here, on the device.
#include <cuda_runtime.h>

#include <cstdint>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

// The device-side assert that glibc's assert() becomes under nvcc; declared here because
// <cassert> hides it when NDEBUG is set, and a bad index must fail in release builds too.
extern "C" __host__ __device__ void __assert_fail(const char* assertion, const char* file,
                                                  unsigned int line, const char* function) __THROW;

namespace ember {
namespace cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 4096;  // several waves on an H200; grid-stride does the rest

// Operand slots in the walk.
enum { kDst = 0, kSrc = 1, kIdx = 2 };
enum class Mode { kIndexSelect, kGather, kScatterAdd };

// The iteration shape (collapsed) and each operand's strides in elements.
struct IndexLayout {
  int ndim = 0;
  int64_t sizes[kMaxLaunchDims];
  int64_t strides[3][kMaxLaunchDims];
};

// ---- atomic adds for every scatter_add dtype (the CPU's numeric types) ----
__device__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ void atomic_add(int32_t* p, int32_t v) { atomicAdd(reinterpret_cast<int*>(p), v); }
// Two's complement: an unsigned 64-bit add wraps exactly like the CPU's int64 add.
__device__ void atomic_add(int64_t* p, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
// No byte atomics: compare-and-swap on the aligned 32-bit word holding the byte, which
// wraps modulo 256 like the CPU's uint8 add and leaves the other three bytes as they are.
// The word may extend past the tensor's last byte: ember's CUDA allocator hands out whole
// 32-bit words (512-byte blocks, or rounded up when caching is off), so it stays in the block.
__device__ void atomic_add(uint8_t* p, uint8_t v) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
  const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const unsigned int byte = ((assumed >> shift) + v) & 0xffu;
    old = atomicCAS(word, assumed, (assumed & ~(0xffu << shift)) | (byte << shift));
  } while (assumed != old);
}

template <Mode kMode>
__device__ void fail_out_of_range() {
  if constexpr (kMode == Mode::kIndexSelect) {
    __assert_fail("index_select: index out of range", __FILE__, __LINE__, __func__);
  } else if constexpr (kMode == Mode::kGather) {
    __assert_fail("gather: index out of range", __FILE__, __LINE__, __func__);
  } else {
    __assert_fail("scatter_add: index out of range", __FILE__, __LINE__, __func__);
  }
}

// Element i of the walk (row-major over layout.sizes). Gather modes: dst[i] = src[i +
// index[i] * step]; scatter mode: dst[i + index[i] * step] += src[i]. `limit` is the size of
// the indexed dim: core does not check CUDA index values (that would need a sync).
template <Mode kMode, class T>
__global__ void index_kernel(T* dst, const T* src, const int64_t* idx, int64_t n,
                             IndexLayout layout, int64_t step, int64_t limit) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(blockDim.x) * gridDim.x) {
    int64_t rest = i, off[3] = {0, 0, 0};
    for (int d = layout.ndim - 1; d >= 0; --d) {
      const int64_t size = layout.sizes[d];
      const int64_t c = rest % size;
      rest /= size;
      off[kDst] += c * layout.strides[kDst][d];
      off[kSrc] += c * layout.strides[kSrc][d];
      off[kIdx] += c * layout.strides[kIdx][d];
    }
    const int64_t x = idx[off[kIdx]];
    if (x < 0 || x >= limit) {
      fail_out_of_range<kMode>();
      return;  // not reached: the assert stops the kernel
    }
    if constexpr (kMode == Mode::kScatterAdd) {
      atomic_add(dst + off[kDst] + x * step, src[off[kSrc]]);
    } else {
      dst[off[kDst]] = src[off[kSrc] + x * step];
    }
  }
}

// t's strides with dim's replaced (the index supplies that coordinate).
DimVector strides_without(const Tensor& t, int64_t dim, int64_t replacement) {
  DimVector s(t.strides());
  if (dim < t.dim()) s[dim] = replacement;
  return s;
}

int64_t stride_at(const Tensor& t, int64_t dim) { return dim < t.dim() ? t.strides()[dim] : 0; }
int64_t size_at(const Tensor& t, int64_t dim) { return dim < t.dim() ? t.sizes()[dim] : 1; }

IndexLayout make_layout(const char* name, IntArrayRef sizes, const IntArrayRef* strides) {
  const StridedGeometry g = collapse_dims(sizes, strides, 3);
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

// Walks `sizes` with the three operands on dst's device and current stream.
template <Mode kMode, class T>
void launch(const char* name, const Tensor& dst, const Tensor& src, const Tensor& index,
            IntArrayRef sizes, const IntArrayRef* strides, int64_t step, int64_t limit) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n == 0) return;
  const IndexLayout layout = make_layout(name, sizes, strides);
  DeviceGuard guard(dst.device().index());
  index_kernel<kMode, T><<<grid_blocks(n, kBlock, kMaxBlocks), kBlock, 0, current_stream()>>>(
      dst.data_ptr<T>(), src.data_ptr<T>(), index.data_ptr<int64_t>(), n, layout, step, limit);
  EMBER_CUDA_KERNEL_CHECK(name);
}

// out = in.index_select(dim, index): the walk covers out; index varies along dim only.
void index_select_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  const DimVector src = strides_without(in, dim, 0);
  DimVector idx(out.dim(), 0);
  if (dim < out.dim()) idx[dim] = index.dim() > 0 ? index.strides()[0] : 0;
  const IntArrayRef strides[3] = {out.strides(), src, idx};
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), "index_select", [&] {
    launch<Mode::kIndexSelect, scalar_t>("index_select", out, in, index, out.sizes(), strides,
                                         stride_at(in, dim), size_at(in, dim));
  });
}

// out = in.gather(dim, index): the walk covers index (out has its shape).
void gather_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  const DimVector src = strides_without(in, dim, 0);
  const IntArrayRef strides[3] = {out.strides(), src, index.strides()};
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), "gather", [&] {
    launch<Mode::kGather, scalar_t>("gather", out, in, index, index.sizes(), strides,
                                    stride_at(in, dim), size_at(in, dim));
  });
}

// out (already self's copy) .scatter_add_(dim, index, in): the walk covers index. Several
// elements may hit one destination, hence atomics (float sums then depend on their order).
void scatter_add_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (index.numel() == 0) return;
  const DimVector dst = strides_without(out, dim, 0);
  const IntArrayRef strides[3] = {dst, in.strides(), index.strides()};
  EMBER_DISPATCH_NUMERIC_TYPES(out.dtype(), "scatter_add", [&] {
    launch<Mode::kScatterAdd, scalar_t>("scatter_add", out, in, index, index.sizes(), strides,
                                        stride_at(out, dim), size_at(out, dim));
  });
}

}  // namespace

void register_index_kernels() {
  register_kernel<Op::index_select>(kCUDA, index_select_kernel);
  register_kernel<Op::gather>(kCUDA, gather_kernel);
  register_kernel<Op::scatter_add>(kCUDA, scatter_add_kernel);
}

}  // namespace cuda
}  // namespace ember
