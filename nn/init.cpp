// ember::nn::init: PyTorch's initializers, written as a random draw of the tensor's shape,
// dtype and device, scaled in place and copied in under NoGradGuard.
#include <ember/nn/init.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember::nn::init {
namespace {

void check_defined(const char* op, const Tensor& t) {
  EMBER_CHECK(t.defined(), op, ": the tensor is undefined");
}

void check_floating(const char* op, const Tensor& t) {
  check_defined(op, t);
  EMBER_CHECK(t.is_floating_point(), op, ": expected a floating-point tensor, got ", t.dtype());
}

double fan(const char* op, const Tensor& t, FanMode mode) {
  check_floating(op, t);
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(t);
  const int64_t f = mode == FanMode::FanIn ? fan_in : fan_out;
  EMBER_CHECK(f > 0, op, ": cannot initialize a tensor with zero ",
              mode == FanMode::FanIn ? "fan_in" : "fan_out");
  return static_cast<double>(f);
}

}  // namespace

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case Nonlinearity::Tanh:
      return 5.0 / 3.0;
    case Nonlinearity::ReLU:
      return std::sqrt(2.0);
    case Nonlinearity::LeakyReLU:
      return std::sqrt(2.0 / (1.0 + param * param));
    default:  // linear, the convolutions, sigmoid
      return 1.0;
  }
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  check_defined("_calculate_fan_in_and_fan_out", tensor);
  EMBER_CHECK(tensor.dim() >= 2, "_calculate_fan_in_and_fan_out: fan in and fan out can not be ",
              "computed for a tensor with fewer than 2 dimensions (got ", tensor.dim(), ")");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

Tensor uniform_(Tensor tensor, double low, double high) {
  check_floating("uniform_", tensor);
  EMBER_CHECK(low <= high, "uniform_: expected low <= high, got low ", low, ", high ", high);
  NoGradGuard no_grad;
  Tensor draw = ember::rand(tensor.sizes(), tensor.options());
  draw.mul_(high - low).add_(low);
  return tensor.copy_(draw);
}

Tensor normal_(Tensor tensor, double mean, double std) {
  check_floating("normal_", tensor);
  EMBER_CHECK(std >= 0, "normal_: expected std >= 0, got ", std);
  NoGradGuard no_grad;
  Tensor draw = ember::randn(tensor.sizes(), tensor.options());
  draw.mul_(std).add_(mean);
  return tensor.copy_(draw);
}

Tensor constant_(Tensor tensor, const Scalar& value) {
  check_defined("constant_", tensor);
  NoGradGuard no_grad;
  return tensor.fill_(value);
}

Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }
Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }

Tensor eye_(Tensor tensor) {
  check_defined("eye_", tensor);
  EMBER_CHECK(tensor.dim() == 2, "eye_: Only tensors with 2 dimensions are supported, got ",
              tensor.dim());
  NoGradGuard no_grad;
  return tensor.copy_(ember::eye(tensor.size(0), tensor.size(1), tensor.options()));
}

// Built on the host (a few ones) and copied in, to any device and dtype.
Tensor dirac_(Tensor tensor, int64_t groups) {
  check_defined("dirac_", tensor);
  const int64_t dims = tensor.dim();
  EMBER_CHECK(dims >= 3 && dims <= 5, "dirac_: Only tensors with 3, 4, or 5 dimensions are ",
              "supported, got ", dims);
  EMBER_CHECK(groups > 0 && tensor.size(0) % groups == 0,
              "dirac_: Dimension 0 should be divisible by groups (", groups, "), got size ",
              tensor.size(0));
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t min_dim = std::min(out_per_group, tensor.size(1));
  const int64_t numel = tensor.numel();
  std::vector<double> values(static_cast<size_t>(numel), 0.0);
  int64_t kernel = 1, centre = 0;
  for (int64_t d = 2; d < dims; ++d) {
    kernel *= tensor.size(d);
    centre = centre * tensor.size(d) + tensor.size(d) / 2;
  }
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t d = 0; d < min_dim; ++d) {
      const int64_t o = g * out_per_group + d;
      values[static_cast<size_t>((o * tensor.size(1) + d) * kernel + centre)] = 1.0;
    }
  NoGradGuard no_grad;
  return tensor.copy_(ember::tensor(values, kFloat64).reshape(tensor.sizes()));
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  check_floating("xavier_uniform_", tensor);
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  EMBER_CHECK(fan_in + fan_out > 0, "xavier_uniform_: the tensor has no elements");
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  check_floating("xavier_normal_", tensor);
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  EMBER_CHECK(fan_in + fan_out > 0, "xavier_normal_: the tensor has no elements");
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(tensor), 0, std);
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  const double std =
      calculate_gain(nonlinearity, a) / std::sqrt(fan("kaiming_uniform_", tensor, mode));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  const double std =
      calculate_gain(nonlinearity, a) / std::sqrt(fan("kaiming_normal_", tensor, mode));
  return normal_(std::move(tensor), 0, std);
}

}  // namespace ember::nn::init
