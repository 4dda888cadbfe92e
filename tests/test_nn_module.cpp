// nn::Module and OrderedDict: registration and dotted names, traversal, train/eval, in-place
// to(), zero_grad, state dicts (round trip and every strict-mode error), printing, and names.
// Holders, hooks and containers are in test_nn_containers.cpp.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "autograd_helpers.h"

namespace {

using agtest::close;
using agtest::error_of;
using agtest::has;
using ember::Tensor;
using ember::nn::Linear;
using ember::nn::Module;
using ::testing::ElementsAre;

struct Net : Module {
  Net() : fc1(4, 3), seq(Linear(3, 2), ember::nn::ReLU()) {
    register_module("fc1", fc1);
    register_module("seq", seq);
    scale = register_parameter("scale", ember::ones({1}));
    steps = register_buffer("steps", ember::zeros({1}, ember::kInt64));
    mean = register_buffer("mean", ember::zeros({2}));
  }
  Tensor forward(const Tensor& x) { return seq(fc1(x)) * scale; }
  Linear fc1;
  ember::nn::Sequential seq;
  Tensor scale, steps, mean;
};

TEST(OrderedDict, KeepsInsertionOrderAndFindsByKey) {
  ember::OrderedDict<std::string, int> d("Thing");
  d.insert("b", 2);
  d.insert("a", 1);
  d.insert("c", 3);
  EXPECT_THAT(d.keys(), ElementsAre("b", "a", "c"));
  EXPECT_THAT(d.values(), ElementsAre(2, 1, 3));
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d["a"], 1);
  EXPECT_EQ(*d.find("c"), 3);
  EXPECT_EQ(d.find("z"), nullptr);
  EXPECT_TRUE(d.contains("b"));
  EXPECT_FALSE(d.contains("z"));
  EXPECT_EQ(d[1].key(), "a");
  std::vector<std::string> seen;
  for (const auto& item : d) seen.push_back(item.key() + "=" + std::to_string(item.value()));
  EXPECT_THAT(seen, ElementsAre("b=2", "a=1", "c=3"));
  d.update("a", 10);
  d.erase("b");
  EXPECT_THAT(d.keys(), ElementsAre("a", "c"));
  EXPECT_EQ(d["c"], 3);
  EXPECT_EQ(d.items().front().value(), 10);
}

TEST(OrderedDict, ErrorsNameTheKey) {
  ember::OrderedDict<std::string, int> d("Parameter");
  d.insert("w", 1);
  EXPECT_EQ(error_of([&] { d["missing"]; }), "Parameter 'missing' is not defined");
  EXPECT_EQ(error_of([&] { d.insert("w", 2); }), "Parameter 'w' already defined");
  EXPECT_TRUE(has(error_of([&] { d[5]; }), "out of range"));
}

TEST(Module, RegistrationGivesDottedNamesInOrder) {
  auto net = std::make_shared<Net>();
  EXPECT_THAT(net->named_parameters().keys(),
              ElementsAre("scale", "fc1.weight", "fc1.bias", "seq.0.weight", "seq.0.bias"));
  EXPECT_THAT(net->named_parameters(/*recurse=*/false).keys(), ElementsAre("scale"));
  EXPECT_EQ(net->parameters().size(), 5u);
  EXPECT_TRUE(net->parameters()[1].is_same(net->fc1->weight));
  EXPECT_THAT(net->named_buffers().keys(), ElementsAre("steps", "mean"));
  EXPECT_THAT(net->named_children().keys(), ElementsAre("fc1", "seq"));
  EXPECT_EQ(net->children().size(), 2u);
  EXPECT_THAT(net->named_modules().keys(), ElementsAre("", "fc1", "seq", "seq.0", "seq.1"));
  EXPECT_THAT(net->named_modules("net").keys(),
              ElementsAre("net", "net.fc1", "net.seq", "net.seq.0", "net.seq.1"));
  EXPECT_EQ(net->modules(/*include_self=*/false).size(), 4u);
  for (const Tensor& p : net->parameters()) EXPECT_TRUE(p.requires_grad());
  for (const Tensor& b : net->buffers()) EXPECT_FALSE(b.requires_grad());
  EXPECT_TRUE(net->named_parameters()["fc1.weight"].is_same(net->fc1->weight));
}

TEST(Module, SharedParametersAreListedOnce) {
  struct Tied : Module {
    Tied() {
      a = register_module("a", std::make_shared<ember::nn::LinearImpl>(2, 2));
      b = register_module("b", a);
    }
    std::shared_ptr<ember::nn::LinearImpl> a, b;
  };
  auto m = std::make_shared<Tied>();
  EXPECT_THAT(m->named_parameters().keys(), ElementsAre("a.weight", "a.bias"));
  EXPECT_THAT(m->named_modules().keys(), ElementsAre("", "a"));
  // The state dict keeps both names, as PyTorch's.
  EXPECT_THAT(m->state_dict().keys(), ElementsAre("a.weight", "a.bias", "b.weight", "b.bias"));
}

