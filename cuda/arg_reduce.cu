// CUDA max_dim and min_dim: the extremum along one dim and the first index where it occurs
// (a NaN wins, the first NaN), through the reduction engine of cuda/reduce.cuh.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/reduce.cuh>

namespace ember {
namespace cuda {
namespace {

using reduce_detail::ArgPair;

using common::is_nan;

// (value, index) pairs ordered by value, NaN above everything (for max and min alike), ties
// broken by the smaller index: a total order, so any combination order gives the CPU's
// answer (the first NaN if there is one, else the first extremum).
template <class T, bool kMax>
struct ArgR {
  using In = T;
  using Acc = ArgPair<T>;
  using Total = ArgPair<T>;
  using Shift = int;
  T* values;
  int64_t* indices;
  __device__ Acc identity() const { return {T(0), -1}; }
  __device__ Shift shift(int64_t) const { return 0; }
  __device__ Acc map(T x, int64_t i, Shift) const { return {x, i}; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
    if (a_nan != b_nan) return a_nan ? a : b;
    if (!a_nan) {
      if (kMax ? a.value > b.value : a.value < b.value) return a;
      if (kMax ? b.value > a.value : b.value < a.value) return b;
    }
    return a.index < b.index ? a : b;  // equal, or both NaN
  }
  __device__ void write(int64_t o, Total t, int64_t) const {
    values[o] = t.value;
    indices[o] = t.index;
  }
};

template <bool kMax>
void arg_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  const char* name = kMax ? "max" : "min";
  DeviceGuard guard(values.device().index());
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), name, [&] {
    reduce_detail::launch_reduce(
        name, ArgR<scalar_t, kMax>{values.data_ptr<scalar_t>(), indices.data_ptr<int64_t>()}, in,
        IntArrayRef(dim));
  });
}

}  // namespace

void register_arg_reduce_kernels() {
  register_kernel<Op::max_dim>(kCUDA, arg_kernel<true>);
  register_kernel<Op::min_dim>(kCUDA, arg_kernel<false>);
}

}  // namespace cuda
}  // namespace ember
