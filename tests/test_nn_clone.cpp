// Module::clone (LibTorch's Cloneable): deep copies of Linear, Conv2d, BatchNorm2d, containers
// and user Cloneable modules have equal but independent parameters and buffers, same names.
#include <ember/cuda/api.h>
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

using ember::Tensor;
namespace nn = ember::nn;

// Same names, equal values, but different storage and requires_grad kept, for every parameter
// and buffer of the two modules.
void expect_equal_independent(const nn::Module& a, const nn::Module& b) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.keys(), pb.keys());
  for (size_t i = 0; i < pa.size(); ++i) {
    const Tensor& x = pa[i].value();
    const Tensor& y = pb[i].value();
    EXPECT_TRUE(ember::equal(x, y)) << pa[i].key();
    EXPECT_NE(x.data_ptr(), y.data_ptr()) << pa[i].key();
    EXPECT_EQ(x.requires_grad(), y.requires_grad()) << pa[i].key();
    EXPECT_TRUE(y.is_leaf()) << pa[i].key();
  }
  auto ba = a.named_buffers(), bb = b.named_buffers();
  ASSERT_EQ(ba.keys(), bb.keys());
  for (size_t i = 0; i < ba.size(); ++i) {
    EXPECT_TRUE(ember::equal(ba[i].value(), bb[i].value())) << ba[i].key();
    EXPECT_EQ(ba[i].value().dtype(), bb[i].value().dtype()) << ba[i].key();
    EXPECT_NE(ba[i].value().data_ptr(), bb[i].value().data_ptr()) << ba[i].key();
  }
}

TEST(Clone, LinearIsADeepCopyOfTheSameType) {
  nn::Linear lin(3, 2);
  auto copy = std::dynamic_pointer_cast<nn::LinearImpl>(lin->clone());
  ASSERT_NE(copy, nullptr);
  expect_equal_independent(*lin, *copy);
  // The public members are the registered parameters of the copy.
  EXPECT_EQ(copy->weight.data_ptr(), copy->named_parameters()["weight"].data_ptr());
  EXPECT_EQ(copy->options.in_features(), 3);
  {
    ember::NoGradGuard g;
    lin->weight.fill_(2);
    copy->bias.fill_(-1);
  }
  EXPECT_FALSE(ember::equal(lin->weight, copy->weight));
  EXPECT_FALSE(ember::equal(lin->bias, copy->bias));
  EXPECT_TRUE(ember::equal(copy->weight.sum(), copy->named_parameters()["weight"].sum()));
  // The copy computes the same function and trains on its own.
  auto x = ember::randn({4, 3});
  nn::Linear lin2(3, 2);
  auto c2 = std::dynamic_pointer_cast<nn::LinearImpl>(lin2->clone());
  EXPECT_TRUE(ember::allclose(lin2(x), c2->forward(x)));
  c2->forward(x).sum().backward();
  EXPECT_TRUE(c2->weight.grad().defined());
  EXPECT_FALSE(lin2->weight.grad().defined());
}

TEST(Clone, ParametersAreRebuiltByResetAsLibTorch) {
  // LibTorch's clone set_data()s the values into the parameters reset() made, so a frozen
  // parameter of the original requires grad in the copy.
  nn::Linear lin(2, 2);
  lin->weight.requires_grad_(false);
  auto copy = std::dynamic_pointer_cast<nn::LinearImpl>(lin->clone());
  EXPECT_TRUE(copy->weight.requires_grad());
  EXPECT_TRUE(copy->bias.requires_grad());
  EXPECT_TRUE(ember::equal(copy->weight, lin->weight));
}

