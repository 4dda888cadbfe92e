// Options of the convolution, pooling, padding and upsampling layers and of their functional
// forms, with LibTorch's names, defaults and argument types (torch/nn/options/conv.h,
// pooling.h, padding.h, upsampling.h): `Conv2dOptions(1, 32, 3).stride(2).padding(1)`,
// `MaxPool2dOptions(2)`, `F::PadFuncOptions({1, 1}).mode(ember::kReflect)`,
// `F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}).mode(ember::kNearest)`.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include <ember/core/array_ref.h>
#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/nn/arg.h>
#include <ember/nn/enums.h>
#include <ember/nn/expanding_array.h>
#include <ember/nn/init.h>

namespace ember::nn {

namespace detail {
// Conv padding: a size per dim or a name (ember::kValid, ember::kSame), as LibTorch's variant.
template <size_t D>
using conv_padding_t = std::variant<ExpandingArray<D>, ConvPaddingMode>;
// kZeros, kReflect, kReplicate or kCircular (the conv layers check the subset).
using conv_padding_mode_t = PadMode;

// What the conv modules keep: LibTorch's ConvNdOptions (the forward and transposed layers).
template <size_t D>
struct ConvNdOptions {
  using padding_t = conv_padding_t<D>;
  ConvNdOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels),
        out_channels_(out_channels),
        kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(IntArrayRef{il}); }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, transposed) = false;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(conv_padding_mode_t, padding_mode) = PadMode::kZeros;
};
}  // namespace detail

// ---- convolution ----

// padding: `.padding(1)`, `.padding({1, 2})`, `.padding(ember::kSame)`, `.padding(ember::kValid)`.
template <size_t D>
struct ConvOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  using padding_t = detail::conv_padding_t<D>;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels),
        out_channels_(out_channels),
        kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(IntArrayRef{il}); }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(padding_mode_t, padding_mode) = PadMode::kZeros;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;

template <size_t D>
struct ConvTransposeOptions {
  using padding_mode_t = detail::conv_padding_mode_t;
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels),
        out_channels_(out_channels),
        kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(padding_mode_t, padding_mode) = PadMode::kZeros;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;

// ---- pooling (stride defaults to kernel_size) ----

template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT: implicit, as LibTorch's
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;

template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

// output_size: for 2-d, an int, {h, w}, or entries std::nullopt for "the input's size".
template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;

template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;

// ---- padding modules: padding (left, right[, top, bottom[, front, back]]) or one value ----

namespace detail {
// What tells apart the padding modules that take only a padding.
enum class PadFill { kReflection, kReplication, kZero };
// Their options (ReflectionPadOptions<D>, ReplicationPadOptions<D>, ZeroPadOptions<D>).
template <size_t D, PadFill Fill>
struct PadOptions {
  PadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
}  // namespace detail

template <size_t D>
using ReflectionPadOptions = detail::PadOptions<D, detail::PadFill::kReflection>;
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

template <size_t D>
using ReplicationPadOptions = detail::PadOptions<D, detail::PadFill::kReplication>;
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

template <size_t D>
using ZeroPadOptions = detail::PadOptions<D, detail::PadFill::kZero>;
using ZeroPad1dOptions = ZeroPadOptions<1>;
using ZeroPad2dOptions = ZeroPadOptions<2>;
using ZeroPad3dOptions = ZeroPadOptions<3>;

template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value)
      : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

// ---- upsampling ----

// The interpolation mode of UpsampleOptions and InterpolateFuncOptions: any of nn/enums.h's
// InterpolateMode constants, or ember::kLinear (which is also nn::init's Nonlinearity::Linear,
// as torch::kLinear is in LibTorch) meaning linear.
class InterpolateModeValue {
 public:
  InterpolateModeValue(InterpolateMode mode) : mode_(mode) {}  // NOLINT: implicit, as a variant
  InterpolateModeValue(init::Nonlinearity linear)              // NOLINT
      : mode_(InterpolateMode::kLinear) {
    EMBER_CHECK(linear == init::Nonlinearity::Linear,
                "interpolate: mode must be nearest, linear, bilinear, bicubic, trilinear, area "
                "or nearest-exact; of the init constants only ember::kLinear is a mode");
  }
  operator InterpolateMode() const { return mode_; }  // NOLINT
  InterpolateMode value() const { return mode_; }

 private:
  InterpolateMode mode_;
};

// size or scale_factor (one per spatial dim); mode kNearest, kLinear, kBilinear (kBicubic and
// kTrilinear exist for source compatibility and throw); align_corners for the linear modes.
struct UpsampleOptions {
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  using mode_t = InterpolateModeValue;
  EMBER_ARG(mode_t, mode) = InterpolateMode::kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {

// ---- convolution ----

template <size_t D>
struct ConvFuncOptions {
  using padding_t = ::ember::nn::detail::conv_padding_t<D>;
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = ExpandingArray<D>(0);

 public:
  decltype(auto) padding(std::initializer_list<int64_t> il) { return padding(IntArrayRef{il}); }
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;

template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;

// ---- pooling: the module options double as the functional ones, as in LibTorch ----

using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;

// ---- padding: pad (left, right) pairs from the last dim; mode kConstant (value), kReflect,
// kReplicate or kCircular ----
struct PadFuncOptions {
  using mode_t = PadMode;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(mode_t, mode) = PadMode::kConstant;
  EMBER_ARG(double, value) = 0;
};

// ---- interpolation ----
struct InterpolateFuncOptions {
  using mode_t = InterpolateModeValue;
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = InterpolateMode::kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  EMBER_ARG(bool, antialias) = false;
};

}  // namespace functional
}  // namespace ember::nn
