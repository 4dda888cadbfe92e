// LayerNorm: parameters, forward through F::layer_norm, and printing.
#include <ember/nn/modules/normalization.h>

#include <ember/core/functions.h>
#include <ember/nn/functional.h>
#include <ember/nn/init.h>

namespace ember::nn {

LayerNormImpl::LayerNormImpl(LayerNormOptions options) : options(std::move(options)) { reset(); }

void LayerNormImpl::reset() {
  EMBER_CHECK(!options.normalized_shape().empty(), "LayerNorm: normalized_shape must not be empty");
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
    bias = register_parameter("bias", ember::empty(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, functional::LayerNormFuncOptions(options.normalized_shape())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << "LayerNorm([";
  const auto& shape = options.normalized_shape();
  for (size_t i = 0; i < shape.size(); ++i) stream << (i ? ", " : "") << shape[i];
  stream << "], eps=" << options.eps()
         << ", elementwise_affine=" << (options.elementwise_affine() ? "true" : "false") << ")";
}

}  // namespace ember::nn
