// Linear, Identity, Flatten and Unflatten modules, as LibTorch's (public `weight`, `bias`,
// `options`; `reset()` builds the parameters, `reset_parameters()` redraws them).
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options.h>

namespace ember::nn {

// y = x W^T + b, weight [out_features, in_features], bias [out_features]. Initialized as
// PyTorch: weight and bias uniform in +-1/sqrt(in_features).
class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LinearOptions options;
  Tensor weight;
  Tensor bias;  // undefined when options.bias() is false
};
EMBER_BUILTIN_MODULE(Linear);

// Returns its input (LibTorch's accepts and ignores constructor arguments).
class IdentityImpl : public Module {
 public:
  template <class... Args>
  explicit IdentityImpl(const Args&...) {}
  Tensor forward(const Tensor& input) { return input; }
  void pretty_print(std::ostream& stream) const override { stream << "Identity()"; }
};
EMBER_BUILTIN_MODULE(Identity);

// Flattens dims start_dim..end_dim (by default all but the batch dim) into one.
class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input) {
    return input.flatten(options.start_dim(), options.end_dim());
  }
  void pretty_print(std::ostream& stream) const override;

  FlattenOptions options;
};
EMBER_BUILTIN_MODULE(Flatten);

// Splits dim `dim` into `sizes` (a view when possible).
class UnflattenImpl : public Module {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes)
      : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(UnflattenOptions options);
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  UnflattenOptions options;
};
EMBER_BUILTIN_MODULE(Unflatten);

}  // namespace ember::nn
