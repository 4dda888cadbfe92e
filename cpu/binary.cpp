// CPU binary elementwise kernels: tensor-tensor and tensor-scalar arithmetic and
// comparisons, logical and/or, relu's backward; one functor per op over cpu/loops.h.
#include <type_traits>

#include <ember/common/binary_math.h>
#include <ember/common/dispatch_types.h>
#include <ember/common/elementwise_math.h>
#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>

namespace ember {
namespace cpu {
namespace {

using common::dispatch;  // common/dispatch_types.h
using common::Types;
// The scalar functors: common/binary_math.h.
using common::Add;
using common::Div;
using common::Eq;
using common::Ge;
using common::Gt;
using common::Le;
using common::LogicalAnd;
using common::LogicalOr;
using common::Lt;
using common::Mul;
using common::Ne;
using common::Pow;
using common::ReluBackward;
using common::RPow;
using common::Sub;

// out = Fn(a, b); a and b share one dtype; out is that dtype, or bool for predicates.
template <class Fn, Types kTypes>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch<kTypes>(a.dtype(), Fn::kName, [&](auto tag) {
    using T = decltype(tag);
    using R = decltype(Fn()(T(), T()));
    binary_loop<R, T, T>(out, a, b, Fn());
  });
}

// out = Fn(a, s) with s converted to a's dtype once, outside the loop.
template <class Fn, Types kTypes>
void scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& s) {
  dispatch<kTypes>(a.dtype(), Fn::kName, [&](auto tag) {
    using T = decltype(tag);
    using R = decltype(Fn()(T(), T()));
    const T v = s.to<T>();
    unary_loop<R, T>(out, a, [v](T x) { return Fn()(x, v); });
  });
}

// pow by a scalar: the common exponents become multiplications (also exact, as in
// PyTorch's pow(x, 2) == x * x); the rest go to std::pow or integer pow.
void pow_scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& s) {
  dispatch<Types::Numeric>(a.dtype(), "pow", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point<T>::value) {
      auto run = [&](auto f) { unary_loop<T, T>(out, a, f); };
      if (common::pow_shortcut(s.toDouble(), run)) return;
    }
    const T v = s.to<T>();
    unary_loop<T, T>(out, a, [v](T x) { return Pow()(x, v); });
  });
}

}  // namespace

void register_binary_kernels() {
  register_kernel<Op::add>(kCPU, &binary_kernel<Add, Types::All>);
  register_kernel<Op::sub>(kCPU, &binary_kernel<Sub, Types::Numeric>);
  register_kernel<Op::mul>(kCPU, &binary_kernel<Mul, Types::All>);
  register_kernel<Op::div>(kCPU, &binary_kernel<Div, Types::Floating>);
  register_kernel<Op::pow>(kCPU, &binary_kernel<Pow, Types::Numeric>);
#define EMBER_BINARY(name, types, ...) \
  register_kernel<Op::name>(kCPU, &binary_kernel<common::BinaryMath<Op::name>, Types::types>);
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
  register_kernel<Op::eq>(kCPU, &binary_kernel<Eq, Types::All>);
  register_kernel<Op::ne>(kCPU, &binary_kernel<Ne, Types::All>);
  register_kernel<Op::lt>(kCPU, &binary_kernel<Lt, Types::All>);
  register_kernel<Op::le>(kCPU, &binary_kernel<Le, Types::All>);
  register_kernel<Op::gt>(kCPU, &binary_kernel<Gt, Types::All>);
  register_kernel<Op::ge>(kCPU, &binary_kernel<Ge, Types::All>);
  register_kernel<Op::logical_and>(kCPU, &binary_kernel<LogicalAnd, Types::All>);
  register_kernel<Op::logical_or>(kCPU, &binary_kernel<LogicalOr, Types::All>);
  register_kernel<Op::relu_backward>(kCPU, &binary_kernel<ReluBackward, Types::Floating>);

  register_kernel<Op::add_scalar>(kCPU, &scalar_kernel<Add, Types::All>);
  register_kernel<Op::mul_scalar>(kCPU, &scalar_kernel<Mul, Types::All>);
  register_kernel<Op::div_scalar>(kCPU, &scalar_kernel<Div, Types::Floating>);
  register_kernel<Op::pow_scalar>(kCPU, &pow_scalar_kernel);
  register_kernel<Op::rpow_scalar>(kCPU, &scalar_kernel<RPow, Types::Numeric>);
  register_kernel<Op::eq_scalar>(kCPU, &scalar_kernel<Eq, Types::All>);
  register_kernel<Op::ne_scalar>(kCPU, &scalar_kernel<Ne, Types::All>);
  register_kernel<Op::lt_scalar>(kCPU, &scalar_kernel<Lt, Types::All>);
  register_kernel<Op::le_scalar>(kCPU, &scalar_kernel<Le, Types::All>);
  register_kernel<Op::gt_scalar>(kCPU, &scalar_kernel<Gt, Types::All>);
  register_kernel<Op::ge_scalar>(kCPU, &scalar_kernel<Ge, Types::All>);
}

}  // namespace cpu
}  // namespace ember
