// CUDA binary elementwise kernels: tensor-tensor and tensor-scalar arithmetic, comparisons and
// logical and/or over cuda/loops.cuh, with the CPU kernels' (cpu/binary.cpp) dtypes and results.
#include <cstdint>
#include <type_traits>

#include <ember/common/binary_math.h>
#include <ember/common/dispatch_types.h>
#include <ember/common/elementwise_math.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/loops.cuh>

namespace ember {
namespace cuda {
namespace {

using loops::BindSecond;
using loops::gpu_kernel;

using common::dispatch;  // common/dispatch_types.h
using common::Types;
// The scalar functors: common/binary_math.h.
using common::Add;
using common::Div;
using common::LogicalAnd;
using common::LogicalOr;
using common::Mul;
using common::Pow;
using common::ReluBackward;
using common::RPow;
using common::Sub;

// The six comparisons as one functor with the comparison chosen at run time (uniform over
// the grid, so no divergence): one kernel per dtype instead of six, which keeps this file's
// compile time down. NaN compares false except for ne, as in C++.
enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };
struct Compare {
  Cmp cmp;
  template <class T>
  __device__ bool operator()(T x, T y) const {
    switch (cmp) {
      case Cmp::Eq:
        return common::Eq()(x, y);
      case Cmp::Ne:
        return common::Ne()(x, y);
      case Cmp::Lt:
        return common::Lt()(x, y);
      case Cmp::Le:
        return common::Le()(x, y);
      case Cmp::Gt:
        return common::Gt()(x, y);
      default:
        return common::Ge()(x, y);
    }
  }
};
constexpr const char* cmp_name(Cmp c) {
  return c == Cmp::Eq   ? common::Eq::kName
         : c == Cmp::Ne ? common::Ne::kName
         : c == Cmp::Lt ? common::Lt::kName
         : c == Cmp::Le ? common::Le::kName
         : c == Cmp::Gt ? common::Gt::kName
                        : common::Ge::kName;
}

// The small-op batch's code for Fn (cuda/batch.h), for the four that it runs.
template <class Fn>
constexpr int kBatchCode = std::is_same<Fn, Add>::value   ? int(batch::Code::kAdd)
                           : std::is_same<Fn, Sub>::value ? int(batch::Code::kSub)
                           : std::is_same<Fn, Mul>::value ? int(batch::Code::kMul)
                           : std::is_same<Fn, Div>::value ? int(batch::Code::kDiv)
                                                          : -1;

// The output element type of Fn on T: bool for predicates, T otherwise.
template <class Fn, class T>
using Result = decltype(std::declval<Fn>()(std::declval<T>(), std::declval<T>()));

// out = Fn(a, b); a and b share one dtype; out is that dtype, or bool for predicates.
template <class Fn, Types kTypes>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  if constexpr (kBatchCode<Fn> >= 0) {
    if (batch::try_binary(batch::Code(kBatchCode<Fn>), out, a, b)) return;
  }
  dispatch<kTypes>(a.dtype(), Fn::kName, [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<Result<Fn, T>, T, T>(Fn::kName, Fn(), out, a, b);
  });
}

// out = Fn(a, s) with s converted to a's dtype once, on the host.
template <class Fn, Types kTypes>
void scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& s) {
  if constexpr (kBatchCode<Fn> >= 0) {
    if (a.dtype() == kFloat32 &&
        batch::try_scalar(batch::Code(kBatchCode<Fn>), out, a, s.to<float>()))
      return;
  }
  dispatch<kTypes>(a.dtype(), Fn::kName, [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<Result<Fn, T>, T>(Fn::kName, BindSecond<Fn, T>{s.to<T>()}, out, a);
  });
}

// Comparisons: a and b (or a and s) of one dtype, any of the six; out bool.
template <Cmp kCmp>
void compare_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch<Types::All>(a.dtype(), cmp_name(kCmp), [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<bool, T, T>(cmp_name(kCmp), Compare{kCmp}, out, a, b);
  });
}

