// Scalar: one number (bool, integer or floating) passed to ops, as c10::Scalar.
// One implicit constructor per category keeps call sites like `x + 1` simple.
#pragma once

#include <cstdint>
#include <ostream>
#include <type_traits>

#include <ember/core/dtype.h>

namespace ember {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { i_ = v; }  // NOLINT
  template <class T,
            std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value, int> = 0>
  Scalar(T v) : kind_(Kind::Int) {  // NOLINT
    i_ = static_cast<int64_t>(v);
  }
  template <class T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0>
  Scalar(T v) : kind_(Kind::Float) {  // NOLINT
    d_ = static_cast<double>(v);
  }

  Kind kind() const { return kind_; }
  bool isBoolean() const { return kind_ == Kind::Bool; }
  bool isIntegral(bool include_bool = false) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  bool isFloatingPoint() const { return kind_ == Kind::Float; }

  template <class T>
  T to() const {
    if constexpr (std::is_same<T, bool>::value) {
      return kind_ == Kind::Float ? d_ != 0.0 : i_ != 0;
    }
    if (kind_ == Kind::Float) return static_cast<T>(d_);
    if (kind_ == Kind::Bool) return static_cast<T>(i_ != 0);
    return static_cast<T>(i_);
  }
  double toDouble() const { return to<double>(); }
  int64_t toLong() const { return to<int64_t>(); }
  bool toBool() const { return to<bool>(); }

  // -s, as LibTorch's Scalar::operator-: a floating scalar stays floating; bool and integer
  // scalars give an integer.
  Scalar operator-() const { return isFloatingPoint() ? Scalar(-d_) : Scalar(-toLong()); }
  // Whether the scalar equals num, as LibTorch's Scalar::equal: compared as floating when
  // either side is, as integers otherwise (a bool scalar is 0 or 1).
  template <class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
  bool equal(T num) const {
    if (std::is_floating_point<T>::value || isFloatingPoint()) {
      return toDouble() == static_cast<double>(num);
    }
    return toLong() == static_cast<int64_t>(num);
  }

  // The dtype this scalar has on its own: bool, int64 or float64.
  ScalarType type() const {
    return kind_ == Kind::Float ? kFloat64 : kind_ == Kind::Int ? kInt64 : kBool;
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ember
