// RNN, LSTM, GRU and their cells against a naive double-precision reference over the modules'
// own parameters, for every option combination; LibTorch's values, names, printing and errors.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "autograd_helpers.h"
#include "reference.h"

namespace {

namespace nn = ember::nn;
using agtest::close;
using agtest::error_of;
using agtest::has;
using ember::Tensor;

enum class Kind { Tanh, ReLU, LSTM, GRU };

struct Config {
  Kind kind;
  int64_t layers;
  bool bidirectional;
  bool batch_first;
  bool bias;
  int64_t proj = 0;
};

constexpr int64_t kIn = 3, kHidden = 4;

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// A parameter read in double, addressed as w(row, col).
struct Mat {
  std::vector<double> v;
  int64_t cols = 1;
  bool defined = false;
  double operator()(int64_t r, int64_t c = 0) const { return defined ? v[r * cols + c] : 0.0; }
};

Mat param(nn::Module& m, const std::string& name) {
  Mat w;
  const auto params = m.named_parameters();
  const Tensor* t = params.find(name);
  if (t == nullptr || !t->defined()) return w;
  w.v = ref::values(*t);
  w.cols = t->dim() == 2 ? t->size(1) : 1;
  w.defined = true;
  return w;
}

using Seq = std::vector<std::vector<std::vector<double>>>;  // [T][B][features]

Seq to_seq(const Tensor& x) {  // x time-major [T, B, F]
  std::vector<double> v = ref::values(x);
  const int64_t T = x.size(0), B = x.size(1), F = x.size(2);
  Seq s(T, std::vector<std::vector<double>>(B, std::vector<double>(F)));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t f = 0; f < F; ++f) s[t][b][f] = v[(t * B + b) * F + f];
  return s;
}

Tensor from_seq(const Seq& s) {
  std::vector<double> v;
  for (const auto& a : s)
    for (const auto& b : a) v.insert(v.end(), b.begin(), b.end());
  return ember::tensor(v, ember::kFloat64)
      .reshape({(int64_t)s.size(), (int64_t)s[0].size(), (int64_t)s[0][0].size()});
}

// The naive recurrence: returns output [T, B, D * Hr], h_n [L * D, B, Hr], c_n [L * D, B, H].
std::tuple<Tensor, Tensor, Tensor> reference(nn::Module& m, const Config& c, const Tensor& x,
                                             const Tensor& h0, const Tensor& c0) {
  const int64_t D = c.bidirectional ? 2 : 1, H = kHidden, Hr = c.proj > 0 ? c.proj : kHidden;
  Seq in = to_seq(x), hs = to_seq(h0), cs = c0.defined() ? to_seq(c0) : Seq();
  const int64_t T = (int64_t)in.size(), B = (int64_t)in[0].size();
  Seq h_n, c_n;
  for (int64_t l = 0; l < c.layers; ++l) {
    Seq out(T, std::vector<std::vector<double>>(B, std::vector<double>(D * Hr)));
    for (int64_t d = 0; d < D; ++d) {
      const std::string sfx = std::to_string(l) + (d == 1 ? "_reverse" : "");
      Mat wih = param(m, "weight_ih_l" + sfx), whh = param(m, "weight_hh_l" + sfx);
      Mat bih = param(m, "bias_ih_l" + sfx), bhh = param(m, "bias_hh_l" + sfx);
      Mat whr = param(m, "weight_hr_l" + sfx);
      const int64_t F = (int64_t)in[0][0].size();
      std::vector<std::vector<double>> h = hs[l * D + d];
      std::vector<std::vector<double>> cc = cs.empty() ? h : cs[l * D + d];
      const int64_t G = c.kind == Kind::LSTM ? 4 : c.kind == Kind::GRU ? 3 : 1;
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = d == 0 ? s : T - 1 - s;
        for (int64_t b = 0; b < B; ++b) {
          std::vector<double> gi(G * H), gh(G * H);
          for (int64_t g = 0; g < G * H; ++g) {
            gi[g] = bih(g);
            for (int64_t k = 0; k < F; ++k) gi[g] += wih(g, k) * in[t][b][k];
            gh[g] = bhh(g);
            for (int64_t k = 0; k < Hr; ++k) gh[g] += whh(g, k) * h[b][k];
          }
          std::vector<double> hn(H);
          for (int64_t j = 0; j < H; ++j) {
            if (c.kind == Kind::Tanh) hn[j] = std::tanh(gi[j] + gh[j]);
            if (c.kind == Kind::ReLU) hn[j] = std::max(0.0, gi[j] + gh[j]);
            if (c.kind == Kind::GRU) {
              double r = sig(gi[j] + gh[j]), z = sig(gi[H + j] + gh[H + j]);
              double n = std::tanh(gi[2 * H + j] + r * gh[2 * H + j]);
              hn[j] = (1 - z) * n + z * h[b][j];
            }
            if (c.kind == Kind::LSTM) {
              double i = sig(gi[j] + gh[j]), f = sig(gi[H + j] + gh[H + j]);
              double g = std::tanh(gi[2 * H + j] + gh[2 * H + j]);
              double o = sig(gi[3 * H + j] + gh[3 * H + j]);
              cc[b][j] = f * cc[b][j] + i * g;
              hn[j] = o * std::tanh(cc[b][j]);
            }
          }
          if (c.proj > 0) {
            h[b].assign(Hr, 0.0);
            for (int64_t p = 0; p < Hr; ++p)
              for (int64_t j = 0; j < H; ++j) h[b][p] += whr(p, j) * hn[j];
          } else {
            h[b] = hn;
          }
          for (int64_t k = 0; k < Hr; ++k) out[t][b][d * Hr + k] = h[b][k];
        }
      }
      h_n.push_back(h);
      c_n.push_back(cc);
    }
    in = out;
  }
  return {from_seq(in), from_seq(h_n), c.kind == Kind::LSTM ? from_seq(c_n) : Tensor()};
}

