// ember::nn::init: in-place parameter initializers, as LibTorch's torch::nn::init (fan modes,
// gains and formulas from PyTorch). Each fills its tensor without recording autograd history,
// on the tensor's own device and dtype, and returns it.
#pragma once

#include <cstdint>
#include <tuple>

#include <ember/core/scalar.h>
#include <ember/core/tensor.h>

namespace ember {
namespace nn::init {

enum class Nonlinearity {
  Linear,
  Conv1D,
  Conv2D,
  Conv3D,
  ConvTranspose1D,
  ConvTranspose2D,
  ConvTranspose3D,
  Sigmoid,
  Tanh,
  ReLU,
  LeakyReLU
};
enum class FanMode { FanIn, FanOut };

}  // namespace nn::init

// LibTorch spells these torch::kReLU, torch::kFanIn, ...
inline constexpr nn::init::Nonlinearity kLinear = nn::init::Nonlinearity::Linear;
inline constexpr nn::init::Nonlinearity kConv1D = nn::init::Nonlinearity::Conv1D;
inline constexpr nn::init::Nonlinearity kConv2D = nn::init::Nonlinearity::Conv2D;
inline constexpr nn::init::Nonlinearity kConv3D = nn::init::Nonlinearity::Conv3D;
inline constexpr nn::init::Nonlinearity kConvTranspose1D = nn::init::Nonlinearity::ConvTranspose1D;
inline constexpr nn::init::Nonlinearity kConvTranspose2D = nn::init::Nonlinearity::ConvTranspose2D;
inline constexpr nn::init::Nonlinearity kConvTranspose3D = nn::init::Nonlinearity::ConvTranspose3D;
inline constexpr nn::init::Nonlinearity kSigmoid = nn::init::Nonlinearity::Sigmoid;
inline constexpr nn::init::Nonlinearity kTanh = nn::init::Nonlinearity::Tanh;
inline constexpr nn::init::Nonlinearity kReLU = nn::init::Nonlinearity::ReLU;
inline constexpr nn::init::Nonlinearity kLeakyReLU = nn::init::Nonlinearity::LeakyReLU;
inline constexpr nn::init::FanMode kFanIn = nn::init::FanMode::FanIn;
inline constexpr nn::init::FanMode kFanOut = nn::init::FanMode::FanOut;

namespace nn::init {

// The recommended gain: 1 for linear, conv and sigmoid, 5/3 for tanh, sqrt(2) for relu,
// sqrt(2 / (1 + param^2)) for leaky_relu (param is the negative slope).
double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);

// fan_in = size(1) * receptive field, fan_out = size(0) * receptive field (receptive field:
// the product of the dims past the second); throws for tensors of fewer than 2 dims.
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, const Scalar& value);
Tensor zeros_(Tensor tensor);
Tensor ones_(Tensor tensor);
// 2-d tensors: the identity (ones on the main diagonal of a rectangular matrix).
Tensor eye_(Tensor tensor);
// 3-, 4- or 5-d conv weights [O, C, k...]: the identity convolution (a one at the kernel's
// centre for output channel i and input channel i of each of the groups), zeros elsewhere.
Tensor dirac_(Tensor tensor, int64_t groups = 1);

// Glorot: std = gain * sqrt(2 / (fan_in + fan_out)); uniform bound sqrt(3) * std.
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);

// He: std = calculate_gain(nonlinearity, a) / sqrt(fan); uniform bound sqrt(3) * std.
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                        Nonlinearity nonlinearity = Nonlinearity::LeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                       Nonlinearity nonlinearity = Nonlinearity::LeakyReLU);

}  // namespace nn::init
}  // namespace ember
