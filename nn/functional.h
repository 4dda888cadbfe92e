// ember::nn::functional: the stateless forms of the layers, as LibTorch's torch::nn::functional
// (users write `namespace F = ember::nn::functional;`). Every function is a composite of public
// tensor ops, so it runs on every device and autograd differentiates it.
#pragma once

#include <cstdint>

#include <ember/core/tensor.h>
#include <ember/nn/options.h>

namespace ember::nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

Tensor relu(const Tensor& input, const ReLUFuncOptions& options = {});
Tensor leaky_relu(const Tensor& input, const LeakyReLUFuncOptions& options = {});
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
Tensor silu(const Tensor& input);
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);

// Zeroes each element with probability p and scales the rest by 1 / (1 - p) while training;
// identity when not training or p == 0.
Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {});

// Rows of weight ([num_embeddings, dim]) picked by integer indices: [*, dim]. No gradient
// reaches the padding_idx row.
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});

// Normalizes over the trailing normalized_shape dims (biased variance), then applies the
// optional elementwise weight and bias.
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

// int64 [*, num_classes] with a one at each index (not differentiable).
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);

}  // namespace ember::nn::functional