std::shared_ptr<nn::Module> make(const Config& c, double dropout = 0.0) {
  std::shared_ptr<nn::Module> m;
  if (c.kind == Kind::LSTM) {
    m = nn::LSTM(nn::LSTMOptions(kIn, kHidden)
                     .num_layers(c.layers)
                     .bidirectional(c.bidirectional)
                     .batch_first(c.batch_first)
                     .bias(c.bias)
                     .dropout(dropout)
                     .proj_size(c.proj))
            .ptr();
  } else if (c.kind == Kind::GRU) {
    m = nn::GRU(nn::GRUOptions(kIn, kHidden)
                    .num_layers(c.layers)
                    .bidirectional(c.bidirectional)
                    .batch_first(c.batch_first)
                    .bias(c.bias)
                    .dropout(dropout))
            .ptr();
  } else {
    m = nn::RNN(nn::RNNOptions(kIn, kHidden)
                    .num_layers(c.layers)
                    .nonlinearity(c.kind == Kind::Tanh ? ember::kTanh : ember::kReLU)
                    .bidirectional(c.bidirectional)
                    .batch_first(c.batch_first)
                    .bias(c.bias)
                    .dropout(dropout))
            .ptr();
  }
  m->to(ember::kFloat64);
  return m;
}

// Runs the module; input as the module expects it; h0/c0 undefined for the default zeros.
std::tuple<Tensor, Tensor, Tensor> run(nn::Module& m, const Config& c, const Tensor& x,
                                       const Tensor& h0, const Tensor& c0) {
  if (c.kind == Kind::LSTM) {
    auto& lstm = dynamic_cast<nn::LSTMImpl&>(m);
    auto [out, hc] = h0.defined() ? lstm.forward(x, std::make_tuple(h0, c0)) : lstm.forward(x);
    return {out, std::get<0>(hc), std::get<1>(hc)};
  }
  auto [out, h] = c.kind == Kind::GRU ? dynamic_cast<nn::GRUImpl&>(m).forward(x, h0)
                                      : dynamic_cast<nn::RNNImpl&>(m).forward(x, h0);
  return {out, h, Tensor()};
}

std::vector<Config> all_configs() {
  std::vector<Config> configs;
  for (Kind k : {Kind::Tanh, Kind::ReLU, Kind::LSTM, Kind::GRU})
    for (int64_t layers : {1, 2})
      for (bool bi : {false, true})
        for (bool bf : {false, true})
          for (bool bias : {true, false}) configs.push_back({k, layers, bi, bf, bias});
  for (bool bi : {false, true}) configs.push_back({Kind::LSTM, 2, bi, true, true, 2});
  return configs;
}

