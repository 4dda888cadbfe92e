// Front-ends of the elementwise ops (math, comparisons, logical, where, masked_fill, in-place
// forms, operators): validate once, promote and broadcast as PyTorch does, then dispatch.
#include <cmath>
#include <limits>

#include <ember/core/recording.h>
#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/tensor.h>

namespace ember {

namespace {

// ---- type promotion with a scalar (a "wrapped number" in PyTorch's terms) ----

// A scalar only changes the dtype when it is of a higher category than the tensor:
// float scalars turn integer/bool tensors into the default float, int scalars turn bool into int64.
inline ScalarType scalar_result(ScalarType t, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Float:
      return is_floating_point(t) ? t : default_float_dtype();
    case Scalar::Kind::Int:
      return t == kBool ? kInt64 : t;
    default:
      return t;
  }
}

Scalar scalar_mul(const Scalar& a, const Scalar& b) {
  if (a.isFloatingPoint() || b.isFloatingPoint()) return Scalar(a.toDouble() * b.toDouble());
  return Scalar(a.toLong() * b.toLong());
}

// PyTorch's canCast: no float -> integral, no non-bool -> bool.
void check_castable(const char* op, ScalarType result, ScalarType self) {
  const bool ok = !((is_floating_point(result) && !is_floating_point(self)) ||
                    (result != kBool && self == kBool));
  EMBER_CHECK(ok, op, ": result type ", dtype_name(result),
              " can't be cast to the desired output type ", dtype_name(self));
}

void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha) {
  EMBER_CHECK(!(alpha.isFloatingPoint() && !is_floating_point(dtype)), op,
              ": for integral input tensors (", dtype_name(dtype),
              "), alpha must not be a floating point number");
}

void check_no_bool_sub(const char* op, bool has_bool) {
  EMBER_CHECK(!has_bool, op,
              ": subtraction with a bool tensor or scalar is not supported; to invert a mask, "
              "use logical_not()");
}

inline Tensor cast(const Tensor& t, ScalarType dtype) {
  return t.dtype() == dtype ? t : t.to(dtype);
}

// Tensors that reach the kernel: both operands cast to `compute` and expanded to one shape.
template <Op op>
Tensor binary(const char* name, const Tensor& a, const Tensor& b, ScalarType compute,
              ScalarType out_dtype) {
  check_same_device(name, a, b);
  if (__builtin_expect(a.dtype() != compute || b.dtype() != compute, 0)) {
    return binary<op>(name, cast(a, compute), cast(b, compute), compute, out_dtype);
  }
  const Device dev = a.device();
  if (a.sizes().equals(b.sizes())) {
    Tensor out = empty_on(a.sizes(), out_dtype, dev);
    kernel<op>(dev.type())(out, a, b);
    return out;
  }
  DimVector shape = broadcast_shapes(name, a.sizes(), b.sizes());
  Tensor out = empty_on(name, shape, out_dtype, dev);
  kernel<op>(dev.type())(out, a.sizes().equals(shape) ? a : a.expand(shape),
                         b.sizes().equals(shape) ? b : b.expand(shape));
  return out;
}

template <Op op>
Tensor binary_promote(const char* name, const Tensor& a, const Tensor& b) {
  check_defined(name, a, b);
  const ScalarType dt = result_type(a, b);
  return binary<op>(name, a, b, dt, dt);
}

template <Op op>
Tensor compare(const char* name, const Tensor& a, const Tensor& b) {
  check_defined(name, a, b);
  return binary<op>(name, a, b, result_type(a, b), kBool);
}

// The `s + 1` path: no broadcasting, no temporaries unless the scalar promotes the dtype.
template <Op op>
Tensor scalar_op(const Tensor& a, const Scalar& s, ScalarType compute, ScalarType out_dtype) {
  // Every caller checked that `a` is defined (check_defined, naming its op) first.
  const TensorImpl& ai = *a.unsafeGetTensorImpl();
  const Device dev = ai.device();
  Tensor out = empty_on(ai.sizes(), out_dtype, dev);
  if (__builtin_expect(ai.dtype() == compute, 1)) {
    kernel<op>(dev.type())(out, a, s);
  } else {
    kernel<op>(dev.type())(out, a.to(compute), s);
  }
  return out;
}

