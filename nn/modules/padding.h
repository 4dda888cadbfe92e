// Padding modules, as LibTorch's: ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d,
// ZeroPad1d/2d/3d and ConstantPad1d/2d/3d, each F::pad with its mode over the last 1, 2 or 3
// dims. padding: one value for every side, or (left, right[, top, bottom[, front, back]]).
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/expanding_array.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options_conv.h>

namespace ember::nn {

template <size_t D>
class ReflectionPadImpl : public Module {
 public:
  explicit ReflectionPadImpl(ExpandingArray<D * 2> padding)
      : ReflectionPadImpl(ReflectionPadOptions<D>(padding)) {}
  explicit ReflectionPadImpl(const ReflectionPadOptions<D>& options) : options(options) {}
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  ReflectionPadOptions<D> options;
};

template <size_t D>
class ReplicationPadImpl : public Module {
 public:
  explicit ReplicationPadImpl(ExpandingArray<D * 2> padding)
      : ReplicationPadImpl(ReplicationPadOptions<D>(padding)) {}
  explicit ReplicationPadImpl(const ReplicationPadOptions<D>& options) : options(options) {}
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  ReplicationPadOptions<D> options;
};

template <size_t D>
class ZeroPadImpl : public Module {
 public:
  explicit ZeroPadImpl(ExpandingArray<D * 2> padding) : ZeroPadImpl(ZeroPadOptions<D>(padding)) {}
  explicit ZeroPadImpl(const ZeroPadOptions<D>& options) : options(options) {}
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  ZeroPadOptions<D> options;
};

template <size_t D>
class ConstantPadImpl : public Module {
 public:
  ConstantPadImpl(ExpandingArray<D * 2> padding, double value)
      : ConstantPadImpl(ConstantPadOptions<D>(padding, value)) {}
  explicit ConstantPadImpl(const ConstantPadOptions<D>& options) : options(options) {}
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  ConstantPadOptions<D> options;
};

#define EMBER_PADDING_MODULE(Name, Base, D) \
  class Name##Impl : public Base<D> {       \
   public:                                  \
    using Base<D>::Base;                    \
  };                                        \
  EMBER_MODULE(Name)

EMBER_PADDING_MODULE(ReflectionPad1d, ReflectionPadImpl, 1);
EMBER_PADDING_MODULE(ReflectionPad2d, ReflectionPadImpl, 2);
EMBER_PADDING_MODULE(ReflectionPad3d, ReflectionPadImpl, 3);
EMBER_PADDING_MODULE(ReplicationPad1d, ReplicationPadImpl, 1);
EMBER_PADDING_MODULE(ReplicationPad2d, ReplicationPadImpl, 2);
EMBER_PADDING_MODULE(ReplicationPad3d, ReplicationPadImpl, 3);
EMBER_PADDING_MODULE(ZeroPad1d, ZeroPadImpl, 1);
EMBER_PADDING_MODULE(ZeroPad2d, ZeroPadImpl, 2);
EMBER_PADDING_MODULE(ZeroPad3d, ZeroPadImpl, 3);
EMBER_PADDING_MODULE(ConstantPad1d, ConstantPadImpl, 1);
EMBER_PADDING_MODULE(ConstantPad2d, ConstantPadImpl, 2);
EMBER_PADDING_MODULE(ConstantPad3d, ConstantPadImpl, 3);

#undef EMBER_PADDING_MODULE

}  // namespace ember::nn
