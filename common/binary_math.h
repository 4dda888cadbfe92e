// The binary kernels' scalar functors (cpu/binary.cpp, cuda/binary.cu), written once for g++
// and nvcc: arithmetic, pow, relu's backward, comparisons and logical and/or, and the exponents
// that pow by a scalar turns into multiplications. Bool arithmetic follows PyTorch (add = or,
// mul = and); integer +, -, * wrap in two's complement (uint8 mod 256), computed in unsigned
// arithmetic so that no signed overflow is undefined. Private to the backends.
#pragma once

#include <cmath>
#include <type_traits>

#include <ember/core/host_device.h>

namespace ember {
namespace common {

template <class T>
constexpr bool kIsBool = std::is_same<T, bool>::value;
template <class T>
constexpr bool kIsInt = std::is_integral<T>::value && !kIsBool<T>;

template <class T>
using Unsigned = std::make_unsigned_t<T>;
template <class T>
EMBER_HOST_DEVICE inline T wrap_add(T x, T y) {
  using U = Unsigned<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
}
template <class T>
EMBER_HOST_DEVICE inline T wrap_sub(T x, T y) {
  using U = Unsigned<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) - static_cast<U>(y)));
}
template <class T>
EMBER_HOST_DEVICE inline T wrap_mul(T x, T y) {
  using U = Unsigned<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) * static_cast<U>(y)));
}

// Integer power by squaring; negative exponents give what truncating division would
// (0, or +-1 for bases +-1), as PyTorch's integer pow does.
template <class T>
EMBER_HOST_DEVICE T int_pow(T base, T exp) {
  if constexpr (std::is_signed<T>::value) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = wrap_mul(result, base);
    exp = static_cast<T>(exp >> 1);
    base = wrap_mul(base, base);
  }
  return result;
}

// ---- arithmetic ----
struct Add {
  static constexpr const char* kName = "add";
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (kIsBool<T>)
      return x || y;
    else if constexpr (kIsInt<T>)
      return wrap_add(x, y);
    else
      return x + y;
  }
};
struct Sub {
  static constexpr const char* kName = "sub";
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (kIsInt<T>)
      return wrap_sub(x, y);
    else
      return x - y;
  }
};
struct Mul {
  static constexpr const char* kName = "mul";
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (kIsBool<T>)
      return x && y;
    else if constexpr (kIsInt<T>)
      return wrap_mul(x, y);
    else
      return x * y;
  }
};
// Floating only: core promotes true division of integers to float32.
struct Div {
  static constexpr const char* kName = "div";
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x, T y) const {
    return x / y;
  }
};
struct Pow {
  static constexpr const char* kName = "pow";
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x, T y) const {
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
  EMBER_HOST_DEVICE T operator()(T x, T y) const {
    return Pow()(y, x);
  }
};
// relu's backward (threshold_backward in PyTorch): the gradient where the result is positive.
struct ReluBackward {
  static constexpr const char* kName = "relu_backward";
  template <class T>
  EMBER_HOST_DEVICE T operator()(T grad, T result) const {
    return result > T(0) ? grad : T(0);
  }
};

// ---- comparisons (bool out; NaN compares false except for ne, as in C++) ----
struct Eq {
  static constexpr const char* kName = "eq";
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x, T y) const {
    return x == y;
  }
};
struct Ne {
  static constexpr const char* kName = "ne";
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x, T y) const {
    return x != y;
  }
};
struct Lt {
  static constexpr const char* kName = "lt";
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x, T y) const {
    return x < y;
  }
};
struct Le {
  static constexpr const char* kName = "le";
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x, T y) const {
    return x <= y;
  }
};
struct Gt {
  static constexpr const char* kName = "gt";
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x, T y) const {
    return x > y;
  }
};
struct Ge {
  static constexpr const char* kName = "ge";
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x, T y) const {
    return x >= y;
  }
};

// ---- logical: any dtype in (nonzero is true), bool out ----
struct LogicalAnd {
  static constexpr const char* kName = "logical_and";
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x, T y) const {
    return x != T(0) && y != T(0);
  }
};
struct LogicalOr {
  static constexpr const char* kName = "logical_or";
  template <class T>
  EMBER_HOST_DEVICE bool operator()(T x, T y) const {
    return x != T(0) || y != T(0);
  }
};

// ---- pow by a scalar: the common float exponents as multiplications (exact, as PyTorch's
// pow(x, 2) == x * x) or a square root ----
struct Square {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return x * x;
  }
};
struct Cube {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return x * x * x;
  }
};
struct Identity {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return x;
  }
};
struct SqrtOf {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return std::sqrt(x);
  }
};
struct Reciprocal {
  template <class T>
  EMBER_HOST_DEVICE T operator()(T x) const {
    return T(1) / x;
  }
};

// For exponent e of 2, 1, 0.5, -1 or 3 calls run(f) with f the functor above that computes
// x^e and returns true; false (run not called) for any other exponent.
template <class Run>
bool pow_shortcut(double e, const Run& run) {
  if (e == 2.0)
    run(Square());
  else if (e == 1.0)
    run(Identity());
  else if (e == 0.5)
    run(SqrtOf());
  else if (e == -1.0)
    run(Reciprocal());
  else if (e == 3.0)
    run(Cube());
  else
    return false;
  return true;
}

}  // namespace common
}  // namespace ember