template <Op op>
Tensor compare_scalar(const char* name, const Tensor& a, const Scalar& s) {
  check_defined(name, a);
  return scalar_op<op>(a, s, scalar_result(a.dtype(), s), kBool);
}

// 0-dim tensor holding s with the dtype s would take next to t, on t's device.
Tensor wrap_scalar(const Scalar& s, const Tensor& t) {
  return wrapped_scalar_tensor(
      s, TensorOptions().dtype(scalar_result(t.dtype(), s)).device(t.device()));
}

inline ScalarType true_div_type(ScalarType t) {
  return is_floating_point(t) ? t : default_float_dtype();
}

enum class RowTypes { All, Numeric, Float, Bits, Integer };  // core/elementwise.def's
constexpr bool row_differentiable(RowTypes types) {
  return types != RowTypes::Bits && types != RowTypes::Integer;
}
inline ScalarType row_dtype(RowTypes types, ScalarType promoted) {
  return types == RowTypes::Float ? true_div_type(promoted) : promoted;
}

// Integer division by zero is an error on the CPU, as PyTorch's ("ZeroDivisionError"); CUDA
// computes on (0), as PyTorch's CUDA gives what the hardware does. For the rows that divide.
template <Op op>
void check_row_inputs(const Tensor& b, ScalarType compute) {
  if constexpr (op == Op::fmod || op == Op::remainder || op == Op::floor_divide) {
    if (is_floating_point(compute) || compute == kBool || !b.device().is_cpu()) return;
    EMBER_CHECK(!(b == 0).any().item<bool>(), op_name(op),
                ": ZeroDivisionError (integer division by zero, ", dtype_name(compute), ")");
  }
}

// The in-place forms of the rows: self = f(self), which must fit self's dtype.
Tensor& assign_result(const char* op, const Tensor& self, const Tensor& result) {
  check_castable(op, result.dtype(), self.dtype());
  // the recorded copy_ refuses leaves and views: name the op too
  return named_errors(op, [&]() -> Tensor& { return const_cast<Tensor&>(self).copy_(result); });
}

// exp, log, sin...: integer and bool inputs compute in the default float dtype.
template <Op op>
Tensor unary_float(const Tensor& t) {
  if (__builtin_expect(!t.defined(), 0)) throw_undefined_input(op_name(op));
  if constexpr (op == Op::gelu) {  // the one row LibTorch refuses integers for
    EMBER_CHECK(t.is_floating_point(), "gelu: expected a floating-point input, got ", t.dtype());
  }
  const ScalarType dt = true_div_type(t.dtype());
  Tensor out = empty_on(t.sizes(), dt, t.device());
  if (t.dtype() == dt) {
    kernel<op>(t.device().type())(out, t);
  } else {
    kernel<op>(t.device().type())(out, t.to(dt));
  }
  return out;
}

template <Op op>
Tensor unary_same(const Tensor& t) {
  if (__builtin_expect(!t.defined(), 0)) throw_undefined_input(op_name(op));
  Tensor out = empty_on(t.sizes(), t.dtype(), t.device());
  kernel<op>(t.device().type())(out, t);
  return out;
}

// ---- in-place helpers ----

// A written tensor whose elements alias each other (stride 0 from expand) would race.
void check_writable(const char* op, const Tensor& self) {
  IntArrayRef sz = self.sizes(), st = self.strides();
  for (size_t i = 0; i < sz.size(); ++i) {
    EMBER_CHECK(st[i] != 0 || sz[i] <= 1, op,
                ": more than one element of the written-to tensor refers to a single memory "
                "location (shape ",
                shape_str(sz), ", stride ", shape_str(st), "); clone() it first");
  }
}

void bump(const Tensor& self) { self.impl()->storage()->bump_version(); }

// other broadcast to self's shape; it may not grow self.
Tensor broadcast_to_self(const char* op, const Tensor& self, const Tensor& other) {
  if (self.sizes().equals(other.sizes())) return other;
  DimVector shape = broadcast_shapes(op, self.sizes(), other.sizes());
  EMBER_CHECK(self.sizes().equals(shape), op, ": output with shape ", shape_str(self.sizes()),
              " doesn't match the broadcast shape ", shape_str(shape));
  return other.expand(self.sizes());
}

