// Pooling modules, as LibTorch's: MaxPool1d/2d (forward_with_indices too), AvgPool1d/2d,
// AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d. No parameters; each forwards to nn::functional
// with its options (stride defaults to kernel_size) and prints as LibTorch does.
#pragma once

#include <ostream>
#include <tuple>

#include <ember/core/tensor.h>
#include <ember/nn/expanding_array.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options_conv.h>

namespace ember::nn {

template <size_t D>
class MaxPoolImpl : public Module {
 public:
  explicit MaxPoolImpl(ExpandingArray<D> kernel_size)
      : MaxPoolImpl(MaxPoolOptions<D>(kernel_size)) {}
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options) : options(options) {}
  void reset() {}
  void pretty_print(std::ostream& stream) const override;

  MaxPoolOptions<D> options;
};

class MaxPool1dImpl : public MaxPoolImpl<1> {
 public:
  using MaxPoolImpl<1>::MaxPoolImpl;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_BUILTIN_MODULE(MaxPool1d);

class MaxPool2dImpl : public MaxPoolImpl<2> {
 public:
  using MaxPoolImpl<2>::MaxPoolImpl;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_BUILTIN_MODULE(MaxPool2d);

template <size_t D>
class AvgPoolImpl : public Module {
 public:
  explicit AvgPoolImpl(ExpandingArray<D> kernel_size)
      : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options) : options(options) {}
  void reset() {}
  void pretty_print(std::ostream& stream) const override;

  AvgPoolOptions<D> options;
};

class AvgPool1dImpl : public AvgPoolImpl<1> {
 public:
  using AvgPoolImpl<1>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_BUILTIN_MODULE(AvgPool1d);

class AvgPool2dImpl : public AvgPoolImpl<2> {
 public:
  using AvgPoolImpl<2>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_BUILTIN_MODULE(AvgPool2d);

template <size_t D, typename output_size_t>
class AdaptiveAvgPoolImpl : public Module {
 public:
  AdaptiveAvgPoolImpl(output_size_t output_size)  // NOLINT: implicit, as LibTorch's
      : AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveAvgPoolImpl(const AdaptiveAvgPoolOptions<output_size_t>& options)
      : options(options) {}
  void reset() {}
  void pretty_print(std::ostream& stream) const override {
    stream << "AdaptiveAvgPool" << D << "d(output_size=" << options.output_size() << ")";
  }

  AdaptiveAvgPoolOptions<output_size_t> options;
};

class AdaptiveAvgPool1dImpl : public AdaptiveAvgPoolImpl<1, ExpandingArray<1>> {
 public:
  using AdaptiveAvgPoolImpl<1, ExpandingArray<1>>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_BUILTIN_MODULE(AdaptiveAvgPool1d);

class AdaptiveAvgPool2dImpl : public AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>> {
 public:
  using AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_BUILTIN_MODULE(AdaptiveAvgPool2d);

template <size_t D, typename output_size_t>
class AdaptiveMaxPoolImpl : public Module {
 public:
  AdaptiveMaxPoolImpl(output_size_t output_size)  // NOLINT
      : AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveMaxPoolImpl(const AdaptiveMaxPoolOptions<output_size_t>& options)
      : options(options) {}
  void reset() {}
  void pretty_print(std::ostream& stream) const override {
    stream << "AdaptiveMaxPool" << D << "d(output_size=" << options.output_size() << ")";
  }

  AdaptiveMaxPoolOptions<output_size_t> options;
};

class AdaptiveMaxPool1dImpl : public AdaptiveMaxPoolImpl<1, ExpandingArray<1>> {
 public:
  using AdaptiveMaxPoolImpl<1, ExpandingArray<1>>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_BUILTIN_MODULE(AdaptiveMaxPool1d);

class AdaptiveMaxPool2dImpl : public AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>> {
 public:
  using AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_BUILTIN_MODULE(AdaptiveMaxPool2d);

}  // namespace ember::nn
