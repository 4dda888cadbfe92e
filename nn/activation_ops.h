// The activations LibTorch has as ATen free functions (torch::leaky_relu(x, 0.2), torch::elu,
// torch::selu, torch::silu, torch::softplus, torch::hardtanh, torch::relu6, torch::log_sigmoid),
// with its argument order and defaults, so `nn::Functional(ember::leaky_relu, 0.2)` ports as is.
// Composites of public ops (nn/activation_ops.cpp); autograd differentiates them.
#pragma once

#include <cstdint>
#include <string_view>

#include <ember/core/scalar.h>
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

// More ATen forms (the same file): celu, threshold, hardswish, hardsigmoid, mish, hardshrink,
// softshrink, glu, prelu, gelu with approximate ("none" or "tanh"), leaky_relu_ (in place).
Tensor celu(const Tensor& self, double alpha = 1.0);
// self where self > threshold, value elsewhere.
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
// x * relu6(x + 3) / 6 and relu6(x + 3) / 6.
Tensor hardswish(const Tensor& self);
Tensor hardsigmoid(const Tensor& self);
Tensor mish(const Tensor& self);
Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor glu(const Tensor& self, int64_t dim = -1);
Tensor prelu(const Tensor& self, const Tensor& weight);
Tensor gelu(const Tensor& self, std::string_view approximate);
Tensor& leaky_relu_(Tensor& self, const Scalar& negative_slope = 0.01);
// In-place forms: the result written into self, which is returned.
Tensor& elu_(Tensor& self, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0);
Tensor& selu_(Tensor& self);
Tensor& celu_(Tensor& self, double alpha = 1.0);
Tensor& hardtanh_(Tensor& self, double min_val = -1.0, double max_val = 1.0);
Tensor& relu6_(Tensor& self);
Tensor& threshold_(Tensor& self, const Scalar& threshold, const Scalar& value);
Tensor& hardswish_(Tensor& self);
Tensor& hardsigmoid_(Tensor& self);
Tensor& mish_(Tensor& self);

}  // namespace ember
