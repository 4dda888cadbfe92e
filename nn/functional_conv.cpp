// nn::functional's conv, pooling, normalization, padding and interpolation (functional_conv.h):
// option structs unpacked into nn/layer_ops.h's free functions, plus interpolate's dispatch over
// modes and input ranks and its output-size rule, as LibTorch's torch/nn/functional/*.h.
#include <ember/nn/functional_conv.h>

#include <cmath>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/nn/enums.h>
#include <ember/nn/layer_ops.h>

namespace ember::nn::functional {
namespace {

template <size_t D>
Tensor conv_nd(const Tensor& input, const Tensor& weight, const ConvFuncOptions<D>& o) {
  if (const auto* name = std::get_if<ConvPaddingMode>(&o.padding())) {
    const ConvPaddingName padding{std::string_view(mode_name(*name))};
    if constexpr (D == 1) {
      return ember::conv1d(input, weight, o.bias(), o.stride(), padding, o.dilation(), o.groups());
    } else {
      return ember::conv2d(input, weight, o.bias(), o.stride(), padding, o.dilation(), o.groups());
    }
  }
  const IntArrayRef padding = std::get<ExpandingArray<D>>(o.padding());
  if constexpr (D == 1) {
    return ember::conv1d(input, weight, o.bias(), o.stride(), padding, o.dilation(), o.groups());
  } else {
    return ember::conv2d(input, weight, o.bias(), o.stride(), padding, o.dilation(), o.groups());
  }
}

// output_size with nullopt entries replaced by the input's trailing sizes (_list_with_default).
template <size_t D>
std::vector<int64_t> with_default(const char* op, const ExpandingArrayWithOptionalElem<D>& size,
                                  const Tensor& input) {
  EMBER_CHECK(input.defined(), op, ": input must be defined");
  EMBER_CHECK(input.dim() > static_cast<int64_t>(D), op, ": Input dimension should be at least ",
              D + 1, ", got an input of shape ", shape_str(input.sizes()));
  std::vector<int64_t> out;
  for (size_t i = 0; i < D; ++i) {
    const auto& v = (*size)[i];
    out.push_back(v.has_value() ? *v : input.size(input.dim() - D + i));
  }
  return out;
}

// F::pad's mode string ("constant", "reflect", ...); kZeros is a padding_mode of the convolutions
// only.
const char* pad_mode_string(PadMode mode) {
  EMBER_CHECK(mode != PadMode::kZeros,
              "pad: mode must be ember::kConstant, kReflect, kReplicate or kCircular, got ",
              mode_name(mode));
  return mode_name(mode);
}

// The output size: options.size(), or floor(input size * scale factor) per spatial dim.
std::vector<int64_t> interp_output_size(const Tensor& input, int64_t dims,
                                        const InterpolateFuncOptions& o) {
  EMBER_CHECK(o.size().has_value() || o.scale_factor().has_value(),
              "interpolate: either size or scale_factor should be defined");
  EMBER_CHECK(!(o.size().has_value() && o.scale_factor().has_value()),
              "interpolate: only one of size or scale_factor should be defined");
  if (o.size().has_value()) {
    EMBER_CHECK(static_cast<int64_t>(o.size()->size()) == dims,
                "interpolate: size shape must match input shape. Input is ", dims, "D, size is ",
                shape_str(*o.size()));
    return *o.size();
  }
  const std::vector<double>& scale = *o.scale_factor();
  if (static_cast<int64_t>(scale.size()) != dims) {
    std::string list;
    for (size_t i = 0; i < scale.size(); ++i) list += (i ? ", " : "") + std::to_string(scale[i]);
    EMBER_THROW("interpolate: scale_factor shape must match input shape. Input is ", dims,
                "D, scale_factor size is [", list, "]");
  }
  std::vector<int64_t> out;
  for (int64_t i = 0; i < dims; ++i) {
    out.push_back(static_cast<int64_t>(
        std::floor(static_cast<double>(input.size(i + 2)) * scale[static_cast<size_t>(i)])));
  }
  return out;
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv_nd<1>(input, weight, options);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv_nd<2>(input, weight, options);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& o) {
  return ember::conv_transpose1d(input, weight, o.bias(), o.stride(), o.padding(),
                                 o.output_padding(), o.groups(), o.dilation());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& o) {
  return ember::conv_transpose2d(input, weight, o.bias(), o.stride(), o.padding(),
                                 o.output_padding(), o.groups(), o.dilation());
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                           o.ceil_mode());
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                           o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d_with_indices(input, o.kernel_size(), o.stride(), o.padding(),
                                        o.dilation(), o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d_with_indices(input, o.kernel_size(), o.stride(), o.padding(),
                                        o.dilation(), o.ceil_mode());
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  EMBER_CHECK(!o.divisor_override().has_value(),
              "avg_pool1d: divisor_override is not supported by the 1-d pooling (as LibTorch's)");
  return ember::avg_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(),
                           o.count_include_pad());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return ember::avg_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(),
                           o.count_include_pad(), o.divisor_override());
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  return ember::adaptive_avg_pool1d(input, o.output_size());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  return ember::adaptive_avg_pool2d(input,
                                    with_default("adaptive_avg_pool2d", o.output_size(), input));
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, o));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& o) {
  return ember::adaptive_max_pool1d(input, o.output_size());
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, o));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& o) {
  return ember::adaptive_max_pool2d(input,
                                    with_default("adaptive_max_pool2d", o.output_size(), input));
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& o) {
  EMBER_CHECK(o.momentum().has_value(),
              "batch_norm: momentum must be set (std::nullopt, the cumulative average, is the "
              "BatchNorm modules' option: they pass 1 / num_batches_tracked)");
  return ember::batch_norm(input, o.weight(), o.bias(), running_mean, running_var, o.training(),
                           *o.momentum(), o.eps());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  return ember::group_norm(input, o.num_groups(), o.weight(), o.bias(), o.eps());
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  return ember::instance_norm(input, o.weight(), o.bias(), o.running_mean(), o.running_var(),
                              o.use_input_stats(), o.momentum(), o.eps());
}

