// Module holders and EMBER_MODULE, forward hooks, and the containers Sequential, ModuleList,
// ModuleDict and Functional; plus a small model moved to CUDA against the CPU (skips without a
// GPU).
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
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
using ember::nn::LinearImpl;
using ember::nn::Module;
using ember::nn::ReLU;
using ember::nn::Sequential;
using ::testing::ElementsAre;

// A user module in LibTorch's style, with a holder made by EMBER_MODULE.
class ScaleImpl : public Module {
 public:
  explicit ScaleImpl(double factor = 2.0) : factor(factor) {}
  Tensor forward(const Tensor& x) { return x * factor; }
  double factor;
};
EMBER_MODULE(Scale);

class PairImpl : public Module {
 public:
  Tensor forward(const Tensor& a, const Tensor& b) { return a + b; }
  Tensor forward_scaled(const Tensor& a, double s) { return a * s; }
};
EMBER_MODULE(Pair);

TEST(ModuleHolder, ConstructionAndAccess) {
  Scale s;  // default-constructs the Impl
  EXPECT_FALSE(s.is_empty());
  EXPECT_EQ(s->factor, 2.0);
  Scale s3(3.0);
  EXPECT_EQ((*s3).factor, 3.0);
  EXPECT_EQ(s3.get()->factor, 3.0);
  Scale copy = s3;  // copies share the module
  copy->factor = 4.0;
  EXPECT_EQ(s3->factor, 4.0);
  Scale from_ptr(std::make_shared<ScaleImpl>(5.0));
  EXPECT_EQ(from_ptr.ptr()->factor, 5.0);
  Linear empty = nullptr;
  EXPECT_TRUE(empty.is_empty());
  EXPECT_FALSE(static_cast<bool>(empty));
  EXPECT_TRUE(has(error_of([&] { empty->weight; }), "empty ModuleHolder"));
  empty = Linear(2, 3);
  EXPECT_EQ(empty->weight.sizes(), ember::IntArrayRef({3, 2}));
  EXPECT_TRUE(close(s3(ember::ones({2})), ember::full({2}, 4.0)));
  Pair pair;
  EXPECT_TRUE(close(pair(ember::ones({2}), ember::ones({2})), ember::full({2}, 2.0)));
}

TEST(ForwardHooks, PreHookChangesInputsAndHookReplacesOutput) {
  Linear fc(3, 2);
  Tensor x = ember::randn({4, 3});
  std::vector<std::string> calls;
  Tensor seen;
  auto pre = fc->register_forward_pre_hook([&](Module& m, std::vector<Tensor>& inputs) {
    calls.push_back("pre:" + m.name());
    inputs[0] = inputs[0] * 2;
  });
  auto post =
      fc->register_forward_hook([&](Module&, const std::vector<Tensor>& inputs, Tensor& output) {
        calls.push_back("post");
        seen = inputs[0];
        output = output + 1;
      });
  const Tensor expected = fc->forward(x * 2) + 1;
  EXPECT_TRUE(close(fc(x), expected));
  EXPECT_THAT(calls, ElementsAre("pre:Linear", "post"));
  EXPECT_TRUE(close(seen, x * 2));  // the hook sees the inputs the pre-hook changed
  // Hooks run through the holder only, not through ->forward.
  EXPECT_TRUE(close(fc->forward(x), ember::linear(x, fc->weight, fc->bias)));
  EXPECT_EQ(calls.size(), 2u);
  pre.remove();
  pre.remove();  // idempotent
  EXPECT_TRUE(close(fc(x), fc->forward(x) + 1));
  post.remove();
  EXPECT_FALSE(fc->has_forward_hooks());
  EXPECT_TRUE(close(fc(x), fc->forward(x)));
}

TEST(ForwardHooks, RunInOrderInsideContainersAndAfterTheModuleIsGone) {
  Sequential seq(Linear(3, 3), ReLU(), Scale(3.0));
  std::vector<int> order;
  seq[2]->register_forward_hook(
      [&](Module&, const std::vector<Tensor>&, Tensor& out) { order.push_back(1), out = out * 0; });
  seq[2]->register_forward_hook(
      [&](Module&, const std::vector<Tensor>&, Tensor& out) { order.push_back(2), out = out + 5; });
  EXPECT_TRUE(close(seq(ember::randn({2, 3})), ember::full({2, 3}, 5.0)));
  EXPECT_THAT(order, ElementsAre(1, 2));
  ember::nn::RemovableHandle handle;
  {
    Scale s;
    handle = s->register_forward_pre_hook([](Module&, std::vector<Tensor>&) {});
  }
  handle.remove();  // the module is gone: nothing to do
}