TEST(Module, RegistrationErrors) {
  Module m;
  m.register_parameter("w", ember::zeros({2}));
  EXPECT_EQ(error_of([&] { m.register_parameter("w", ember::zeros({2})); }),
            "Parameter 'w' already defined");
  EXPECT_TRUE(has(error_of([&] { m.register_buffer("a.b", ember::zeros({2})); }),
                  "must not contain a dot"));
  EXPECT_TRUE(
      has(error_of([&] { m.register_parameter("", ember::zeros({2})); }), "must not be empty"));
  EXPECT_TRUE(has(error_of([&] { m.register_module("x", std::shared_ptr<Module>()); }), "null"));
  // Listing itself needs a shared_ptr owner.
  EXPECT_TRUE(has(error_of([&] { m.modules(); }), "std::shared_ptr"));
  EXPECT_EQ(m.modules(/*include_self=*/false).size(), 0u);
}

TEST(Module, ParameterFromComputedTensorBecomesALeaf) {
  Module m;
  Tensor base = ember::ones({2}, ember::requires_grad());
  Tensor& p = m.register_parameter("p", base * 2);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
  Tensor& frozen = m.register_parameter("frozen", ember::ones({2}), /*requires_grad=*/false);
  EXPECT_FALSE(frozen.requires_grad());
  m.register_parameter("absent", Tensor(), false);
  EXPECT_THAT(m.named_parameters().keys(), ElementsAre("p", "frozen"));
}

TEST(Module, TrainEvalRecurse) {
  auto net = std::make_shared<Net>();
  EXPECT_TRUE(net->is_training());
  net->eval();
  EXPECT_FALSE(net->is_training());
  EXPECT_FALSE(net->seq[1]->is_training());
  EXPECT_FALSE(net->fc1->is_training());
  net->train();
  EXPECT_TRUE(net->seq->ptr(0)->is_training());
  net->train(false);
  EXPECT_FALSE(net->seq->is_training());
}

TEST(Module, ApplyVisitsParentsFirstWithNames) {
  auto net = std::make_shared<Net>();
  std::vector<std::string> names;
  net->apply([&](const std::string& name, Module& m) { names.push_back(name + ":" + m.name()); });
  EXPECT_THAT(names,
              ElementsAre(":Net", "fc1:Linear", "seq:Sequential", "seq.0:Linear", "seq.1:ReLU"));
  int count = 0;
  net->apply([&](Module&) { ++count; });
  EXPECT_EQ(count, 5);
}

TEST(Module, ToDtypeMovesInPlaceKeepingIdentityAndGrad) {
  auto net = std::make_shared<Net>();
  Tensor w = net->fc1->weight;  // a handle held elsewhere, as an optimizer's
  const Tensor before = w.detach().clone();
  net->forward(ember::randn({5, 4})).sum().backward();
  ASSERT_TRUE(w.grad().defined());
  const Tensor grad_before = w.grad().clone();
  net->to(ember::kFloat64);
  EXPECT_EQ(w.dtype(), ember::kFloat64);
  EXPECT_TRUE(w.is_same(net->fc1->weight));
  EXPECT_TRUE(w.is_leaf());
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(close(w, before));
  EXPECT_EQ(w.grad().dtype(), ember::kFloat64);
  EXPECT_TRUE(close(w.grad(), grad_before));
  EXPECT_EQ(net->mean.dtype(), ember::kFloat64);
  EXPECT_EQ(net->steps.dtype(), ember::kInt64);  // integer buffers keep their dtype
  // Training continues in float64: gradients accumulate into the moved grad.
  w.mutable_grad() = Tensor();
  net->forward(ember::randn({5, 4}, ember::kFloat64)).sum().backward();
  EXPECT_EQ(w.grad().dtype(), ember::kFloat64);
  net->to(ember::Device(ember::kCPU), ember::kFloat32);
  EXPECT_EQ(w.dtype(), ember::kFloat32);
  net->to(ember::kCPU);  // a no-op
  EXPECT_EQ(w.device(), ember::Device(ember::kCPU));
}

TEST(Module, ZeroGrad) {
  auto net = std::make_shared<Net>();
  net->forward(ember::randn({2, 4})).sum().backward();
  net->zero_grad(/*set_to_none=*/false);
  for (const Tensor& p : net->parameters()) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().abs().sum().item<float>(), 0.0f);
  }
  net->zero_grad();
  for (const Tensor& p : net->parameters()) EXPECT_FALSE(p.grad().defined());
}

