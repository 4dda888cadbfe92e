// Models loaded from PyTorch's state dicts (tests/data/pt/, from tools/make_pt_fixtures.py): an MLP
// and a CNN with BatchNorm give PyTorch's logits; load options, half precision and GPU locations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "serialize_helpers.h"

namespace {

using namespace ember;
namespace F = ember::nn::functional;
using serialize_test::expect_error;
using serialize_test::expect_identical;
using serialize_test::ScratchDir;
using testing::ElementsAre;
using testing::IsEmpty;

const std::string kPt = std::string(EMBER_TEST_DATA_DIR) + "/pt/";

// examples/mlp.cpp's model with the fixture's widths (784 -> 16 -> 12 -> 10).
struct MLPImpl : nn::Module {
  MLPImpl() : fc1(784, 16), fc2(16, 12), fc3(12, 10) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
  }
  Tensor forward(const Tensor& x) {
    return fc3->forward(F::relu(fc2->forward(F::relu(fc1->forward(x)))));
  }
  nn::Linear fc1, fc2, fc3;
};
EMBER_MODULE(MLP);

// examples/cnn.cpp's model with --bn, with the fixture's widths (4 and 8 channels, 16 hidden).
struct CNNImpl : nn::Module {
  CNNImpl()
      : conv1(nn::Conv2dOptions(1, 4, 3).padding(1)),
        conv2(nn::Conv2dOptions(4, 8, 3).padding(1)),
        bn1(4),
        bn2(8),
        pool(nn::MaxPool2dOptions(2)),
        fc1(8 * 7 * 7, 16),
        fc2(16, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("bn1", bn1);
    register_module("bn2", bn2);
    register_module("pool", pool);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  Tensor forward(Tensor x) {  // [N, 1, 28, 28] -> [N, 10]
    x = pool->forward(F::relu(bn1->forward(conv1->forward(x))));
    x = pool->forward(F::relu(bn2->forward(conv2->forward(x))));
    x = F::relu(fc1->forward(x.flatten(1)));
    return fc2->forward(x);
  }
  nn::Conv2d conv1, conv2;
  nn::BatchNorm2d bn1, bn2;
  nn::MaxPool2d pool;
  nn::Linear fc1, fc2;
};
EMBER_MODULE(CNN);

// Loads NAME.pt into the model, runs it in eval mode on NAME_io.pt's input and compares with
// PyTorch's logits.
template <class Model>
void expect_pytorch_logits(Model& model, const std::string& name) {
  const auto io = load_pt(kPt + name + "_io.pt");
  const nn::IncompatibleKeys keys = load(model, kPt + name + ".pt");
  EXPECT_TRUE(keys.empty());
  model->eval();
  NoGradGuard no_grad;
  const Tensor logits = model->forward(io.at("input"));
  const Tensor& want = io.at("logits");
  ASSERT_EQ(logits.sizes(), want.sizes());
  EXPECT_TRUE(allclose(logits, want, 1e-5, 1e-5))
      << name << ": max |difference| " << (logits - want).abs().max().item<float>();
}

TEST(SerializePtModels, AnMlpGivesPyTorchsLogits) {
  MLP mlp;
  expect_pytorch_logits(mlp, "mlp");
}

TEST(SerializePtModels, ACnnWithBatchNormGivesPyTorchsLogits) {
  CNN cnn;
  expect_pytorch_logits(cnn, "cnn_bn");
  EXPECT_EQ(cnn->bn1->num_batches_tracked.item<int64_t>(), 100);
}

std::map<std::string, Tensor> linear_bn_file() { return load_pt(kPt + "linear_bn.pt"); }

void expect_state(const nn::Module& module, const std::map<std::string, Tensor>& expected) {
  for (const auto& item : module.state_dict()) {
    const auto it = expected.find(item.key());
    if (it != expected.end()) expect_identical(item.value(), it->second, item.key());
  }
}

TEST(SerializePtModels, NonStrictLoadsReturnTheKeysThatDidNotMatch) {
  // The file has a BatchNorm1d the module lacks: its keys are unexpected, the Linear loads.
  nn::Sequential linear(nn::Linear(3, 4));
  nn::IncompatibleKeys keys = load(linear, kPt + "linear_bn.pt", LoadOptions().strict(false));
  EXPECT_THAT(keys.missing_keys, IsEmpty());
  EXPECT_THAT(keys.unexpected_keys, ElementsAre("1.bias", "1.num_batches_tracked", "1.running_mean",
                                                "1.running_var", "1.weight"));
  expect_state(*linear, linear_bn_file());

  // The module has a layer the file lacks: its keys are missing and keep their values.
  nn::Sequential longer(nn::Linear(3, 4), nn::BatchNorm1d(4), nn::Linear(4, 2));
  const Tensor last = longer->state_dict()["2.weight"].clone();
  keys = load(longer, kPt + "linear_bn.pt", LoadOptions().strict(false));
  EXPECT_THAT(keys.missing_keys, ElementsAre("2.weight", "2.bias"));
  EXPECT_THAT(keys.unexpected_keys, IsEmpty());
  expect_state(*longer, linear_bn_file());
  expect_identical(longer->state_dict()["2.weight"], last, "2.weight kept");

  // Module::load_state_dict returns the same; a strict load that succeeds returns nothing.
  keys = longer->load_state_dict(linear_bn_file(), /*strict=*/false);
  EXPECT_THAT(keys.missing_keys, ElementsAre("2.weight", "2.bias"));
  nn::Sequential exact(nn::Linear(3, 4), nn::BatchNorm1d(4));
  EXPECT_TRUE(exact->load_state_dict(linear_bn_file()).empty());
  EXPECT_TRUE(load(exact, kPt + "linear_bn.pt", LoadOptions()).empty());

  // Strict (the default, with or without options) throws one error naming them all.
  expect_error([&] { load(longer, kPt + "linear_bn.pt", LoadOptions().strict(true)); },
               {"load: ", "linear_bn.pt", "Missing key(s)", "\"2.weight\", \"2.bias\""});
}

TEST(SerializePtModels, ShapeMismatchesThrowInEitherMode) {
  nn::Sequential wide(nn::Linear(3, 5), nn::BatchNorm1d(5));
  const auto before = wide->state_dict();
  std::map<std::string, Tensor> copy;
  for (const auto& item : before) copy[item.key()] = item.value().clone();
  for (bool strict : {true, false}) {
    expect_error([&] { load(wide, kPt + "linear_bn.pt", LoadOptions().strict(strict)); },
                 {"linear_bn.pt", "size mismatch for 0.weight"});
  }
  expect_state(*wide, copy);  // nothing changed
}

TEST(SerializePtModels, StripPrefixRemovesDataParallelsModulePrefix) {
  ScratchDir dir;
  nn::Sequential source(nn::Linear(3, 4), nn::BatchNorm1d(4));
  std::map<std::string, Tensor> prefixed;
  for (const auto& item : source->state_dict()) prefixed["module." + item.key()] = item.value();
  save(prefixed, dir.file("dp.safetensors"));

  nn::Sequential target(nn::Linear(3, 4), nn::BatchNorm1d(4));
  expect_error([&] { load(target, dir.file("dp.safetensors")); },
               {"Unexpected key(s)", "\"module.0.weight\""});
  EXPECT_TRUE(
      load(target, dir.file("dp.safetensors"), LoadOptions().strip_prefix("module.")).empty());
  for (const auto& item : source->state_dict()) {
    expect_identical(target->state_dict()[item.key()], item.value(), item.key());
  }

  // Names without the prefix are kept; a name that the stripping makes twice is an error.
  prefixed.erase("module.0.bias");
  prefixed["0.bias"] = source->state_dict()["0.bias"];
  save(prefixed, dir.file("mixed.safetensors"));
  EXPECT_TRUE(
      load(target, dir.file("mixed.safetensors"), LoadOptions().strip_prefix("module.")).empty());
  prefixed["module.0.bias"] = prefixed["0.bias"];
  save(prefixed, dir.file("twice.safetensors"));
  expect_error(
      [&] { load(target, dir.file("twice.safetensors"), LoadOptions().strip_prefix("module.")); },
      {"twice.safetensors", "'module.0.bias'", "'0.bias'"});

  // Unmatched keys are reported under their stripped names.
  nn::Sequential short_target(nn::Linear(3, 4));
  const auto keys = load(short_target, dir.file("dp.safetensors"),
                         LoadOptions().strict(false).strip_prefix("module."));
  EXPECT_THAT(keys.unexpected_keys, testing::Contains("1.running_mean"));
}

TEST(SerializePtModels, HalfPrecisionFilesConvertToTheModulesDtype) {
  // Values that float16 and bfloat16 hold exactly, so the float32 copies are exact too.
  const Tensor weight = arange(6, TensorOptions().dtype(kFloat32)).reshape({2, 3}) / 4 - 1;
  const Tensor bias = tensor({0.5f, -1.5f});
  for (const char* file : {"linear_f16.pt", "linear_bf16.pt"}) {
    nn::Linear linear(3, 2);
    EXPECT_TRUE(load(linear, kPt + file).empty()) << file;
    EXPECT_EQ(linear->weight.dtype(), kFloat32) << file;
    expect_identical(linear->weight.detach(), weight, std::string(file) + ": weight");
    expect_identical(linear->bias.detach(), bias, std::string(file) + ": bias");
  }
}

// A half-precision tensor of the given bit patterns.
Tensor half_bits(const std::vector<uint16_t>& bits, ScalarType dtype) {
  Tensor t = empty({static_cast<int64_t>(bits.size())}, TensorOptions().dtype(dtype));
  std::memcpy(t.data_ptr(), bits.data(), bits.size() * 2);
  return t;
}

TEST(SerializePtModels, HalfPrecisionWideningIsExactForEveryKindOfValue) {
  // float16: the smallest subnormal, 1, -inf, NaN, -0, the largest finite; as a transposed view.
  const Tensor w16 = half_bits({0x0001, 0x3c00, 0xfc00, 0x7e00, 0x8000, 0x7bff}, kFloat16);
  const Tensor b16 = half_bits({0x3f80, 0xc000}, kBFloat16);  // bfloat16: 1, -2
  std::map<std::string, Tensor> state{{"weight", w16.reshape({3, 2}).t()}, {"bias", b16}};
  ASSERT_FALSE(state.at("weight").is_contiguous());
  nn::Linear linear(3, 2);
  EXPECT_TRUE(linear->load_state_dict(state).empty());
  const Tensor w = linear->weight.detach();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(w[0][0].item<float>(), std::ldexp(1.0f, -24));
  EXPECT_EQ(w[1][0].item<float>(), 1.0f);
  EXPECT_EQ(w[0][1].item<float>(), -inf);
  EXPECT_TRUE(std::isnan(w[1][1].item<float>()));
  EXPECT_EQ(w[0][2].item<float>(), 0.0f);
  EXPECT_TRUE(std::signbit(w[0][2].item<float>()));
  EXPECT_EQ(w[1][2].item<float>(), 65504.0f);
  expect_identical(linear->bias.detach(), tensor({1.0f, -2.0f}), "bias");
}

TEST(SerializePtModels, TensorsSavedFromAGpuLoadOntoTheModulesDevice) {
  // Every storage of linear_bn_cuda.pt says cuda:0; the values are linear_bn.pt's.
  nn::Sequential cpu(nn::Linear(3, 4), nn::BatchNorm1d(4));
  load(cpu, kPt + "linear_bn_cuda.pt");
  for (const auto& item : cpu->state_dict()) EXPECT_TRUE(item.value().is_cpu()) << item.key();
  expect_state(*cpu, linear_bn_file());

  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  nn::Sequential gpu(nn::Linear(3, 4), nn::BatchNorm1d(4));
  gpu->to(kCUDA);
  load(gpu, kPt + "linear_bn_cuda.pt");
  std::map<std::string, Tensor> on_cpu;
  for (const auto& item : gpu->state_dict()) {
    EXPECT_TRUE(item.value().is_cuda()) << item.key();
    on_cpu[item.key()] = item.value().cpu();
  }
  for (const auto& [name, tensor] : linear_bn_file()) {
    expect_identical(on_cpu.at(name), tensor, name + " on the GPU");
  }
}

}  // namespace
