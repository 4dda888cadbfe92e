// CUDA index_select, gather and scatter_add over strided tensors (scatter_add with atomics).
// One walk as on the CPU: the indexed operand gets stride 0 along dim, and each element adds
// index * stride(dim) to its offset. Index values are checked here, on the device.
#include <cuda_runtime.h>

#include <cstdint>

#include <ember/common/index_geometry.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/index_walk.cuh>
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

using common::IndexWalk;  // common/index_geometry.h, shared with cpu/index.cpp
using common::kDst;
using common::kSrc;
enum class Mode { kIndexSelect, kIndexRows, kGather, kScatterAdd };

// ---- atomic adds for every scatter_add dtype (the CPU's numeric types) ----
__device__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ void atomic_add(int32_t* p, int32_t v) { atomicAdd(reinterpret_cast<int*>(p), v); }
// Two's complement: an unsigned 64-bit add wraps exactly like the CPU's int64 add.
__device__ void atomic_add(int64_t* p, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
// Wraps modulo 256 like the CPU's uint8 add (cuda/index_walk.cuh's compare-and-swap).
__device__ void atomic_add(uint8_t* p, uint8_t v) {
  atomic_update_byte(p, [v](uint8_t cur) { return static_cast<uint8_t>(cur + v); });
}

template <Mode kMode>
__device__ void fail_out_of_range() {
  if constexpr (kMode == Mode::kIndexSelect) {
    __assert_fail("index_select: index out of range", __FILE__, __LINE__, __func__);
  } else if constexpr (kMode == Mode::kIndexRows) {
    __assert_fail("index: index out of range", __FILE__, __LINE__, __func__);
  } else if constexpr (kMode == Mode::kGather) {
    __assert_fail("gather: index out of range", __FILE__, __LINE__, __func__);
  } else {
    __assert_fail("scatter_add: index out of range", __FILE__, __LINE__, __func__);
  }
}

// Element i of the walk (row-major over layout.sizes). Gather modes: dst[i] = src[i +
// index[i] * step]; scatter mode: dst[i + index[i] * step] += src[i]. `limit` is the size of
// the indexed dim: core does not check CUDA index values (that would need a sync). kIndexRows
// takes negative indices down to -limit, counting from the end (advanced indexing's rule).
template <Mode kMode, class T>
__global__ void index_kernel(T* dst, const T* src, const int64_t* idx, int64_t n,
                             IndexLayout layout, int64_t step, int64_t limit) {
  layout.for_each_element(idx, n, [&](const int64_t* off, int64_t x) {
    if (kMode == Mode::kIndexRows && x < 0) x += limit;
    if (x < 0 || x >= limit) {
      fail_out_of_range<kMode>();
      return;  // not reached: the assert stops the kernel
    }
    if constexpr (kMode == Mode::kScatterAdd) {
      atomic_add(dst + off[kDst] + x * step, src[off[kSrc]]);
    } else {
      dst[off[kDst]] = src[off[kSrc] + x * step];
    }
  });
}

// Walks w with the three operands (cuda/index_walk.cuh).
template <Mode kMode, class T>
void launch(const char* name, const Tensor& dst, const Tensor& src, const Tensor& index,
            const IndexWalk& w) {
  launch_index_kernel<T>(name, index_kernel<kMode, T>, dst, src, index, w);
}

// out = in.index_select(dim, index). index_rows: the same with negative indices counting from
// the end.
template <Mode kMode>
void index_select_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  const IndexWalk w = common::index_select_walk(out, in, dim, index);
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), "index_select",
                           [&] { launch<kMode, scalar_t>("index_select", out, in, index, w); });
}

// out = in.gather(dim, index).
void gather_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  const IndexWalk w = common::gather_walk(out, in, dim, index);
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), "gather",
                           [&] { launch<Mode::kGather, scalar_t>("gather", out, in, index, w); });
}

// out (already self's copy) .scatter_add_(dim, index, in). Several elements may hit one
// destination, hence atomics (float sums then depend on their order).
void scatter_add_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (index.numel() == 0) return;
  const IndexWalk w = common::scatter_walk(out, in, dim, index);
  EMBER_DISPATCH_NUMERIC_TYPES(out.dtype(), "scatter_add", [&] {
    launch<Mode::kScatterAdd, scalar_t>("scatter_add", out, in, index, w);
  });
}

}  // namespace

void register_index_kernels() {
  register_kernel<Op::index_select>(kCUDA, index_select_kernel<Mode::kIndexSelect>);
  register_kernel<Op::index_rows>(kCUDA, index_select_kernel<Mode::kIndexRows>);
  register_kernel<Op::gather>(kCUDA, gather_kernel);
  register_kernel<Op::scatter_add>(kCUDA, scatter_add_kernel);
}

}  // namespace cuda
}  // namespace ember
