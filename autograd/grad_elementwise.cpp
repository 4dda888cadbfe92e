// Backward rules of the elementwise ops (arithmetic, neg, abs, relu, clamp, where, masked_fill)
// and their in-place forms, written with ember's own ops; the table's rows are in grad_unary.cpp.
#include <ember/autograd/recorders.h>

#include <cmath>
#include <limits>

#include <ember/autograd/function_node.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>

namespace ember::autograd::recorded {

namespace {

// Saved only when the other input needs a gradient that uses it.
inline Tensor if_needed(const Tensor& keep, const Tensor& other) {
  return needs_grad(other) ? keep : Tensor();
}

// s - 1, keeping an integral exponent integral (pow(x, 2) -> pow(x, 1), not pow(x, 1.0)).
inline Scalar minus_one(const Scalar& s) {
  return s.isFloatingPoint() ? Scalar(s.toDouble() - 1.0) : Scalar(s.toLong() - 1);
}

// g * alpha, skipping the multiply when alpha is 1.
inline Tensor scaled(const Tensor& g, const Scalar& alpha) {
  return alpha.equal(1) ? g : g * alpha;
}

}  // namespace

// ---- binary arithmetic ----

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  Tensor out = untracked([&] { return ember::add(a, b, alpha); });
  return record("AddBackward0", "add", {a, b}, out, {},
                [alpha](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {n.should_compute_output(0) ? g[0] : Tensor(),
                          n.should_compute_output(1) ? scaled(g[0], alpha) : Tensor()};
                });
}

Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  Tensor out = untracked([&] { return ember::add(a, b, alpha); });
  return record("AddBackward1", "add", {a}, out, {},
                [](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0]}; });
}

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  Tensor out = untracked([&] { return ember::sub(a, b, alpha); });
  return record("SubBackward0", "sub", {a, b}, out, {},
                [alpha](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {n.should_compute_output(0) ? g[0] : Tensor(),
                          n.should_compute_output(1) ? scaled(g[0], -alpha) : Tensor()};
                });
}

Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  Tensor out = untracked([&] { return ember::sub(a, b, alpha); });
  return record("SubBackward1", "sub", {a}, out, {},
                [](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0]}; });
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = untracked([&] { return ember::mul(a, b); });
  return record("MulBackward0", "mul", {a, b}, out, {if_needed(a, b), if_needed(b, a)},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {n.should_compute_output(0) ? g[0] * n.saved(1) : Tensor(),
                          n.should_compute_output(1) ? g[0] * n.saved(0) : Tensor()};
                });
}

Tensor mul(const Tensor& a, const Scalar& b) {
  Tensor out = untracked([&] { return ember::mul(a, b); });
  return record("MulBackward1", "mul", {a}, out, {},
                [b](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0] * b}; });
}

// d/da a/b = 1/b; d/db a/b = -a/b^2 (written (a/b)/b as PyTorch does).
Tensor div(const Tensor& a, const Tensor& b) {
  Tensor out = untracked([&] { return ember::div(a, b); });
  return record("DivBackward0", "div", {a, b}, out, {if_needed(a, b), b},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor b = n.saved(1);
                  return {n.should_compute_output(0) ? g[0] / b : Tensor(),
                          n.should_compute_output(1) ? -g[0] * ((n.saved(0) / b) / b) : Tensor()};
                });
}

Tensor div(const Tensor& a, const Scalar& b) {
  Tensor out = untracked([&] { return ember::div(a, b); });
  return record("DivBackward1", "div", {a}, out, {},
                [b](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0] / b}; });
}

// As PyTorch: the base's gradient is 0 where the exponent is 0 (no 0 * inf at a == 0), the
// exponent's is 0 where a == 0 and b >= 0 (0 ** b is flat there, log(0) is not).
Tensor pow(const Tensor& a, const Tensor& b) {
  Tensor out = untracked([&] { return ember::pow(a, b); });
  return record("PowBackward1", "pow", {a, b}, out, {a, b, if_needed(out, b)},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor a = n.saved(0), b = n.saved(1);
                  Tensor ga, gb;
                  if (n.should_compute_output(0)) {
                    ga = g[0] * ember::where(b == 0, 0, b * a.pow(b - 1));
                  }
                  if (n.should_compute_output(1)) {
                    gb = g[0] *
                         ember::where(ember::logical_and(a == 0, b >= 0), 0, n.saved(2) * a.log());
                  }
                  return {ga, gb};
                });
}

Tensor pow(const Tensor& a, const Scalar& exponent) {
  Tensor out = untracked([&] { return ember::pow(a, exponent); });
  return record("PowBackward0", "pow", {a}, out, {a},
                [exponent](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  if (exponent.equal(0)) return {ember::zeros_like(g[0])};
                  Tensor a = n.saved(0);
                  const bool square = !exponent.isFloatingPoint() && exponent.toLong() == 2;
                  Tensor d = square ? a * 2 : a.pow(minus_one(exponent)) * exponent;
                  return {g[0] * d};
                });
}

