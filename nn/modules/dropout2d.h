// Dropout2d, as LibTorch's: zeroes whole channels (input[n, c]) with probability p while
// training, scaling the rest by 1 / (1 - p); the identity in eval mode. A 4-d input is
// (N, C, H, W); a 3-d one is an unbatched (C, H, W), as LibTorch 2.x reads it.
#pragma once

#include <ostream>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options_norm.h>

namespace ember::nn {

class Dropout2dImpl : public Module {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options = {}) : options(options) {
    EMBER_CHECK(options.p() >= 0.0 && options.p() <= 1.0,
                "Dropout2d: dropout probability has to be between 0 and 1, but got ", options.p());
  }
  Tensor forward(const Tensor& input) {
    return functional::dropout2d(input, functional::Dropout2dFuncOptions()
                                            .p(options.p())
                                            .training(is_training())
                                            .inplace(options.inplace()));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "Dropout2d(p=" << options.p()
           << ", inplace=" << (options.inplace() ? "true" : "false") << ")";
  }

  Dropout2dOptions options;
};
EMBER_BUILTIN_MODULE(Dropout2d);

}  // namespace ember::nn
