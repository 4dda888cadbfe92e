// ember::nn::functional's convolution, pooling, normalization, channel dropout, padding and
// interpolation, with LibTorch's signatures: `F::conv2d(x, w, F::Conv2dFuncOptions().stride(2))`,
// `F::max_pool2d(x, F::MaxPool2dFuncOptions(2))`, `F::batch_norm(x, rm, rv,
// F::BatchNormFuncOptions().training(true))`, `F::pad(x, F::PadFuncOptions({1, 1}))`,
// `F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{8, 8}))`. Each one
// forwards to nn/layer_ops.h's free functions.
#pragma once

#include <optional>
#include <tuple>

#include <ember/core/array_ref.h>
#include <ember/core/tensor.h>
#include <ember/nn/options_conv.h>
#include <ember/nn/options_norm.h>

namespace ember {

// nearest-exact resampling of [N, C, H, W] to [N, C, output_size...] (PyTorch's
// _upsample_nearest_exact2d: source index floor((dst + 0.5) * scale), scale = in / out or
// 1 / scales when given). F::interpolate's kNearestExact.
Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_h = std::nullopt,
                                 std::optional<double> scales_w = std::nullopt);

// Element dropout, LibTorch's torch::dropout(input, p, train) (as F::dropout: zeroes elements
// with probability p and scales the rest by 1 / (1 - p) when train; the identity otherwise).
Tensor dropout(const Tensor& input, double p, bool train);

namespace nn::functional {

// ---- convolution: input [N, C, *] or unbatched [C, *]; options.bias() may be undefined ----
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});

// ---- pooling ----
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
// (values, int64 indices into each flattened input plane)
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
// output_size entries std::nullopt keep the input's size along that dim.
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);

// ---- normalization ----
// training: batch statistics, and running_mean/running_var (when defined) updated in place
// with options.momentum() (which must be set here; the modules' cumulative average passes
// 1 / batches). Not training: the running statistics.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

// ---- channel dropout: a 4-d input is (N, C, H, W); a 3-d one is one unbatched (C, H, W) ----
Tensor dropout2d(const Tensor& input, const Dropout2dFuncOptions& options = {});

// ---- padding and resampling ----
// kConstant pads any number of trailing dims; kReflect, kReplicate and kCircular pad the last
// 1, 2 or 3 dims of a batched or unbatched input (pad of length 2, 4 or 6).
Tensor pad(const Tensor& input, const PadFuncOptions& options);
// size or scale_factor, one per spatial dim. kNearest, kNearestExact and kArea take [N, C, L]
// or [N, C, H, W]; kLinear [N, C, L]; kBilinear [N, C, H, W] (align_corners defaults to false).
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

}  // namespace nn::functional
}  // namespace ember
