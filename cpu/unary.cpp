// CPU unary elementwise kernels: neg, abs, relu, logical_not, and the rows of core/elementwise.def,
// which take Eigen's vectorized forms on contiguous data and the row's formula on strided data.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <ember/common/binary_math.h>
#include <ember/common/elementwise_math.h>
#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>

namespace ember {
namespace cpu {
namespace {

// EigenMath<Op::name>(x): a row's formula over an Eigen array, the vectorized path for
// contiguous data (std::exp and friends do not vectorize without -ffast-math, Eigen's packet
// versions do, within 1-2 ulp). Strided data, and rows without one, run the row's scalar
// formula (common::UnaryMath) in a plain loop.
template <Op op>
struct EigenMath {
  static constexpr bool kDefined = false;
};
struct HasEigen {
  static constexpr bool kDefined = true;
};

// Eigen's packet exp clamps its input (double: near -708), so exp(-inf) would come out as a
// denormal instead of 0: below the underflow point the answer is exactly 0.
template <>
struct EigenMath<Op::exp> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    using T = typename A::Scalar;
    const T underflow = std::is_same<T, double>::value ? T(-745.2) : T(-104.0);
    return (x < underflow).select(T(0), x.exp());
  }
};
// Eigen's log treats subnormal inputs as the smallest normal number: scale them into the
// normal range first (log(x) = log(x * 2^k) - k ln 2), which costs no extra log.
template <>
struct EigenMath<Op::log> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    using T = typename A::Scalar;
    constexpr bool kFloat = std::is_same<T, float>::value;
    const T scale = kFloat ? T(16777216.0) : T(18014398509481984.0);         // 2^24, 2^54
    const T shift = kFloat ? T(16.635532333438687) : T(37.429947750237048);  // k ln 2
    const auto small = x < std::numeric_limits<T>::min();
    return small.select(x * scale, x).log() - small.template cast<T>() * shift;
  }
};
template <>
struct EigenMath<Op::log1p> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    return x.log1p();
  }
};
// Eigen's sqrt and rsqrt can be fast-math estimates (1-2 ulp off, sqrt(inf) = NaN, for float
// everywhere and for double with AVX-512), so neither has an Eigen path: the row's std::sqrt
// in a plain loop is the exact instruction, vectorized since the library is built with
// -fno-math-errno.
template <>
struct EigenMath<Op::sin> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    return x.sin();
  }
};
template <>
struct EigenMath<Op::cos> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    return x.cos();
  }
};
template <>
struct EigenMath<Op::tanh> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    return x.tanh();
  }
};
// Not Eigen's logistic(): its interpolation loses relative accuracy for x << 0.
template <>
struct EigenMath<Op::sigmoid> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    using T = typename A::Scalar;
    return (T(1) + (-x).exp()).inverse();
  }
};
template <>
struct EigenMath<Op::erf> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    return x.erf();
  }
};
template <>
struct EigenMath<Op::gelu> : HasEigen {
  template <class A>
  auto operator()(const A& x) const {
    using T = typename A::Scalar;
    return T(0.5) * x * (T(1) + (x * T(M_SQRT1_2)).erf());
  }
};

// out = f(in) for float32/float64 (core casts integer inputs to float first).
template <Op op>
void float_kernel(const Tensor& out, const Tensor& in) {
  using Math = common::UnaryMath<op>;
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), Math::kName, [&] {
    if constexpr (EigenMath<op>::kDefined) {
      if (out.is_contiguous() && in.is_contiguous()) {
        using Array = Eigen::Array<scalar_t, Eigen::Dynamic, 1>;
        auto* o = static_cast<scalar_t*>(out.data_ptr());
        const auto* x = static_cast<const scalar_t*>(in.data_ptr());
        // Elementwise, so out == in (in place) is safe for Eigen's coefficient-wise loop.
        parallel_range(out.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
          Eigen::Map<Array>(o + begin, end - begin) =
              EigenMath<op>()(Eigen::Map<const Array>(x + begin, end - begin));
        });
        return;
      }
    }
    unary_loop<scalar_t, scalar_t>(out, in, [](scalar_t v) { return Math()(v); });
  });
}

// neg, abs, relu: every numeric dtype, plain loops (they vectorize as they are). Integers wrap
// in two's complement as PyTorch's do: neg and abs of INT64_MIN give INT64_MIN (computed in
// unsigned arithmetic, since -x overflows there).
struct Neg {
  static constexpr const char* kName = "neg";
  template <class T>
  T operator()(T x) const {
    if constexpr (common::kIsInt<T>)
      return common::wrap_sub(T(0), x);
    else
      return static_cast<T>(-x);
  }
};
struct Abs {
  static constexpr const char* kName = "abs";
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_unsigned<T>::value)
      return x;
    else
      return x < T(0) ? Neg()(x) : x;
  }
};
// !(x <= 0) keeps NaN as NaN, as PyTorch's relu does.
struct Relu {
  static constexpr const char* kName = "relu";
  template <class T>
  T operator()(T x) const {
    return !(x <= T(0)) ? x : T(0);
  }
};

template <class Fn>
void numeric_kernel(const Tensor& out, const Tensor& in) {
  EMBER_DISPATCH_NUMERIC_TYPES(in.dtype(), Fn::kName, [&] {
    unary_loop<scalar_t, scalar_t>(out, in, [](scalar_t v) { return Fn()(v); });
  });
}

void abs_kernel(const Tensor& out, const Tensor& in) {
  // std::abs on floats clears the sign bit, which also maps -0 and -NaN right.
  if (in.dtype() == kFloat32) {
    unary_loop<float, float>(out, in, [](float v) { return std::fabs(v); });
  } else if (in.dtype() == kFloat64) {
    unary_loop<double, double>(out, in, [](double v) { return std::fabs(v); });
  } else {
    numeric_kernel<Abs>(out, in);
  }
}

// Bool in (the front-end casts first: NaN becomes true, as in PyTorch), bool out.
void logical_not_kernel(const Tensor& out, const Tensor& in) {
  EMBER_CHECK(in.dtype() == kBool, "logical_not: the kernel takes bool, got ", in.dtype());
  unary_loop<bool, bool>(out, in, [](bool v) { return !v; });
}

}  // namespace

void register_unary_kernels() {
  register_kernel<Op::neg>(kCPU, &numeric_kernel<Neg>);
  register_kernel<Op::abs>(kCPU, &abs_kernel);
  register_kernel<Op::relu>(kCPU, &numeric_kernel<Relu>);
#define EMBER_UNARY_FLOAT(name, ...) register_kernel<Op::name>(kCPU, &float_kernel<Op::name>);
#define EMBER_UNARY_SAME(name, ...) \
  register_kernel<Op::name>(kCPU, &numeric_kernel<common::UnaryMath<Op::name>>);
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_UNARY_SAME
  register_kernel<Op::logical_not>(kCPU, &logical_not_kernel);
}

}  // namespace cpu
}  // namespace ember
