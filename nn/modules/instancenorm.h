// InstanceNorm1d and InstanceNorm2d, as LibTorch's: per-sample, per-channel statistics; no
// affine parameters and no running stats by default (InstanceNormOptions), the same parameter
// and buffer names as BatchNorm when enabled. An unbatched input ([C, L], [C, H, W]) works.
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/modules/batchnorm.h>
#include <ember/nn/options_norm.h>

namespace ember::nn {

template <size_t D, typename Derived>
class InstanceNormImpl : public NormImplBase<D, Derived, InstanceNormOptions> {
 public:
  using NormImplBase<D, Derived, InstanceNormOptions>::NormImplBase;
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};

// input [N, C, L] or [C, L].
class InstanceNorm1dImpl : public InstanceNormImpl<1, InstanceNorm1dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using InstanceNormImpl<1, InstanceNorm1dImpl>::InstanceNormImpl;
};
EMBER_BUILTIN_MODULE(InstanceNorm1d);

// input [N, C, H, W] or [C, H, W].
class InstanceNorm2dImpl : public InstanceNormImpl<2, InstanceNorm2dImpl> {
 protected:
  void _check_input_dim(const Tensor& input) override;

 public:
  using InstanceNormImpl<2, InstanceNorm2dImpl>::InstanceNormImpl;
};
EMBER_BUILTIN_MODULE(InstanceNorm2d);

}  // namespace ember::nn
