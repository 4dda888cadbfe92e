// The layer ops of convolutional networks as free functions of the ember namespace, with
// LibTorch's names, argument order and defaults (`ember::conv2d(x, w, b, 1, 1)`,
// `ember::max_pool2d(x, 2)`, `ember::batch_norm(...)`). The nn::functional forms with
// FuncOptions and the modules call these. Unbatched inputs ((C, L) for the 1-d ops, (C, H, W)
// for the 2-d ones) work as in LibTorch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include <ember/core/scalar.h>
#include <ember/core/tensor.h>

namespace ember {

// The padding of conv1d/conv2d given by name: "same" or "valid". It converts from string
// literals and strings but not from 0, so `conv2d(x, w, b, 1, 0)` picks the IntArrayRef form.
class ConvPaddingName {
 public:
  template <size_t N>
  ConvPaddingName(const char (&name)[N]) : name_(name) {}    // NOLINT: implicit as a string_view
  ConvPaddingName(const std::string& name) : name_(name) {}  // NOLINT
  explicit ConvPaddingName(std::string_view name) : name_(name) {}
  std::string_view name() const { return name_; }

 private:
  std::string_view name_;
};

// ---- convolution (nn/conv.cpp): float32/float64, CPU (im2col + SGEMM) and CUDA (cuDNN) ----
// input [N, C, L] or [C, L]; weight [O, C / groups, K]; bias [O] or undefined.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
              int64_t groups = 1);
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              ConvPaddingName padding, IntArrayRef dilation = 1, int64_t groups = 1);
// input [N, C, H, W] or [C, H, W]; weight [O, C / groups, KH, KW]; bias [O] or undefined.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
              int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              ConvPaddingName padding, IntArrayRef dilation = 1, int64_t groups = 1);
// The gradient of conv w.r.t. its input, as a layer: weight [C, O / groups, K...]; the output
// is (in - 1) stride - 2 padding + dilation (K - 1) + output_padding + 1 per dim. Note
// LibTorch's order: groups before dilation.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);

// ---- pooling (nn/pool.cpp); an empty stride means stride = kernel_size ----
Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
// (values, int64 indices: the position of each maximum within its flattened H * W plane)
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size);
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size);

// ---- normalization (nn/normalization_ops.cpp), composites of public ops ----
// Training: normalizes with the batch statistics over every dim but 1 (biased variance) and,
// when running stats are given, updates them in place: running = (1 - momentum) running +
// momentum stat, the variance unbiased (n / (n - 1)), as PyTorch. Eval: the running stats.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled = true);
// Normalizes each of num_groups channel groups of each sample (biased variance).
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-05, bool cudnn_enabled = true);
// Per-sample, per-channel statistics (use_input_stats) or the running ones.
Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool use_input_stats,
                     double momentum, double eps, bool cudnn_enabled = true);

// ---- dropout of whole channels (nn/dropout_ops.cpp): zeroes input[n, c] with probability p
// and scales the rest by 1 / (1 - p) while train; identity otherwise ----
Tensor feature_dropout(const Tensor& input, double p, bool train);

// ---- padding and resampling (nn/resample_ops.cpp), composites of public ops ----
// pad: (left, right) pairs starting from the last dim; negative values crop.
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0);
// mode "constant", "reflect", "replicate" or "circular" (LibTorch 2.x's at::pad).
Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode = "constant",
           std::optional<double> value = std::nullopt);
// [N, C, H, W] -> [N, C, output_size...]; scales (when given) map output to input coordinates
// as PyTorch's (input = output / scale).
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt);
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h = std::nullopt,
                           std::optional<double> scales_w = std::nullopt);

}  // namespace ember