std::string describe(const Config& c) {
  std::ostringstream os;
  os << "kind " << int(c.kind) << " layers " << c.layers << " bi " << c.bidirectional << " bf "
     << c.batch_first << " bias " << c.bias << " proj " << c.proj;
  return os.str();
}

TEST(NNRnn, EveryOptionCombinationMatchesTheNaiveReference) {
  ember::manual_seed(7);
  const int64_t T = 5, B = 2;
  for (const Config& c : all_configs()) {
    SCOPED_TRACE(describe(c));
    auto m = make(c);
    const int64_t D = c.bidirectional ? 2 : 1, Hr = c.proj > 0 ? c.proj : kHidden;
    Tensor x = ember::randn({T, B, kIn}, ember::kFloat64);
    for (bool given : {false, true}) {
      Tensor h0 = given ? ember::randn({c.layers * D, B, Hr}, ember::kFloat64)
                        : ember::zeros({c.layers * D, B, Hr}, ember::kFloat64);
      Tensor c0 = given ? ember::randn({c.layers * D, B, kHidden}, ember::kFloat64)
                        : ember::zeros({c.layers * D, B, kHidden}, ember::kFloat64);
      Tensor xin = c.batch_first ? x.transpose(0, 1) : x;
      auto [out, h_n, c_n] = given ? run(*m, c, xin, h0, c0) : run(*m, c, xin, {}, {});
      auto [rout, rh, rc] = reference(*m, c, x, h0, c.kind == Kind::LSTM ? c0 : Tensor());
      ASSERT_EQ(out.sizes().vec(), (c.batch_first ? std::vector<int64_t>{B, T, D * Hr}
                                                  : std::vector<int64_t>{T, B, D * Hr}));
      EXPECT_TRUE(close(c.batch_first ? out.transpose(0, 1) : out, rout, 1e-10));
      EXPECT_TRUE(close(h_n, rh, 1e-10));
      if (c.kind == Kind::LSTM) {
        EXPECT_TRUE(close(c_n, rc, 1e-10));
        EXPECT_EQ(c_n.sizes().vec(), (std::vector<int64_t>{c.layers * D, B, kHidden}));
      }
    }
  }
}

TEST(NNRnn, UnbatchedInputIsABatchOfOne) {
  ember::manual_seed(3);
  for (const Config& c : all_configs()) {
    if (!c.bias) continue;
    SCOPED_TRACE(describe(c));
    auto m = make(c);
    const int64_t D = c.bidirectional ? 2 : 1, Hr = c.proj > 0 ? c.proj : kHidden;
    Tensor x = ember::randn({4, kIn}, ember::kFloat64);
    Tensor h0 = ember::randn({c.layers * D, Hr}, ember::kFloat64);
    Tensor c0 = ember::randn({c.layers * D, kHidden}, ember::kFloat64);
    auto [out, h_n, c_n] = run(*m, c, x, h0, c0);
    auto [bout, bh, bc] = run(*m, c, c.batch_first ? x.unsqueeze(0) : x.unsqueeze(1),
                              h0.unsqueeze(1), c0.unsqueeze(1));
    EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{4, D * Hr}));
    EXPECT_TRUE(close(out, c.batch_first ? bout.squeeze(0) : bout.squeeze(1), 1e-12));
    EXPECT_TRUE(close(h_n, bh.squeeze(1), 1e-12));
    if (c.kind == Kind::LSTM) EXPECT_TRUE(close(c_n, bc.squeeze(1), 1e-12));
  }
}

void fill_linspace(nn::Module& m) {
  ember::NoGradGuard g;
  for (auto& p : m.parameters()) {
    p.copy_(ember::linspace(-0.5, 0.5, p.numel()).reshape(p.sizes()));
  }
}

