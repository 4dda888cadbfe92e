// Channel dropout: ember::feature_dropout (nn/layer_ops.h) and F::dropout2d as composites of
// public ops: one Bernoulli(1 - p) draw per (sample, channel), scaled by 1 / (1 - p) and
// broadcast over the spatial dims, so whole feature maps are zeroed as PyTorch's Dropout2d
// does. Also ember::dropout, F::dropout's free form (LibTorch's torch::dropout).
#include <cstdint>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/nn/functional.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/layer_ops.h>

namespace ember {

Tensor feature_dropout(const Tensor& input, double p, bool train) {
  EMBER_CHECK(p >= 0.0 && p <= 1.0,
              "feature_dropout: dropout probability has to be between 0 and 1, but got ", p);
  EMBER_CHECK(input.defined(), "feature_dropout: input must be defined");
  EMBER_CHECK(input.dim() >= 2,
              "feature_dropout: Feature dropout requires at least 2 dimensions in the input, "
              "got ",
              shape_str(input.sizes()));
  EMBER_CHECK(input.is_floating_point(), "feature_dropout: expected a floating-point input, got ",
              input.dtype());
  if (!train || p == 0.0 || input.numel() == 0) return input;
  if (p == 1.0) return input * ember::zeros({}, input.options());
  DimVector noise_shape(static_cast<size_t>(input.dim()), 1);
  noise_shape[0] = input.size(0);
  noise_shape[1] = input.size(1);
  Tensor mask = ember::rand(noise_shape, input.options()).ge(p).to(input.dtype());
  mask.mul_(1.0 / (1.0 - p));
  return input * mask;
}

Tensor dropout(const Tensor& input, double p, bool train) {
  return nn::functional::dropout(input, nn::functional::DropoutFuncOptions().p(p).training(train));
}

namespace nn::functional {

// LibTorch's rule: a 4-d input is (N, C, H, W); any other (a 3-d (C, H, W) above all) is taken
// as one unbatched sample.
Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options) {
  const double p = options.p();
  EMBER_CHECK(p >= 0.0 && p <= 1.0,
              "dropout2d: dropout probability has to be between 0 and 1, but got ", p);
  EMBER_CHECK(input.defined(), "dropout2d: input must be defined");
  if (!options.training() || p == 0.0) return input;
  const bool batched = input.dim() == 4;
  Tensor x = batched ? input : input.unsqueeze(0);
  Tensor result = ember::feature_dropout(x, p, options.training());
  if (!batched) result = result.squeeze(0);
  if (options.inplace()) {
    Tensor self = input;
    self.copy_(result);
    return self;
  }
  return result;
}

}  // namespace nn::functional
}  // namespace ember
