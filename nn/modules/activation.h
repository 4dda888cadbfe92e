// Activation modules, as LibTorch's: ReLU, LeakyReLU, GELU, SiLU, Tanh, Sigmoid, Softmax,
// LogSoftmax. Each forwards to its functional form (nn/functional.h).
#pragma once

#include <cstdint>
#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/functional.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options.h>

namespace ember::nn {

class ReLUImpl : public Module {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::relu(input, options); }
  void pretty_print(std::ostream& stream) const override;
  ReLUOptions options;
};
EMBER_BUILTIN_MODULE(ReLU);

class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::leaky_relu(input, options); }
  void pretty_print(std::ostream& stream) const override;
  LeakyReLUOptions options;
};
EMBER_BUILTIN_MODULE(LeakyReLU);

class GELUImpl : public Module {
 public:
  explicit GELUImpl(GELUOptions options = {});
  Tensor forward(const Tensor& input) { return functional::gelu(input, options); }
  void pretty_print(std::ostream& stream) const override;
  GELUOptions options;
};
EMBER_BUILTIN_MODULE(GELU);

// x * sigmoid(x).
class SiLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return functional::silu(input); }
  void pretty_print(std::ostream& stream) const override { stream << "SiLU()"; }
};
EMBER_BUILTIN_MODULE(SiLU);

class TanhImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return input.tanh(); }
  void pretty_print(std::ostream& stream) const override { stream << "Tanh()"; }
};
EMBER_BUILTIN_MODULE(Tanh);

class SigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input) { return input.sigmoid(); }
  void pretty_print(std::ostream& stream) const override { stream << "Sigmoid()"; }
};
EMBER_BUILTIN_MODULE(Sigmoid);

class SoftmaxImpl : public Module {
 public:
  explicit SoftmaxImpl(int64_t dim) : options(dim) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return input.softmax(options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  SoftmaxOptions options;
};
EMBER_BUILTIN_MODULE(Softmax);

class LogSoftmaxImpl : public Module {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : options(dim) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return input.log_softmax(options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  LogSoftmaxOptions options;
};
EMBER_BUILTIN_MODULE(LogSoftmax);

}  // namespace ember::nn
