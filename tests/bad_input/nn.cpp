// Bad-input suite, nn: modules fed inputs of the wrong rank, features, channels or dtype, bad
// module options, losses with mismatched targets, containers indexed out of range, init on
// tensors it can't handle. Each case asserts ember::Error and the module or op and shapes.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <utility>

#include "bad_input.h"

using namespace ember;
namespace F = ember::nn::functional;
using bad_input::expect_error;

namespace {

TEST(BadNn, LinearWrongInFeatures) {
  nn::Linear fc(4, 3);
  expect_error([&] { fc(zeros({2, 5})); }, {"[2, 5]", "[3, 4]"});
}

TEST(BadNn, LinearUndefinedInput) {
  nn::Linear fc(4, 3);
  expect_error([&] { fc(Tensor()); }, {"undefined"});
}

TEST(BadNn, FunctionalUndefinedInputs) {
  const Tensor u, x = ones({2, 4}), w = ones({3, 4});
  const std::pair<const char*, std::function<void()>> cases[] = {
      {"linear", [&] { F::linear(u, w); }},
      {"linear", [&] { F::linear(x, u); }},
      {"dropout", [&] { F::dropout(u, F::DropoutFuncOptions().p(0.5).training(true)); }},
      {"relu", [&] { F::relu(u, F::ReLUFuncOptions().inplace(true)); }},
      {"leaky_relu", [&] { F::leaky_relu(u); }},
      {"silu", [&] { F::silu(u); }},
      {"layer_norm", [&] { F::layer_norm(u, F::LayerNormFuncOptions({4})); }},
  };
  for (const auto& [op, f] : cases) {
    SCOPED_TRACE(op);
    expect_error(f, {std::string(op) + ": got an undefined Tensor"});
  }
}

TEST(BadNn, LinearScalarInput) {
  nn::Linear fc(1, 3);
  expect_error([&] { fc(zeros({})); }, {"linear", "[]"});
}

TEST(BadNn, LinearNegativeFeatures) {
  expect_error([] { nn::Linear(-1, 3); }, {"Linear", "-1"});
}

TEST(BadNn, LinearFeaturesOverflow) {
  // the weight would have 2^80 elements: a size error, not an allocation attempt
  const int64_t n = int64_t(1) << 40;
  expect_error([&] { nn::Linear(n, n); }, {"[1099511627776, 1099511627776]"});
}

TEST(BadNn, Conv2dWrongChannels) {
  nn::Conv2d conv(3, 8, 3);
  expect_error([&] { conv(zeros({1, 4, 8, 8})); }, {"conv2d", "[1, 4, 8, 8]", "3"});
}

TEST(BadNn, Conv2dTwoDimInput) {
  nn::Conv2d conv(1, 2, 3);
  expect_error([&] { conv(zeros({8, 8})); }, {"conv2d", "3D (unbatched) or 4D", "[8, 8]"});
}

TEST(BadNn, Conv2dKernelLargerThanInput) {
  nn::Conv2d conv(1, 2, 5);
  expect_error([&] { conv(zeros({1, 1, 3, 3})); }, {"conv2d", "Kernel size", "(5 x 5)"});
}

TEST(BadNn, Conv2dIntegerInput) {
  nn::Conv2d conv(1, 2, 3);
  expect_error([&] { conv(zeros({1, 1, 4, 4}, kInt64)); }, {"conv2d", "int64"});
}

TEST(BadNn, Conv2dZeroKernel) {
  expect_error([] { nn::Conv2d(nn::Conv2dOptions(1, 2, 0)); }, {"Conv2d", "kernel"});
}

TEST(BadNn, Conv1dNegativePadding) {
  expect_error(
      [] {
        F::conv1d(zeros({1, 1, 5}), zeros({1, 1, 3}), F::Conv1dFuncOptions().padding(-1));
      },
      {"conv1d", "negative padding"});
}

TEST(BadNn, ConvTranspose2dWrongChannels) {
  nn::ConvTranspose2d deconv(4, 2, 3);
  expect_error([&] { deconv(zeros({1, 3, 5, 5})); }, {"conv_transpose2d", "[1, 3, 5, 5]"});
}

TEST(BadNn, MaxPool2dKernelLargerThanInput) {
  nn::MaxPool2d pool(4);
  expect_error([&] { pool(zeros({1, 1, 2, 2})); }, {"max_pool2d", "output size"});
}

TEST(BadNn, MaxPool2dZeroStride) {
  expect_error(
      [] {
        F::max_pool2d(zeros({1, 1, 4, 4}), F::MaxPool2dFuncOptions(2).stride(0));
      },
      {"max_pool2d", "stride"});
}

TEST(BadNn, AvgPool2dPaddingTooLarge) {
  expect_error(
      [] {
        F::avg_pool2d(zeros({1, 1, 4, 4}), F::AvgPool2dFuncOptions(2).padding(2));
      },
      {"avg_pool2d", "pad"});
}

TEST(BadNn, BatchNorm1dWrongFeatures) {
  nn::BatchNorm1d bn(4);
  expect_error([&] { bn(zeros({2, 5})); }, {"batch_norm", "4", "5"});
}

TEST(BadNn, BatchNorm2dThreeDimInput) {
  nn::BatchNorm2d bn(3);
  expect_error([&] { bn(zeros({3, 4, 4})); }, {"BatchNorm2d", "4D", "3D"});
}

TEST(BadNn, BatchNormTrainingOneValuePerChannel) {
  nn::BatchNorm1d bn(3);
  expect_error([&] { bn(zeros({1, 3})); }, {"batch_norm", "more than 1 value per channel"});
}

TEST(BadNn, LayerNormWrongTrailingShape) {
  nn::LayerNorm ln(nn::LayerNormOptions({5}));
  expect_error([&] { ln(zeros({2, 4})); }, {"layer_norm", "[5]", "[2, 4]"});
}

TEST(BadNn, GroupNormNotDivisible) {
  expect_error([] { nn::GroupNorm(3, 4); }, {"GroupNorm", "divisible"});
}

TEST(BadNn, GroupNormWrongChannels) {
  nn::GroupNorm gn(2, 4);
  expect_error([&] { gn(zeros({2, 6, 3})); }, {"group_norm", "4", "6"});
}

TEST(BadNn, EmbeddingFloatIndices) {
  nn::Embedding emb(10, 3);
  expect_error([&] { emb(zeros({2, 2})); }, {"embedding", "float32"});
}

TEST(BadNn, EmbeddingNegativeIndex) {
  nn::Embedding emb(10, 3);
  expect_error([&] { emb(tensor({int64_t(-11)})); }, {"-11"});
}

TEST(BadNn, LstmWrongInputSize) {
  nn::LSTM lstm(nn::LSTMOptions(4, 8));
  expect_error([&] { lstm(zeros({5, 2, 3})); }, {"input_size", "4", "3"});
}

TEST(BadNn, GruHiddenBatchMismatch) {
  nn::GRU gru(nn::GRUOptions(2, 3));
  expect_error(
      [&] {
        gru(zeros({4, 5, 2}), zeros({1, 6, 3}));
      },
      {"hidden", "[1, 5, 3]", "[1, 6, 3]"});
}

TEST(BadNn, DropoutProbabilityAboveOne) {
  expect_error([] { nn::Dropout(1.5); }, {"ropout", "1.5"});
}

TEST(BadNn, FunctionalDropoutNegative) {
  expect_error([] { F::dropout(ones({3}), F::DropoutFuncOptions().p(-0.1)); }, {"dropout", "-0.1"});
}

TEST(BadNn, CrossEntropyTargetOutOfRange) {
  expect_error(
      [] {
        F::cross_entropy(zeros({2, 3}), tensor({int64_t(0), int64_t(3)}));
      },
      {"cross_entropy", "target 3", "3"});
}

TEST(BadNn, CrossEntropyTargetBatchMismatch) {
  expect_error(
      [] {
        F::cross_entropy(zeros({2, 3}), tensor({int64_t(0), int64_t(1), int64_t(2)}));
      },
      {"cross_entropy", "[2, 3]", "[3]"});
}

TEST(BadNn, CrossEntropyFloatTargetOfWrongShape) {
  expect_error([] { F::cross_entropy(zeros({2, 3}), zeros({2, 4})); }, {"cross_entropy", "[2, 4]"});
}

TEST(BadNn, NllLossOneDimInputBadTarget) {
  expect_error([] { F::nll_loss(zeros({2, 3}), zeros({2})); }, {"nll_loss", "float32"});
}

TEST(BadNn, MseLossShapeMismatch) {
  expect_error([] { F::mse_loss(zeros({2, 3}), zeros({3, 2})); }, {"mse_loss", "[2, 3]", "[3, 2]"});
}

TEST(BadNn, BinaryCrossEntropyInputAboveOne) {
  expect_error([] { F::binary_cross_entropy(full({2}, 1.5), zeros({2})); },
               {"binary_cross_entropy", "between 0 and 1"});
}

TEST(BadNn, SequentialIndexOutOfRange) {
  nn::Sequential seq(nn::Linear(2, 2), nn::ReLU());
  expect_error([&] { (void)seq[5]; }, {"Sequential", "index 5", "2"});
}

TEST(BadNn, EmptySequentialForward) {
  nn::Sequential seq;
  expect_error([&] { seq->forward(zeros({2})); }, {"Sequential", "empty"});
}

TEST(BadNn, ModuleListIndexOutOfRange) {
  nn::ModuleList list(nn::Linear(2, 2));
  expect_error([&] { (void)list[3]; }, {"ModuleList", "index 3"});
}

TEST(BadNn, RegisterParameterDottedName) {
  struct Net : nn::Module {
    Net() { register_parameter("a.b", zeros({2})); }
  };
  expect_error([] { Net net; }, {"register_parameter", "a.b"});
}

TEST(BadNn, KaimingOnVector) {
  Tensor w = zeros({5});
  expect_error([&] { nn::init::kaiming_uniform_(w); }, {"fan in", "fewer than 2 dimensions"});
}

TEST(BadNn, InitOfIntegerTensor) {
  Tensor w = zeros({2, 2}, kInt64);
  expect_error([&] { nn::init::xavier_uniform_(w); }, {"xavier_uniform_", "int64"});
}

TEST(BadNn, ClipGradNormInfiniteTotal) {
  Tensor w = zeros({2}, TensorOptions().requires_grad(true));
  (w * std::numeric_limits<float>::infinity()).sum().backward();
  expect_error([&] { nn::utils::clip_grad_norm_({w}, 1.0, 2.0, /*error_if_nonfinite=*/true); },
               {"clip_grad_norm_", "non-finite"});
}

TEST(BadNn, PixelShuffleNotDivisible) {
  expect_error(
      [] {
        F::pixel_shuffle(zeros({1, 3, 2, 2}), F::PixelShuffleFuncOptions(2));
      },
      {"pixel_shuffle", "3"});
}

TEST(BadNn, PadOddLength) {
  expect_error([] { F::pad(zeros({1, 2, 3}), F::PadFuncOptions({1, 2, 3})); }, {"pad", "3"});
}

TEST(BadNn, InterpolateWithoutSizeOrScale) {
  expect_error(
      [] {
        F::interpolate(zeros({1, 1, 4, 4}), F::InterpolateFuncOptions());
      },
      {"size", "scale_factor"});
}

}  // namespace
