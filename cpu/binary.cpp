// CPU binary elementwise kernels: tensor-tensor and tensor-scalar arithmetic and
// comparisons, logical and/or, relu's backward; one functor per op over cpu/loops.h.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <ember/common/elementwise_math.h>
#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>

namespace ember {
namespace cpu {
namespace {

// Which dtypes an op accepts; anything else reaches the dispatch macro's error.
enum class Types { Floating, Numeric, All, Float = Floating };  // Float: elementwise.def's

// Calls body(T{}) with T the C++ type of dtype, within the set kTypes.
template <Types kTypes, class Body>
void dispatch(ScalarType dtype, const char* name, const Body& body) {
  if constexpr (kTypes == Types::Floating) {
    EMBER_DISPATCH_FLOATING_TYPES(dtype, name, [&] { body(scalar_t{}); });
  } else if constexpr (kTypes == Types::Numeric) {
    EMBER_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { body(scalar_t{}); });
  } else {
    EMBER_DISPATCH_ALL_TYPES(dtype, name, [&] { body(scalar_t{}); });
  }
}

template <class T>
constexpr bool kIsBool = std::is_same<T, bool>::value;

// Integer power by squaring; negative exponents give what truncating division would
// (0, or +-1 for bases +-1), as PyTorch's integer pow does.
template <class T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed<T>::value) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = static_cast<T>(result * base);
    exp = static_cast<T>(exp >> 1);
    base = static_cast<T>(base * base);
  }
  return result;
}

// ---- the scalar functors; bool arithmetic follows PyTorch (add = or, mul = and) ----
struct Add {
  static constexpr const char* kName = "add";
  template <class T>
  T operator()(T x, T y) const {
    if constexpr (kIsBool<T>)
      return x || y;
    else
      return static_cast<T>(x + y);
  }
};
struct Sub {
  static constexpr const char* kName = "sub";
  template <class T>
  T operator()(T x, T y) const {
    return static_cast<T>(x - y);
  }
};
struct Mul {
  static constexpr const char* kName = "mul";
  template <class T>
  T operator()(T x, T y) const {
    if constexpr (kIsBool<T>)
      return x && y;
    else
      return static_cast<T>(x * y);
  }
};
struct Div {
  static constexpr const char* kName = "div";
  template <class T>
  T operator()(T x, T y) const {
    return x / y;
  }
};
struct Pow {
  static constexpr const char* kName = "pow";
  template <class T>
  T operator()(T x, T y) const {
    if constexpr (std::is_floating_point<T>::value)
      return std::pow(x, y);
    else
      return int_pow(x, y);
  }
};
// out = y ^ x: pow with the scalar as the base.
struct RPow {
  static constexpr const char* kName = "rpow";
  template <class T>
  T operator()(T x, T y) const {
    return Pow()(y, x);
  }
};
// relu's backward (threshold_backward in PyTorch): the gradient where the result is positive.
struct ReluBackward {
  static constexpr const char* kName = "relu_backward";
  template <class T>
  T operator()(T grad, T result) const {
    return result > T(0) ? grad : T(0);
  }
};
struct Eq {
  static constexpr const char* kName = "eq";
  template <class T>
  bool operator()(T x, T y) const {
    return x == y;
  }
};
struct Ne {
  static constexpr const char* kName = "ne";
  template <class T>
  bool operator()(T x, T y) const {
    return x != y;
  }
};
struct Lt {
  static constexpr const char* kName = "lt";
  template <class T>
  bool operator()(T x, T y) const {
    return x < y;
  }
};
struct Le {
  static constexpr const char* kName = "le";
  template <class T>
  bool operator()(T x, T y) const {
    return x <= y;
  }
};
struct Gt {
  static constexpr const char* kName = "gt";
  template <class T>
  bool operator()(T x, T y) const {
    return x > y;
  }
};
struct Ge {
  static constexpr const char* kName = "ge";
  template <class T>
  bool operator()(T x, T y) const {
    return x >= y;
  }
};
// Any dtype in (nonzero is true), bool out.
struct LogicalAnd {
  static constexpr const char* kName = "logical_and";
  template <class T>
  bool operator()(T x, T y) const {
    return x != T(0) && y != T(0);
  }
};
struct LogicalOr {
  static constexpr const char* kName = "logical_or";
  template <class T>
  bool operator()(T x, T y) const {
    return x != T(0) || y != T(0);
  }
};

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
      const double e = s.toDouble();
      if (e == 2.0) return unary_loop<T, T>(out, a, [](T x) { return x * x; });
      if (e == 1.0) return unary_loop<T, T>(out, a, [](T x) { return x; });
      if (e == 0.5) return unary_loop<T, T>(out, a, [](T x) { return std::sqrt(x); });
      if (e == -1.0) return unary_loop<T, T>(out, a, [](T x) { return T(1) / x; });
      if (e == 3.0) return unary_loop<T, T>(out, a, [](T x) { return x * x * x; });
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