// d/db base^b = base^b log(base); 0 where base == 0 and b >= 0, as PyTorch. For base 0
// the factor log(0) = -inf is a tensor with 0 where b >= 0 (so no 0 * inf makes NaN in
// double backward).
Tensor pow(const Scalar& base, const Tensor& exponent) {
  Tensor out = untracked([&] { return ember::pow(base, exponent); });
  const double log_base = std::log(base.toDouble());
  const bool zero_base = base.toDouble() == 0.0;
  return record("PowBackward2", "pow", {exponent}, out, {zero_base ? exponent : Tensor(), out},
                [log_base, zero_base](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor out = n.saved(1);
                  if (!zero_base) return {g[0] * (out * log_base)};
                  Tensor factor = ember::zeros_like(out).masked_fill(n.saved(0) < 0, log_base);
                  return {g[0] * (out * factor)};
                });
}

// ---- unary ----

Tensor neg(const Tensor& t) {
  Tensor out = untracked([&] { return ember::neg(t); });
  return record("NegBackward0", "neg", {t}, out, {},
                [](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0].neg()}; });
}

// sign(t): 0 at 0, as PyTorch.
Tensor abs(const Tensor& t) {
  Tensor out = untracked([&] { return ember::abs(t); });
  return record("AbsBackward0", "abs", {t}, out, {t},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor x = n.saved(0);
                  Tensor sign = (x > 0).to(x.dtype()) - (x < 0).to(x.dtype());
                  return {g[0] * sign};
                });
}

// 0 where the result is 0 (x <= 0), as PyTorch's threshold_backward: one fused kernel
// (relu_backward) in a plain backward, a differentiable where under create_graph.
Tensor relu(const Tensor& t) {
  Tensor out = untracked([&] { return ember::relu(t); });
  return record("ReluBackward0", "relu", {t}, out, {out},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  const Tensor& y = n.saved(0);
                  if (GradMode::is_enabled() || g[0].dtype() != y.dtype()) {
                    return {ember::where(y > 0, g[0], 0)};
                  }
                  return {native::relu_backward(g[0], y)};
                });
}

// The gradient passes where min < x < max: 0 at the bounds themselves, as LibTorch 2.x.
Tensor clamp(const Tensor& t, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  Tensor out = untracked([&] { return ember::clamp(t, min, max); });
  return record("ClampBackward1", "clamp", {t}, out, {t},
                [min, max](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor x = n.saved(0);
                  Tensor mask;
                  if (min) mask = x > *min;
                  if (max) mask = mask.defined() ? ember::logical_and(mask, x < *max) : x < *max;
                  return {ember::where(mask, g[0], 0)};
                });
}

// ---- where, masked_fill ----

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  Tensor out = untracked([&] { return ember::where(condition, a, b); });
  return record("WhereBackward0", "where", {a, b}, out, {condition},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor c = n.saved(0);
                  return {n.should_compute_output(0) ? ember::where(c, g[0], 0) : Tensor(),
                          n.should_compute_output(1) ? ember::where(c, 0, g[0]) : Tensor()};
                });
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, const Scalar& value) {
  Tensor out = untracked([&] { return ember::masked_fill(t, mask, value); });
  return record("MaskedFillBackward0", "masked_fill", {t}, out, {mask},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {g[0].masked_fill(n.saved(0), 0)};
                });
}

// ---- in place ----

void add_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  record_inplace("add_", self, false,
                 [&](const Tensor& old) { return ember::add(old, other, alpha); });
}

void add_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  record_inplace("add_", self, false,
                 [&](const Tensor& old) { return ember::add(old, other, alpha); });
}

void sub_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  record_inplace("sub_", self, false,
                 [&](const Tensor& old) { return ember::sub(old, other, alpha); });
}

void sub_(Tensor& self, const Scalar& other, const Scalar& alpha) {
  record_inplace("sub_", self, false,
                 [&](const Tensor& old) { return ember::sub(old, other, alpha); });
}

// mul saves self's old value only when other needs a gradient.
void mul_(Tensor& self, const Tensor& other) {
  record_inplace("mul_", self, needs_grad(other),
                 [&](const Tensor& old) { return ember::mul(old, other); });
}

void mul_(Tensor& self, const Scalar& other) {
  record_inplace("mul_", self, false, [&](const Tensor& old) { return ember::mul(old, other); });
}

void div_(Tensor& self, const Tensor& other) {
  record_inplace("div_", self, needs_grad(other),
                 [&](const Tensor& old) { return ember::div(old, other); });
}

void div_(Tensor& self, const Scalar& other) {
  record_inplace("div_", self, false, [&](const Tensor& old) { return ember::div(old, other); });
}

void clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  record_inplace("clamp_", self, true,
                 [&](const Tensor& old) { return ember::clamp(old, min, max); });
}

void masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  record_inplace("masked_fill_", self, false,
                 [&](const Tensor& old) { return ember::masked_fill(old, mask, value); });
}

void fill_(Tensor& self, const Scalar& value) {
  record_inplace("fill_", self, false, [&](const Tensor& old) {
    Tensor out = untracked([&] { return ember::full_like(old, value); });
    return record("FillBackward0", "fill_", {old}, out, {},
                  [](FunctionNode&, const tensor_list&) -> tensor_list { return {Tensor()}; });
  });
}

}  // namespace ember::autograd::recorded
