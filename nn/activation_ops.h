// The activations LibTorch has as ATen free functions (torch::leaky_relu(x, 0.2), torch::elu,
// torch::selu, torch::silu, torch::softplus, torch::hardtanh, torch::relu6, torch::log_sigmoid),
// with its argument order and defaults, so `nn::Functional(ember::leaky_relu, 0.2)` ports as is.
// Composites of public ops (nn/activation_ops.cpp); autograd differentiates them.
#pragma once

#include <ember/core/tensor.h>

namespace ember {

// x where x > 0, negative_slope * x elsewhere (the gradient at 0 is the slope, as PyTorch's).
Tensor leaky_relu(const Tensor& self, double negative_slope = 0.01);
// scale * x where x > 0, scale * alpha * (exp(input_scale * x) - 1) elsewhere.
Tensor elu(const Tensor& self, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
// elu with SELU's alpha and scale (self-normalizing networks).
Tensor selu(const Tensor& self);
// x * sigmoid(x).
Tensor silu(const Tensor& self);
// log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold.
Tensor softplus(const Tensor& self, double beta = 1.0, double threshold = 20.0);
// x clamped into [min_val, max_val]; relu6 is hardtanh(x, 0, 6).
Tensor hardtanh(const Tensor& self, double min_val = -1.0, double max_val = 1.0);
Tensor relu6(const Tensor& self);
// log(sigmoid(x)), computed without overflow (-softplus(-x)).
Tensor log_sigmoid(const Tensor& self);

}  // namespace ember
