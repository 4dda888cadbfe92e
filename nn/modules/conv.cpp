// Conv1d/Conv2d/ConvTranspose1d/ConvTranspose2d: parameter shapes, checks and PyTorch's default
// init (ConvNd.reset_parameters), forward through nn/layer_ops.h (with F::pad first for the
// reflect/replicate/circular padding modes), the transposed layers' output_size rule, and
// LibTorch's printing without the "torch::nn::" prefix.
#include <ember/nn/modules/conv.h>

#include <cctype>
#include <cmath>
#include <string>
#include <string_view>
#include <variant>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/init.h>
#include <ember/nn/layer_ops.h>

namespace ember::nn {
namespace {

// LibTorch prints its enum constants by name: "kReflect" for nn/enums.h's "reflect".
std::string enum_name(PadMode mode) {
  std::string name = mode_name(mode);
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return "k" + name;
}

template <size_t D>
bool all_equal(const ExpandingArray<D>& a, int64_t v) {
  for (int64_t x : *a) {
    if (x != v) return false;
  }
  return true;
}

template <size_t D>
detail::ConvNdOptions<D> forward_options(const ConvOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .transposed(false)
      .output_padding(0)
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}

template <size_t D>
detail::ConvNdOptions<D> transposed_options(const ConvTransposeOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .transposed(true)
      .output_padding(o.output_padding())
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}

// F::pad's mode for a padding_mode (kZeros pads with zeros, as "constant").
const char* pad_mode_of(PadMode mode) {
  return mode == PadMode::kZeros ? "constant" : mode_name(mode);
}

}  // namespace

// ---- ConvNdImpl ----

template <size_t D>
ConvNdImpl<D>::ConvNdImpl(detail::ConvNdOptions<D> options) : options(std::move(options)) {
  reset();
}

template <size_t D>
void ConvNdImpl<D>::reset() {
  const char* op = options.transposed() ? (D == 1 ? "ConvTranspose1d" : "ConvTranspose2d")
                                        : (D == 1 ? "Conv1d" : "Conv2d");
  EMBER_CHECK(options.in_channels() >= 0 && options.out_channels() >= 0, op,
              ": in_channels and out_channels must be non-negative, got ", options.in_channels(),
              " and ", options.out_channels());
  EMBER_CHECK(options.groups() > 0, op, ": groups must be a positive integer, got ",
              options.groups());
  EMBER_CHECK(options.in_channels() % options.groups() == 0, op,
              ": in_channels must be divisible by groups");
  EMBER_CHECK(options.out_channels() % options.groups() == 0, op,
              ": out_channels must be divisible by groups");
  for (size_t i = 0; i < D; ++i) {
    EMBER_CHECK((*options.kernel_size())[i] > 0, op, ": kernel_size must be positive, got ",
                options.kernel_size());
  }
  const PadMode mode = options.padding_mode();
  EMBER_CHECK(mode != PadMode::kConstant, op,
              ": padding_mode must be one of ember::kZeros, kReflect, kReplicate or kCircular, "
              "but got kConstant");
  EMBER_CHECK(!options.transposed() || mode == PadMode::kZeros, op,
              ": Only `zeros` padding mode is supported for ", op);

  _reversed_padding_repeated_twice.assign(2 * D, 0);
  if (const auto* name = std::get_if<ConvPaddingMode>(&options.padding())) {
    EMBER_CHECK(!options.transposed(), op, ": ConvTranspose padding cannot be a string");
    if (*name == ConvPaddingMode::kSame) {
      for (size_t i = 0; i < D; ++i) {
        EMBER_CHECK((*options.stride())[i] == 1, op,
                    ": padding='same' is not supported for strided convolutions");
      }
      // Dim i (first spatial dim first) pads left_pad before and the rest after; F::pad wants
      // the last dim first.
      for (size_t i = 0; i < D; ++i) {
        const int64_t total = (*options.dilation())[i] * ((*options.kernel_size())[i] - 1);
        const int64_t left = total / 2;
        const size_t slot = 2 * (D - 1 - i);
        _reversed_padding_repeated_twice[slot] = left;
        _reversed_padding_repeated_twice[slot + 1] = total - left;
      }
    }
  } else {
    const auto& pad = std::get<ExpandingArray<D>>(options.padding());
    for (size_t i = 0; i < D; ++i) {
      const size_t slot = 2 * (D - 1 - i);
      _reversed_padding_repeated_twice[slot] = (*pad)[i];
      _reversed_padding_repeated_twice[slot + 1] = (*pad)[i];
    }
  }

  std::vector<int64_t> weight_sizes;
  if (options.transposed()) {
    weight_sizes = {options.in_channels(), options.out_channels() / options.groups()};
  } else {
    weight_sizes = {options.out_channels(), options.in_channels() / options.groups()};
  }
  for (int64_t k : *options.kernel_size()) weight_sizes.push_back(k);
  weight = this->register_parameter("weight", ember::empty(weight_sizes));
  bias = this->register_parameter(
      "bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(),
      /*requires_grad=*/options.bias());
  reset_parameters();
}

template <size_t D>
void ConvNdImpl<D>::reset_parameters() {
  // a = sqrt(5) makes the weight bound 1/sqrt(fan_in), as torch.nn.Conv*d; fan_in is weight's
  // (for the transposed layers that is out_channels / groups * kernel, PyTorch's quirk).
  if (weight.numel() > 0) init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined() && weight.numel() > 0) {
    const int64_t fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

template <size_t D>
void ConvNdImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "Conv" << D << "d(" << options.in_channels() << ", " << options.out_channels()
         << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (const auto* name = std::get_if<ConvPaddingMode>(&options.padding())) {
    stream << ", padding='" << mode_name(*name) << "'";
  } else {
    const auto& pad = std::get<ExpandingArray<D>>(options.padding());
    if (!all_equal(pad, 0)) stream << ", padding=" << pad;
  }
  if (!all_equal(options.dilation(), 1)) stream << ", dilation=" << options.dilation();
  if (!all_equal(options.output_padding(), 0)) {
    stream << ", output_padding=" << options.output_padding();
  }
  if (options.groups() != 1) stream << ", groups=" << options.groups();
  if (!options.bias()) stream << ", bias=false";
  if (options.padding_mode() != PadMode::kZeros) {
    stream << ", padding_mode=" << enum_name(options.padding_mode());
  }
  stream << ")";
}

template class ConvNdImpl<1>;
template class ConvNdImpl<2>;

// ---- Conv1d, Conv2d ----

namespace {

// conv(input) with the module's options: padding modes other than zeros pad with F::pad and
// convolve with no padding, as PyTorch's _conv_forward.
template <size_t D>
Tensor conv_forward(const detail::ConvNdOptions<D>& o, const std::vector<int64_t>& reversed_pad,
                    const Tensor& input, const Tensor& weight, const Tensor& bias) {
  auto conv = [&](const Tensor& x, auto padding) {
    if constexpr (D == 1) {
      return ember::conv1d(x, weight, bias, o.stride(), padding, o.dilation(), o.groups());
    } else {
      return ember::conv2d(x, weight, bias, o.stride(), padding, o.dilation(), o.groups());
    }
  };
  if (o.padding_mode() != PadMode::kZeros) {
    const Tensor padded = ember::pad(input, reversed_pad, pad_mode_of(o.padding_mode()));
    return conv(padded, IntArrayRef(int64_t{0}));
  }
  if (const auto* name = std::get_if<ConvPaddingMode>(&o.padding())) {
    return conv(input, ConvPaddingName(std::string_view(mode_name(*name))));
  }
  return conv(input, IntArrayRef(std::get<ExpandingArray<D>>(o.padding())));
}

}  // namespace

Conv1dImpl::Conv1dImpl(Conv1dOptions options) : ConvNdImpl<1>(forward_options(options)) {}

Tensor Conv1dImpl::forward(const Tensor& input) {
  return conv_forward<1>(options, _reversed_padding_repeated_twice, input, weight, bias);
}

Conv2dImpl::Conv2dImpl(Conv2dOptions options) : ConvNdImpl<2>(forward_options(options)) {}

Tensor Conv2dImpl::_conv_forward(const Tensor& input, const Tensor& weight) {
  return conv_forward<2>(options, _reversed_padding_repeated_twice, input, weight, bias);
}

Tensor Conv2dImpl::forward(const Tensor& input) { return _conv_forward(input, weight); }

// ---- transposed ----

template <size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(detail::ConvNdOptions<D> options)
    : ConvNdImpl<D>(std::move(options)) {}

template <size_t D>
const ExpandingArray<D>& ConvTransposeNdImpl<D>::padding() const {
  return std::get<ExpandingArray<D>>(this->options.padding());
}

template <size_t D>
void ConvTransposeNdImpl<D>::pretty_print(std::ostream& stream) const {
  const auto& o = this->options;
  stream << "ConvTranspose" << D << "d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  if (!all_equal(padding(), 0)) stream << ", padding=" << padding();
  if (!all_equal(o.dilation(), 1)) stream << ", dilation=" << o.dilation();
  if (!all_equal(o.output_padding(), 0)) stream << ", output_padding=" << o.output_padding();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  if (o.padding_mode() != PadMode::kZeros) {
    stream << ", padding_mode=" << enum_name(o.padding_mode());
  }
  stream << ")";
}

// PyTorch's _ConvTransposeNd._output_padding: without output_size the option's; with it, the
// difference from the smallest output, which must leave the size within [min, min + stride).
template <size_t D>
std::vector<int64_t> ConvTransposeNdImpl<D>::_output_padding(
    const Tensor& input, const std::optional<IntArrayRef>& output_size) const {
  const auto& o = this->options;
  if (!output_size.has_value()) return IntArrayRef(o.output_padding()).vec();
  const char* op = D == 1 ? "ConvTranspose1d" : "ConvTranspose2d";
  EMBER_CHECK(input.defined(), op, ": input must be defined");
  const int64_t k = static_cast<int64_t>(D);
  const bool batched = input.dim() == k + 2;
  const int64_t non_spatial = batched ? 2 : 1;
  EMBER_CHECK(input.dim() == k + 1 || input.dim() == k + 2, op, ": expected a ", k + 1, "-D or ",
              k + 2, "-D input, got ", shape_str(input.sizes()));
  IntArrayRef size = *output_size;
  if (static_cast<int64_t>(size.size()) == non_spatial + k) size = size.slice(non_spatial, k);
  EMBER_CHECK(static_cast<int64_t>(size.size()) == k, op, ": output_size must have ", k, " or ",
              non_spatial + k, " elements (got ", output_size->size(), ")");
  std::vector<int64_t> min_sizes, max_sizes, ret;
  for (int64_t d = 0; d < k; ++d) {
    const int64_t dim_size = (input.size(d + non_spatial) - 1) * (*o.stride())[d] -
                             2 * (*padding())[d] +
                             (*o.dilation())[d] * ((*o.kernel_size())[d] - 1) + 1;
    min_sizes.push_back(dim_size);
    max_sizes.push_back(dim_size + (*o.stride())[d] - 1);
  }
  for (int64_t d = 0; d < k; ++d) {
    EMBER_CHECK(size[d] >= min_sizes[d] && size[d] <= max_sizes[d], op,
                ": requested an output size of ", shape_str(size), ", but valid sizes range from ",
                shape_str(min_sizes), " to ", shape_str(max_sizes), " (for an input of ",
                shape_str(input.sizes().slice(non_spatial, k)), ")");
    ret.push_back(size[d] - min_sizes[d]);
  }
  return ret;
}

template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;

ConvTranspose1dImpl::ConvTranspose1dImpl(ConvTranspose1dOptions options)
    : ConvTransposeNdImpl<1>(transposed_options(options)) {}

Tensor ConvTranspose1dImpl::forward(const Tensor& input,
                                    const std::optional<IntArrayRef>& output_size) {
  const std::vector<int64_t> output_padding = _output_padding(input, output_size);
  return ember::conv_transpose1d(input, weight, bias, options.stride(), padding(), output_padding,
                                 options.groups(), options.dilation());
}

ConvTranspose2dImpl::ConvTranspose2dImpl(ConvTranspose2dOptions options)
    : ConvTransposeNdImpl<2>(transposed_options(options)) {}

Tensor ConvTranspose2dImpl::forward(const Tensor& input,
                                    const std::optional<IntArrayRef>& output_size) {
  const std::vector<int64_t> output_padding = _output_padding(input, output_size);
  return ember::conv_transpose2d(input, weight, bias, options.stride(), padding(), output_padding,
                                 options.groups(), options.dilation());
}

}  // namespace ember::nn
