// Elementwise composites of public ops (no kernels of their own): the scalar forms of the binary
// rows, division with a rounding mode, bitwise operators, predicates (isnan...), lerp, addcmul.
#include <cmath>
#include <limits>
#include <string>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/tensor.h>

namespace ember {

namespace {

// A scalar as the 0-dim tensor PyTorch wraps it in: its dtype is what it promotes t to.
Tensor wrapped(const Scalar& s, const Tensor& t) {
  return wrapped_scalar_tensor(s, TensorOptions().dtype(result_type(t, s)).device(t.device()));
}

void check_floating(const char* op, const Tensor& t) {
  EMBER_CHECK(t.is_floating_point(), op, ": expected a floating-point tensor, got ", t.dtype());
}

}  // namespace

// ---- the binary rows with a scalar ----

Tensor fmod(const Tensor& a, const Scalar& b) { return fmod(a, wrapped(b, a)); }
Tensor remainder(const Tensor& a, const Scalar& b) { return remainder(a, wrapped(b, a)); }
Tensor remainder(const Scalar& a, const Tensor& b) { return remainder(wrapped(a, b), b); }
Tensor floor_divide(const Tensor& a, const Scalar& b) { return floor_divide(a, wrapped(b, a)); }
Tensor copysign(const Tensor& a, const Scalar& b) { return copysign(a, wrapped(b, a)); }
Tensor xlogy(const Tensor& a, const Scalar& b) { return xlogy(a, wrapped(b, a)); }
Tensor xlogy(const Scalar& a, const Tensor& b) { return xlogy(wrapped(a, b), b); }
Tensor bitwise_and(const Tensor& a, const Scalar& b) { return bitwise_and(a, wrapped(b, a)); }
Tensor bitwise_or(const Tensor& a, const Scalar& b) { return bitwise_or(a, wrapped(b, a)); }
Tensor bitwise_xor(const Tensor& a, const Scalar& b) { return bitwise_xor(a, wrapped(b, a)); }
Tensor bitwise_left_shift(const Tensor& a, const Scalar& b) {
  return bitwise_left_shift(a, wrapped(b, a));
}
Tensor bitwise_right_shift(const Tensor& a, const Scalar& b) {
  return bitwise_right_shift(a, wrapped(b, a));
}
Tensor bitwise_left_shift(const Scalar& a, const Tensor& b) {
  return bitwise_left_shift(wrapped(a, b), b);
}
Tensor bitwise_right_shift(const Scalar& a, const Tensor& b) {
  return bitwise_right_shift(wrapped(a, b), b);
}

// ~x: logical for bool, -x - 1 in wrapping two's complement for integers.
Tensor bitwise_not(const Tensor& t) {
  if (t.dtype() == kBool) return logical_not(t);
  EMBER_CHECK(!t.is_floating_point(), "bitwise_not: not implemented for ", t.dtype(),
              " (needs an integer or bool tensor)");
  return neg(t).sub(1);
}

Tensor logical_xor(const Tensor& a, const Tensor& b) { return ne(a.to(kBool), b.to(kBool)); }

// ---- division ----

// "trunc": toward 0 (floats: trunc(a / b), exactly PyTorch's kernel; integers: the floor
// quotient, one up where the exact quotient is negative and not whole); "floor": floor_divide.
Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(a, b);
  if (*rounding_mode == "floor") return floor_divide(a, b);
  EMBER_CHECK(*rounding_mode == "trunc",
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
              std::string(*rounding_mode), "'");
  if (is_floating_point(result_type(a, b))) return trunc(div(a, b));
  Tensor q = floor_divide(a, b);  // refuses division by zero on the CPU
  Tensor r = fmod(a, b);
  return q + logical_and(r != 0, (r < 0) != (b < 0));
}
Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(a, b);
  return div(a, wrapped(b, a), rounding_mode);
}
Tensor true_divide(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor true_divide(const Tensor& a, const Scalar& b) { return div(a, b); }

Tensor rsub(const Tensor& a, const Tensor& b, const Scalar& alpha) { return sub(b, a, alpha); }
Tensor rsub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  return sub(wrapped(b, a), a, alpha);
}

// ---- unary composites ----

Tensor square(const Tensor& t) { return pow(t, 2); }
Tensor sgn(const Tensor& t) { return sign(t); }
Tensor fix(const Tensor& t) { return trunc(t); }

// PyTorch's round(decimals): x * 10^d rounded then divided back (for d < 0, x / 10^-d
// rounded then multiplied), the power in the tensor's dtype.
Tensor round(const Tensor& t, int64_t decimals) {
  check_floating("round", t);
  if (decimals == 0) return round(t);
  const double p = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  const Scalar ten_pow = t.dtype() == kFloat32 ? Scalar(double(float(p))) : Scalar(p);
  return decimals > 0 ? round(t * ten_pow) / ten_pow : round(t / ten_pow) * ten_pow;
}

