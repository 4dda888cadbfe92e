// The CNN modules (nn/modules/conv.h, pooling.h, batchnorm.h, padding.h, ...) and their options:
// every module case of tests/cases/cnn_cases.inc against LibTorch (outputs, input and parameter
// gradients; on CUDA too when present), then LibTorch's option defaults, state_dict names and
// shapes, PyTorch's default init bounds, printing, padding modes, unbatched inputs, holders in
// Sequential, and error messages.
#include <ember/ember.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/modules/batchnorm.h>
#include <ember/nn/modules/conv.h>
#include <ember/nn/modules/padding.h>
#include <ember/nn/modules/pooling.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "cnn_reference.h"
#include "error_of.h"

namespace {

namespace F = ember::nn::functional;
namespace nn = ember::nn;
using ember::IntArrayRef;
using ember::Tensor;

template <class M>
std::string printed(const M& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::vector<int64_t> sizes(const Tensor& t) { return t.sizes().vec(); }

// ---- against LibTorch ----

TEST(ModulesAgainstLibTorch, EveryCase) {
  cnnref::check_cases(cnnref::module_cases(), ember::kCPU);
}

TEST(ModulesAgainstLibTorch, EveryCaseOnCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  cnnref::check_cases(cnnref::module_cases(), ember::Device(ember::kCUDA), 1e-9);
}

// ---- options ----

TEST(ConvOptions, LibTorchDefaultsAndPaddingForms) {
  nn::Conv2dOptions o(1, 32, 3);
  EXPECT_EQ(*o.kernel_size(), (std::array<int64_t, 2>{3, 3}));
  EXPECT_EQ(*o.stride(), (std::array<int64_t, 2>{1, 1}));
  EXPECT_EQ(*std::get<ember::ExpandingArray<2>>(o.padding()), (std::array<int64_t, 2>{0, 0}));
  EXPECT_EQ(*o.dilation(), (std::array<int64_t, 2>{1, 1}));
  EXPECT_EQ(o.groups(), 1);
  EXPECT_TRUE(o.bias());
  EXPECT_EQ(o.padding_mode(), ember::kZeros);
  o.padding({1, 2});
  EXPECT_EQ(*std::get<ember::ExpandingArray<2>>(o.padding()), (std::array<int64_t, 2>{1, 2}));
  o.padding(ember::kSame);
  EXPECT_EQ(std::get<nn::ConvPaddingMode>(o.padding()), ember::kSame);
  o.padding(3);
  EXPECT_EQ(*std::get<ember::ExpandingArray<2>>(o.padding()), (std::array<int64_t, 2>{3, 3}));
  EXPECT_EQ(*nn::Conv2dOptions(1, 2, {3, 5}).kernel_size(), (std::array<int64_t, 2>{3, 5}));
  EXPECT_EQ(error_of([] {
              nn::Conv2dOptions(1, 2, {3, 3, 3});
            }),
            "Expected 2 values, but instead got 3");
  nn::ConvTranspose2dOptions t(4, 2, 3);
  EXPECT_EQ(*t.output_padding(), (std::array<int64_t, 2>{0, 0}));
  EXPECT_EQ(*t.padding(), (std::array<int64_t, 2>{0, 0}));
  F::Conv2dFuncOptions f;
  EXPECT_FALSE(f.bias().defined());
  EXPECT_EQ(*f.stride(), (std::array<int64_t, 2>{1, 1}));
}

TEST(PoolAndNormOptions, LibTorchDefaults) {
  nn::MaxPool2dOptions mp(3);
  EXPECT_EQ(*mp.stride(), (std::array<int64_t, 2>{3, 3}));  // stride = kernel_size
  EXPECT_EQ(*mp.padding(), (std::array<int64_t, 2>{0, 0}));
  EXPECT_EQ(*mp.dilation(), (std::array<int64_t, 2>{1, 1}));
  EXPECT_FALSE(mp.ceil_mode());
  nn::AvgPool2dOptions ap({2, 3});
  EXPECT_EQ(*ap.stride(), (std::array<int64_t, 2>{2, 3}));
  EXPECT_TRUE(ap.count_include_pad());
  EXPECT_FALSE(ap.divisor_override().has_value());
  nn::AdaptiveAvgPool2dOptions aap({4, std::nullopt});
  EXPECT_EQ((*aap.output_size())[0], 4);
  EXPECT_FALSE((*aap.output_size())[1].has_value());
  nn::BatchNormOptions bn(8);
  EXPECT_EQ(bn.eps(), 1e-5);
  EXPECT_EQ(bn.momentum(), 0.1);
  EXPECT_TRUE(bn.affine());
  EXPECT_TRUE(bn.track_running_stats());
  F::BatchNormFuncOptions fbn;
  EXPECT_FALSE(fbn.training());
  EXPECT_EQ(fbn.momentum(), 0.1);
  nn::InstanceNormOptions in(8);
  EXPECT_FALSE(in.affine());
  EXPECT_FALSE(in.track_running_stats());
  EXPECT_EQ(in.momentum(), 0.1);
  nn::GroupNormOptions gn(2, 8);
  EXPECT_TRUE(gn.affine());
  F::PadFuncOptions pad({1, 2});
  EXPECT_EQ(pad.mode(), ember::kConstant);
  EXPECT_EQ(pad.value(), 0.0);
  nn::UpsampleOptions up;
  EXPECT_EQ(up.mode(), ember::kNearest);
  EXPECT_FALSE(up.align_corners().has_value());
  F::InterpolateFuncOptions interp;
  EXPECT_EQ(interp.mode(), ember::kNearest);
  EXPECT_EQ(interp.mode(ember::kLinear).mode(), nn::InterpolateMode::kLinear);
  EXPECT_FALSE(interp.antialias());
}

// ---- parameters, state dicts, init ----

TEST(ConvModules, ParameterAndStateDictNamesAndShapes) {
  nn::Conv2d conv(nn::Conv2dOptions(3, 8, {3, 5}).groups(1));
  EXPECT_EQ(sizes(conv->weight), (std::vector<int64_t>{8, 3, 3, 5}));
  EXPECT_EQ(sizes(conv->bias), (std::vector<int64_t>{8}));
  EXPECT_EQ(conv->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  nn::Conv2d no_bias(nn::Conv2dOptions(4, 6, 3).groups(2).bias(false));
  EXPECT_FALSE(no_bias->bias.defined());
  EXPECT_EQ(sizes(no_bias->weight), (std::vector<int64_t>{6, 2, 3, 3}));
  EXPECT_EQ(no_bias->state_dict().keys(), (std::vector<std::string>{"weight"}));
  nn::ConvTranspose2d deconv(nn::ConvTranspose2dOptions(4, 6, 3).groups(2));
  EXPECT_EQ(sizes(deconv->weight), (std::vector<int64_t>{4, 3, 3, 3}));
  nn::Conv1d c1(2, 5, 4);
  EXPECT_EQ(sizes(c1->weight), (std::vector<int64_t>{5, 2, 4}));
  nn::BatchNorm2d bn(16);
  EXPECT_EQ(bn->state_dict().keys(),
            (std::vector<std::string>{"weight", "bias", "running_mean", "running_var",
                                      "num_batches_tracked"}));
  EXPECT_EQ(bn->num_batches_tracked.dtype(), ember::kInt64);
  EXPECT_EQ(bn->num_batches_tracked.dim(), 0);
  EXPECT_TRUE(ember::equal(bn->running_var, ember::ones({16})));
  EXPECT_EQ(bn->parameters().size(), 2u);
  nn::BatchNorm2d bare(nn::BatchNorm2dOptions(4).affine(false));
  EXPECT_EQ(bare->state_dict().keys(),
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  // Sequential names, as PyTorch's.
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(1, 4, 3)), nn::BatchNorm2d(4), nn::ReLU(),
                     nn::MaxPool2d(2));
  EXPECT_EQ(seq->state_dict().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                      "1.running_var", "1.num_batches_tracked"}));
}

