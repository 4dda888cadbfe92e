// The mode constants of the convolution, padding and resampling options, spelled as LibTorch's
// (`ember::kSame`, `ember::kReflect`, `ember::kBilinear`): one enum per option kind.
#pragma once

#include <cstdint>

namespace ember {
namespace nn {

// Conv*Options::padding: a size per dim, or one of these (torch::kValid, torch::kSame).
enum class ConvPaddingMode : uint8_t { kValid, kSame };
// Conv*Options::padding_mode (kZeros, kReflect, kReplicate, kCircular) and PadFuncOptions::mode
// (kConstant, kReflect, kReplicate, kCircular): one enum, each option checks its subset.
enum class PadMode : uint8_t { kZeros, kConstant, kReflect, kReplicate, kCircular };
// InterpolateFuncOptions::mode / UpsampleOptions::mode (torch::kNearest, ...). torch::kLinear is
// nn::init's Nonlinearity constant here too (ember::kLinear); the interpolate options accept it.
enum class InterpolateMode : uint8_t {
  kNearest,
  kLinear,
  kBilinear,
  kBicubic,
  kTrilinear,
  kArea,
  kNearestExact
};

const char* mode_name(ConvPaddingMode m);
const char* mode_name(PadMode m);
const char* mode_name(InterpolateMode m);

}  // namespace nn

inline constexpr nn::ConvPaddingMode kValid = nn::ConvPaddingMode::kValid;
inline constexpr nn::ConvPaddingMode kSame = nn::ConvPaddingMode::kSame;
inline constexpr nn::PadMode kZeros = nn::PadMode::kZeros;
inline constexpr nn::PadMode kConstant = nn::PadMode::kConstant;
inline constexpr nn::PadMode kReflect = nn::PadMode::kReflect;
inline constexpr nn::PadMode kReplicate = nn::PadMode::kReplicate;
inline constexpr nn::PadMode kCircular = nn::PadMode::kCircular;
inline constexpr nn::InterpolateMode kNearest = nn::InterpolateMode::kNearest;
inline constexpr nn::InterpolateMode kBilinear = nn::InterpolateMode::kBilinear;
inline constexpr nn::InterpolateMode kBicubic = nn::InterpolateMode::kBicubic;
inline constexpr nn::InterpolateMode kTrilinear = nn::InterpolateMode::kTrilinear;
inline constexpr nn::InterpolateMode kArea = nn::InterpolateMode::kArea;
inline constexpr nn::InterpolateMode kNearestExact = nn::InterpolateMode::kNearestExact;

}  // namespace ember
