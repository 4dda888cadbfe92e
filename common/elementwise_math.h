// The kernel formulas of core/elementwise.def's rows as functors that g++ and nvcc both compile
// (UnaryMath<Op::exp>, BinaryMath<Op::maximum>); cpu/ and cuda/ run them, one loop per backend.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <ember/core/dispatch.h>
#include <ember/core/host_device.h>

namespace ember {
namespace common {

// ---- helpers of the rows' formulas: one definition per behaviour, integers included ----
template <class T>
constexpr bool kFloating = std::is_floating_point<T>::value;

// Rounding leaves integers as they are (their std:: overloads would go through double).
// kNearest is half to even, as PyTorch's round (nearbyint in the default rounding mode).
enum class Rounding { kFloor, kCeil, kTrunc, kNearest };
template <Rounding kMode, class T>
EMBER_HOST_DEVICE T rounded(T x) {
  if constexpr (!kFloating<T>) {
    return x;
  } else if constexpr (kMode == Rounding::kFloor) {
    return std::floor(x);
  } else if constexpr (kMode == Rounding::kCeil) {
    return std::ceil(x);
  } else if constexpr (kMode == Rounding::kTrunc) {
    return std::trunc(x);
  } else {
    return std::nearbyint(x);
  }
}
// The names core/elementwise.def's rows call: floor_of(x) is rounded<Rounding::kFloor>(x).
#define EMBER_ROUNDING(name, mode)     \
  template <class T>                   \
  EMBER_HOST_DEVICE T name(T x) {      \
    return rounded<Rounding::mode>(x); \
  }
EMBER_ROUNDING(floor_of, kFloor)
EMBER_ROUNDING(ceil_of, kCeil)
EMBER_ROUNDING(trunc_of, kTrunc)
EMBER_ROUNDING(round_of, kNearest)
#undef EMBER_ROUNDING
template <class T>
EMBER_HOST_DEVICE T sign_of(T x) {
  if constexpr (std::is_unsigned<T>::value)
    return T(x != 0);
  else
    return T(int(T(0) < x) - int(x < T(0)));
}

// erf^-1: on the GPU CUDA's erfinv; on the host Giles' approximation ("Approximating the
// erfinv function", 2010) refined by two Newton steps on std::erf, in double.
EMBER_HOST_DEVICE inline double erfinv_host(double y) {
  if (!(y > -1 && y < 1)) {
    if (y == 1) return HUGE_VAL;
    if (y == -1) return -HUGE_VAL;
    return NAN;
  }
  double w = -std::log((1 - y) * (1 + y)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  for (int i = 0; i < 2; ++i) {
    x -= (std::erf(x) - y) / (1.1283791670955126 * std::exp(-x * x));
  }
  return x;
}
template <class T>
EMBER_HOST_DEVICE T erfinv_of(T x) {
#ifdef __CUDA_ARCH__
  return ::erfinv(x);
#else
  return static_cast<T>(erfinv_host(static_cast<double>(x)));
#endif
}

// log(exp(a) + exp(b)): equal infinities give themselves (inf - inf would be NaN).
template <class T>
EMBER_HOST_DEVICE T logaddexp_of(T a, T b) {
  if (a == b && !(a - a == a - a)) return a;
  const T m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}
template <class T>
EMBER_HOST_DEVICE T xlogy_of(T a, T b) {
  if (b != b) return b;
  if (a == 0) return T(0);
  return a * std::log(b);
}

// Integer division guards: x / 0 gives 0 (the CPU front-end refuses it first, as PyTorch's
// "ZeroDivisionError"; CUDA computes on) and MIN / -1 wraps instead of trapping.
template <class T>
EMBER_HOST_DEVICE bool int_div_special(T b) {
  if constexpr (std::is_signed<T>::value)
    return b == 0 || b == T(-1);
  else
    return b == 0;
}
template <class T>
EMBER_HOST_DEVICE T negate_wrapping(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(a)));
}
template <class T>
EMBER_HOST_DEVICE T fmod_of(T a, T b) {
  if constexpr (kFloating<T>) {
    return std::fmod(a, b);
  } else {
    if (int_div_special(b)) return T(0);
    return static_cast<T>(a % b);
  }
}
template <class T>
EMBER_HOST_DEVICE T remainder_of(T a, T b) {
  const T m = fmod_of(a, b);
  if constexpr (std::is_unsigned<T>::value) {
    return m;
  } else {
    return (m != 0 && ((b < 0) != (m < 0))) ? static_cast<T>(m + b) : m;
  }
}
// PyTorch's div_floor_floating and div_floor_integer.
template <class T>
EMBER_HOST_DEVICE T floor_divide_of(T a, T b) {
  if constexpr (kFloating<T>) {
    if (b == 0) return a / b;
    const T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
    if (div == 0) return std::copysign(T(0), a / b);
    T floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
    return floordiv;
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed<T>::value) {
      if (b == T(-1)) return negate_wrapping(a);
      if ((a < 0) != (b < 0)) {
        const T q = static_cast<T>(a / b);
        return (a % b) ? static_cast<T>(q - 1) : q;
      }
    }
    return static_cast<T>(a / b);
  }
}
// Shifts as PyTorch's: counts below 0 or of the width or more give 0 (left) or the sign (right).
template <class T>
EMBER_HOST_DEVICE T shift_left_of(T a, T b) {
  constexpr int bits = sizeof(T) * 8;
  using S = std::make_signed_t<T>;
  if (static_cast<S>(b) < 0 || static_cast<int64_t>(b) >= bits) return T(0);
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
}
template <class T>
EMBER_HOST_DEVICE T shift_right_of(T a, T b) {
  constexpr int bits = sizeof(T) * 8;
  using S = std::make_signed_t<T>;
  if (static_cast<S>(b) < 0 || static_cast<int64_t>(b) >= bits) {
    if constexpr (std::is_unsigned<T>::value)
      return T(0);
    else
      return static_cast<T>(a < 0 ? -1 : 0);
  }
  return static_cast<T>(a >> b);
}

template <Op op>
struct UnaryMath;
template <Op op>
struct BinaryMath;

#define EMBER_UNARY_FLOAT(op_name, formula, ...)   \
  template <>                                      \
  struct UnaryMath<Op::op_name> {                  \
    static constexpr const char* kName = #op_name; \
    template <class T>                             \
    EMBER_HOST_DEVICE T operator()(T x) const {    \
      return formula;                              \
    }                                              \
  };
#define EMBER_BINARY(op_name, types, formula, ...)   \
  template <>                                        \
  struct BinaryMath<Op::op_name> {                   \
    static constexpr const char* kName = #op_name;   \
    template <class T>                               \
    EMBER_HOST_DEVICE T operator()(T a, T b) const { \
      return formula;                                \
    }                                                \
  };
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_BINARY

}  // namespace common
}  // namespace ember