// PyTorch's init: kaiming_uniform_(a = sqrt(5)) and a bias in +-1/sqrt(fan_in), both with the
// bound 1/sqrt(fan_in); fan_in = weight.size(1) * kernel (out / groups for the transposed ones).
void expect_uniform_within(const Tensor& t, double bound, const std::string& what) {
  const double max = t.abs().max().item<double>();
  EXPECT_LE(max, bound * (1 + 1e-6)) << what;
  EXPECT_GT(max, 0.8 * bound) << what;
  if (t.numel() >= 1000) {
    EXPECT_NEAR(t.mean().item<double>(), 0.0, 0.05 * bound) << what;
    EXPECT_NEAR(t.var().item<double>(), bound * bound / 3, 0.1 * bound * bound / 3) << what;
  }
}

TEST(ConvModules, DefaultInitBounds) {
  ember::manual_seed(1);
  nn::Conv2d conv(16, 32, 3);
  expect_uniform_within(conv->weight, 1.0 / 12.0, "conv weight");  // fan_in 144
  expect_uniform_within(conv->bias, 1.0 / 12.0, "conv bias");
  nn::Conv2d grouped(nn::Conv2dOptions(16, 64, {3, 2}).groups(4));
  expect_uniform_within(grouped->weight, 1.0 / std::sqrt(24.0), "grouped weight");  // 4 * 6
  nn::ConvTranspose2d deconv(nn::ConvTranspose2dOptions(16, 40, 4));
  expect_uniform_within(deconv->weight, 1.0 / std::sqrt(640.0), "deconv weight");  // 40 * 16
  expect_uniform_within(deconv->bias, 1.0 / std::sqrt(640.0), "deconv bias");
  nn::Conv1d c1(8, 64, 5);
  expect_uniform_within(c1->weight, 1.0 / std::sqrt(40.0), "conv1d weight");
  // reset_parameters draws anew.
  const Tensor before = conv->weight.clone();
  conv->reset_parameters();
  EXPECT_FALSE(ember::equal(before, conv->weight));
}

