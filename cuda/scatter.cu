// CUDA scatter (assignment: with repeated indices any one write wins, as PyTorch's) and the
// scatter reductions multiply, amax, amin (compare-and-swap loops). Index values are checked here.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include <ember/common/index_geometry.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/index_walk.cuh>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

// The device-side assert that glibc's assert() becomes under nvcc (see cuda/index.cu).
extern "C" __host__ __device__ void __assert_fail(const char* assertion, const char* file,
                                                  unsigned int line, const char* function) __THROW;

namespace ember {
namespace cuda {
namespace {

using common::kDst;  // common/index_geometry.h: the walk's operand slots
using common::kSrc;
enum class Mode { kAssign, kMul, kMax, kMin };

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
// aligned 32-bit word holding it (cuda/index_walk.cuh's atomic_update_byte).
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
    atomic_update_byte(p, [v](T cur) { return combine<kMode>(cur, v); });
  }
}

template <Mode kMode, class T>
__global__ void scatter_kernel(T* dst, const T* src, const int64_t* idx, int64_t n,
                               IndexLayout layout, int64_t step, int64_t limit) {
  layout.for_each_element(idx, n, [&](const int64_t* off, int64_t x) {
    if (x < 0 || x >= limit) {
      __assert_fail("scatter: index out of range", __FILE__, __LINE__, __func__);
      return;
    }
    T* p = dst + off[kDst] + x * step;
    if constexpr (kMode == Mode::kAssign) {
      *p = src[off[kSrc]];
    } else {
      atomic_combine<kMode>(p, src[off[kSrc]]);
    }
  });
}

template <Mode kMode, class T>
void launch(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  launch_index_kernel<T>(kMode == Mode::kAssign ? "scatter" : "scatter_reduce",
                         scatter_kernel<kMode, T>, out, in, index,
                         common::scatter_walk(out, in, dim, index));
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
