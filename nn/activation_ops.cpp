// ember::leaky_relu, elu, selu, silu, softplus, hardtanh, relu6, log_sigmoid, celu, threshold,
// hardswish, hardsigmoid, mish, hardshrink, softshrink, glu and prelu (nn/activation_ops.h) as
// composites of public ops, with LibTorch's values and gradients (at the branch points too).
// The branch where() discards gets a harmless input (0), so that its exponential cannot
// overflow and turn a zero gradient into NaN.
#include <string>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/nn/activation_ops.h>
#include <ember/nn/functional.h>

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

// The in-place forms: the composite's result copied into self.
Tensor& assign(Tensor& self, const Tensor& result) {
  self.copy_(result);
  return self;
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

// PyTorch's celu is elu(x, alpha, 1, 1 / alpha).
Tensor celu(const Tensor& self, double alpha) {
  EMBER_CHECK(alpha != 0, "celu: ZeroDivisionError: alpha cannot be 0 for CELU");
  return elu(self, alpha, 1.0, 1.0 / alpha);
}

Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  EMBER_CHECK(self.defined(), "threshold: input is an undefined tensor");
  return ember::where(self.gt(threshold), self, value);
}

// Branches as PyTorch's kernel and backward: the middle one holds at -3 and 3 (gradient
// (2 x + 3) / 6 there, as PyTorch's CUDA and scalar CPU code; its vectorized CPU loop gives 1
// at exactly 3), and x * 0 keeps the sign of zero below -3.
Tensor hardswish(const Tensor& self) {
  check_floating("hardswish", self);
  return ember::where(self.lt(-3.0), self * 0.0,
                      ember::where(self.le(3.0), self * (self + 3.0) / 6.0, self));
}

// The gradient is 1/6 strictly inside (-3, 3), 0 elsewhere (PyTorch's).
Tensor hardsigmoid(const Tensor& self) {
  check_floating("hardsigmoid", self);
  return ember::where(self.le(-3.0), 0.0, ember::where(self.ge(3.0), 1.0, (self + 3.0) / 6.0));
}

Tensor mish(const Tensor& self) {
  check_floating("mish", self);
  return self * ember::tanh(softplus(self));
}

Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  check_floating("hardshrink", self);
  const double l = lambd.to<double>();
  return ember::where(self.gt(l).logical_or(self.lt(-l)), self, 0.0);
}

Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  check_floating("softshrink", self);
  const double l = lambd.to<double>();
  EMBER_CHECK(l >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", l, ".");
  return ember::where(self.gt(l), self - l, ember::where(self.lt(-l), self + l, 0.0));
}

Tensor glu(const Tensor& self, int64_t dim) {
  check_floating("glu", self);
  EMBER_CHECK(self.dim() > 0,
              "glu: glu does not support scalars because halving size must be even");
  EMBER_CHECK(dim >= -self.dim() && dim < self.dim(), "glu: dim ", dim,
              " is out of range for a tensor of ", self.dim(), " dims");
  if (dim < 0) dim += self.dim();
  const int64_t n = self.size(dim);
  EMBER_CHECK(n % 2 == 0, "glu: Halving dimension must be even, but dimension ", dim, " is size ",
              n);
  return self.narrow(dim, 0, n / 2) * ember::sigmoid(self.narrow(dim, n / 2, n / 2));
}

// weight: a scalar or [channels] (dim 1 of self; 1 for inputs of fewer than 2 dims).
Tensor prelu(const Tensor& self, const Tensor& weight) {
  check_floating("prelu", self);
  EMBER_CHECK(weight.defined(), "prelu: weight is an undefined tensor");
  EMBER_CHECK(self.dtype() == weight.dtype(), "prelu: Type promoting not supported. Got ",
              self.dtype(), " and ", weight.dtype());
  const int64_t n = weight.numel();
  if (n != 1) {
    EMBER_CHECK(self.dim() > 0, "prelu: Not allow zero-dim input tensor.");
    const int64_t channels = self.dim() > 1 ? self.size(1) : 1;
    EMBER_CHECK(n == channels, "prelu: Mismatch of parameter numbers and input channel size. ",
                "Found parameter numbers = ", n, " and channel size = ", channels, ".");
  }
  EMBER_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ",
              "ndim = ", weight.dim());
  Tensor w = weight;
  if (n == 1) {
    w = weight.reshape({});
  } else {
    std::vector<int64_t> shape(static_cast<size_t>(self.dim() - 1), 1);
    shape[0] = n;
    w = weight.reshape(shape);
  }
  return ember::where(self.gt(0.0), self, self * w);
}

Tensor gelu(const Tensor& self, std::string_view approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate argument must be either none or tanh, got \"", approximate, "\"");
  return nn::functional::gelu(self, nn::GELUOptions().approximate(std::string(approximate)));
}

Tensor& leaky_relu_(Tensor& self, const Scalar& negative_slope) {
  return assign(self, leaky_relu(self, negative_slope.to<double>()));
}

Tensor& elu_(Tensor& self, double alpha, double scale, double input_scale) {
  return assign(self, elu(self, alpha, scale, input_scale));
}
Tensor& selu_(Tensor& self) { return assign(self, selu(self)); }
Tensor& celu_(Tensor& self, double alpha) { return assign(self, celu(self, alpha)); }
Tensor& hardtanh_(Tensor& self, double min_val, double max_val) {
  return assign(self, hardtanh(self, min_val, max_val));
}
Tensor& relu6_(Tensor& self) { return assign(self, relu6(self)); }
Tensor& threshold_(Tensor& self, const Scalar& threshold, const Scalar& value) {
  return assign(self, ember::threshold(self, threshold, value));
}
Tensor& hardswish_(Tensor& self) { return assign(self, hardswish(self)); }
Tensor& hardsigmoid_(Tensor& self) { return assign(self, hardsigmoid(self)); }
Tensor& mish_(Tensor& self) { return assign(self, mish(self)); }

}  // namespace ember