// rt: the computation dtype (result_type, or float for true division).
template <Op op>
Tensor& inplace_binary(const char* name, Tensor& self, const Tensor& other, ScalarType rt) {
  check_same_device(name, self, other);
  check_castable(name, rt, self.dtype());
  check_writable(name, self);
  Tensor b = broadcast_to_self(name, self, other);
  if (rt == self.dtype()) {
    b = cast(b, rt);
    // Kernels allow out to alias an input only at identical positions.
    if (b.impl()->storage() == self.impl()->storage() &&
        (b.storage_offset() != self.storage_offset() || !b.strides().equals(self.strides()))) {
      b = b.clone();
    }
    kernel<op>(self.device().type())(self, self, b);
  } else {
    // Computed in the wider type, then narrowed into self, as PyTorch does.
    self.copy_(binary<op>(name, self, b, rt, rt));
  }
  bump(self);
  return self;
}

template <Op op>
Tensor& inplace_scalar(const char* name, Tensor& self, const Scalar& s, ScalarType rt) {
  check_castable(name, rt, self.dtype());
  check_writable(name, self);
  kernel<op>(self.device().type())(self, self, s);  // rt == self's dtype once castable
  bump(self);
  return self;
}

Tensor clamp_impl(const Tensor& t, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max, ScalarType dt, const Tensor& out) {
  Scalar lo, hi;
  if (is_floating_point(dt)) {
    lo = min ? *min : Scalar(-std::numeric_limits<double>::infinity());
    hi = max ? *max : Scalar(std::numeric_limits<double>::infinity());
  } else {
    int64_t lo_limit = 0, hi_limit = 1;
    switch (dt) {
      case kUInt8:
        hi_limit = 255;
        break;
      case kInt32:
        lo_limit = std::numeric_limits<int32_t>::min();
        hi_limit = std::numeric_limits<int32_t>::max();
        break;
      case kInt64:
        lo_limit = std::numeric_limits<int64_t>::min();
        hi_limit = std::numeric_limits<int64_t>::max();
        break;
      default:
        break;  // bool: [0, 1]
    }
    lo = min ? *min : Scalar(lo_limit);
    hi = max ? *max : Scalar(hi_limit);
  }
  kernel<Op::clamp>(t.device().type())(out, cast(t, dt), lo, hi);
  return out;
}

ScalarType clamp_type(const char* op, const Tensor& t, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  EMBER_CHECK(min || max, op, ": at least one of min and max must be given");
  ScalarType dt = t.dtype();
  if (min) dt = scalar_result(dt, *min);
  if (max) dt = scalar_result(dt, *max);
  return dt;
}

void check_mask(const char* op, const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == kBool, op, ": expected a bool mask, got ", dtype_name(mask.dtype()));
  check_same_device(op, self, mask);
}

}  // namespace

// ---- binary arithmetic ----

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (autograd::should_record(a, b)) return detail::recorded::add(a, b, alpha);
  if (!alpha.equal(1)) {  // (binary_promote checks the inputs; mul(b, alpha) comes first here)
    check_defined("add", a, b);
    check_alpha("add", result_type(a, b), alpha);
    return binary_promote<Op::add>("add", a, mul(b, alpha));
  }
  return binary_promote<Op::add>("add", a, b);
}

Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  if (autograd::should_record(a)) return detail::recorded::add_scalar(a, b, alpha);
  check_defined("add", a);
  const ScalarType dt = scalar_result(a.dtype(), b);
  if (__builtin_expect(!alpha.equal(1), 0)) {
    check_alpha("add", dt, alpha);
    return scalar_op<Op::add_scalar>(a, scalar_mul(b, alpha), dt, dt);
  }
  return scalar_op<Op::add_scalar>(a, b, dt, dt);
}

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (autograd::should_record(a, b)) return detail::recorded::sub(a, b, alpha);
  check_defined("sub", a, b);
  check_no_bool_sub("sub", a.dtype() == kBool || b.dtype() == kBool);
  if (!alpha.equal(1)) {
    check_alpha("sub", result_type(a, b), alpha);
    return binary_promote<Op::sub>("sub", a, mul(b, alpha));
  }
  return binary_promote<Op::sub>("sub", a, b);
}

Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  if (autograd::should_record(a)) return detail::recorded::sub_scalar(a, b, alpha);
  check_defined("sub", a);
  check_no_bool_sub("sub", a.dtype() == kBool || b.isBoolean());
  const ScalarType dt = scalar_result(a.dtype(), b);
  check_alpha("sub", dt, alpha);
  return scalar_op<Op::add_scalar>(a, -(alpha.equal(1) ? b : scalar_mul(b, alpha)), dt, dt);
}

