// Convolution modules, as LibTorch's: Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d with
// public `weight`, `bias` (undefined with bias(false)) and `options`, PyTorch's default init
// (kaiming_uniform_ with a = sqrt(5), bias uniform in +-1/sqrt(fan_in)), padding modes other
// than zeros applied with F::pad first (as PyTorch's _conv_forward), LibTorch's printing.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include <ember/core/array_ref.h>
#include <ember/core/tensor.h>
#include <ember/nn/expanding_array.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options_conv.h>

namespace ember::nn {

// The parameters, init and printing shared by the forward and transposed convolutions.
template <size_t D>
class ConvNdImpl : public Module {
 public:
  explicit ConvNdImpl(detail::ConvNdOptions<D> options);

  void reset();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  detail::ConvNdOptions<D> options;
  Tensor weight;  // [out, in / groups, k...]; transposed: [in, out / groups, k...]
  Tensor bias;    // [out], undefined when options.bias() is false

 protected:
  // F::pad's pad for padding_mode != kZeros: (left, right) per dim, last dim first.
  std::vector<int64_t> _reversed_padding_repeated_twice;
};

// input [N, C, L] or unbatched [C, L].
class Conv1dImpl : public ConvNdImpl<1> {
 public:
  Conv1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv1dImpl(Conv1dOptions options);
  Tensor forward(const Tensor& input);
};
EMBER_BUILTIN_MODULE(Conv1d);

// input [N, C, H, W] or unbatched [C, H, W].
class Conv2dImpl : public ConvNdImpl<2> {
 public:
  Conv2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv2dImpl(Conv2dOptions options);
  Tensor forward(const Tensor& input);

 protected:
  Tensor _conv_forward(const Tensor& input, const Tensor& weight);
};
EMBER_BUILTIN_MODULE(Conv2d);

// output_size (optional, the spatial sizes or all of them) picks the output padding within
// the range the stride leaves open, as PyTorch's ConvTranspose*d.forward(input, output_size).
template <size_t D>
class ConvTransposeNdImpl : public ConvNdImpl<D> {
 public:
  explicit ConvTransposeNdImpl(detail::ConvNdOptions<D> options);
  void pretty_print(std::ostream& stream) const override;

 protected:
  const ExpandingArray<D>& padding() const;
  std::vector<int64_t> _output_padding(const Tensor& input,
                                       const std::optional<IntArrayRef>& output_size) const;
};

class ConvTranspose1dImpl : public ConvTransposeNdImpl<1> {
 public:
  ConvTranspose1dImpl(int64_t input_channels, int64_t output_channels,
                      ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(ConvTranspose1dOptions options);
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
};
EMBER_BUILTIN_MODULE(ConvTranspose1d);

class ConvTranspose2dImpl : public ConvTransposeNdImpl<2> {
 public:
  ConvTranspose2dImpl(int64_t input_channels, int64_t output_channels,
                      ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(ConvTranspose2dOptions options);
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
};
EMBER_BUILTIN_MODULE(ConvTranspose2d);

}  // namespace ember::nn
