// LibTorch's torch::save archives (TorchScript-style zips of __torch__.Module objects) read by
// ember::load/load_pt: modules, tensors, lists of tensors and SGD/Adam state, checked against
// the values tools/make_libtorch_archives.cpp wrote beside them; hostile variants refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "serialize_helpers.h"

namespace {

using namespace ember;
using serialize_test::expect_error;

const std::string kPt = std::string(EMBER_TEST_DATA_DIR) + "/pt/";

struct Expected {
  std::vector<int64_t> sizes;
  std::vector<double> values;
};

// tests/data/pt/libtorch_values.txt: "name s0,s1: v0 v1 ..." per line.
const std::map<std::string, Expected>& expected() {
  static const std::map<std::string, Expected> table = [] {
    std::map<std::string, Expected> out;
    std::ifstream in(kPt + "libtorch_values.txt");
    EXPECT_TRUE(in.good());
    std::string line;
    while (std::getline(in, line)) {
      const size_t space = line.find(' '), colon = line.find(':');
      Expected e;
      std::stringstream sizes(line.substr(space + 1, colon - space - 1));
      std::string size;
      while (std::getline(sizes, size, ',')) e.sizes.push_back(std::stoll(size));
      std::stringstream values(line.substr(colon + 1));
      double v = 0;
      while (values >> v) e.values.push_back(v);
      out[line.substr(0, space)] = e;
    }
    return out;
  }();
  return table;
}

Tensor expected_tensor(const std::string& name, ScalarType dtype) {
  const auto it = expected().find(name);
  EXPECT_NE(it, expected().end()) << name;
  if (it == expected().end()) return {};
  return tensor(it->second.values, kFloat64).reshape(it->second.sizes).to(dtype);
}

// Exact: the values were written with %.17g from the saved tensors.
void expect_values(const Tensor& actual, const std::string& name) {
  ASSERT_TRUE(actual.defined()) << name;
  const Tensor want = expected_tensor(name, actual.dtype());
  ASSERT_EQ(actual.sizes().vec(), want.sizes().vec()) << name;
  EXPECT_TRUE(actual.equal(want)) << name;
}

nn::Sequential make_seq() {
  return nn::Sequential(nn::Linear(4, 3), nn::BatchNorm1d(3), nn::Linear(3, 2));
}

struct Block : nn::Module {
  Block() {
    fc = register_module("fc", nn::Linear(3, 2));
    scale = register_parameter("scale", ones({2}));
    count = register_buffer("count", zeros({1}, kInt64));
  }
  nn::Linear fc{nullptr};
  Tensor scale, count;
};

struct Net : nn::Module {
  Net() {
    encoder = register_module("encoder", std::make_shared<Block>());
    head = register_module("head", nn::Linear(2, 4));
    bias = register_parameter("bias", zeros({4}));
    mask = register_buffer("mask", ones({2, 2}));
  }
  std::shared_ptr<Block> encoder;
  nn::Linear head{nullptr};
  Tensor bias, mask;
};

void expect_module(const nn::Module& m, const std::string& prefix) {
  size_t checked = 0;
  for (const auto& item : m.named_parameters()) {
    expect_values(item.value(), prefix + item.key());
    ++checked;
  }
  for (const auto& item : m.named_buffers()) {
    expect_values(item.value(), prefix + item.key());
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(SerializeLibTorch, SequentialLoadsIntoTheSameEmberModel) {
  nn::Sequential seq = make_seq();
  load(seq, kPt + "libtorch_sequential.pt");
  expect_module(*seq, "sequential.");
  EXPECT_EQ(seq->named_buffers().size(), 3u);  // running_mean, running_var, num_batches_tracked
}

TEST(SerializeLibTorch, CustomModuleWithNestedSubmodules) {
  auto net = std::make_shared<Net>();
  load(net, kPt + "libtorch_custom.pt");
  expect_module(*net, "custom.");
  const std::map<std::string, Tensor> flat = load_pt(kPt + "libtorch_custom.pt");
  std::vector<std::string> names;
  for (const auto& [name, t] : flat) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"bias", "encoder.count", "encoder.fc.bias",
                                             "encoder.fc.weight", "encoder.scale", "head.bias",
                                             "head.weight", "mask"}));
  EXPECT_EQ(flat.at("encoder.count").dtype(), kInt64);
}

TEST(SerializeLibTorch, WrongModelNamesWhatDiffers) {
  nn::Sequential other(nn::Linear(4, 3), nn::Linear(3, 2));
  expect_error([&] { load(other, kPt + "libtorch_sequential.pt"); },
               {"libtorch_sequential.pt", "1.running_mean"});
}