Tensor mul(const Tensor& a, const Tensor& b) {
  if (autograd::should_record(a, b)) return detail::recorded::mul(a, b);
  return binary_promote<Op::mul>("mul", a, b);
}

Tensor mul(const Tensor& a, const Scalar& b) {
  if (autograd::should_record(a)) return detail::recorded::mul_scalar(a, b);
  check_defined("mul", a);
  const ScalarType dt = scalar_result(a.dtype(), b);
  return scalar_op<Op::mul_scalar>(a, b, dt, dt);
}

Tensor div(const Tensor& a, const Tensor& b) {
  if (autograd::should_record(a, b)) return detail::recorded::div(a, b);
  check_defined("div", a, b);
  const ScalarType dt = true_div_type(result_type(a, b));
  return binary<Op::div>("div", a, b, dt, dt);
}

Tensor div(const Tensor& a, const Scalar& b) {
  if (autograd::should_record(a)) return detail::recorded::div_scalar(a, b);
  check_defined("div", a);
  const ScalarType dt = true_div_type(scalar_result(a.dtype(), b));
  return scalar_op<Op::div_scalar>(a, b, dt, dt);
}

// pow keeps integer dtypes (2 ** 3 == 8 as int64), as PyTorch does.
Tensor pow(const Tensor& a, const Tensor& exponent) {
  if (autograd::should_record(a, exponent)) return detail::recorded::pow(a, exponent);
  return binary_promote<Op::pow>("pow", a, exponent);
}

Tensor pow(const Tensor& a, const Scalar& exponent) {
  if (autograd::should_record(a)) return detail::recorded::pow_scalar(a, exponent);
  check_defined("pow", a);
  const ScalarType dt = scalar_result(a.dtype(), exponent);
  EMBER_CHECK(is_floating_point(dt) || exponent.isBoolean() || exponent.toLong() >= 0,
              "pow: integers to negative integer powers are not allowed (", dtype_name(dt),
              " tensor, exponent ", exponent, ")");
  return scalar_op<Op::pow_scalar>(a, exponent, dt, dt);
}

Tensor pow(const Scalar& base, const Tensor& exponent) {
  if (autograd::should_record(exponent)) return detail::recorded::rpow_scalar(base, exponent);
  check_defined("pow", exponent);
  const ScalarType dt = scalar_result(exponent.dtype(), base);
  return scalar_op<Op::rpow_scalar>(exponent, base, dt, dt);
}