TEST(Module, StateDictRoundTrip) {
  ember::manual_seed(1);
  auto a = std::make_shared<Net>();
  auto b = std::make_shared<Net>();
  auto sd = a->state_dict();
  EXPECT_THAT(sd.keys(), ElementsAre("scale", "steps", "mean", "fc1.weight", "fc1.bias",
                                     "seq.0.weight", "seq.0.bias"));
  for (const auto& item : sd) EXPECT_FALSE(item.value().requires_grad());
  EXPECT_FALSE(close(b->fc1->weight, a->fc1->weight));
  Tensor w_b = b->fc1->weight;
  b->load_state_dict(sd);
  EXPECT_TRUE(w_b.is_same(b->fc1->weight));  // copied in place
  for (const auto& item : b->state_dict()) EXPECT_TRUE(close(item.value(), sd[item.key()]));
  Tensor x = ember::randn({3, 4});
  EXPECT_TRUE(close(a->forward(x), b->forward(x)));
  // The state dict shares memory with the module.
  sd["mean"].fill_(7);
  EXPECT_EQ(a->mean[0].item<float>(), 7.0f);
  // std::map (as ember::load_tensors returns) loads too, converting dtypes.
  std::map<std::string, Tensor> m;
  for (const auto& item : sd) m[item.key()] = item.value().to(ember::kFloat64);
  m["steps"] = ember::full({1}, 5, ember::kInt64);
  b->load_state_dict(m);
  EXPECT_EQ(b->steps.item<int64_t>(), 5);
  EXPECT_EQ(b->mean.dtype(), ember::kFloat32);
}

TEST(Module, LoadStateDictStrictErrors) {
  auto net = std::make_shared<Net>();
  auto sd = net->state_dict();
  ember::OrderedDict<std::string, Tensor> bad;
  for (const auto& item : sd) {
    if (item.key() == "fc1.bias" || item.key() == "mean") continue;
    bad.insert(item.key(), item.key() == "fc1.weight" ? ember::zeros({3, 5}) : item.value());
  }
  bad.insert("fc1.extra", ember::zeros({1}));
  bad.insert("head.weight", ember::zeros({1}));
  const Tensor before = net->seq->ptr<ember::nn::LinearImpl>(0)->weight.clone();
  EXPECT_EQ(error_of([&] { net->load_state_dict(bad); }),
            "Error(s) in loading state_dict for Net:\n"
            "\tMissing key(s) in state_dict: \"mean\", \"fc1.bias\".\n"
            "\tUnexpected key(s) in state_dict: \"fc1.extra\", \"head.weight\".\n"
            "\tsize mismatch for fc1.weight: copying a param with shape [3, 5] from checkpoint, "
            "the shape in current model is [3, 4].");
  // Nothing was copied by the failed load.
  EXPECT_TRUE(close(net->seq->ptr<ember::nn::LinearImpl>(0)->weight, before));
  // Non-strict: missing and unexpected keys pass, size mismatches still throw.
  EXPECT_EQ(error_of([&] { net->load_state_dict(bad, /*strict=*/false); }),
            "Error(s) in loading state_dict for Net:\n"
            "\tsize mismatch for fc1.weight: copying a param with shape [3, 5] from checkpoint, "
            "the shape in current model is [3, 4].");
  bad.update("fc1.weight", ember::full({3, 4}, 2.0));
  net->load_state_dict(bad, /*strict=*/false);
  EXPECT_EQ(net->fc1->weight.sum().item<float>(), 24.0f);
  // Only one kind of problem.
  ember::OrderedDict<std::string, Tensor> partial;
  for (const auto& item : sd) {
    if (item.key() != "scale") partial.insert(item.key(), item.value());
  }
  EXPECT_EQ(error_of([&] { net->load_state_dict(partial); }),
            "Error(s) in loading state_dict for Net:\n"
            "\tMissing key(s) in state_dict: \"scale\".");
}

TEST(Module, PrintsTheTreeAsPyTorch) {
  struct Small : Module {
    Small() {
      register_module("fc1", Linear(784, 128));
      register_module("seq", ember::nn::Sequential(ember::nn::ReLU()));
    }
  };
  Small net;
  std::ostringstream os;
  os << net;
  EXPECT_EQ(os.str(),
            "Small(\n"
            "  (fc1): Linear(in_features=784, out_features=128, bias=true)\n"
            "  (seq): Sequential(\n"
            "    (0): ReLU()\n"
            "  )\n"
            ")");
  std::ostringstream leaf;
  leaf << Linear(ember::nn::LinearOptions(2, 3).bias(false));
  EXPECT_EQ(leaf.str(), "Linear(in_features=2, out_features=3, bias=false)");
  std::ostringstream empty;
  empty << Module();
  EXPECT_EQ(empty.str(), "Module");
}

TEST(Module, NameIsTheDemangledTypeWithoutImpl) {
  EXPECT_EQ(Linear(2, 2)->name(), "Linear");
  EXPECT_EQ(Net().name(), "Net");
  EXPECT_EQ(Module("Custom").name(), "Custom");
  EXPECT_EQ(ember::nn::LayerNorm(std::vector<int64_t>{3})->name(), "LayerNorm");
}

TEST(Module, AsCastsToTheConcreteType) {
  std::shared_ptr<Module> m = Linear(2, 3).ptr();
  ASSERT_NE(m->as<Linear>(), nullptr);
  EXPECT_EQ(m->as<ember::nn::LinearImpl>()->options.out_features(), 3);
  EXPECT_EQ(m->as<ember::nn::ReLU>(), nullptr);
}

}  // namespace
