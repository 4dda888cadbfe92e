// Upsample, as LibTorch's: F::interpolate with the module's size or scale_factor, mode
// (kNearest by default, kLinear, kBilinear) and align_corners.
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options_conv.h>

namespace ember::nn {

class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {});
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  UpsampleOptions options;
};
EMBER_BUILTIN_MODULE(Upsample);

}  // namespace ember::nn