// ---- printing (LibTorch's format without the "torch::nn::" prefix) ----

TEST(ModulePrinting, AsLibTorch) {
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(1, 32, 3).stride(1).padding(1))),
            "Conv2d(1, 32, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])");
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 5})
                                   .stride(2)
                                   .dilation(2)
                                   .groups(2)
                                   .bias(false)
                                   .padding_mode(ember::kReflect))),
            "Conv2d(4, 8, kernel_size=[3, 5], stride=[2, 2], dilation=[2, 2], groups=2, "
            "bias=false, padding_mode=kReflect)");
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(1, 2, 3).padding(ember::kSame))),
            "Conv2d(1, 2, kernel_size=[3, 3], stride=[1, 1], padding='same')");
  EXPECT_EQ(printed(nn::Conv1d(nn::Conv1dOptions(2, 3, 5).padding(2))),
            "Conv1d(2, 3, kernel_size=5, stride=1, padding=2)");
  EXPECT_EQ(printed(nn::ConvTranspose2d(
                nn::ConvTranspose2dOptions(64, 32, 4).stride(2).padding(1).bias(false))),
            "ConvTranspose2d(64, 32, kernel_size=[4, 4], stride=[2, 2], padding=[1, 1], "
            "bias=false)");
  EXPECT_EQ(printed(nn::MaxPool2d(2)),
            "MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], "
            "ceil_mode=false)");
  EXPECT_EQ(printed(nn::AvgPool1d(nn::AvgPool1dOptions(3).stride(2))),
            "AvgPool1d(kernel_size=3, stride=2, padding=0)");
  EXPECT_EQ(printed(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1}))),
            "AdaptiveAvgPool2d(output_size=[1, 1])");
  EXPECT_EQ(printed(nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions({std::nullopt, 3}))),
            "AdaptiveMaxPool2d(output_size=[None, 3])");
  EXPECT_EQ(printed(nn::BatchNorm2d(32)),
            "BatchNorm2d(32, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  EXPECT_EQ(
      printed(nn::BatchNorm1d(nn::BatchNorm1dOptions(4).momentum(std::nullopt).affine(false))),
      "BatchNorm1d(4, eps=1e-05, momentum=None, affine=false, track_running_stats=true)");
  EXPECT_EQ(printed(nn::ZeroPad2d(1)), "ZeroPad2d(padding=[1, 1, 1, 1])");
  EXPECT_EQ(printed(nn::ReflectionPad1d(nn::ReflectionPad1dOptions({1, 2}))),
            "ReflectionPad1d(padding=[1, 2])");
  EXPECT_EQ(printed(nn::ConstantPad2d(nn::ConstantPad2dOptions(1, 0.5))),
            "ConstantPad2d(padding=[1, 1, 1, 1], value=0.5)");
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::BatchNorm2d(4),
                     nn::ReLU(), nn::MaxPool2d(2));
  EXPECT_EQ(printed(*seq),
            "Sequential(\n"
            "  (0): Conv2d(1, 4, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])\n"
            "  (1): BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=true, "
            "track_running_stats=true)\n"
            "  (2): ReLU()\n"
            "  (3): MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, "
            "1], ceil_mode=false)\n"
            ")");
}

// ---- behaviour ----