// maximum, minimum: the binary rows of core/elementwise.def. All: the promoted dtype; Float:
// integer and bool pairs compute in the default float dtype.
#define EMBER_BINARY(name, types, ...)                                                 \
  Tensor name(const Tensor& a, const Tensor& b) {                                      \
    if (row_differentiable(RowTypes::types) && autograd::should_record(a, b))          \
      return detail::record_binary(Op::name, a, b);                                    \
    check_defined(#name, a, b);                                                        \
    const ScalarType dt = row_dtype(RowTypes::types, result_type(a, b));               \
    check_row_inputs<Op::name>(b, dt);                                                 \
    return binary<Op::name>(#name, a, b, dt, dt);                                      \
  }                                                                                    \
  Tensor Tensor::name(const Tensor& other) const { return ember::name(*this, other); } \
  Tensor& Tensor::name##_(const Tensor& other) const {                                 \
    check_defined(#name "_", *this, other);                                            \
    return assign_result(#name "_", *this, ember::name(*this, other));                 \
  }
#include <ember/core/elementwise.def>
#undef EMBER_BINARY

// ---- unary ----

Tensor neg(const Tensor& t) {
  if (autograd::should_record(t)) return detail::recorded::neg(t);
  EMBER_CHECK(t.dtype() != kBool,
              "neg: negation of a bool tensor is not supported; to invert a "
              "mask, use logical_not()");
  return unary_same<Op::neg>(t);
}
Tensor abs(const Tensor& t) {
  if (autograd::should_record(t)) return detail::recorded::abs(t);
  return unary_same<Op::abs>(t);
}
Tensor relu(const Tensor& t) {
  if (autograd::should_record(t)) return detail::recorded::relu(t);
  return unary_same<Op::relu>(t);
}
// exp, log, ... gelu: the rows of core/elementwise.def.
#define EMBER_UNARY_FLOAT(name, ...)                                          \
  Tensor name(const Tensor& t) {                                              \
    if (autograd::should_record(t)) return detail::record_unary(Op::name, t); \
    return unary_float<Op::name>(t);                                          \
  }                                                                           \
  Tensor Tensor::name() const { return ember::name(*this); }                  \
  Tensor& Tensor::name##_() const {                                           \
    check_defined(#name "_", *this);                                          \
    return assign_result(#name "_", *this, ember::name(*this));               \
  }
// floor, ceil, ...: the rows that keep their input's dtype.
#define EMBER_UNARY_SAME(name, ...)                                           \
  Tensor name(const Tensor& t) {                                              \
    if (autograd::should_record(t)) return detail::record_unary(Op::name, t); \
    return unary_same<Op::name>(t);                                           \
  }                                                                           \
  Tensor Tensor::name() const { return ember::name(*this); }                  \
  Tensor& Tensor::name##_() const {                                           \
    check_defined(#name "_", *this);                                          \
    return assign_result(#name "_", *this, ember::name(*this));               \
  }
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_UNARY_SAME

Tensor logical_not(const Tensor& t) {
  check_defined("logical_not", t);
  Tensor out = empty_on(t.sizes(), kBool, t.device());
  kernel<Op::logical_not>(t.device().type())(out, cast(t, kBool));
  return out;
}

Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
  if (autograd::should_record(t)) return detail::recorded::clamp(t, min, max);
  check_defined("clamp", t);
  const ScalarType dt = clamp_type("clamp", t, min, max);
  return clamp_impl(t, min, max, dt, empty_on(t.sizes(), dt, t.device()));
}

// ---- comparisons and logical ----

Tensor eq(const Tensor& a, const Tensor& b) { return compare<Op::eq>("eq", a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare<Op::ne>("ne", a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare<Op::lt>("lt", a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return compare<Op::le>("le", a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare<Op::gt>("gt", a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare<Op::ge>("ge", a, b); }
Tensor eq(const Tensor& a, const Scalar& b) { return compare_scalar<Op::eq_scalar>("eq", a, b); }
Tensor ne(const Tensor& a, const Scalar& b) { return compare_scalar<Op::ne_scalar>("ne", a, b); }
Tensor lt(const Tensor& a, const Scalar& b) { return compare_scalar<Op::lt_scalar>("lt", a, b); }
Tensor le(const Tensor& a, const Scalar& b) { return compare_scalar<Op::le_scalar>("le", a, b); }
Tensor gt(const Tensor& a, const Scalar& b) { return compare_scalar<Op::gt_scalar>("gt", a, b); }
Tensor ge(const Tensor& a, const Scalar& b) { return compare_scalar<Op::ge_scalar>("ge", a, b); }

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return binary<Op::logical_and>("logical_and", a, b, kBool, kBool);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return binary<Op::logical_or>("logical_or", a, b, kBool, kBool);
}

// ---- where, masked_fill ----

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  if (autograd::should_record(a, b)) return detail::recorded::where(condition, a, b);
  check_defined("where", condition, a, b);
  EMBER_CHECK(condition.dtype() == kBool, "where: expected a bool condition, got ",
              dtype_name(condition.dtype()), " (values ", dtype_name(a.dtype()), " and ",
              dtype_name(b.dtype()), ")");
  check_same_device("where", condition, a);
  check_same_device("where", a, b);
  const ScalarType dt = result_type(a, b);
  DimVector shape =
      broadcast_shapes("where", broadcast_shapes("where", condition.sizes(), a.sizes()), b.sizes());
  auto fit = [&](const Tensor& t) { return t.sizes().equals(shape) ? t : t.expand(shape); };
  Tensor out = empty_on(shape, dt, a.device());
  kernel<Op::where>(a.device().type())(out, fit(condition), fit(cast(a, dt)), fit(cast(b, dt)));
  return out;
}

Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b) {
  return where(condition, wrap_scalar(a, b), b);
}

Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b) {
  return where(condition, a, wrap_scalar(b, a));
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, const Scalar& value) {
  if (autograd::should_record(t)) return detail::recorded::masked_fill(t, mask, value);
  check_defined("masked_fill", t, mask);
  check_mask("masked_fill", t, mask);
  check_fits("masked_fill", value, t.dtype());
  Tensor m = broadcast_to_self("masked_fill", t, mask);
  Tensor out = empty_on(t.sizes(), t.dtype(), t.device());
  out.copy_(t);
  kernel<Op::masked_fill>(t.device().type())(out, m, value);
  return out;
}

// ---- whole-tensor predicates ----

bool equal(const Tensor& a, const Tensor& b) {
  check_defined("equal", a, b);
  check_same_device("equal", a, b);
  if (!a.sizes().equals(b.sizes())) return false;
  return eq(a, b).all().item<bool>();
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  check_defined("allclose", a, b);
  check_same_device("allclose", a, b);
  // Integers compare in float64 so that a - b cannot wrap.
  const ScalarType rt = result_type(a, b);
  const ScalarType dt = is_floating_point(rt) ? rt : kFloat64;
  Tensor x = cast(a, dt), y = cast(b, dt);
  // Equal infinities are close; NaN is close to nothing, but to NaN with equal_nan.
  Tensor close = logical_or(eq(x, y), le(abs(sub(x, y)), add(mul(abs(y), rtol), atol)));
  if (equal_nan) close = logical_or(close, logical_and(isnan(x), isnan(y)));
  return close.all().item<bool>();
}

// ---- Tensor methods ----

Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const {
  return ember::add(*this, other, alpha);
}
Tensor Tensor::add(const Scalar& other, const Scalar& alpha) const {
  return ember::add(*this, other, alpha);
}
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const {
  return ember::sub(*this, other, alpha);
}
Tensor Tensor::sub(const Scalar& other, const Scalar& alpha) const {
  return ember::sub(*this, other, alpha);
}
Tensor Tensor::mul(const Tensor& other) const { return ember::mul(*this, other); }
Tensor Tensor::mul(const Scalar& other) const { return ember::mul(*this, other); }
Tensor Tensor::div(const Tensor& other) const { return ember::div(*this, other); }
Tensor Tensor::div(const Scalar& other) const { return ember::div(*this, other); }
Tensor Tensor::pow(const Tensor& exponent) const { return ember::pow(*this, exponent); }
Tensor Tensor::pow(const Scalar& exponent) const { return ember::pow(*this, exponent); }
Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}
Tensor Tensor::eq(const Tensor& other) const { return ember::eq(*this, other); }
Tensor Tensor::eq(const Scalar& other) const { return ember::eq(*this, other); }
Tensor Tensor::ne(const Tensor& other) const { return ember::ne(*this, other); }
Tensor Tensor::ne(const Scalar& other) const { return ember::ne(*this, other); }
Tensor Tensor::lt(const Tensor& other) const { return ember::lt(*this, other); }
Tensor Tensor::lt(const Scalar& other) const { return ember::lt(*this, other); }
Tensor Tensor::le(const Tensor& other) const { return ember::le(*this, other); }
Tensor Tensor::le(const Scalar& other) const { return ember::le(*this, other); }
Tensor Tensor::gt(const Tensor& other) const { return ember::gt(*this, other); }
Tensor Tensor::gt(const Scalar& other) const { return ember::gt(*this, other); }
Tensor Tensor::ge(const Tensor& other) const { return ember::ge(*this, other); }
Tensor Tensor::ge(const Scalar& other) const { return ember::ge(*this, other); }
Tensor Tensor::logical_and(const Tensor& other) const { return ember::logical_and(*this, other); }
Tensor Tensor::logical_or(const Tensor& other) const { return ember::logical_or(*this, other); }
Tensor Tensor::logical_not() const { return ember::logical_not(*this); }

// ---- in place ----

Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) const {
  check_defined("add_", *this, other);
  if (autograd::should_record(*this, other)) {
    check_writable("add_", *this);
    detail::recorded::add_(self_(), other, alpha);
    return self_();
  }
  if (!alpha.equal(1)) {
    check_alpha("add_", result_type(*this, other), alpha);
    return add_(ember::mul(other, alpha));
  }
  return inplace_binary<Op::add>("add_", self_(), other, result_type(*this, other));
}

Tensor& Tensor::add_(const Scalar& other, const Scalar& alpha) const {
  check_defined("add_", *this);
  if (autograd::should_record(*this)) {
    check_writable("add_", *this);
    detail::recorded::add_scalar_(self_(), other, alpha);
    return self_();
  }
  const ScalarType rt = scalar_result(dtype(), other);
  check_alpha("add_", rt, alpha);
  return inplace_scalar<Op::add_scalar>("add_", self_(),
                                        alpha.equal(1) ? other : scalar_mul(other, alpha), rt);
}

Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) const {
  check_defined("sub_", *this, other);
  if (autograd::should_record(*this, other)) {
    check_writable("sub_", *this);
    detail::recorded::sub_(self_(), other, alpha);
    return self_();
  }
  check_no_bool_sub("sub_", dtype() == kBool || other.dtype() == kBool);
  if (!alpha.equal(1)) {
    check_alpha("sub_", result_type(*this, other), alpha);
    return sub_(ember::mul(other, alpha));
  }
  return inplace_binary<Op::sub>("sub_", self_(), other, result_type(*this, other));
}

Tensor& Tensor::sub_(const Scalar& other, const Scalar& alpha) const {
  check_defined("sub_", *this);
  if (autograd::should_record(*this)) {
    check_writable("sub_", *this);
    detail::recorded::sub_scalar_(self_(), other, alpha);
    return self_();
  }
  check_no_bool_sub("sub_", dtype() == kBool || other.isBoolean());
  const ScalarType rt = scalar_result(dtype(), other);
  check_alpha("sub_", rt, alpha);
  return inplace_scalar<Op::add_scalar>("sub_", self_(),
                                        -(alpha.equal(1) ? other : scalar_mul(other, alpha)), rt);
}

Tensor& Tensor::mul_(const Tensor& other) const {
  check_defined("mul_", *this, other);
  if (autograd::should_record(*this, other)) {
    check_writable("mul_", *this);
    detail::recorded::mul_(self_(), other);
    return self_();
  }
  return inplace_binary<Op::mul>("mul_", self_(), other, result_type(*this, other));
}

Tensor& Tensor::mul_(const Scalar& other) const {
  check_defined("mul_", *this);
  if (autograd::should_record(*this)) {
    check_writable("mul_", *this);
    detail::recorded::mul_scalar_(self_(), other);
    return self_();
  }
  return inplace_scalar<Op::mul_scalar>("mul_", self_(), other, scalar_result(dtype(), other));
}

Tensor& Tensor::div_(const Tensor& other) const {
  check_defined("div_", *this, other);
  if (autograd::should_record(*this, other)) {
    check_writable("div_", *this);
    detail::recorded::div_(self_(), other);
    return self_();
  }
  return inplace_binary<Op::div>("div_", self_(), other, true_div_type(result_type(*this, other)));
}

Tensor& Tensor::div_(const Scalar& other) const {
  check_defined("div_", *this);
  if (autograd::should_record(*this)) {
    check_writable("div_", *this);
    detail::recorded::div_scalar_(self_(), other);
    return self_();
  }
  return inplace_scalar<Op::div_scalar>("div_", self_(), other,
                                        true_div_type(scalar_result(dtype(), other)));
}

Tensor& Tensor::fill_(const Scalar& value) const {
  check_defined("fill_", *this);
  if (autograd::should_record(*this)) {
    check_writable("fill_", *this);
    detail::recorded::fill_(self_(), value);
    return self_();
  }
  check_writable("fill_", *this);
  check_fits("fill_", value, dtype());
  kernel<Op::fill>(device().type())(*this, value);
  bump(*this);
  return self_();
}

Tensor& Tensor::zero_() const {
  check_defined("zero_", *this);
  return fill_(0);
}

Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  check_defined("clamp_", *this);
  if (autograd::should_record(*this)) {
    check_writable("clamp_", *this);
    detail::recorded::clamp_(self_(), min, max);
    return self_();
  }
  const ScalarType dt = clamp_type("clamp_", *this, min, max);
  check_castable("clamp_", dt, dtype());
  check_writable("clamp_", *this);
  clamp_impl(*this, min, max, dtype(), *this);
  bump(*this);
  return self_();
}

Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  check_defined("masked_fill_", *this, mask);
  if (autograd::should_record(*this)) {
    check_writable("masked_fill_", *this);
    detail::recorded::masked_fill_(self_(), mask, value);
    return self_();
  }
  check_mask("masked_fill_", *this, mask);
  check_fits("masked_fill_", value, dtype());
  check_writable("masked_fill_", *this);
  Tensor m = broadcast_to_self("masked_fill_", *this, mask);
  kernel<Op::masked_fill>(device().type())(*this, m, value);
  bump(*this);
  return self_();
}