TEST(SerializeLibTorch, TensorAndListOfTensors) {
  Tensor t;
  load(t, kPt + "libtorch_tensor.pt");
  expect_values(t, "tensor");
  EXPECT_EQ(t.dtype(), kFloat32);
  std::vector<Tensor> list;
  load(list, kPt + "libtorch_tensors.pt");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].dtype(), kFloat64);
  EXPECT_EQ(list[1].dtype(), kInt64);
  expect_values(list[0], "list.0");
  expect_values(list[1], "list.1");
}

// The parameters as they were when torch::save(optimizer) ran, and LibTorch's next step.
template <class Opt, class Options>
void check_optimizer(const std::string& name, Options options,
                     const std::function<void(const optim::StateDict&)>& check_state) {
  nn::Sequential seq = make_seq();
  seq->eval();
  {
    NoGradGuard guard;
    for (auto& item : seq->named_parameters())
      item.value().copy_(expected_tensor(name + ".after." + item.key(), kFloat32));
    for (auto& item : seq->named_buffers())
      item.value().copy_(expected_tensor(name + ".param." + item.key(), item.value().dtype()));
  }
  Opt opt(seq->parameters(), options);
  ember::load(opt, kPt + "libtorch_" + name + ".pt");  // LibTorch's torch::load(optimizer, path)
  check_state(opt.state_dict());
  opt.zero_grad();
  const Tensor x = arange(8, kFloat32).reshape({2, 4}).div(8).sub(0.3);
  seq->forward(x).pow(2).sum().backward();
  opt.step();
  for (const auto& item : seq->named_parameters()) {
    const Tensor want = expected_tensor(name + ".next." + item.key(), kFloat32);
    EXPECT_TRUE(item.value().allclose(want, 1e-5, 1e-7)) << name << " " << item.key();
  }
}

TEST(SerializeLibTorch, SgdWithMomentumResumesLikeLibTorch) {
  check_optimizer<optim::SGD>("sgd", optim::SGDOptions(0.5), [](const optim::StateDict& d) {
    EXPECT_DOUBLE_EQ(d.find("param_groups.0.lr")->item<double>(), 0.1);
    EXPECT_DOUBLE_EQ(d.find("param_groups.0.momentum")->item<double>(), 0.9);
    for (int i = 0; i < 6; ++i)
      EXPECT_NE(d.find("state." + std::to_string(i) + ".momentum_buffer"), nullptr) << i;
    EXPECT_EQ(d.find("state.0.momentum_buffer")->sizes().vec(), (std::vector<int64_t>{3, 4}));
  });
}

TEST(SerializeLibTorch, AdamAfterTwoStepsResumesLikeLibTorch) {
  check_optimizer<optim::Adam>("adam", optim::AdamOptions(0.5), [](const optim::StateDict& d) {
    EXPECT_DOUBLE_EQ(d.find("param_groups.0.lr")->item<double>(), 0.01);
    EXPECT_DOUBLE_EQ(d.find("param_groups.0.eps")->item<double>(), 1e-8);
    for (int i = 0; i < 6; ++i) {
      const std::string p = "state." + std::to_string(i) + ".";
      ASSERT_NE(d.find(p + "step"), nullptr) << i;
      EXPECT_EQ(d.find(p + "step")->item<double>(), 2.0) << i;
      EXPECT_NE(d.find(p + "exp_avg"), nullptr) << i;
      EXPECT_NE(d.find(p + "exp_avg_sq"), nullptr) << i;
    }
  });
}

TEST(SerializeLibTorch, OptimizerArchiveIntoTheWrongOptimizer) {
  nn::Sequential seq = make_seq();
  optim::SGD sgd(seq->parameters(), optim::SGDOptions(0.1));
  expect_error([&] { sgd.load_state_dict(load_pt(kPt + "libtorch_adam.pt")); },
               {"missing key 'param_groups.0.momentum'"});
}

TEST(SerializeLibTorch, CodeAndConstantsAreNeverRead) {
  // code/__torch__.py calls os.system and constants.pkl names it: neither is read.
  Tensor t;
  load(t, kPt + "libtorch_hostile_code.pt");
  expect_values(t, "tensor");
}

TEST(SerializeLibTorch, RefusesWhatIsNotAnInertArchiveObject) {
  expect_error([] { load_pt(kPt + "libtorch_os_system.pt"); },
               {"libtorch_os_system.pt", "global 'os.system' is not allowed"});
  expect_error([] { load_pt(kPt + "libtorch_script_class.pt"); },
               {"libtorch_script_class.pt", "'__torch__.evil.Payload'", "TorchScript"});
  expect_error([] { load_pt(kPt + "libtorch_call_module.pt"); },
               {"libtorch_call_module.pt", "'__torch__.Module' cannot be called"});
  expect_error([] { load_pt(kPt + "libtorch_newobj_dict.pt"); },
               {"libtorch_newobj_dict.pt", "'collections.OrderedDict' cannot be created"});
  expect_error([] { load_pt(kPt + "libtorch_cycle.pt"); },
               {"libtorch_cycle.pt", "levels deep (or refer to themselves)"});
}

}  // namespace