TEST(ConvModules, UnbatchedInputsMatchABatchOfOne) {
  ember::manual_seed(2);
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding(1).padding_mode(ember::kCircular));
  const Tensor x = ember::randn({2, 5, 6});
  EXPECT_TRUE(ember::allclose(conv(x), conv(x.unsqueeze(0)).squeeze(0), 1e-6, 1e-6));
  nn::MaxPool2d pool(2);
  EXPECT_EQ(sizes(pool(x)), (std::vector<int64_t>{2, 2, 3}));
  nn::Conv1d c1(nn::Conv1dOptions(2, 4, 3).padding(1).padding_mode(ember::kReplicate));
  EXPECT_EQ(sizes(c1(ember::randn({2, 7}))), (std::vector<int64_t>{4, 7}));
}

TEST(ConvModules, PaddingModesPadBeforeTheConvolution) {
  // Each mode equals F::pad with that mode followed by an unpadded convolution.
  ember::manual_seed(3);
  const Tensor x = ember::randn({1, 2, 5, 4});
  for (auto mode : {ember::kReflect, ember::kReplicate, ember::kCircular}) {
    nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding({1, 2}).padding_mode(mode));
    const Tensor padded = F::pad(x, F::PadFuncOptions({2, 2, 1, 1}).mode(mode));
    const Tensor want = ember::conv2d(padded, conv->weight, conv->bias);
    EXPECT_TRUE(ember::allclose(conv(x), want, 1e-6, 1e-6)) << nn::mode_name(mode);
    EXPECT_EQ(sizes(conv(x)), (std::vector<int64_t>{1, 3, 5, 6}));
  }
  // 'same' with a padding mode keeps the size whatever the kernel, as PyTorch (LibTorch 1.13
  // swaps the dims' pads here: [5, 4] for this input).
  nn::Conv2d same(
      nn::Conv2dOptions(2, 2, {2, 3}).padding(ember::kSame).padding_mode(ember::kReplicate));
  EXPECT_EQ(sizes(same(x)), (std::vector<int64_t>{1, 2, 5, 4}));
  const Tensor padded = F::pad(x, F::PadFuncOptions({1, 1, 0, 1}).mode(ember::kReplicate));
  EXPECT_TRUE(
      ember::allclose(same(x), ember::conv2d(padded, same->weight, same->bias), 1e-6, 1e-6));
}

TEST(ConvModules, TransposedOutputSize) {
  nn::ConvTranspose2d deconv(nn::ConvTranspose2dOptions(2, 2, 3).stride(2).padding(1));
  const Tensor x = ember::randn({1, 2, 4, 4});
  EXPECT_EQ(sizes(deconv(x)), (std::vector<int64_t>{1, 2, 7, 7}));
  const std::vector<int64_t> full{1, 2, 8, 7};
  EXPECT_EQ(sizes(deconv->forward(x, IntArrayRef(full))), (std::vector<int64_t>{1, 2, 8, 7}));
  const std::vector<int64_t> too_big{9, 7};
  EXPECT_EQ(error_of([&] { deconv->forward(x, IntArrayRef(too_big)); }),
            "ConvTranspose2d: requested an output size of [9, 7], but valid sizes range from "
            "[7, 7] to [8, 8] (for an input of [4, 4])");
  const std::vector<int64_t> three{1, 8, 8};
  EXPECT_EQ(error_of([&] { deconv->forward(x, IntArrayRef(three)); }),
            "ConvTranspose2d: output_size must have 2 or 4 elements (got 3)");
}

TEST(ConvModules, Errors) {
  EXPECT_EQ(error_of([] { nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)); }),
            "Conv2d: in_channels must be divisible by groups");
  EXPECT_EQ(error_of([] { nn::Conv2d(nn::Conv2dOptions(4, 6, 3).groups(4)); }),
            "Conv2d: out_channels must be divisible by groups");
  EXPECT_TRUE(has(error_of([] { nn::Conv2d(nn::Conv2dOptions(4, 6, 3).groups(0)); }),
                  "groups must be a positive integer"));
  EXPECT_EQ(
      error_of([] { nn::Conv2d(nn::Conv2dOptions(1, 2, 3).stride(2).padding(ember::kSame)); }),
      "Conv2d: padding='same' is not supported for strided convolutions");
  EXPECT_TRUE(
      has(error_of([] { nn::Conv2d(nn::Conv2dOptions(1, 2, 3).padding_mode(ember::kConstant)); }),
          "padding_mode must be one of ember::kZeros, kReflect, kReplicate or kCircular"));
  EXPECT_TRUE(has(error_of([] {
                    nn::ConvTranspose2d(
                        nn::ConvTranspose2dOptions(1, 2, 3).padding_mode(ember::kReflect));
                  }),
                  "Only `zeros` padding mode is supported for ConvTranspose2d"));
  nn::Conv2d conv(2, 3, 3);
  EXPECT_TRUE(has(error_of([&] { conv(ember::randn({1, 4, 5, 5})); }), "conv2d"));
}

