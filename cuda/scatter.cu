// CUDA scatter (assignment: with repeated indices any one write wins, as PyTorch's) and the
// scatter reductions multiply, amax, amin (compare-and-swap loops). Index values are checked here.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

// The device-side assert that glibc's assert() becomes under nvcc (see cuda/index.cu).
extern "C" __host__ __device__ void __assert_fail(const char* assertion, const char* file,
                                                  unsigned int line, const char* function) __THROW;

namespace ember {
namespace cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 4096;

enum class Mode { kAssign, kMul, kMax, kMin };

struct ScatterLayout {
  int ndim = 0;
  int64_t sizes[kMaxLaunchDims];
  int64_t strides[3][kMaxLaunchDims];  // dst (0 along dim), src, index
};

template <class T>
__device__ bool is_nan(T v) {
  if constexpr (std::is_floating_point<T>::value) {
    return v != v;
  } else {
    return false;
  }
}

template <Mode kMode, class T>
__device__ T combine(T cur, T v) {
  if constexpr (kMode == Mode::kMul) {
    return static_cast<T>(cur * v);
  } else {
    if (is_nan(cur)) return cur;  // NaN wins
    if (is_nan(v)) return v;
    return (kMode == Mode::kMax ? v > cur : v < cur) ? v : cur;
  }
}

// *p = combine(*p, v) atomically: compare-and-swap on the 4- or 8-byte word; uint8 on the
// aligned 32-bit word holding it (the allocator hands out whole words, see cuda/index.cu).
template <Mode kMode, class T>
__device__ void atomic_combine(T* p, T v) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
    W* word = reinterpret_cast<W*>(p);
    W old = *word, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, sizeof(T));
      const T next = combine<kMode>(cur, v);
      W bits;
      memcpy(&bits, &next, sizeof(T));
      if (bits == assumed) return;
      old = atomicCAS(word, assumed, bits);
    } while (assumed != old);
  } else {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
    const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const T cur = static_cast<T>((assumed >> shift) & 0xffu);
      const unsigned int next = static_cast<unsigned int>(combine<kMode>(cur, v)) & 0xffu;
      old = atomicCAS(word, assumed, (assumed & ~(0xffu << shift)) | (next << shift));
    } while (assumed != old);
  }
}

template <Mode kMode, class T>
__global__ void scatter_kernel(T* dst, const T* src, const int64_t* idx, int64_t n,
                               ScatterLayout layout, int64_t step, int64_t limit) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(blockDim.x) * gridDim.x) {
    int64_t rest = i, off[3] = {0, 0, 0};
    for (int d = layout.ndim - 1; d >= 0; --d) {
      const int64_t size = layout.sizes[d];
      const int64_t c = rest % size;
      rest /= size;
      for (int k = 0; k < 3; ++k) off[k] += c * layout.strides[k][d];
    }
    const int64_t x = idx[off[2]];
    if (x < 0 || x >= limit) {
      __assert_fail("scatter: index out of range", __FILE__, __LINE__, __func__);
      return;
    }
    T* p = dst + off[0] + x * step;
    if constexpr (kMode == Mode::kAssign) {
      *p = src[off[1]];
    } else {
      atomic_combine<kMode>(p, src[off[1]]);
    }
  }
}

template <Mode kMode, class T>
void launch(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  const char* name = kMode == Mode::kAssign ? "scatter" : "scatter_reduce";
  DimVector dst(out.strides());
  const bool has_dim = dim < out.dim();
  const int64_t step = has_dim ? out.strides()[dim] : 0;
  const int64_t limit = has_dim ? out.sizes()[dim] : 1;
  if (has_dim) dst[dim] = 0;
  const IntArrayRef strides[3] = {dst, in.strides(), index.strides()};
  const StridedGeometry g = collapse_dims(index.sizes(), strides, 3);
  EMBER_CHECK(g.sizes.size() <= static_cast<size_t>(kMaxLaunchDims), name, ": more than ",
              kMaxLaunchDims, " non-mergeable dims are not supported on CUDA");
  ScatterLayout layout;
  layout.ndim = static_cast<int>(g.sizes.size());
  int64_t n = 1;
  for (int d = 0; d < layout.ndim; ++d) {
    layout.sizes[d] = g.sizes[d];
    n *= g.sizes[d];
    for (int k = 0; k < 3; ++k) layout.strides[k][d] = g.strides[k][d];
  }
  if (n == 0) return;
  DeviceGuard guard(out.device().index());
  scatter_kernel<kMode, T><<<grid_blocks(n, kBlock, kMaxBlocks), kBlock, 0, current_stream()>>>(
      out.data_ptr<T>(), in.data_ptr<T>(), index.data_ptr<int64_t>(), n, layout, step, limit);
  EMBER_CUDA_KERNEL_CHECK(name);
}

template <Mode kMode>
void scatter_op(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (index.numel() == 0) return;
  if constexpr (kMode == Mode::kAssign) {
    EMBER_DISPATCH_ALL_TYPES(out.dtype(), "scatter",
                             [&] { launch<kMode, scalar_t>(out, in, dim, index); });
  } else {
    EMBER_DISPATCH_NUMERIC_TYPES(out.dtype(), "scatter_reduce",
                                 [&] { launch<kMode, scalar_t>(out, in, dim, index); });
  }
}

}  // namespace

void register_scatter_kernels() {
  register_kernel<Op::scatter>(kCUDA, scatter_op<Mode::kAssign>);
  register_kernel<Op::scatter_mul>(kCUDA, scatter_op<Mode::kMul>);
  register_kernel<Op::scatter_amax>(kCUDA, scatter_op<Mode::kMax>);
  register_kernel<Op::scatter_amin>(kCUDA, scatter_op<Mode::kMin>);
}

}  // namespace cuda
}  // namespace ember