TEST(Clone, LinearWithoutBias) {
  nn::Linear lin(nn::LinearOptions(3, 2).bias(false));
  auto copy = std::dynamic_pointer_cast<nn::LinearImpl>(lin->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_FALSE(copy->bias.defined());
  expect_equal_independent(*lin, *copy);
}

TEST(Clone, Conv2dAndBatchNorm2dCopyParametersAndBuffers) {
  nn::Conv2d conv(nn::Conv2dOptions(2, 4, 3).stride(2).padding(1));
  auto cc = std::dynamic_pointer_cast<nn::Conv2dImpl>(conv->clone());
  ASSERT_NE(cc, nullptr);
  expect_equal_independent(*conv, *cc);
  auto x = ember::randn({1, 2, 6, 6});
  EXPECT_TRUE(ember::allclose(conv(x), cc->forward(x)));

  nn::BatchNorm2d bn(4);
  bn(ember::randn({3, 4, 2, 2}));  // moves the running stats and the batch count
  auto bc = std::dynamic_pointer_cast<nn::BatchNorm2dImpl>(bn->clone());
  ASSERT_NE(bc, nullptr);
  expect_equal_independent(*bn, *bc);
  EXPECT_EQ(bc->named_buffers()["num_batches_tracked"].item<int64_t>(), 1);
  bn(ember::randn({3, 4, 2, 2}));
  EXPECT_EQ(bc->named_buffers()["num_batches_tracked"].item<int64_t>(), 1);
  EXPECT_FALSE(ember::equal(bn->running_mean, bc->running_mean));
  EXPECT_EQ(bc->running_mean.data_ptr(), bc->named_buffers()["running_mean"].data_ptr());
}

TEST(Clone, SequentialClonesEveryElementKeepingNamesAndMode) {
  nn::Sequential seq({{"fc", nn::Linear(3, 4)}, {"act", nn::ReLU()}, {"bn", nn::BatchNorm1d(4)}});
  seq->eval();
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->size(), 3u);
  EXPECT_FALSE(copy->is_training());
  EXPECT_FALSE(copy->ptr(2)->is_training());
  expect_equal_independent(*seq, *copy);
  EXPECT_NE(copy->ptr(0).get(), seq->ptr(0).get());
  auto x = ember::randn({5, 3});
  EXPECT_TRUE(ember::allclose(seq->forward(x), copy->forward(x)));
  {
    ember::NoGradGuard g;
    seq->ptr<nn::LinearImpl>(0)->weight.zero_();
  }
  EXPECT_FALSE(ember::allclose(seq->forward(x), copy->forward(x)));

  nn::ModuleList list(nn::Linear(2, 2), nn::Conv2d(1, 1, 1));
  auto lc = std::dynamic_pointer_cast<nn::ModuleListImpl>(list->clone());
  ASSERT_NE(lc, nullptr);
  EXPECT_EQ(lc->size(), 2u);
  expect_equal_independent(*list, *lc);

  nn::ModuleDict dict({{"a", nn::Linear(2, 2)}, {"b", nn::BatchNorm2d(2)}});
  auto dc = std::dynamic_pointer_cast<nn::ModuleDictImpl>(dict->clone());
  ASSERT_NE(dc, nullptr);
  EXPECT_EQ(dc->keys(), (std::vector<std::string>{"a", "b"}));
  expect_equal_independent(*dict, *dc);
}

// A user module as LibTorch's: Cloneable, with reset() building everything.
struct NetImpl : nn::Cloneable<NetImpl> {
  explicit NetImpl(int64_t width) : width(width) { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(2, width));
    seq = register_module("seq", nn::Sequential(nn::Linear(width, 1)));
    scale = register_parameter("scale", ember::ones({1}));
    count = register_buffer("count", ember::zeros({1}, ember::kInt64));
  }
  Tensor forward(const Tensor& x) { return seq->forward(fc(x)) * scale; }
  int64_t width;
  nn::Linear fc = nullptr;
  nn::Sequential seq = nullptr;
  Tensor scale, count;
};
EMBER_MODULE(Net);

TEST(Clone, CloneableUserModuleKeepsItsMembersInSync) {
  Net net(3);
  {
    ember::NoGradGuard g;
    net->scale.fill_(4);
    net->count.fill_(7);
  }
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone());
  ASSERT_NE(copy, nullptr);
  expect_equal_independent(*net, *copy);
  EXPECT_EQ(copy->width, 3);
  EXPECT_EQ(copy->count.item<int64_t>(), 7);
  // Members point at the registered children and tensors of the copy.
  EXPECT_EQ(copy->fc.get(), copy->named_children()["fc"].get());
  EXPECT_EQ(copy->seq.get(), copy->named_children()["seq"].get());
  EXPECT_EQ(copy->fc->weight.data_ptr(), copy->named_parameters()["fc.weight"].data_ptr());
  EXPECT_EQ(copy->scale.data_ptr(), copy->named_parameters()["scale"].data_ptr());
  auto x = ember::randn({2, 2});
  EXPECT_TRUE(ember::allclose(net->forward(x), copy->forward(x)));
  {
    ember::NoGradGuard g;
    copy->fc->weight.zero_();
  }
  EXPECT_FALSE(ember::equal(net->fc->weight, copy->fc->weight));
  // Cloning through the holder of the copy works again (a clone of a clone).
  auto again = std::dynamic_pointer_cast<NetImpl>(copy->clone());
  ASSERT_NE(again, nullptr);
  expect_equal_independent(*copy, *again);
}

struct Plain : nn::Module {
  Plain() { w = register_parameter("w", ember::ones({2})); }
  Tensor w;
};

TEST(Clone, PlainModuleThrowsAsLibTorch) {
  auto p = std::make_shared<Plain>();
  try {
    p->clone();
    FAIL() << "clone() of a plain Module must throw";
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("clone() has not been implemented"), std::string::npos)
        << e.what();
  }
}

TEST(Clone, ToADevice) {
  nn::Linear lin(2, 3);
  auto copy = std::dynamic_pointer_cast<nn::LinearImpl>(lin->clone(ember::Device(ember::kCPU)));
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->weight.device(), ember::Device(ember::kCPU));
  expect_equal_independent(*lin, *copy);
}