TEST(NNRnn, MatchesLibTorchValues) {
  nn::LSTM lstm(nn::LSTMOptions(2, 3));
  fill_linspace(*lstm);
  auto out = lstm(ember::linspace(-1, 1, 6).reshape({3, 1, 2}));
  EXPECT_TRUE(close(
      std::get<0>(out),
      ember::tensor({0.0071876924f, 0.0181335639f, 0.0299156439f, 0.0213258192f, 0.0695937723f,
                     0.1300650537f, 0.0261517130f, 0.1014552265f, 0.2093793601f})
          .reshape({3, 1, 3}),
      1e-6));
  EXPECT_TRUE(close(std::get<1>(std::get<1>(out)),
                    ember::tensor({0.0340304263f, 0.1238055751f, 0.2461437434f}).reshape({1, 1, 3}),
                    1e-6));
  nn::GRU gru(nn::GRUOptions(2, 3).batch_first(true));
  fill_linspace(*gru);
  auto g = gru(ember::linspace(-1, 1, 6).reshape({1, 3, 2}));
  EXPECT_TRUE(close(
      std::get<0>(g),
      ember::tensor({-0.0022264393f, -0.0033147773f, -0.0024719429f, 0.1767148972f, 0.2309011519f,
                     0.2618001401f, 0.4369218349f, 0.5061821342f, 0.4987742007f})
          .reshape({1, 3, 3}),
      1e-6));
  EXPECT_TRUE(close(std::get<1>(g),
                    ember::tensor({0.4369218349f, 0.5061821342f, 0.4987742007f}).reshape({1, 1, 3}),
                    1e-6));
}