TEST(PoolModules, ForwardWithIndicesAndNulloptOutputSize) {
  ember::manual_seed(4);
  const Tensor x = ember::randn({2, 3, 6, 5});
  nn::MaxPool2d pool(nn::MaxPool2dOptions(2).stride(1));
  auto [values, indices] = pool->forward_with_indices(x);
  EXPECT_TRUE(ember::equal(values, pool(x)));
  EXPECT_EQ(indices.dtype(), ember::kInt64);
  // Each value is the input at its index within the plane.
  const Tensor gathered = x.flatten(2).gather(2, indices.flatten(2)).view(values.sizes());
  EXPECT_TRUE(ember::equal(gathered, values));
  nn::AdaptiveAvgPool2d keep_w(nn::AdaptiveAvgPool2dOptions({2, std::nullopt}));
  EXPECT_EQ(sizes(keep_w(x)), (std::vector<int64_t>{2, 3, 2, 5}));
  EXPECT_TRUE(ember::allclose(keep_w(x), ember::adaptive_avg_pool2d(x, {2, 5})));
  EXPECT_TRUE(has(error_of([] {
                    F::adaptive_avg_pool2d(ember::randn({4}), F::AdaptiveAvgPool2dFuncOptions(1));
                  }),
                  "Input dimension should be at least 3"));
}

TEST(Holders, EmptyStateHooksAndCalls) {
  nn::Conv2d conv = nullptr;
  EXPECT_TRUE(conv.is_empty());
  conv = nn::Conv2d(nn::Conv2dOptions(1, 2, 3));
  int calls = 0;
  conv->register_forward_hook([&](nn::Module&, const std::vector<Tensor>&, Tensor&) { ++calls; });
  conv(ember::randn({1, 1, 5, 5}));
  EXPECT_EQ(calls, 1);
  nn::ConvTranspose2d deconv(2, 1, 3);
  EXPECT_EQ(sizes(deconv(ember::randn({1, 2, 3, 3}))), (std::vector<int64_t>{1, 1, 5, 5}));
}

// A small training step of a CNN on CUDA against the same step on the CPU.
TEST(ModulesOnCuda, TrainingStepMatchesTheCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  auto make = [] {
    ember::manual_seed(5);
    return nn::Sequential(
        nn::Conv2d(nn::Conv2dOptions(1, 4, 3).padding(1)), nn::BatchNorm2d(4), nn::ReLU(),
        nn::MaxPool2d(2),
        nn::Upsample(nn::UpsampleOptions()
                         .scale_factor(std::vector<double>{2, 2})
                         .mode(ember::kBilinear)
                         .align_corners(false)),
        nn::Conv2d(nn::Conv2dOptions(4, 2, 3).padding(1).padding_mode(ember::kReflect)));
  };
  nn::Sequential cpu = make(), gpu = make();
  gpu->to(ember::kCUDA);
  ember::manual_seed(6);
  const Tensor x = ember::randn({4, 1, 8, 8});
  const Tensor yc = cpu->forward(x), yg = gpu->forward(x.to(ember::kCUDA));
  EXPECT_TRUE(ember::allclose(yg.to(ember::kCPU), yc, 1e-4, 1e-4));
  yc.pow(2).sum().backward();
  yg.pow(2).sum().backward();
  const auto pc = cpu->named_parameters(), pg = gpu->named_parameters();
  for (size_t i = 0; i < pc.size(); ++i) {
    EXPECT_TRUE(
        ember::allclose(pg[i].value().grad().to(ember::kCPU), pc[i].value().grad(), 1e-3, 1e-3))
        << pc[i].key();
  }
  const auto bc = cpu->named_buffers(), bg = gpu->named_buffers();
  for (size_t i = 0; i < bc.size(); ++i) {
    EXPECT_TRUE(bg[i].value().is_cuda());
    EXPECT_TRUE(ember::allclose(bg[i].value().to(ember::kCPU).to(ember::kFloat64),
                                bc[i].value().to(ember::kFloat64), 1e-5, 1e-5))
        << bc[i].key();
  }
}

}  // namespace
