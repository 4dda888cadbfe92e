// GroupNorm: parameters, PyTorch's construction checks, forward through F::group_norm, printing.
#include <ember/nn/modules/groupnorm.h>

#include <ember/core/functions.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/init.h>

namespace ember::nn {

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options) : options(options) { reset(); }

void GroupNormImpl::reset() {
  const int64_t groups = options.num_groups(), channels = options.num_channels();
  EMBER_CHECK(groups > 0 && channels >= 0, "GroupNorm: num_groups must be positive and ",
              "num_channels non-negative, got ", groups, " and ", channels);
  EMBER_CHECK(channels % groups == 0, "GroupNorm: num_channels must be divisible by num_groups, ",
              "got ", channels, " and ", groups);
  if (options.affine()) {
    weight = register_parameter("weight", ember::empty({channels}));
    bias = register_parameter("bias", ember::empty({channels}));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return functional::group_norm(input, functional::GroupNormFuncOptions(options.num_groups())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << "GroupNorm(" << options.num_groups() << ", " << options.num_channels()
         << ", eps=" << options.eps() << ", affine=" << (options.affine() ? "true" : "false")
         << ")";
}

}  // namespace ember::nn