// Compare with its second operand fixed (BindSecond's form for a functor with state).
template <class T>
struct CompareScalar {
  Compare compare;
  T s;
  __device__ bool operator()(T x) const { return compare(x, s); }
};

template <Cmp kCmp>
void compare_scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& s) {
  dispatch<Types::All>(a.dtype(), cmp_name(kCmp), [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<bool, T>(cmp_name(kCmp), CompareScalar<T>{Compare{kCmp}, s.to<T>()}, out, a);
  });
}

// pow by a scalar: exponents 2, 1, 0.5, -1, 3 on floats take the CPU's shortcuts (so the
// results match it bit for bit); the rest go to pow or integer pow.
void pow_scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& s) {
  dispatch<Types::Numeric>(a.dtype(), "pow", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point<T>::value) {
      auto run = [&](auto f) { gpu_kernel<T, T>("pow", f, out, a); };
      if (common::pow_shortcut(s.toDouble(), run)) return;
    }
    gpu_kernel<T, T>("pow", BindSecond<Pow, T>{s.to<T>()}, out, a);
  });
}

}  // namespace

void register_binary_kernels() {
  register_kernel<Op::add>(kCUDA, &binary_kernel<Add, Types::All>);
  register_kernel<Op::sub>(kCUDA, &binary_kernel<Sub, Types::Numeric>);
  register_kernel<Op::mul>(kCUDA, &binary_kernel<Mul, Types::All>);
  register_kernel<Op::div>(kCUDA, &binary_kernel<Div, Types::Floating>);
  register_kernel<Op::pow>(kCUDA, &binary_kernel<Pow, Types::Numeric>);
#define EMBER_BINARY(name, types, ...) \
  register_kernel<Op::name>(kCUDA, &binary_kernel<common::BinaryMath<Op::name>, Types::types>);
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
  register_kernel<Op::eq>(kCUDA, &compare_kernel<Cmp::Eq>);
  register_kernel<Op::ne>(kCUDA, &compare_kernel<Cmp::Ne>);
  register_kernel<Op::lt>(kCUDA, &compare_kernel<Cmp::Lt>);
  register_kernel<Op::le>(kCUDA, &compare_kernel<Cmp::Le>);
  register_kernel<Op::gt>(kCUDA, &compare_kernel<Cmp::Gt>);
  register_kernel<Op::ge>(kCUDA, &compare_kernel<Cmp::Ge>);
  register_kernel<Op::logical_and>(kCUDA, &binary_kernel<LogicalAnd, Types::All>);
  register_kernel<Op::logical_or>(kCUDA, &binary_kernel<LogicalOr, Types::All>);
  register_kernel<Op::relu_backward>(kCUDA, &binary_kernel<ReluBackward, Types::Floating>);

  register_kernel<Op::add_scalar>(kCUDA, &scalar_kernel<Add, Types::All>);
  register_kernel<Op::mul_scalar>(kCUDA, &scalar_kernel<Mul, Types::All>);
  register_kernel<Op::div_scalar>(kCUDA, &scalar_kernel<Div, Types::Floating>);
  register_kernel<Op::pow_scalar>(kCUDA, &pow_scalar_kernel);
  register_kernel<Op::rpow_scalar>(kCUDA, &scalar_kernel<RPow, Types::Numeric>);
  register_kernel<Op::eq_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Eq>);
  register_kernel<Op::ne_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Ne>);
  register_kernel<Op::lt_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Lt>);
  register_kernel<Op::le_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Le>);
  register_kernel<Op::gt_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Gt>);
  register_kernel<Op::ge_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Ge>);
}

// The three elementwise families (unary.cu, binary.cu, ternary.cu).
void register_elementwise_kernels() {
  register_unary_kernels();
  register_binary_kernels();
  register_ternary_kernels();
}

}  // namespace cuda
}  // namespace ember