TEST(NNRnn, ParameterNamesShapesAndInit) {
  nn::LSTM lstm(nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true).proj_size(2));
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& p : lstm->named_parameters()) {
    names.push_back(p.key());
    shapes.push_back(p.value().sizes().vec());
    EXPECT_LE(p.value().abs().max().item<double>(), 1 / std::sqrt(5.0));
    EXPECT_GT(p.value().abs().max().item<double>(), 0.1);
  }
  std::vector<std::string> want;
  for (std::string s : {"0", "0_reverse", "1", "1_reverse"}) {
    for (std::string n : {"weight_ih_l", "weight_hh_l", "bias_ih_l", "bias_hh_l", "weight_hr_l"}) {
      want.push_back(n + s);
    }
  }
  EXPECT_EQ(names, want);
  using S = std::vector<int64_t>;
  EXPECT_EQ(shapes[0], (S{20, 3}));
  EXPECT_EQ(shapes[1], (S{20, 2}));
  EXPECT_EQ(shapes[2], (S{20}));
  EXPECT_EQ(shapes[4], (S{2, 5}));
  EXPECT_EQ(shapes[10], (S{20, 4}));  // layer 1 reads both directions' projected h
  EXPECT_EQ(lstm->all_weights().size(), 20u);

  nn::GRU gru(nn::GRUOptions(3, 4).bias(false));
  names.clear();
  for (const auto& p : gru->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0"}));
  nn::GRUCell cell(3, 4);
  names.clear();
  for (const auto& p : cell->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
  EXPECT_EQ(cell->weight_ih.sizes().vec(), (std::vector<int64_t>{12, 3}));
}

// Each cell is one step of the one-layer module with the same weights.
TEST(NNRnn, CellsAreOneStepOfTheLayer) {
  ember::manual_seed(11);
  Tensor x = ember::randn({2, kIn}, ember::kFloat64);
  Tensor h = ember::randn({2, kHidden}, ember::kFloat64);
  Tensor c = ember::randn({2, kHidden}, ember::kFloat64);
  auto copy_cell = [](nn::Module& cell, nn::Module& layer) {
    ember::NoGradGuard g;
    for (const auto& p : cell.named_parameters()) {
      layer.named_parameters()[p.key() + "_l0"].copy_(p.value());
    }
  };
  for (bool bias : {true, false}) {
    nn::LSTMCell lc(nn::LSTMCellOptions(kIn, kHidden).bias(bias));
    lc->to(ember::kFloat64);
    auto m = make({Kind::LSTM, 1, false, false, bias});
    copy_cell(*lc, *m);
    auto [h1, c1] = lc(x, std::make_tuple(h, c));
    auto [rout, rh, rc] = run(*m, {Kind::LSTM, 1, false, false, bias}, x.unsqueeze(0),
                              h.unsqueeze(0), c.unsqueeze(0));
    EXPECT_TRUE(close(h1, rh[0], 1e-12));
    EXPECT_TRUE(close(c1, rc[0], 1e-12));
    auto [uh, uc] = lc(x[1], std::make_tuple(h[1], c[1]));  // unbatched
    EXPECT_TRUE(close(uh, h1[1], 1e-12));
    EXPECT_TRUE(close(uc, c1[1], 1e-12));

    nn::GRUCell gc(nn::GRUCellOptions(kIn, kHidden).bias(bias));
    gc->to(ember::kFloat64);
    auto g = make({Kind::GRU, 1, false, false, bias});
    copy_cell(*gc, *g);
    EXPECT_TRUE(close(gc(x, h),
                      std::get<1>(run(*g, {Kind::GRU, 1, false, false, bias}, x.unsqueeze(0),
                                      h.unsqueeze(0), {}))[0],
                      1e-12));
    EXPECT_TRUE(close(gc(x[0]), gc(x, ember::zeros_like(h))[0], 1e-12));

    for (Kind k : {Kind::Tanh, Kind::ReLU}) {
      nn::RNNCell rc1(nn::RNNCellOptions(kIn, kHidden)
                          .bias(bias)
                          .nonlinearity(k == Kind::Tanh ? ember::kTanh : ember::kReLU));
      rc1->to(ember::kFloat64);
      auto r = make({k, 1, false, false, bias});
      copy_cell(*rc1, *r);
      EXPECT_TRUE(close(
          rc1(x, h),
          std::get<1>(run(*r, {k, 1, false, false, bias}, x.unsqueeze(0), h.unsqueeze(0), {}))[0],
          1e-12));
    }
  }
}

TEST(NNRnn, DropoutOnlyBetweenLayersInTraining) {
  ember::manual_seed(5);
  Config c{Kind::LSTM, 2, false, false, true};
  auto m = make(c, 0.5);
  Tensor x = ember::randn({4, 2, kIn}, ember::kFloat64);
  Tensor z = ember::zeros({2, 2, kHidden}, ember::kFloat64);
  m->eval();
  EXPECT_TRUE(
      close(std::get<0>(run(*m, c, x, {}, {})), std::get<0>(reference(*m, c, x, z, z)), 1e-10));
  m->train();
  EXPECT_FALSE(
      close(std::get<0>(run(*m, c, x, {}, {})), std::get<0>(reference(*m, c, x, z, z)), 1e-6));
  // One layer: no dropout even in training.
  Config one{Kind::GRU, 1, false, false, true};
  auto g = make(one, 0.5);
  Tensor z1 = ember::zeros({1, 2, kHidden}, ember::kFloat64);
  EXPECT_TRUE(close(std::get<0>(run(*g, one, x, {}, {})),
                    std::get<0>(reference(*g, one, x, z1, z1)), 1e-10));
}

TEST(NNRnn, GradientsFlowToInputsAndEveryParameter) {
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  Tensor x = ember::randn({4, 2, 2}).requires_grad_();
  auto out = lstm(x);
  (std::get<0>(out).sum() + std::get<1>(std::get<1>(out)).sum()).backward();
  EXPECT_TRUE(x.grad().defined());
  for (const auto& p : lstm->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key();
  }
}

TEST(NNRnn, PrintingAndStateDict) {
  std::ostringstream a, b, c, d;
  a << *nn::LSTM(nn::LSTMOptions(2, 3));
  EXPECT_EQ(a.str(),
            "LSTM(input_size=2, hidden_size=3, num_layers=1, bias=true, batch_first=false, "
            "dropout=0, bidirectional=false)");
  b << *nn::GRU(nn::GRUOptions(2, 3).num_layers(2).dropout(0.5).batch_first(true));
  EXPECT_EQ(b.str(),
            "GRU(input_size=2, hidden_size=3, num_layers=2, bias=true, batch_first=true, "
            "dropout=0.5, bidirectional=false)");
  c << *nn::RNNCell(nn::RNNCellOptions(2, 3).bias(false).nonlinearity(ember::kReLU));
  EXPECT_EQ(c.str(), "RNNCell(2, 3, bias=false, nonlinearity=kReLU)");
  d << *nn::LSTMCell(2, 3);
  EXPECT_EQ(d.str(), "LSTMCell(2, 3)");

  nn::LSTM src(nn::LSTMOptions(2, 3).bidirectional(true)),
      dst(nn::LSTMOptions(2, 3).bidirectional(true));
  dst->load_state_dict(src->state_dict());
  Tensor x = ember::randn({3, 1, 2});
  EXPECT_TRUE(close(std::get<0>(src(x)), std::get<0>(dst(x)), 0));
}

TEST(NNRnn, CloneCopiesTheWeights) {
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  auto copy = std::dynamic_pointer_cast<nn::LSTMImpl>(lstm->clone());
  ASSERT_TRUE(copy != nullptr);
  Tensor x = ember::randn({3, 2, 2});
  EXPECT_TRUE(close(std::get<0>(lstm(x)), std::get<0>(copy->forward(x)), 0));
  {
    ember::NoGradGuard g;
    for (auto& p : copy->parameters()) p.zero_();
  }
  EXPECT_GT(std::get<0>(lstm(x)).abs().sum().item<double>(), 0);
  EXPECT_EQ(std::get<0>(copy->forward(x)).abs().sum().item<double>(), 0);
  nn::GRUCell cell(2, 3);
  auto cell_copy = std::dynamic_pointer_cast<nn::GRUCellImpl>(cell->clone());
  EXPECT_FALSE(cell_copy->weight_ih.is_same(cell->weight_ih));
  EXPECT_TRUE(close(cell_copy->forward(x[0]), cell(x[0]), 0));
}

TEST(NNRnn, Errors) {
  nn::LSTM lstm(nn::LSTMOptions(2, 3));
  EXPECT_TRUE(has(error_of([&] {
                    lstm(ember::ones({3, 1, 4}));
                  }),
                  "input.size(-1) must be equal to input_size. Expected 2, got 4"));
  EXPECT_TRUE(has(error_of([&] {
                    lstm(ember::ones({3, 1, 1, 2}));
                  }),
                  "Expected input to be 2-D or 3-D but received 4-D tensor"));
  EXPECT_TRUE(has(error_of([&] {
                    lstm(ember::ones({3, 1, 2}),
                         std::make_tuple(ember::zeros({1, 2, 3}), ember::zeros({1, 1, 3})));
                  }),
                  "Expected hidden[0] size [1, 1, 3], got [1, 2, 3]"));
  EXPECT_TRUE(has(error_of([&] {
                    lstm(ember::ones({3, 2}),
                         std::make_tuple(ember::zeros({1, 1, 3}), ember::zeros({1, 1, 3})));
                  }),
                  "hx and cx should also be 2-D"));
  nn::GRU gru(2, 3);
  EXPECT_TRUE(has(error_of([&] {
                    gru(ember::ones({3, 1, 2}), ember::zeros({2, 1, 3}));
                  }),
                  "Expected hidden size [1, 1, 3], got [2, 1, 3]"));
  EXPECT_TRUE(has(error_of([&] { gru(ember::ones({0, 1, 2})); }), "sequence length"));
  EXPECT_TRUE(has(error_of([&] { nn::LSTM(nn::LSTMOptions(2, 3).proj_size(3)); }),
                  "proj_size has to be smaller than hidden_size"));
  EXPECT_TRUE(has(error_of([&] { nn::GRU(nn::GRUOptions(2, 3).dropout(1.5)); }),
                  "dropout should be a number in range [0, 1]"));
  EXPECT_TRUE(has(error_of([&] { nn::RNN(nn::RNNOptions(2, 3).nonlinearity(ember::kSigmoid)); }),
                  "nonlinearity must be kTanh or kReLU"));
  EXPECT_TRUE(has(error_of([&] { nn::RNN(nn::RNNOptions(2, 0)); }), "hidden_size"));
  nn::GRUCell cell(2, 3);
  EXPECT_TRUE(has(error_of([&] {
                    cell(ember::ones({4, 3}));
                  }),
                  "input has inconsistent input_size: got 3 expected 2"));
  EXPECT_TRUE(has(error_of([&] {
                    cell(ember::ones({4, 2}), ember::zeros({5, 3}));
                  }),
                  "Input batch size 4 doesn't match hidden batch size 5"));
  EXPECT_TRUE(has(error_of([&] {
                    cell(ember::ones({1, 4, 2}));
                  }),
                  "Expected input to be 1-D or 2-D but received 3-D tensor"));
  nn::LSTMCell lcell(2, 3);
  EXPECT_TRUE(
      has(error_of([&] {
            lcell(ember::ones({4, 2}), std::make_tuple(ember::zeros({4, 3}), ember::zeros({4, 2})));
          }),
          "hx[1] has inconsistent hidden_size: got 2, expected 3"));
}

}  // namespace