TEST(ForwardHooks, Errors) {
  Linear fc(2, 2);
  fc->register_forward_pre_hook(
      [](Module&, std::vector<Tensor>& inputs) { inputs.push_back(inputs[0]); });
  EXPECT_TRUE(has(error_of([&] {
                    fc(ember::ones({1, 2}));
                  }),
                  "Linear: a forward pre-hook changed the number of inputs from 1 to 2"));
  struct WithDouble : Module {
    Tensor forward(const Tensor& x, double s) { return x * s; }
  };
  ember::nn::ModuleHolder<WithDouble> m(std::make_shared<WithDouble>());
  EXPECT_TRUE(close(m(ember::ones({2}), 3.0), ember::full({2}, 3.0)));  // no hooks: fine
  m->register_forward_hook([](Module&, const std::vector<Tensor>&, Tensor&) {});
  EXPECT_TRUE(has(error_of([&] { m(ember::ones({2}), 3.0); }),
                  "forward hooks need forward's arguments and result to be tensors"));
  EXPECT_TRUE(has(error_of([&] { fc->register_forward_hook(nullptr); }), "empty"));
}

TEST(Sequential, ChainsForwardAndNamesChildren) {
  ember::manual_seed(3);
  Sequential seq(Linear(4, 8), ReLU(), Linear(8, 1));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_THAT(seq->named_parameters().keys(),
              ElementsAre("0.weight", "0.bias", "2.weight", "2.bias"));
  Tensor x = ember::randn({5, 4});
  auto fc0 = seq->ptr<LinearImpl>(0);
  auto& fc2 = seq->at<LinearImpl>(2);
  Tensor expected = fc2.forward(ember::relu(fc0->forward(x)));
  EXPECT_TRUE(close(seq->forward(x), expected));
  EXPECT_TRUE(close(seq(x), expected));
  EXPECT_EQ(seq[1]->name(), "ReLU");
  std::vector<std::string> names;
  for (const auto& m : *seq) names.push_back(m->name());
  EXPECT_THAT(names, ElementsAre("Linear", "ReLU", "Linear"));
  EXPECT_TRUE(has(error_of([&] { seq->ptr<LinearImpl>(1); }), "element 1 is a ReLU"));
  EXPECT_TRUE(has(error_of([&] { seq->ptr(3); }), "index 3 is out of range for 3 modules"));
  Sequential empty;
  EXPECT_TRUE(has(error_of([&] { empty->forward(x); }), "empty Sequential"));
}

TEST(Sequential, NamedPushBackExtendAndFunctional) {
  Sequential named({{"fc", Linear(2, 3)}, {"act", ember::nn::Tanh()}});
  EXPECT_THAT(named->named_children().keys(), ElementsAre("fc", "act"));
  named->push_back("scale", Scale(0.5));
  named->push_back(std::make_shared<ScaleImpl>(2.0));  // shared_ptr elements, default name
  named->push_back(ember::nn::Functional(ember::relu));
  EXPECT_THAT(named->named_children().keys(), ElementsAre("fc", "act", "scale", "3", "4"));
  Tensor x = ember::randn({3, 2});
  auto& fc = named->at<LinearImpl>(0);
  EXPECT_TRUE(close(named(x), ember::relu(ember::tanh(fc.forward(x)) * 0.5 * 2.0)));
  Sequential more(Scale(10.0));
  more->extend(*named);
  EXPECT_EQ(more->size(), 6u);
  EXPECT_TRUE(more->ptr(1) == named->ptr(0));  // shared, not copied
  EXPECT_TRUE(close(more(x), named(x * 10.0)));
  std::ostringstream os;
  os << Sequential(Linear(1, 2), ember::nn::Functional(ember::sigmoid));
  EXPECT_EQ(os.str(),
            "Sequential(\n  (0): Linear(in_features=1, out_features=2, bias=true)\n"
            "  (1): Functional()\n)");
  EXPECT_TRUE(has(error_of([] {
                    Sequential bad({{"pair", Pair()}});
                  }),
                  "element 'pair' (a Pair) needs `Tensor forward(const Tensor&)`"));
}

