// The modules of nn/modules/vision.h: PyTorch-style printing (their forwards are inline,
// calls of the F:: forms of nn/functional_vision.h).
#include <ember/nn/modules/vision.h>

namespace ember::nn {

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}

void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << "Fold(output_size=" << options.output_size()
         << ", kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << "Unfold(kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

void LocalResponseNormImpl::pretty_print(std::ostream& stream) const {
  stream << "LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha()
         << ", beta=" << options.beta() << ", k=" << options.k() << ")";
}

}  // namespace ember::nn
