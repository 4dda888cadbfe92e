// Names of the mode constants of nn/enums.h, for error messages and module printing.
#include <ember/nn/enums.h>

namespace ember::nn {

const char* mode_name(ConvPaddingMode m) { return m == ConvPaddingMode::kSame ? "same" : "valid"; }

const char* mode_name(PadMode m) {
  switch (m) {
    case PadMode::kZeros:
      return "zeros";
    case PadMode::kConstant:
      return "constant";
    case PadMode::kReflect:
      return "reflect";
    case PadMode::kReplicate:
      return "replicate";
    case PadMode::kCircular:
      return "circular";
  }
  return "?";
}

const char* mode_name(InterpolateMode m) {
  switch (m) {
    case InterpolateMode::kNearest:
      return "nearest";
    case InterpolateMode::kLinear:
      return "linear";
    case InterpolateMode::kBilinear:
      return "bilinear";
    case InterpolateMode::kBicubic:
      return "bicubic";
    case InterpolateMode::kTrilinear:
      return "trilinear";
    case InterpolateMode::kArea:
      return "area";
    case InterpolateMode::kNearestExact:
      return "nearest-exact";
  }
  return "?";
}

}  // namespace ember::nn
