// Internal: the front-ends of the kernels that nn/, optim/ and autograd/ build their ops on
// (convolution, pooling, batch norm, the fused cross entropy, the optimizer steps, relu's
// backward). Each checks that every tensor is on one device and runs that device's kernel;
// outputs come first and are allocated by the caller, who also records autograd. Contracts:
// core/ops.def. Not installed.
#pragma once

#include <utility>

#include <ember/core/dispatch.h>
#include <ember/core/tensor.h>

namespace ember {
namespace native {

void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
            const ConvArgs& args);
void conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                           const ConvArgs& args);
void conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                            const ConvArgs& args);

// indices: int64 for max pooling, undefined for average pooling.
void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& in, const PoolArgs& args);
void avg_pool2d(const Tensor& out, const Tensor& in, const PoolArgs& args);
void max_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                         const PoolArgs& args);
void avg_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out, const PoolArgs& args);

void batch_norm_stats(const Tensor& mean, const Tensor& var, const Tensor& invstd, const Tensor& in,
                      double eps);
void batch_norm_apply(const Tensor& out, const Tensor& in, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias);
void batch_norm_backward_reduce(const Tensor& sum_dy, const Tensor& sum_dy_xmu,
                                const Tensor& grad_out, const Tensor& in, const Tensor& mean);
void batch_norm_backward_apply(const Tensor& grad_in, const Tensor& grad_out, const Tensor& in,
                               const Tensor& mean, const Tensor& invstd, const Tensor& weight,
                               const Tensor& sum_dy, const Tensor& sum_dy_xmu);

void cross_entropy(const Tensor& out, const Tensor& lse, const Tensor& aux, const Tensor& input,
                   const Tensor& target, const Tensor& weight, const CrossEntropyArgs& args);
void cross_entropy_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
                            const Tensor& target, const Tensor& weight, const Tensor& lse,
                            const Tensor& aux, const CrossEntropyArgs& args);

// t.index({index}) for a 1-D int64 index on t's device with values in [-n, n), n = t's first
// size (the caller checks CPU values, as linear_index does with the indexed dim's name; the
// kernel checks CUDA's); negatives count from the end.
// [index's size, t's other sizes...]; unrecorded (advanced indexing records IndexBackward0).
Tensor index_rows(const Tensor& t, const Tensor& index);
// grad_out where result > 0, else 0 (float tensors of one shape and dtype); a new tensor.
Tensor relu_backward(const Tensor& grad_out, const Tensor& result);

// linear's weight and bias gradients from grad_out [m, n] and input [m, k] (contiguous, one
// dtype, non-empty): (grad_out^T @ input [n, k], grad_out summed over rows [n]).
std::pair<Tensor, Tensor> linear_weight_bias_grad(const Tensor& grad_out, const Tensor& input);

// In place on every tensor of the lists (one device; params[i]'s shape and dtype throughout).
void sgd_step_(TensorList params, TensorList grads, TensorList momentum_buffers,
               const SgdStepArgs& args);
void adam_step_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                TensorList max_exp_avg_sqs, const AdamStepArgs& args);
void rmsprop_step_(TensorList params, TensorList grads, TensorList square_avgs,
                   TensorList grad_avgs, TensorList momentum_buffers, const RmspropStepArgs& args);
void adagrad_step_(TensorList params, TensorList grads, TensorList state_sums,
                   const AdagradStepArgs& args);

}  // namespace native
}  // namespace ember
