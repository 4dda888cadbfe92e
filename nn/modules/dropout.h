// Dropout, as LibTorch's: zeroes elements with probability p while training (scaling the rest
// by 1 / (1 - p)); the identity in eval mode.
#pragma once

#include <ostream>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/nn/functional.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options.h>

namespace ember::nn {

class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {}) : options(options) {
    EMBER_CHECK(options.p() >= 0.0 && options.p() <= 1.0,
                "Dropout: probability has to be between 0 and 1, but got ", options.p());
  }
  Tensor forward(const Tensor& input) {
    return functional::dropout(input, functional::DropoutFuncOptions()
                                          .p(options.p())
                                          .training(is_training())
                                          .inplace(options.inplace()));
  }
  void pretty_print(std::ostream& stream) const override {
    stream << "Dropout(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false")
           << ")";
  }

  DropoutOptions options;
};
EMBER_BUILTIN_MODULE(Dropout);

}  // namespace ember::nn