Tensor isnan(const Tensor& t) { return t != t; }
Tensor isposinf(const Tensor& t) {
  return t.is_floating_point() ? t == std::numeric_limits<double>::infinity()
                               : zeros_like(t, TensorOptions().dtype(kBool));
}
Tensor isneginf(const Tensor& t) {
  return t.is_floating_point() ? t == -std::numeric_limits<double>::infinity()
                               : zeros_like(t, TensorOptions().dtype(kBool));
}
Tensor isinf(const Tensor& t) {
  return t.is_floating_point() ? abs(t) == std::numeric_limits<double>::infinity()
                               : zeros_like(t, TensorOptions().dtype(kBool));
}
// x - x is 0 exactly for finite x, NaN for NaN and the infinities.
Tensor isfinite(const Tensor& t) {
  return t.is_floating_point() ? (t - t) == 0 : ones_like(t, TensorOptions().dtype(kBool));
}

Tensor nan_to_num(const Tensor& t, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (!t.is_floating_point()) return t.clone();
  const bool f32 = t.dtype() == kFloat32;
  const double big =
      f32 ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
  Tensor r = where(t == -std::numeric_limits<double>::infinity(), Scalar(neginf.value_or(-big)), t);
  r = where(t == std::numeric_limits<double>::infinity(), Scalar(posinf.value_or(big)), r);
  return where(t != t, Scalar(nan.value_or(0.0)), r);
}

// PyTorch's isclose: equal, or both NaN (equal_nan), or |a - b| finite and <= atol + |rtol b|.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(a.dtype() == b.dtype(), "isclose: ", a.dtype(), " and ", b.dtype(),
              " must be the same dtype");
  EMBER_CHECK(rtol >= 0 && atol >= 0, "isclose: rtol (", rtol, ") and atol (", atol,
              ") must be non-negative");
  Tensor close = a == b;
  if (equal_nan && a.is_floating_point()) close = close.logical_or(logical_and(a != a, b != b));
  if (a.dtype() == kBool) return close;
  Tensor err = abs(a - b);
  Tensor allowed = abs(b * rtol) + atol;
  if (!a.is_floating_point()) err = err.to(allowed.dtype());
  return close.logical_or(logical_and(isfinite(err), err <= allowed));
}

// PyTorch's lerp: start + w (end - start) for |w| < 0.5, end - (end - start)(1 - w) otherwise
// (exact at both ends).
Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight) {
  check_floating("lerp", start);
  EMBER_CHECK(start.dtype() == end.dtype(), "lerp: expected dtype ", start.dtype(),
              " for `end` but got dtype ", end.dtype());
  const double w = weight.toDouble();
  Tensor diff = end - start;
  return std::abs(w) < 0.5 ? start + diff * weight : end - diff * (1.0 - w);
}
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  check_floating("lerp", start);
  EMBER_CHECK(start.dtype() == end.dtype() && start.dtype() == weight.dtype(),
              "lerp: expected dtype ", start.dtype(), " for `end` and `weight` but got ",
              end.dtype(), " and ", weight.dtype());
  Tensor diff = end - start;
  return where(abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight));
}

// t + value * t1 * t2 and t + value * t1 / t2, value applied first as PyTorch's kernels.
Tensor addcmul(const Tensor& t, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  check_defined("addcmul", t, t1, t2);
  broadcast_shapes("addcmul", broadcast_shapes("addcmul", t.sizes(), t1.sizes()), t2.sizes());
  return t + (value.equal(1) ? t1 : t1 * value) * t2;
}
Tensor addcdiv(const Tensor& t, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  check_defined("addcdiv", t, t1, t2);
  broadcast_shapes("addcdiv", broadcast_shapes("addcdiv", t.sizes(), t1.sizes()), t2.sizes());
  EMBER_CHECK(t1.is_floating_point() || t2.is_floating_point(),
              "addcdiv: integer division with addcdiv is no longer supported, and in a future "
              "release addcdiv will perform a true division of tensor1 and tensor2 (",
              t1.dtype(), ", ", t2.dtype(), ")");
  return t + (value.equal(1) ? t1 : t1 * value) / t2;
}

Tensor max(const Tensor& a, const Tensor& b) { return maximum(a, b); }
Tensor min(const Tensor& a, const Tensor& b) { return minimum(a, b); }