TEST(Clone, ToCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  nn::Sequential seq(nn::Linear(3, 4), nn::BatchNorm1d(4));
  auto copy = seq->clone(ember::Device(ember::kCUDA));
  for (const auto& item : copy->named_parameters()) {
    EXPECT_TRUE(item.value().is_cuda()) << item.key();
    EXPECT_TRUE(ember::equal(item.value().cpu(), seq->named_parameters()[item.key()]))
        << item.key();
  }
  for (const auto& item : copy->named_buffers()) EXPECT_TRUE(item.value().is_cuda()) << item.key();
  EXPECT_FALSE(seq->named_parameters()[0].value().is_cuda());
  auto x = ember::randn({5, 3});
  auto y = std::dynamic_pointer_cast<nn::SequentialImpl>(copy)->forward(x.to(ember::kCUDA));
  EXPECT_TRUE(ember::allclose(y.cpu(), seq->forward(x), 1e-4, 1e-5));
}

TEST(Clone, ModulesWithoutParametersClone) {
  nn::ReLU relu;
  auto rc = relu->clone();
  ASSERT_NE(std::dynamic_pointer_cast<nn::ReLUImpl>(rc), nullptr);
  nn::Flatten fl(nn::FlattenOptions().start_dim(0));
  auto fc = std::dynamic_pointer_cast<nn::FlattenImpl>(fl->clone());
  ASSERT_NE(fc, nullptr);
  EXPECT_EQ(fc->options.start_dim(), 0);
  nn::Embedding emb(5, 3);
  auto ec = std::dynamic_pointer_cast<nn::EmbeddingImpl>(emb->clone());
  ASSERT_NE(ec, nullptr);
  expect_equal_independent(*emb, *ec);
  nn::LayerNorm ln(nn::LayerNormOptions({3}));
  auto lnc = std::dynamic_pointer_cast<nn::LayerNormImpl>(ln->clone());
  ASSERT_NE(lnc, nullptr);
  expect_equal_independent(*ln, *lnc);
}

// The library registers its own modules' clones once (nn/clone.cpp), not the headers: one module
// of each way a built-in module is declared must clone to its own type with equal, independent
// parameters and buffers.
template <class Holder>
void expect_clones(const Holder& holder) {
  using Impl = typename Holder::Impl;
  std::shared_ptr<nn::Module> copy = holder->clone();
  auto typed = std::dynamic_pointer_cast<Impl>(copy);
  ASSERT_NE(typed, nullptr) << holder->name();
  EXPECT_NE(typed.get(), holder.get()) << holder->name();
  expect_equal_independent(*holder, *typed);
}

TEST(Clone, BuiltInModulesOfEveryDeclarationForm) {
  expect_clones(nn::Conv1d(2, 3, 3));
  expect_clones(nn::ConvTranspose2d(2, 3, 3));
  expect_clones(nn::GELU());
  expect_clones(nn::InstanceNorm2d(nn::InstanceNormOptions(3).affine(true)));
  expect_clones(nn::AdaptiveMaxPool2d(2));
  expect_clones(nn::Dropout2d(0.25));
  expect_clones(nn::LSTM(3, 4));
  expect_clones(nn::GRUCell(3, 4));
  expect_clones(nn::GroupNorm(2, 4));
  expect_clones(nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2.0})));
  expect_clones(nn::PixelShuffle(2));  // EMBER_VISION_MODULE
  expect_clones(nn::ZeroPad2d(1));     // EMBER_PADDING_MODULE
  expect_clones(nn::ReflectionPad1d(2));
  expect_clones(nn::ELU());  // EMBER_ACTIVATION_MODULE
  expect_clones(nn::PReLU(nn::PReLUOptions().num_parameters(3)));
  expect_clones(nn::Mish());  // EMBER_PLAIN_ACTIVATION_MODULE
  expect_clones(nn::CosineSimilarity());
  expect_clones(nn::CrossEntropyLoss());  // nn/loss.h
  // Losses with class weights clone as LibTorch's: reset() re-registers the buffer from the
  // options, which hold the same tensor as the original's, so (as in LibTorch) the two modules
  // end up sharing it; only the values and the type are checked here.
  const Tensor w = ember::rand({3});
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().weight(w));
  auto cc = std::dynamic_pointer_cast<nn::CrossEntropyLossImpl>(ce->clone());
  ASSERT_NE(cc, nullptr);
  EXPECT_TRUE(ember::equal(cc->weight, w));
  nn::BCEWithLogitsLoss bce(nn::BCEWithLogitsLossOptions().pos_weight(w));
  auto bc = std::dynamic_pointer_cast<nn::BCEWithLogitsLossImpl>(bce->clone());
  ASSERT_NE(bc, nullptr);
  EXPECT_TRUE(ember::equal(bc->pos_weight, w));
  EXPECT_FALSE(bc->weight.defined());
  expect_clones(nn::MarginRankingLoss());  // EMBER_LOSS_MODULE3
  expect_clones(nn::MultiMarginLoss());
  expect_clones(nn::Unflatten(1, std::vector<int64_t>{2, 2}));
}

}  // namespace
