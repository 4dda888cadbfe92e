// GroupNorm, as LibTorch's: normalizes each of num_groups channel groups of each sample of an
// [N, C, *] input, then applies the per-channel affine weight (ones) and bias (zeros).
#pragma once

#include <cstdint>
#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options_norm.h>

namespace ember::nn {

class GroupNormImpl : public Module {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);

  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  GroupNormOptions options;
  Tensor weight;  // [num_channels], undefined without affine
  Tensor bias;
};
EMBER_BUILTIN_MODULE(GroupNorm);

}  // namespace ember::nn
