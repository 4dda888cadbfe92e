// LayerNorm, as LibTorch's: normalizes over the trailing normalized_shape dims with an optional
// elementwise affine (weight ones, bias zeros).
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options.h>

namespace ember::nn {

class LayerNormImpl : public Module {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape)  // NOLINT
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(LayerNormOptions options);

  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LayerNormOptions options;
  Tensor weight;  // undefined without elementwise_affine
  Tensor bias;
};
EMBER_BUILTIN_MODULE(LayerNorm);

}  // namespace ember::nn
