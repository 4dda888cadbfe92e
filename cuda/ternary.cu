// CUDA kernels that take three values per element: where(cond, a, b), masked_fill (self,
// mask, value) and clamp (x, min, max), over cuda/loops.cuh with the CPU kernels' semantics.
#include <cstdint>

#include <ember/core/dispatch.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/loops.cuh>

namespace ember {
namespace cuda {
namespace {

using loops::gpu_kernel;

struct Where {
  template <class T>
  __device__ T operator()(bool c, T x, T y) const {
    return c ? x : y;
  }
};

// out = cond ? a : b; cond bool, a and b of out's dtype (any of the six).
void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_DISPATCH_ALL_TYPES(a.dtype(), "where", [&] {
    gpu_kernel<scalar_t, bool, scalar_t, scalar_t>("where", Where(), out, cond, a, b);
  });
}

template <class T>
struct MaskedFill {
  T value;
  __device__ T operator()(T x, bool m) const { return m ? value : x; }
};

// self[mask] = value in place: self is both the output and an input at the same positions.
void masked_fill_kernel(const Tensor& self, const Tensor& mask, const Scalar& value) {
  EMBER_DISPATCH_ALL_TYPES(self.dtype(), "masked_fill", [&] {
    gpu_kernel<scalar_t, scalar_t, bool>("masked_fill", MaskedFill<scalar_t>{value.to<scalar_t>()},
                                         self, self, mask);
  });
}

// min(max(x, lo), hi) written as the CPU writes it, so a NaN input stays NaN (each
// comparison with NaN is false and keeps x).
template <class T>
struct Clamp {
  T lo, hi;
  __device__ T operator()(T x) const {
    const T low = x < lo ? lo : x;
    return hi < low ? hi : low;
  }
};

// clamp(in, a = min, b = max), bounds converted to in's dtype on the host.
void clamp_kernel(const Tensor& out, const Tensor& in, const Scalar& a, const Scalar& b) {
  EMBER_DISPATCH_NUMERIC_TYPES(in.dtype(), "clamp", [&] {
    gpu_kernel<scalar_t, scalar_t>("clamp", Clamp<scalar_t>{a.to<scalar_t>(), b.to<scalar_t>()},
                                   out, in);
  });
}

}  // namespace

void register_ternary_kernels() {
  register_kernel<Op::where>(kCUDA, &where_kernel);
  register_kernel<Op::masked_fill>(kCUDA, &masked_fill_kernel);
  register_kernel<Op::clamp>(kCUDA, &clamp_kernel);
}

}  // namespace cuda
}  // namespace ember