// relu_, pow_ and the in-place comparisons: computed out of place and written back (a
// comparison's bool result fits any dtype; the others must fit self's, as assign_result checks).
Tensor& Tensor::relu_() const {
  check_defined("relu_", *this);
  return assign_result("relu_", *this, ember::relu(*this));
}
Tensor& Tensor::pow_(const Scalar& e) const {
  check_defined("pow_", *this);
  return assign_result("pow_", *this, ember::pow(*this, e));
}
Tensor& Tensor::pow_(const Tensor& e) const {
  check_defined("pow_", *this, e);
  return assign_result("pow_", *this, ember::pow(*this, e));
}
#define EMBER_COMPARE_INPLACE(name)                \
  Tensor& Tensor::name##_(const Scalar& o) const { \
    check_defined(#name "_", *this);               \
    return copy_(ember::name(*this, o));           \
  }                                                \
  Tensor& Tensor::name##_(const Tensor& o) const { \
    check_defined(#name "_", *this, o);            \
    return copy_(ember::name(*this, o));           \
  }
EMBER_COMPARE_INPLACE(eq)
EMBER_COMPARE_INPLACE(ne)
EMBER_COMPARE_INPLACE(lt)
EMBER_COMPARE_INPLACE(le)
EMBER_COMPARE_INPLACE(gt)
EMBER_COMPARE_INPLACE(ge)
#undef EMBER_COMPARE_INPLACE

