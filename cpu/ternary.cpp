// CPU kernels that take three values per element: where(cond, a, b), masked_fill (self, mask,
// value) and clamp (x, min, max), over cpu/loops.h; cuda/ternary.cu is the same family on CUDA.
#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>

namespace ember {
namespace cpu {
namespace {

// out = cond ? a : b; cond bool, a and b of out's dtype (any of the six).
void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_DISPATCH_ALL_TYPES(a.dtype(), "where", [&] {
    using T = scalar_t;
    ternary_loop<T, bool, T, T>(out, cond, a, b, [](bool c, T x, T y) { return c ? x : y; });
  });
}

// self[mask] = value in place: self is both output and input at the same positions.
void masked_fill_kernel(const Tensor& self, const Tensor& mask, const Scalar& value) {
  EMBER_DISPATCH_ALL_TYPES(self.dtype(), "masked_fill", [&] {
    using T = scalar_t;
    const T v = value.to<T>();
    binary_loop<T, T, bool>(self, self, mask, [v](T x, bool m) { return m ? v : x; });
  });
}

// clamp(in, a = min, b = max), bounds converted to in's dtype. A NaN input stays NaN
// (std::max/min return their first argument when the comparison is false).
void clamp_kernel(const Tensor& out, const Tensor& in, const Scalar& a, const Scalar& b) {
  EMBER_DISPATCH_NUMERIC_TYPES(in.dtype(), "clamp", [&] {
    const scalar_t lo = a.to<scalar_t>(), hi = b.to<scalar_t>();
    unary_loop<scalar_t, scalar_t>(out, in, [lo, hi](scalar_t v) {
      const scalar_t low = v < lo ? lo : v;
      return hi < low ? hi : low;
    });
  });
}

}  // namespace

void register_ternary_kernels() {
  register_kernel<Op::where>(kCPU, &where_kernel);
  register_kernel<Op::masked_fill>(kCPU, &masked_fill_kernel);
  register_kernel<Op::clamp>(kCPU, &clamp_kernel);
}

}  // namespace cpu
}  // namespace ember
