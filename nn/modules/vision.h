// Image-shaped modules, as LibTorch's: PixelShuffle PixelUnshuffle Fold Unfold
// LocalResponseNorm, forwarding to their functional forms (nn/functional_vision.h).
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/functional_vision.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>

namespace ember::nn {

#define EMBER_VISION_MODULE(Name, fn)                                              \
  class Name##Impl : public Module {                                               \
   public:                                                                         \
    explicit Name##Impl(const Name##Options& options) : options(options) {}        \
    Tensor forward(const Tensor& input) { return functional::fn(input, options); } \
    void pretty_print(std::ostream& stream) const override;                        \
    Name##Options options;                                                         \
  };                                                                               \
  EMBER_BUILTIN_MODULE(Name)

EMBER_VISION_MODULE(PixelShuffle, pixel_shuffle);
EMBER_VISION_MODULE(PixelUnshuffle, pixel_unshuffle);
EMBER_VISION_MODULE(Fold, fold);
EMBER_VISION_MODULE(Unfold, unfold);
EMBER_VISION_MODULE(LocalResponseNorm, local_response_norm);
#undef EMBER_VISION_MODULE

}  // namespace ember::nn
