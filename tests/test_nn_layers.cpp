// Layers and their functional forms against naive double-precision references: Linear,
// Identity, Flatten, Unflatten, the activations, Softmax/LogSoftmax, Embedding (padding_idx
// gradient), LayerNorm, one_hot; options and printing. Dropout and init: test_nn_init.cpp.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "autograd_helpers.h"
#include "reference.h"

namespace {

namespace F = ember::nn::functional;
namespace nn = ember::nn;
using agtest::close;
using agtest::error_of;
using agtest::has;
using ember::Tensor;
using ::testing::ElementsAre;

// Elementwise reference: f applied to each value of x (read in double), shaped like x.
template <class Fn>
Tensor map_ref(const Tensor& x, Fn f) {
  std::vector<double> v = ref::values(x);
  for (double& e : v) e = f(e);
  return ember::tensor(v, ember::kFloat64).reshape(x.sizes());
}

template <class M>
std::string printed(const M& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

TEST(Linear, ForwardMatchesNaiveMatmul) {
  ember::manual_seed(0);
  nn::Linear fc(nn::LinearOptions(3, 2));
  Tensor x = ember::randn({4, 3});
  const auto w = ref::values(fc->weight), b = ref::values(fc->bias), xv = ref::values(x);
  std::vector<double> expected(8);
  for (int i = 0; i < 4; ++i) {
    for (int o = 0; o < 2; ++o) {
      double acc = b[o];
      for (int k = 0; k < 3; ++k) acc += xv[i * 3 + k] * w[o * 3 + k];
      expected[i * 2 + o] = acc;
    }
  }
  EXPECT_TRUE(close(fc(x), ember::tensor(expected).reshape({4, 2}), 1e-5));
  EXPECT_TRUE(close(F::linear(x, fc->weight, fc->bias), fc(x)));
  EXPECT_EQ(fc->options.in_features(), 3);
  EXPECT_EQ(fc(ember::randn({2, 5, 3})).sizes(), ember::IntArrayRef({2, 5, 2}));
}

TEST(Linear, NoBiasInitAndReset) {
  nn::Linear fc(nn::LinearOptions(16, 8).bias(false));
  EXPECT_FALSE(fc->bias.defined());
  EXPECT_THAT(fc->named_parameters().keys(), ElementsAre("weight"));
  EXPECT_TRUE(close(fc(ember::ones({1, 16})), ember::ones({1, 16}).matmul(fc->weight.t())));
  // PyTorch's default: weight and bias uniform in +-1/sqrt(in_features).
  nn::Linear big(400, 300);
  const double bound = 1.0 / std::sqrt(400.0);
  EXPECT_LE(big->weight.abs().max().item<double>(), bound);
  EXPECT_GT(big->weight.abs().max().item<double>(), 0.99 * bound);
  EXPECT_NEAR(big->weight.std().item<double>(), bound / std::sqrt(3.0), 0.01 * bound);
  EXPECT_LE(big->bias.abs().max().item<double>(), bound);
  EXPECT_NEAR(big->weight.mean().item<double>(), 0.0, 0.01 * bound);
  Tensor w = big->weight;
  const Tensor before = w.clone();
  big->reset_parameters();
  EXPECT_TRUE(w.is_same(big->weight));
  EXPECT_FALSE(close(w, before));
  EXPECT_EQ(printed(fc), "Linear(in_features=16, out_features=8, bias=false)");
}

TEST(Shapes, IdentityFlattenUnflatten) {
  Tensor x = ember::randn({2, 3, 4});
  nn::Identity id;
  EXPECT_TRUE(id(x).is_same(x));
  EXPECT_EQ(nn::Flatten()(x).sizes(), ember::IntArrayRef({2, 12}));
  nn::Flatten all(nn::FlattenOptions().start_dim(0));
  EXPECT_EQ(all(x).sizes(), ember::IntArrayRef({24}));
  nn::Unflatten un(1, std::vector<int64_t>{3, 2, 2});
  Tensor y = un(x.flatten(1));
  EXPECT_EQ(y.sizes(), ember::IntArrayRef({2, 3, 2, 2}));
  EXPECT_TRUE(close(y.reshape({2, 3, 4}), x));
  EXPECT_EQ(nn::Unflatten(-1, std::vector<int64_t>{2, -1})(x).sizes(),
            ember::IntArrayRef({2, 3, 2, 2}));
  EXPECT_TRUE(has(error_of([&] { un(ember::randn({2})); }), "out of range"));
  EXPECT_EQ(printed(id), "Identity()");
  EXPECT_EQ(printed(nn::Flatten()), "Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(printed(un), "Unflatten(dim=1, unflattened_size={3, 2, 2})");
}

TEST(Activations, MatchNaiveFormulas) {
  Tensor x = ember::linspace(-3, 3, 13, ember::kFloat64).reshape({13});
  EXPECT_TRUE(close(nn::ReLU()(x), map_ref(x, [](double v) { return v > 0 ? v : 0; })));
  EXPECT_TRUE(close(F::relu(x), nn::ReLU()(x)));
  nn::LeakyReLU leaky(nn::LeakyReLUOptions().negative_slope(0.2));
  EXPECT_TRUE(close(leaky(x), map_ref(x, [](double v) { return v > 0 ? v : 0.2 * v; })));
  EXPECT_TRUE(close(F::leaky_relu(x), map_ref(x, [](double v) { return v > 0 ? v : 0.01 * v; })));
  EXPECT_TRUE(close(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)), leaky(x)));
  EXPECT_TRUE(close(nn::GELU()(x), map_ref(x, [](double v) {
                      return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
                    })));
  const auto tanh_gelu = [](double v) {
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  };
  EXPECT_TRUE(close(nn::GELU(nn::GELUOptions().approximate("tanh"))(x), map_ref(x, tanh_gelu)));
  EXPECT_TRUE(close(F::gelu(x, F::GELUFuncOptions().approximate("tanh")), map_ref(x, tanh_gelu)));
  EXPECT_TRUE(close(nn::SiLU()(x), map_ref(x, [](double v) { return v / (1 + std::exp(-v)); })));
  EXPECT_TRUE(close(F::silu(x), nn::SiLU()(x)));
  EXPECT_TRUE(close(nn::Tanh()(x), map_ref(x, [](double v) { return std::tanh(v); })));
  EXPECT_TRUE(close(nn::Sigmoid()(x), map_ref(x, [](double v) { return 1 / (1 + std::exp(-v)); })));
  EXPECT_TRUE(has(error_of([] { nn::GELU(nn::GELUOptions().approximate("fast")); }),
                  "approximate must be \"none\" or \"tanh\""));
  EXPECT_TRUE(has(error_of([&] { F::gelu(x, F::GELUFuncOptions().approximate("x")); }),
                  "gelu: approximate"));
}

TEST(Activations, InplaceForms) {
  Tensor x = ember::tensor({-1.0f, 2.0f, -3.0f});
  Tensor r = F::relu(x, F::ReLUFuncOptions(true));
  EXPECT_TRUE(r.is_same(x));
  EXPECT_TRUE(close(x, ember::tensor({0.0f, 2.0f, 0.0f})));
  Tensor y = ember::tensor({-1.0f, 2.0f});
  F::leaky_relu(y, F::LeakyReLUFuncOptions().negative_slope(0.5).inplace(true));
  EXPECT_TRUE(close(y, ember::tensor({-0.5f, 2.0f})));
}

TEST(Activations, Printing) {
  EXPECT_EQ(printed(nn::ReLU()), "ReLU()");
  EXPECT_EQ(printed(nn::ReLU(true)), "ReLU(inplace=true)");
  EXPECT_EQ(printed(nn::LeakyReLU()), "LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(printed(nn::GELU()), "GELU()");
  EXPECT_EQ(printed(nn::GELU(nn::GELUOptions().approximate("tanh"))), "GELU(approximate='tanh')");
  EXPECT_EQ(printed(nn::SiLU()), "SiLU()");
  EXPECT_EQ(printed(nn::Tanh()), "Tanh()");
  EXPECT_EQ(printed(nn::Sigmoid()), "Sigmoid()");
  EXPECT_EQ(printed(nn::Softmax(1)), "Softmax(dim=1)");
  EXPECT_EQ(printed(nn::LogSoftmax(-1)), "LogSoftmax(dim=-1)");
  EXPECT_EQ(printed(nn::Dropout(0.25)), "Dropout(p=0.25, inplace=false)");
}

TEST(Softmax, RowsMatchNaive) {
  Tensor x = ember::randn({3, 5}, ember::kFloat64);
  const auto v = ref::values(x);
  std::vector<double> sm(15), lsm(15);
  for (int r = 0; r < 3; ++r) {
    double mx = -1e300, s = 0;
    for (int c = 0; c < 5; ++c) mx = std::max(mx, v[r * 5 + c]);
    for (int c = 0; c < 5; ++c) s += std::exp(v[r * 5 + c] - mx);
    for (int c = 0; c < 5; ++c) {
      sm[r * 5 + c] = std::exp(v[r * 5 + c] - mx) / s;
      lsm[r * 5 + c] = v[r * 5 + c] - mx - std::log(s);
    }
  }
  const Tensor esm = ember::tensor(sm).reshape({3, 5}), elsm = ember::tensor(lsm).reshape({3, 5});
  EXPECT_TRUE(close(nn::Softmax(1)(x), esm));
  EXPECT_TRUE(close(F::softmax(x, F::SoftmaxFuncOptions(1)), esm));
  EXPECT_TRUE(close(F::softmax(x, F::SoftmaxFuncOptions(-1)), esm));
  EXPECT_TRUE(close(nn::LogSoftmax(1)(x), elsm));
  EXPECT_TRUE(close(F::log_softmax(x, F::LogSoftmaxFuncOptions(1)), elsm));
  Tensor xf = x.to(ember::kFloat32);
  EXPECT_EQ(F::softmax(xf, F::SoftmaxFuncOptions(0).dtype(ember::kFloat64)).dtype(),
            ember::kFloat64);
}

TEST(Embedding, LooksUpRows) {
  ember::manual_seed(5);
  nn::Embedding emb(10, 3);
  EXPECT_EQ(emb->weight.sizes(), ember::IntArrayRef({10, 3}));
  // normal(0, 1) init
  nn::Embedding big(2000, 16);
  EXPECT_NEAR(big->weight.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(big->weight.std().item<double>(), 1.0, 0.02);
  Tensor idx = ember::tensor({1, 4, 4, 9, 0, 2}, ember::kInt64).reshape({2, 3});
  Tensor out = emb(idx);
  EXPECT_EQ(out.sizes(), ember::IntArrayRef({2, 3, 3}));
  const std::vector<int64_t> flat = {1, 4, 4, 9, 0, 2};
  for (size_t i = 0; i < flat.size(); ++i) {
    EXPECT_TRUE(close(out.reshape({6, 3})[i], emb->weight[flat[i]]));
  }
  EXPECT_TRUE(close(emb(idx.to(ember::kInt32)), out));
  EXPECT_EQ(emb(ember::tensor({3}, ember::kInt64).reshape({})).sizes(), ember::IntArrayRef({3}));
  EXPECT_TRUE(close(F::embedding(idx, emb->weight), out));
  EXPECT_TRUE(has(error_of([&] { emb(ember::zeros({2})); }), "embedding: expected int64 or int32"));
  EXPECT_TRUE(has(error_of([&] { emb(ember::tensor({10}, ember::kInt64)); }), "index_select"));
  EXPECT_EQ(printed(emb), "Embedding(num_embeddings=10, embedding_dim=3)");
}

TEST(Embedding, PaddingRowIsZeroAndGetsNoGradient) {
  nn::Embedding emb(nn::EmbeddingOptions(5, 2).padding_idx(-1));  // row 4
  EXPECT_EQ(*emb->options.padding_idx(), 4);
  EXPECT_TRUE(close(emb->weight[4], ember::zeros({2})));
  Tensor idx = ember::tensor({4, 1, 4, 1, 1, 0}, ember::kInt64);
  Tensor out = emb(idx);
  EXPECT_TRUE(close(out[0], ember::zeros({2})));
  (out * 3).sum().backward();
  // Each row's gradient is 3 * its count, except the padding row's.
  const std::vector<double> counts = {1, 3, 0, 0, 0};
  for (int r = 0; r < 5; ++r) {
    EXPECT_TRUE(close(emb->weight.grad()[r], ember::full({2}, 3.0 * counts[r]))) << r;
  }
  // The functional form, with a weight whose padding row is not zero.
  Tensor w = ember::randn({5, 2}, ember::requires_grad());
  Tensor y = F::embedding(idx, w, F::EmbeddingFuncOptions().padding_idx(1));
  EXPECT_TRUE(close(y[1], w[1]));  // values pass through
  y.sum().backward();
  EXPECT_TRUE(close(w.grad()[1], ember::zeros({2})));
  EXPECT_TRUE(close(w.grad()[4], ember::full({2}, 2.0)));
  EXPECT_TRUE(has(error_of([] { nn::Embedding(nn::EmbeddingOptions(3, 2).padding_idx(3)); }),
                  "padding_idx 3 must be within num_embeddings 3"));
  EXPECT_TRUE(has(error_of([] { nn::Embedding(nn::EmbeddingOptions(3, 2).max_norm(1.0)); }),
                  "max_norm is not supported"));
  EXPECT_EQ(printed(emb), "Embedding(num_embeddings=5, embedding_dim=2, padding_idx=4)");
}

TEST(Embedding, FromPretrained) {
  Tensor table = ember::arange(6, ember::kFloat32).reshape({3, 2});
  auto frozen = nn::Embedding::from_pretrained(table);
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_TRUE(close(frozen(ember::tensor({2}, ember::kInt64)), table[2].unsqueeze(0)));
  auto trainable = nn::Embedding::from_pretrained(
      table, nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(0));
  EXPECT_TRUE(trainable->weight.requires_grad());
  EXPECT_FALSE(trainable->weight.is_same(table));
  EXPECT_TRUE(close(trainable->weight, table));  // the given values, padding row included
}

TEST(LayerNorm, MatchesNaiveNormalization) {
  ember::manual_seed(8);
  Tensor x = ember::randn({2, 3, 4}, ember::kFloat64) * 3 + 1;
  const auto v = ref::values(x);
  std::vector<double> e(24);
  for (int r = 0; r < 2; ++r) {  // normalized over the last two dims (12 values)
    double mean = 0, var = 0;
    for (int i = 0; i < 12; ++i) mean += v[r * 12 + i] / 12;
    for (int i = 0; i < 12; ++i) var += (v[r * 12 + i] - mean) * (v[r * 12 + i] - mean) / 12;
    for (int i = 0; i < 12; ++i) e[r * 12 + i] = (v[r * 12 + i] - mean) / std::sqrt(var + 1e-5);
  }
  const Tensor expected = ember::tensor(e, ember::kFloat64).reshape({2, 3, 4});
  nn::LayerNorm ln(nn::LayerNormOptions({3, 4}));
  ln->to(ember::kFloat64);
  EXPECT_TRUE(close(ln(x), expected, 1e-9));
  EXPECT_THAT(ln->named_parameters().keys(), ElementsAre("weight", "bias"));
  EXPECT_TRUE(close(ln->weight, ember::ones({3, 4})));
  EXPECT_TRUE(close(ln->bias, ember::zeros({3, 4})));
  Tensor w = ember::randn({3, 4}, ember::kFloat64), b = ember::randn({3, 4}, ember::kFloat64);
  EXPECT_TRUE(close(F::layer_norm(x, F::LayerNormFuncOptions({3, 4}).weight(w).bias(b).eps(1e-5)),
                    expected * w + b, 1e-9));
  nn::LayerNorm plain(nn::LayerNormOptions({4}).elementwise_affine(false).eps(1e-3));
  EXPECT_EQ(plain->parameters().size(), 0u);
  EXPECT_EQ(plain(ember::randn({5, 4})).sizes(), ember::IntArrayRef({5, 4}));
  EXPECT_EQ(printed(nn::LayerNorm(std::vector<int64_t>{4})),
            "LayerNorm([4], eps=1e-05, elementwise_affine=true)");
  EXPECT_EQ(error_of([&] {
              F::layer_norm(x, F::LayerNormFuncOptions({4, 3}));
            }),
            "layer_norm: normalized_shape [4, 3] doesn't match the trailing dims of an input of "
            "shape [2, 3, 4]");
  EXPECT_TRUE(has(
      error_of([&] { F::layer_norm(x, F::LayerNormFuncOptions({4}).weight(ember::ones({3}))); }),
      "layer_norm: expected weight of shape [4], got [3]"));
}

TEST(Functional, OneHot) {
  Tensor idx = ember::tensor({0, 2, 1}, ember::kInt64);
  Tensor oh = F::one_hot(idx, 4);
  EXPECT_EQ(oh.dtype(), ember::kInt64);
  EXPECT_TRUE(close(
      oh, ember::tensor({1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0}, ember::kInt64).reshape({3, 4})));
  EXPECT_EQ(F::one_hot(idx).sizes(), ember::IntArrayRef({3, 3}));
}

}  // namespace
