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

namespace detail {
// ReflectionPad, ReplicationPad and ZeroPad: F::pad with the mode of Fill (nn/modules/padding.cpp).
template <size_t D, PadFill Fill>
class PadImpl : public Module {
 public:
  explicit PadImpl(ExpandingArray<D * 2> padding) : PadImpl(PadOptions<D, Fill>(padding)) {}
  explicit PadImpl(const PadOptions<D, Fill>& options) : options(options) {}
  void reset() {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  PadOptions<D, Fill> options;
};
}  // namespace detail

template <size_t D>
using ReflectionPadImpl = detail::PadImpl<D, detail::PadFill::kReflection>;
template <size_t D>
using ReplicationPadImpl = detail::PadImpl<D, detail::PadFill::kReplication>;
template <size_t D>
using ZeroPadImpl = detail::PadImpl<D, detail::PadFill::kZero>;

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
  EMBER_BUILTIN_MODULE(Name)

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