// ---- operators ----

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator-(const Scalar& a, const Tensor& b) {
  // s - t == (-t) + s exactly in IEEE arithmetic and in wrapping integers.
  // LibTorch's C++ operator is empty_like(b).fill_(a).sub_(b): the result keeps b's dtype,
  // the scalar converted to it first (0.5 - int64 tensor is -b, in int64).
  check_defined("rsub", b);
  check_no_bool_sub("rsub", b.dtype() == kBool || a.isBoolean());
  const Scalar s = a.isFloatingPoint() && !b.is_floating_point()
                       ? Scalar(static_cast<int64_t>(a.toDouble()))
                       : a;
  return add(neg(b), s);
}
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
// LibTorch's C++ operator is empty_like(b).fill_(a).div_(b): in b's dtype, so an integer b
// throws as div_ does.
Tensor operator/(const Scalar& a, const Tensor& b) {
  check_defined("div", b);
  check_castable("div", true_div_type(b.dtype()), b.dtype());
  return div(wrap_scalar(a, b), b);
}
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
Tensor operator&&(const Tensor& a, const Tensor& b) { return logical_and(a, b); }
Tensor operator||(const Tensor& a, const Tensor& b) { return logical_or(a, b); }
Tensor operator!(const Tensor& a) { return logical_not(a); }

}  // namespace ember
