// nn::functional's activations of nn/functional_activation.h: thin forwards to the ATen forms
// of nn/activation_ops.h (composites of public ops), with the options' in-place forms.
#include <ember/nn/functional_activation.h>

#include <ember/core/functions.h>
#include <ember/nn/activation_ops.h>

namespace ember::nn::functional {
namespace {

// For the in-place forms: writes the result into the input and returns the input.
Tensor assign(const Tensor& input, const Tensor& result) {
  Tensor self = input;
  self.copy_(result);
  return self;
}

Tensor maybe_inplace(bool inplace, const Tensor& input, const Tensor& result) {
  return inplace ? assign(input, result) : result;
}

}  // namespace

Tensor elu(const Tensor& input, const ELUFuncOptions& options) {
  return maybe_inplace(options.inplace(), input, ember::elu(input, options.alpha()));
}

Tensor selu(const Tensor& input, const SELUFuncOptions& options) {
  return maybe_inplace(options.inplace(), input, ember::selu(input));
}

Tensor celu(const Tensor& input, const CELUFuncOptions& options) {
  return maybe_inplace(options.inplace(), input, ember::celu(input, options.alpha()));
}

Tensor glu(const Tensor& input, const GLUFuncOptions& options) {
  return ember::glu(input, options.dim());
}

Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return ember::hardshrink(input, options.lambda());
}

Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  return ember::softshrink(input, options.lambda());
}

Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options) {
  return maybe_inplace(options.inplace(), input,
                       ember::hardtanh(input, options.min_val(), options.max_val()));
}

Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options) {
  return maybe_inplace(options.inplace(), input, ember::relu6(input));
}

Tensor prelu(const Tensor& input, const Tensor& weight) { return ember::prelu(input, weight); }

Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ember::softplus(input, options.beta(), options.threshold());
}

Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options) {
  return maybe_inplace(options.inplace(), input,
                       ember::threshold(input, options.threshold(), options.value()));
}

Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  EMBER_CHECK(input.defined(), "softmin: input is an undefined tensor");
  return ember::softmax(-input, options.dim(), options.dtype());
}

Tensor logsigmoid(const Tensor& input) { return ember::log_sigmoid(input); }

Tensor softsign(const Tensor& input) {
  EMBER_CHECK(input.defined(), "softsign: input is an undefined tensor");
  return input / (input.abs() + 1.0);
}

Tensor tanhshrink(const Tensor& input) {
  EMBER_CHECK(input.defined(), "tanhshrink: input is an undefined tensor");
  return input - input.tanh();
}

Tensor mish(const Tensor& input) { return ember::mish(input); }

}  // namespace ember::nn::functional
