// Upsample: forward through F::interpolate and LibTorch's printing (mode by its constant's name).
#include <ember/nn/modules/upsampling.h>

#include <ember/nn/functional_conv.h>

namespace ember::nn {
namespace {

const char* enum_name(InterpolateMode mode) {
  switch (mode) {
    case InterpolateMode::kNearest:
      return "kNearest";
    case InterpolateMode::kLinear:
      return "kLinear";
    case InterpolateMode::kBilinear:
      return "kBilinear";
    case InterpolateMode::kBicubic:
      return "kBicubic";
    case InterpolateMode::kTrilinear:
      return "kTrilinear";
    case InterpolateMode::kArea:
      return "kArea";
    case InterpolateMode::kNearestExact:
      return "kNearestExact";
  }
  return "?";
}

}  // namespace

UpsampleImpl::UpsampleImpl(const UpsampleOptions& options) : options(options) {
  const InterpolateMode mode = options.mode();
  EMBER_CHECK(mode != InterpolateMode::kArea && mode != InterpolateMode::kNearestExact,
              "Upsample: mode must be kNearest, kLinear, kBilinear, kBicubic or kTrilinear, got ",
              enum_name(mode));
}

Tensor UpsampleImpl::forward(const Tensor& input) {
  return functional::interpolate(input, functional::InterpolateFuncOptions()
                                            .size(options.size())
                                            .scale_factor(options.scale_factor())
                                            .mode(options.mode())
                                            .align_corners(options.align_corners()));
}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "Upsample(";
  if (options.scale_factor().has_value()) {
    stream << "scale_factor=[";
    const auto& s = *options.scale_factor();
    for (size_t i = 0; i < s.size(); ++i) stream << (i ? ", " : "") << s[i];
    stream << "]";
  } else if (options.size().has_value()) {
    stream << "size=" << IntArrayRef(*options.size());
  }
  stream << ", mode=" << enum_name(options.mode()) << ")";
}

}  // namespace ember::nn