Tensor pad(const Tensor& input, const PadFuncOptions& o) {
  const char* mode = pad_mode_string(o.mode());
  std::optional<double> value;
  if (o.value() != 0.0) value = o.value();  // as LibTorch: 0 means "no value"
  return ember::pad(input, o.pad(), mode, value);
}

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  EMBER_CHECK(input.defined(), "interpolate: input must be defined");
  const InterpolateMode mode = o.mode();
  const bool linear_mode = mode == InterpolateMode::kLinear || mode == InterpolateMode::kBilinear ||
                           mode == InterpolateMode::kBicubic || mode == InterpolateMode::kTrilinear;
  EMBER_CHECK(linear_mode || !o.align_corners().has_value(),
              "interpolate: align_corners option can only be set with the interpolating modes: "
              "linear | bilinear | bicubic | trilinear");
  const bool align_corners = o.align_corners().value_or(false);
  EMBER_CHECK(!o.antialias(), "interpolate: antialias is not supported");
  EMBER_CHECK(mode != InterpolateMode::kBicubic && mode != InterpolateMode::kTrilinear,
              "interpolate: mode ", mode_name(mode),
              " is not supported (nearest, nearest-exact, "
              "area, linear and bilinear are)");
  const int64_t d = input.dim();
  EMBER_CHECK(d == 3 || d == 4,
              "interpolate: Input Error: Only 3D and 4D input Tensors supported (got ", d,
              "D) for the modes: nearest | nearest-exact | area | linear | bilinear (got ",
              mode_name(mode), ")");
  EMBER_CHECK(!(d == 3 && mode == InterpolateMode::kBilinear),
              "interpolate: Got 3D input, but bilinear mode needs 4D input");
  EMBER_CHECK(!(d == 4 && mode == InterpolateMode::kLinear),
              "interpolate: Got 4D input, but linear mode needs 3D input");
  const std::vector<int64_t> size = interp_output_size(input, d - 2, o);
  // The scales reach the kernels unless the output size stands for them.
  std::vector<std::optional<double>> scales(static_cast<size_t>(d - 2));
  if (o.scale_factor().has_value() && !o.recompute_scale_factor().value_or(false)) {
    for (size_t i = 0; i < scales.size(); ++i) scales[i] = (*o.scale_factor())[i];
  }
  if (mode == InterpolateMode::kArea) {
    return d == 3 ? ember::adaptive_avg_pool1d(input, size)
                  : ember::adaptive_avg_pool2d(input, size);
  }
  // 3-d inputs run as [N, C, 1, L].
  const Tensor x = d == 3 ? input.unsqueeze(2) : input;
  const std::vector<int64_t> size2 = d == 3 ? std::vector<int64_t>{1, size[0]} : size;
  const std::optional<double> sh = d == 3 ? std::nullopt : scales[0];
  const std::optional<double> sw = d == 3 ? scales[0] : scales[1];
  Tensor out;
  switch (mode) {
    case InterpolateMode::kNearest:
      out = ember::upsample_nearest2d(x, size2, sh, sw);
      break;
    case InterpolateMode::kNearestExact:
      out = ember::_upsample_nearest_exact2d(x, size2, sh, sw);
      break;
    default:
      out = ember::upsample_bilinear2d(x, size2, align_corners, sh, sw);
      break;
  }
  return d == 3 ? out.squeeze(2) : out;
}

}  // namespace ember::nn::functional
