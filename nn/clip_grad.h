// Gradient clipping, as LibTorch's torch::nn::utils: clip_grad_norm_ scales every gradient so
// that their joint norm is at most max_norm; clip_grad_value_ clamps each element.
#pragma once

#include <initializer_list>
#include <vector>

#include <ember/core/tensor.h>

namespace ember {
namespace nn {
namespace utils {

// Returns the total norm of the gradients (before clipping) as a double, as LibTorch does
// (reading it back synchronizes the GPU). norm_type may be infinity. Parameters without a
// gradient are skipped.
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// The same, returning the total norm as a 0-dim tensor on the gradients' device: nothing is
// read back to the host (unless error_if_nonfinite asks for the check), so a training step
// stays free of synchronizations (and can be captured in a CUDA graph). Not in LibTorch.
Tensor clip_grad_norm_no_sync_(const std::vector<Tensor>& parameters, double max_norm,
                               double norm_type = 2.0, bool error_if_nonfinite = false);
Tensor clip_grad_norm_no_sync_(std::initializer_list<Tensor> parameters, double max_norm,
                               double norm_type = 2.0, bool error_if_nonfinite = false);

// Clamps every gradient element into [-clip_value, clip_value], in place.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace utils
}  // namespace nn
}  // namespace ember
