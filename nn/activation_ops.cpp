// ember::leaky_relu, elu, selu, silu, softplus, hardtanh, relu6 and log_sigmoid
// (nn/activation_ops.h) as composites of public ops, with LibTorch's values and gradients (at the
// branch points too). The branch where() discards gets a harmless input (0), so that its
// exponential cannot overflow and turn a zero gradient into NaN.
#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/nn/activation_ops.h>

namespace ember {
namespace {

// exp(x) - 1 for x <= 0, accurate near 0 (as expm1): 2 t / (1 - t) with t = tanh(x / 2).
Tensor expm1_nonpositive(const Tensor& x) {
  Tensor t = ember::tanh(x * 0.5);
  return t * 2.0 / (1.0 - t);
}

void check_floating(const char* name, const Tensor& self) {
  EMBER_CHECK(self.defined(), name, ": input is an undefined tensor");
  EMBER_CHECK(self.is_floating_point(), name, ": expected a floating-point input, got ",
              self.dtype());
}

}  // namespace

Tensor leaky_relu(const Tensor& self, double negative_slope) {
  check_floating("leaky_relu", self);
  return ember::where(self.gt(0.0), self, self * negative_slope);
}

// The negative branch holds at 0, so the gradient there is alpha * scale * input_scale.
Tensor elu(const Tensor& self, double alpha, double scale, double input_scale) {
  check_floating("elu", self);
  const Tensor positive = self.gt(0.0);
  Tensor negative = expm1_nonpositive(ember::where(positive, 0.0, self) * input_scale);
  return ember::where(positive, self * scale, negative * (alpha * scale));
}

Tensor selu(const Tensor& self) {
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return elu(self, kAlpha, kScale);
}

Tensor silu(const Tensor& self) {
  check_floating("silu", self);
  return self * ember::sigmoid(self);
}

Tensor softplus(const Tensor& self, double beta, double threshold) {
  check_floating("softplus", self);
  const Tensor linear = (self * beta).gt(threshold);
  Tensor smooth = ember::log1p(ember::exp(ember::where(linear, 0.0, self) * beta)) / beta;
  return ember::where(linear, self, smooth);
}

// where() rather than clamp: LibTorch's gradient is 0 at min_val and max_val themselves.
Tensor hardtanh(const Tensor& self, double min_val, double max_val) {
  check_floating("hardtanh", self);
  EMBER_CHECK(min_val <= max_val, "hardtanh: min_val (", min_val,
              ") cannot be greater than max_val (", max_val, ")");
  return ember::where(self.le(min_val), min_val, ember::where(self.ge(max_val), max_val, self));
}

Tensor relu6(const Tensor& self) { return hardtanh(self, 0.0, 6.0); }

// x - log(1 + exp(x)) for x < 0, -log(1 + exp(-x)) otherwise: no overflow on either side.
Tensor log_sigmoid(const Tensor& self) {
  check_floating("log_sigmoid", self);
  const Tensor negative = self.lt(0.0);
  Tensor below = ember::where(negative, self, 0.0);
  Tensor above = ember::where(negative, 0.0, self);
  return ember::where(negative, below - ember::log1p(ember::exp(below)),
                      -ember::log1p(ember::exp(-above)));
}

}  // namespace ember