TEST(ModuleList, IndexesAndRegistersChildren) {
  ember::nn::ModuleList list(Linear(2, 2), ReLU());
  list->push_back(Scale(3.0));
  list->insert(0, Linear(2, 4));
  EXPECT_EQ(list->size(), 4u);
  EXPECT_THAT(list->named_children().keys(), ElementsAre("0", "1", "2", "3"));
  EXPECT_EQ(list[0]->as<LinearImpl>()->options.out_features(), 4);
  EXPECT_EQ(list->ptr<ScaleImpl>(3)->factor, 3.0);
  EXPECT_EQ(list->at<LinearImpl>(1).options.out_features(), 2);
  EXPECT_THAT(list->named_parameters().keys(),
              ElementsAre("0.weight", "0.bias", "1.weight", "1.bias"));
  int linears = 0;
  for (const auto& m : *list) linears += m->as<LinearImpl>() != nullptr;
  EXPECT_EQ(linears, 2);
  EXPECT_TRUE(has(error_of([&] { list->ptr(9); }), "out of range"));
  EXPECT_TRUE(has(error_of([&] { list->ptr<ScaleImpl>(0); }), "element 0 is a Linear"));
  struct Stack : Module {
    Stack() {
      layers = register_module("layers", ember::nn::ModuleList(Linear(2, 2), Linear(2, 2)));
    }
    std::shared_ptr<ember::nn::ModuleListImpl> layers;
  };
  auto s = std::make_shared<Stack>();
  EXPECT_THAT(s->named_parameters().keys(),
              ElementsAre("layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"));
}

TEST(ModuleDict, KeepsInsertionOrder) {
  ember::nn::ModuleDict dict({{"encoder", Linear(4, 2)}, {"act", ReLU()}});
  dict->update("decoder", Linear(2, 4));
  EXPECT_THAT(dict->keys(), ElementsAre("encoder", "act", "decoder"));
  EXPECT_THAT(dict->named_parameters().keys(),
              ElementsAre("encoder.weight", "encoder.bias", "decoder.weight", "decoder.bias"));
  EXPECT_TRUE(dict->contains("act"));
  EXPECT_EQ(dict["decoder"]->as<LinearImpl>()->options.out_features(), 4);
  EXPECT_EQ(dict->at<LinearImpl>("encoder").options.in_features(), 4);
  dict->update("act", ember::nn::Tanh());  // replaces, keeping the position
  EXPECT_EQ(dict["act"]->name(), "Tanh");
  EXPECT_THAT(dict->named_children().keys(), ElementsAre("encoder", "act", "decoder"));
  auto popped = dict->pop("act");
  EXPECT_EQ(popped->name(), "Tanh");
  EXPECT_THAT(dict->named_children().keys(), ElementsAre("encoder", "decoder"));
  EXPECT_EQ(error_of([&] { dict["nope"]; }), "Module 'nope' is not defined");
  std::vector<std::string> keys;
  for (const auto& item : *dict) keys.push_back(item.key());
  EXPECT_THAT(keys, ElementsAre("encoder", "decoder"));
  dict->clear();
  EXPECT_TRUE(dict->is_empty());
  EXPECT_EQ(dict->children().size(), 0u);
}

// A small model on CUDA against the same model on the CPU: forward and every gradient.
TEST(ModuleCuda, ForwardBackwardMatchesTheCpu) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no GPU";
  ember::manual_seed(11);
  Sequential cpu(Linear(6, 16), ember::nn::LayerNorm(std::vector<int64_t>{16}), ember::nn::GELU(),
                 Linear(16, 3));
  Sequential gpu(Linear(6, 16), ember::nn::LayerNorm(std::vector<int64_t>{16}), ember::nn::GELU(),
                 Linear(16, 3));
  gpu->load_state_dict(cpu->state_dict());
  Tensor w = gpu->ptr<LinearImpl>(0)->weight;
  gpu->to(ember::kCUDA);
  EXPECT_TRUE(w.is_cuda());
  Tensor x = ember::randn({8, 6});
  Tensor y_cpu = cpu(x);
  Tensor y_gpu = gpu(x.to(ember::kCUDA));
  EXPECT_TRUE(close(y_gpu.cpu(), y_cpu, 1e-4));
  (y_cpu * y_cpu).sum().backward();
  (y_gpu * y_gpu).sum().backward();
  auto pc = cpu->named_parameters();
  auto pg = gpu->named_parameters();
  for (const auto& item : pc) {
    EXPECT_TRUE(pg[item.key()].grad().is_cuda()) << item.key();
    EXPECT_TRUE(close(pg[item.key()].grad().cpu(), item.value().grad(), 1e-3)) << item.key();
  }
  gpu->to(ember::kCPU);
  EXPECT_TRUE(w.is_cpu());
  EXPECT_TRUE(w.grad().is_cpu());
}

}  // namespace
