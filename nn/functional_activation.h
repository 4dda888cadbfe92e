// The activations of torch::nn::functional beyond relu/leaky_relu/gelu/silu (nn/functional.h):
// elu selu celu glu hardshrink softshrink hardtanh relu6 prelu softplus threshold softmin
// logsigmoid softsign tanhshrink mish. Composites of public ops (nn/functional_activation.cpp).
#pragma once

#include <ember/core/tensor.h>
#include <ember/nn/options_activation.h>

namespace ember::nn::functional {

Tensor elu(const Tensor& input, const ELUFuncOptions& options = {});
Tensor selu(const Tensor& input, const SELUFuncOptions& options = {});
// max(0, x) + min(0, alpha (exp(x / alpha) - 1)).
Tensor celu(const Tensor& input, const CELUFuncOptions& options = {});
// a * sigmoid(b), a and b the two halves of input along dim (its size must be even).
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
// x where |x| > lambda, else 0; softshrink moves the rest toward 0 by lambda.
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
Tensor hardtanh(const Tensor& input, const HardtanhFuncOptions& options = {});
Tensor relu6(const Tensor& input, const ReLU6FuncOptions& options = {});
// x where x >= 0, weight * x elsewhere; weight has 1 or input.size(1) entries.
Tensor prelu(const Tensor& input, const Tensor& weight);
// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
// x where x > threshold, value elsewhere.
Tensor threshold(const Tensor& input, const ThresholdFuncOptions& options);
// softmax(-x).
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
Tensor logsigmoid(const Tensor& input);
// x / (1 + |x|).
Tensor softsign(const Tensor& input);
// x - tanh(x).
Tensor tanhshrink(const Tensor& input);
// x tanh(softplus(x)).
Tensor mish(const Tensor& input);

}  // namespace ember::nn::functional