// min then max applied as maximum/minimum (NaN propagates; min > max gives max, as PyTorch).
Tensor clamp(const Tensor& t, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  EMBER_CHECK((min && min->defined()) || (max && max->defined()),
              "clamp: at least one of 'min' or 'max' must not be None");
  check_defined("clamp", t);
  for (const std::optional<Tensor>* bound : {&min, &max}) {
    if (*bound && (*bound)->defined()) broadcast_shapes("clamp", t.sizes(), (*bound)->sizes());
  }
  Tensor r = t;
  if (min && min->defined()) r = maximum(r, *min);
  if (max && max->defined()) r = minimum(r, *max);
  return r;
}
Tensor clamp_min(const Tensor& t, const Scalar& min) { return clamp(t, min, std::nullopt); }
Tensor clamp_max(const Tensor& t, const Scalar& max) { return clamp(t, std::nullopt, max); }

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "logspace: number of steps must be non-negative, got ", steps);
  return pow(Scalar(base), linspace(start, end, steps, options));
}

// ---- Tensor methods ----

Tensor Tensor::fmod(const Scalar& o) const { return ember::fmod(*this, o); }
Tensor Tensor::remainder(const Scalar& o) const { return ember::remainder(*this, o); }
Tensor Tensor::floor_divide(const Scalar& o) const { return ember::floor_divide(*this, o); }
Tensor Tensor::copysign(const Scalar& o) const { return ember::copysign(*this, o); }
Tensor Tensor::xlogy(const Scalar& o) const { return ember::xlogy(*this, o); }
Tensor Tensor::bitwise_and(const Scalar& o) const { return ember::bitwise_and(*this, o); }
Tensor Tensor::bitwise_or(const Scalar& o) const { return ember::bitwise_or(*this, o); }
Tensor Tensor::bitwise_xor(const Scalar& o) const { return ember::bitwise_xor(*this, o); }
Tensor Tensor::bitwise_left_shift(const Scalar& o) const {
  return ember::bitwise_left_shift(*this, o);
}
Tensor Tensor::bitwise_right_shift(const Scalar& o) const {
  return ember::bitwise_right_shift(*this, o);
}
Tensor& Tensor::fmod_(const Scalar& o) const { return fmod_(wrapped(o, *this)); }
Tensor& Tensor::remainder_(const Scalar& o) const { return remainder_(wrapped(o, *this)); }
Tensor Tensor::bitwise_not() const { return ember::bitwise_not(*this); }
Tensor& Tensor::bitwise_not_() const { return copy_(ember::bitwise_not(*this)); }
Tensor Tensor::logical_xor(const Tensor& o) const { return ember::logical_xor(*this, o); }
Tensor Tensor::div(const Tensor& o, std::optional<std::string_view> mode) const {
  return ember::div(*this, o, mode);
}
Tensor Tensor::div(const Scalar& o, std::optional<std::string_view> mode) const {
  return ember::div(*this, o, mode);
}
Tensor Tensor::true_divide(const Tensor& o) const { return ember::div(*this, o); }
Tensor Tensor::true_divide(const Scalar& o) const { return ember::div(*this, o); }
Tensor Tensor::square() const { return ember::square(*this); }
Tensor Tensor::sgn() const { return ember::sign(*this); }
Tensor Tensor::fix() const { return ember::trunc(*this); }
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }
Tensor Tensor::isnan() const { return ember::isnan(*this); }
Tensor Tensor::isinf() const { return ember::isinf(*this); }
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }
Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}
Tensor Tensor::isclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, o, rtol, atol, equal_nan);
}
bool Tensor::allclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, o, rtol, atol, equal_nan);
}
bool Tensor::equal(const Tensor& o) const { return ember::equal(*this, o); }
Tensor Tensor::lerp(const Tensor& end, const Scalar& w) const { return ember::lerp(*this, end, w); }
Tensor Tensor::lerp(const Tensor& end, const Tensor& w) const { return ember::lerp(*this, end, w); }
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcmul(*this, t1, t2, value);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcdiv(*this, t1, t2, value);
}
Tensor Tensor::max(const Tensor& o) const { return ember::maximum(*this, o); }
Tensor Tensor::min(const Tensor& o) const { return ember::minimum(*this, o); }
Tensor Tensor::clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const {
  return ember::clamp(*this, min, max);
}

// ---- operators (LibTorch's: s % t is empty_like(t).fill_(s).remainder_(t)) ----

Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, b); }
Tensor operator%(const Scalar& a, const Tensor& b) {
  Tensor filled = empty_like(b);
  filled.fill_(a);
  filled.remainder_(b);
  return filled;
}
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator&(const Tensor& a, const Scalar& b) { return bitwise_and(a, b); }
Tensor operator&(const Scalar& a, const Tensor& b) { return bitwise_and(b, a); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator|(const Tensor& a, const Scalar& b) { return bitwise_or(a, b); }
Tensor operator|(const Scalar& a, const Tensor& b) { return bitwise_or(b, a); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator^(const Tensor& a, const Scalar& b) { return bitwise_xor(a, b); }
Tensor operator^(const Scalar& a, const Tensor& b) { return bitwise_xor(b, a); }

}  // namespace ember
