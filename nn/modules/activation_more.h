// More activation modules, as LibTorch's: ELU SELU CELU GLU Hardshrink Softshrink Hardtanh
// ReLU6 PReLU Softplus Threshold Softmin LogSigmoid Softsign Tanhshrink Mish. Each forwards
// to its functional form (nn/functional_activation.h); PReLU holds its learnable slopes.
#pragma once

#include <cstdint>
#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/functional_activation.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options_activation.h>

namespace ember::nn {

// A module whose forward is F::name(input, options), printed by activation_more.cpp.
#define EMBER_ACTIVATION_MODULE(Name, fn)                                          \
  class Name##Impl : public Module {                                               \
   public:                                                                         \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {}   \
    Tensor forward(const Tensor& input) { return functional::fn(input, options); } \
    void pretty_print(std::ostream& stream) const override;                        \
    Name##Options options;                                                         \
  };                                                                               \
  EMBER_BUILTIN_MODULE(Name)

EMBER_ACTIVATION_MODULE(ELU, elu);
EMBER_ACTIVATION_MODULE(SELU, selu);
EMBER_ACTIVATION_MODULE(CELU, celu);
EMBER_ACTIVATION_MODULE(GLU, glu);
EMBER_ACTIVATION_MODULE(Hardshrink, hardshrink);
EMBER_ACTIVATION_MODULE(Softshrink, softshrink);
EMBER_ACTIVATION_MODULE(Hardtanh, hardtanh);
EMBER_ACTIVATION_MODULE(ReLU6, relu6);
EMBER_ACTIVATION_MODULE(Softplus, softplus);
#undef EMBER_ACTIVATION_MODULE

class ThresholdImpl : public Module {
 public:
  ThresholdImpl(double threshold, double value) : options(threshold, value) {}
  explicit ThresholdImpl(const ThresholdOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::threshold(input, options); }
  void pretty_print(std::ostream& stream) const override;
  ThresholdOptions options;
};
EMBER_BUILTIN_MODULE(Threshold);

class SoftminImpl : public Module {
 public:
  explicit SoftminImpl(int64_t dim) : options(dim) {}
  explicit SoftminImpl(const SoftminOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::softmin(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  SoftminOptions options;
};
EMBER_BUILTIN_MODULE(Softmin);

// weight: [num_parameters] learnable slopes, filled with init.
class PReLUImpl : public Module {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset();
  Tensor forward(const Tensor& input) { return functional::prelu(input, weight); }
  void pretty_print(std::ostream& stream) const override;
  PReLUOptions options;
  Tensor weight;
};
EMBER_BUILTIN_MODULE(PReLU);

// Modules without options.
#define EMBER_PLAIN_ACTIVATION_MODULE(Name, fn)                                      \
  class Name##Impl : public Module {                                                 \
   public:                                                                           \
    Tensor forward(const Tensor& input) { return functional::fn(input); }            \
    void pretty_print(std::ostream& stream) const override { stream << #Name "()"; } \
  };                                                                                 \
  EMBER_BUILTIN_MODULE(Name)

EMBER_PLAIN_ACTIVATION_MODULE(LogSigmoid, logsigmoid);
EMBER_PLAIN_ACTIVATION_MODULE(Softsign, softsign);
EMBER_PLAIN_ACTIVATION_MODULE(Tanhshrink, tanhshrink);
EMBER_PLAIN_ACTIVATION_MODULE(Mish, mish);
#undef EMBER_PLAIN_ACTIVATION_MODULE

}  // namespace ember::nn
