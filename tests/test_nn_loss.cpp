// Losses against PyTorch: every case of tools/loss_reference.cpp (values and input gradients,
// in tests/data/nn_loss_reference.txt) rebuilt from the same inputs; the fused cross_entropy
// against its composite (log_softmax + nll_loss) over every option; errors; edge cases; the
// loss modules of nn/loss.h.
#include <ember/ember.h>
#include <ember/nn/functional_loss.h>
#include <ember/nn/loss.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ember;
namespace F = ember::nn::functional;
using ::testing::HasSubstr;

namespace {

// scale * sin(0.37 i + phase) over `shape` (float64): the generator's inputs.
Tensor wave(std::vector<int64_t> shape, double phase, double scale) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37 * i + phase);
  return tensor(v, kFloat64).reshape(shape);
}
Tensor longs(std::vector<int64_t> v, std::vector<int64_t> shape) {
  return tensor(v, kInt64).reshape(shape);
}
std::vector<double> values(const Tensor& t) {
  const Tensor c = t.detach().to(kFloat64).contiguous().reshape({-1});
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

struct Reference {
  std::vector<double> value, grad;
};
const std::map<std::string, Reference>& references() {
  static const std::map<std::string, Reference> refs = [] {
    std::map<std::string, Reference> m;
    std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/nn_loss_reference.txt");
    std::string line;
    while (std::getline(in, line)) {
      std::stringstream ss(line);
      std::string name, v, g;
      std::getline(ss, name, ';');
      std::getline(ss, v, ';');
      std::getline(ss, g, ';');
      auto parse = [](const std::string& s) {
        std::vector<double> out;
        std::stringstream vs(s);
        std::string tok;
        while (vs >> tok) out.push_back(std::stod(tok));  // stod reads "inf", "-0"
        return out;
      };
      m[name] = {parse(v), parse(g)};
    }
    return m;
  }();
  return refs;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " at " << i;
  }
}

using LossFn = std::function<Tensor(const Tensor&)>;
struct Case {
  std::string name;
  Tensor input;
  LossFn fn;
  bool with_grad = true;
};

// The generator's cases, in its order.
std::vector<Case> cases() {
  const Tensor X = wave({4, 5}, 0.3, 3.0);
  const Tensor T = longs({1, 0, 4, 3}, {4});
  const Tensor T_ign = longs({1, 3, 4, 3}, {4});
  const Tensor W = tensor({0.5, 1.0, 2.0, 1.5, 0.25}, kFloat64);
  const Tensor X3 = wave({2, 3, 4}, 1.1, 2.5);
  const Tensor T3 = longs({0, 2, -100, 1, 1, 1, 0, 2}, {2, 4});
  const Tensor W3 = tensor({0.7, 1.3, 2.0}, kFloat64);
  const Tensor X1 = wave({6}, 0.5, 2.0);
  const Tensor T1 = longs({4}, {});
  const Tensor P = softmax(wave({4, 5}, 2.0, 1.5), 1);
  using CE = F::CrossEntropyFuncOptions;
  using NLL = F::NLLLossFuncOptions;
  std::vector<Case> c = {
      {"ce_mean", X, [=](const Tensor& x) { return F::cross_entropy(x, T); }},
      {"ce_sum", X, [=](const Tensor& x) { return F::cross_entropy(x, T, CE().reduction(kSum)); }},
      {"ce_none", X,
       [=](const Tensor& x) { return F::cross_entropy(x, T, CE().reduction(kNone)); }},
      {"ce_weight", X, [=](const Tensor& x) { return F::cross_entropy(x, T, CE().weight(W)); }},
      {"ce_ignore_weight", X,
       [=](const Tensor& x) { return F::cross_entropy(x, T_ign, CE().weight(W).ignore_index(3)); }},
      {"ce_smooth", X,
       [=](const Tensor& x) { return F::cross_entropy(x, T, CE().label_smoothing(0.1)); }},
      {"ce_smooth_weight_ignore", X,
       [=](const Tensor& x) {
         return F::cross_entropy(x, T_ign, CE().weight(W).ignore_index(3).label_smoothing(0.2));
       }},
      {"ce_smooth_weight_none", X,
       [=](const Tensor& x) {
         return F::cross_entropy(
             x, T_ign, CE().weight(W).ignore_index(3).label_smoothing(0.2).reduction(kNone));
       }},
      {"ce_smooth_weight_sum", X,
       [=](const Tensor& x) {
         return F::cross_entropy(
             x, T_ign, CE().weight(W).ignore_index(3).label_smoothing(0.2).reduction(kSum));
       }},
      {"ce_3d_mean", X3,
       [=](const Tensor& x) {
         return F::cross_entropy(x, T3, CE().weight(W3).label_smoothing(0.15));
       }},
      {"ce_3d_none", X3,
       [=](const Tensor& x) { return F::cross_entropy(x, T3, CE().reduction(kNone)); }},
      {"ce_1d", X1, [=](const Tensor& x) { return F::cross_entropy(x, T1); }},
      {"ce_prob_mean", X, [=](const Tensor& x) { return F::cross_entropy(x, P); }},
      {"ce_prob_weight_smooth", X,
       [=](const Tensor& x) {
         return F::cross_entropy(x, P, CE().weight(W).label_smoothing(0.1));
       }},
      {"ce_prob_none", X,
       [=](const Tensor& x) { return F::cross_entropy(x, P, CE().reduction(kNone)); }},
      {"nll_mean", X,
       [=](const Tensor& x) { return F::nll_loss(x, T_ign, NLL().weight(W).ignore_index(3)); }},
      {"nll_sum", X, [=](const Tensor& x) { return F::nll_loss(x, T, NLL().reduction(kSum)); }},
      {"nll_none", X,
       [=](const Tensor& x) {
         return F::nll_loss(x, T_ign, NLL().ignore_index(3).reduction(kNone));
       }},
      {"nll_3d", X3, [=](const Tensor& x) { return F::nll_loss(x, T3, NLL().weight(W3)); }},
  };
  const Tensor A = wave({3, 4}, 0.2, 2.0), B = wave({3, 4}, 1.7, 1.5);
  const std::vector<Case> regression = {
      {"mse_mean", A, [=](const Tensor& x) { return F::mse_loss(x, B); }},
      {"mse_sum", A,
       [=](const Tensor& x) { return F::mse_loss(x, B, F::MSELossFuncOptions(kSum)); }},
      {"mse_none", A,
       [=](const Tensor& x) { return F::mse_loss(x, B, F::MSELossFuncOptions(kNone)); }},
      {"l1_mean", A, [=](const Tensor& x) { return F::l1_loss(x, B); }},
      {"l1_none", A,
       [=](const Tensor& x) { return F::l1_loss(x, B, F::L1LossFuncOptions(kNone)); }},
      {"sl1_mean", A, [=](const Tensor& x) { return F::smooth_l1_loss(x, B); }},
      {"sl1_beta05_sum", A,
       [=](const Tensor& x) {
         return F::smooth_l1_loss(x, B, F::SmoothL1LossFuncOptions(kSum).beta(0.5));
       }},
      {"sl1_beta0", A,
       [=](const Tensor& x) {
         return F::smooth_l1_loss(x, B, F::SmoothL1LossFuncOptions().beta(0));
       }},
      {"sl1_none_beta2", A,
       [=](const Tensor& x) { return ember::smooth_l1_loss(x, B, kNone, 2.0); }},
  };
  c.insert(c.end(), regression.begin(), regression.end());
  const Tensor Q = sigmoid(wave({3, 4}, 0.4, 3.0));
  const Tensor Y = wave({3, 4}, 0.9, 1.0).gt(0).to(kFloat64);
  const Tensor soft = sigmoid(wave({3, 4}, 2.2, 1.0));
  const Tensor BW = wave({4}, 0.0, 0.5) + 1;
  const Tensor Qe = tensor({0.0, 1.0, 0.5, 1e-50}, kFloat64);
  const Tensor Ye = tensor({1.0, 0.0, 1.0, 1.0}, kFloat64);
  const Tensor Z = wave({3, 4}, 0.6, 4.0);
  const Tensor PW = tensor({0.5, 2.0, 3.0, 1.0}, kFloat64);
  using BCE = F::BinaryCrossEntropyFuncOptions;
  using BCEL = F::BinaryCrossEntropyWithLogitsFuncOptions;
  const std::vector<Case> binary = {
      {"bce_mean", Q, [=](const Tensor& x) { return F::binary_cross_entropy(x, Y); }},
      {"bce_weight_sum", Q,
       [=](const Tensor& x) {
         return F::binary_cross_entropy(x, Y, BCE().weight(BW).reduction(kSum));
       }},
      {"bce_none_soft", Q,
       [=](const Tensor& x) { return F::binary_cross_entropy(x, soft, BCE().reduction(kNone)); }},
      {"bce_edges", Qe,
       [=](const Tensor& x) { return F::binary_cross_entropy(x, Ye, BCE().reduction(kNone)); },
       false},
      {"bcel_mean", Z, [=](const Tensor& x) { return F::binary_cross_entropy_with_logits(x, Y); }},
      {"bcel_pos_weight", Z,
       [=](const Tensor& x) {
         return F::binary_cross_entropy_with_logits(x, Y, BCEL().pos_weight(PW).weight(BW));
       }},
      {"bcel_big_none", Z * 20,
       [=](const Tensor& x) {
         return F::binary_cross_entropy_with_logits(x, Y, BCEL().reduction(kNone));
       }},
      {"bcel_soft_sum", Z,
       [=](const Tensor& x) {
         return F::binary_cross_entropy_with_logits(x, soft, BCEL().reduction(kSum));
       }},
  };
  c.insert(c.end(), binary.begin(), binary.end());
  const Tensor L = log_softmax(wave({3, 4}, 0.8, 2.0), 1);
  Tensor Pk = softmax(wave({3, 4}, 1.9, 1.0), 1);
  Pk[0][1].fill_(0.0);
  const Tensor LogPk = log_softmax(wave({3, 4}, 1.9, 1.0), 1);
  using KL = F::KLDivFuncOptions;
  const std::vector<Case> kl = {
      {"kl_mean", L, [=](const Tensor& x) { return F::kl_div(x, Pk, KL().reduction(kMean)); }},
      {"kl_batchmean", L, [=](const Tensor& x) { return F::kl_div(x, Pk, KL(kBatchMean)); }},
      {"kl_sum", L, [=](const Tensor& x) { return ember::kl_div(x, Pk, kSum); }},
      {"kl_none", L, [=](const Tensor& x) { return F::kl_div(x, Pk, KL(kNone)); }},
      {"kl_log_target", L,
       [=](const Tensor& x) { return F::kl_div(x, LogPk, KL(kBatchMean).log_target(true)); }},
  };
  c.insert(c.end(), kl.begin(), kl.end());
  return c;
}

// Value and d(sum(coef * loss))/d input, coef = 1.5 + 0.1 i (the generator's).
Reference run(const Case& c, Tensor input) {
  input = input.detach().clone().requires_grad_(true);
  Tensor loss = c.fn(input);
  Reference r{values(loss), {}};
  if (c.with_grad) {
    const Tensor coef =
        (arange(loss.numel(), TensorOptions(kFloat64).device(input.device())) * 0.1 + 1.5)
            .reshape(loss.sizes())
            .to(loss.dtype());
    loss.backward(coef);
    r.grad = values(input.grad());
  }
  return r;
}

}  // namespace

TEST(NNLoss, MatchesPyTorch) {
  const auto& refs = references();
  ASSERT_EQ(refs.size(), cases().size()) << "tests/data/nn_loss_reference.txt is out of date";
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(refs.count(c.name));
    const Reference got = run(c, c.input);
    expect_near(got.value, refs.at(c.name).value, 1e-10, c.name + " value");
    if (c.with_grad) expect_near(got.grad, refs.at(c.name).grad, 1e-10, c.name + " grad");
  }
}

TEST(NNLoss, MatchesPyTorchInFloat32) {
  for (const Case& c : cases()) {
    if (c.name.rfind("bce_edges", 0) == 0) continue;  // 1e-50 is 0 in float32
    SCOPED_TRACE(c.name);
    const Reference got = run(c, c.input.to(kFloat32));
    expect_near(got.value, references().at(c.name).value, 2e-5, c.name + " value");
    if (c.with_grad) expect_near(got.grad, references().at(c.name).grad, 2e-5, c.name + " grad");
  }
}

// ---- the fused cross_entropy against its composite ----

namespace {

struct CeConfig {
  std::vector<int64_t> shape;  // input's
  bool weight;
  int64_t ignore_index;
  double smoothing;
  nn::Reduction reduction;
};

std::string describe(const CeConfig& c) {
  std::ostringstream os;
  os << "shape " << c.shape.size() << "-d [" << c.shape[0] << (c.shape.size() > 1 ? ", ..." : "")
     << "] weight " << c.weight << " ignore " << c.ignore_index << " smoothing " << c.smoothing
     << " reduction " << nn::reduction_name(c.reduction);
  return os.str();
}

// Random logits, targets in [0, C) with about a fifth of them set to ignore_index 2.
void compare_fused(const CeConfig& cfg, ScalarType dtype, double tol) {
  SCOPED_TRACE(describe(cfg));
  const int64_t cdim = cfg.shape.size() == 1 ? 0 : 1;
  const int64_t classes = cfg.shape[cdim];
  std::vector<int64_t> tshape = cfg.shape;
  tshape.erase(tshape.begin() + cdim);
  Tensor x = randn(cfg.shape, dtype) * 3;
  Tensor t = randint(0, classes, tshape);
  // (a 0-dim target is never ignored: the composite's mean gradient would be 0/0)
  if (cfg.ignore_index == 2 && !tshape.empty()) t = where(rand(tshape).lt(0.2), Scalar(2), t);
  auto opts = F::CrossEntropyFuncOptions()
                  .ignore_index(tshape.empty() ? -100 : cfg.ignore_index)
                  .label_smoothing(cfg.smoothing)
                  .reduction(cfg.reduction);
  if (cfg.weight) opts.weight(rand({classes}, dtype) + 0.5);
  Tensor xf = x.clone().requires_grad_(true), xc = x.clone().requires_grad_(true);
  Tensor lf = F::detail::cross_entropy_fused(xf, t, opts);
  Tensor lc = F::detail::cross_entropy_composite(xc, t, opts);
  ASSERT_EQ(lf.sizes(), lc.sizes());
  EXPECT_EQ(lf.dtype(), dtype);
  expect_near(values(lf), values(lc), tol, "value");
  const Tensor g = rand(lf.sizes(), dtype) + 0.5;
  lf.backward(g);
  lc.backward(g);
  if (cfg.reduction == kMean && t.ne(opts.ignore_index()).sum().item<int64_t>() == 0) {
    // every target ignored: the mean is 0/0; PyTorch's gradient is 0, the composite's NaN
    EXPECT_EQ(xf.grad().abs().sum().item<double>(), 0.0);
  } else {
    expect_near(values(xf.grad()), values(xc.grad()), tol, "grad");
  }
  // F::cross_entropy takes the fused path for class indices
  if (cfg.reduction != kNone || cfg.shape.size() == 2) {
    EXPECT_EQ(F::cross_entropy(xf, t, opts).grad_fn()->name(), "CrossEntropyLossBackward0");
  }
}

}  // namespace

TEST(NNLossFused, MatchesCompositeOverEveryOption) {
  manual_seed(7);
  const std::vector<std::vector<int64_t>> shapes = {{6},     {1, 5},    {17, 10},
                                                    {8, 33}, {3, 4, 5}, {2, 3, 2, 4}};
  for (const auto& shape : shapes) {
    for (bool weight : {false, true}) {
      for (int64_t ignore : {int64_t(-100), int64_t(2)}) {
        for (double smoothing : {0.0, 0.25}) {
          for (nn::Reduction r : {kMean, kSum, kNone}) {
            compare_fused({shape, weight, ignore, smoothing, r}, kFloat64, 1e-12);
          }
        }
      }
    }
  }
}

TEST(NNLossFused, Float32MatchesComposite) {
  manual_seed(8);
  for (nn::Reduction r : {kMean, kSum, kNone}) {
    compare_fused({{64, 1000}, true, 2, 0.1, r}, kFloat32, 2e-5);
    compare_fused({{300, 7}, false, -100, 0.0, r}, kFloat32, 2e-5);
  }
}

TEST(NNLossFused, DoubleBackwardUsesTheComposite) {
  manual_seed(9);
  const Tensor t = longs({1, 0, 2}, {3});
  const auto opts =
      F::CrossEntropyFuncOptions().label_smoothing(0.1).weight(tensor({1.0, 2.0, 0.5}, kFloat64));
  Tensor x = randn({3, 3}, kFloat64).requires_grad_(true);
  Tensor x2 = x.detach().clone().requires_grad_(true);
  Tensor g1 = autograd::grad({F::detail::cross_entropy_fused(x, t, opts)}, {x}, {}, true, true)[0];
  Tensor g2 =
      autograd::grad({F::detail::cross_entropy_composite(x2, t, opts)}, {x2}, {}, true, true)[0];
  expect_near(values(g1), values(g2), 1e-12, "first derivative");
  const Tensor v = tensor({0.3, -1.0, 2.0, 0.5, 0.1, -0.7, 1.2, 0.0, 0.4}, kFloat64).view({3, 3});
  (g1 * v).sum().backward();
  (g2 * v).sum().backward();
  expect_near(values(x.grad()), values(x2.grad()), 1e-12, "second derivative");
}

TEST(NNLossFused, EdgeCases) {
  // every row ignored: the mean is 0/0 (NaN, as PyTorch), the gradient 0
  Tensor x = randn({3, 4}, kFloat64).requires_grad_(true);
  const Tensor t = full({3}, -100, kInt64);
  Tensor loss = F::cross_entropy(x, t);
  EXPECT_TRUE(std::isnan(loss.item<double>()));
  loss.backward();
  EXPECT_EQ(x.grad().abs().sum().item<double>(), 0.0);
  EXPECT_EQ(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kSum)).item<double>(), 0);
  // no rows
  const Tensor x0 = zeros({0, 4});
  const Tensor t0 = zeros({0}, kInt64);
  EXPECT_TRUE(std::isnan(F::cross_entropy(x0, t0).item<float>()));
  EXPECT_EQ(F::cross_entropy(x0, t0, F::CrossEntropyFuncOptions().reduction(kSum)).item<float>(),
            0);
  EXPECT_EQ(F::cross_entropy(x0, t0, F::CrossEntropyFuncOptions().reduction(kNone)).numel(), 0);
  // one class: the loss is 0
  EXPECT_EQ(F::cross_entropy(randn({5, 1}), zeros({5}, kInt64)).item<float>(), 0);
  // large logits stay finite
  const Tensor big = tensor({1000.0f, -1000.0f, 0.0f}).view({1, 3});
  EXPECT_NEAR(F::cross_entropy(big, longs({1}, {1})).item<float>(), 2000.0f, 1e-3);
  // non-contiguous input (a transposed view) and a 0-dim target for a [C] input
  const Tensor xt = randn({5, 4}, kFloat64).t();
  const Tensor tt = longs({0, 4, 2, 1}, {4});
  EXPECT_NEAR(F::cross_entropy(xt, tt).item<double>(),
              F::detail::cross_entropy_composite(xt, tt, {}).item<double>(), 1e-12);
}

TEST(NNLoss, Errors) {
  const Tensor x = randn({4, 5});
  const Tensor t = longs({1, 0, 4, 3}, {4});
  auto throws = [](const std::function<void()>& f, const std::string& text) {
    try {
      f();
      ADD_FAILURE() << "expected an error containing '" << text << "'";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(text));
    }
  };
  throws(
      [&] {
        F::cross_entropy(x, longs({1, 0, 5, 3}, {4}));
      },
      "cross_entropy: target 5 is out of bounds for 5 classes");
  throws([&] { F::cross_entropy(x, longs({1, 0, -1, 3}, {4})); }, "target -1 is out of bounds");
  throws(
      [&] {
        F::cross_entropy(x, longs({1, 0, 4}, {3}));
      },
      "cross_entropy: expected a target of shape [4] for input of shape [4, 5], got [3]");
  throws([&] { F::cross_entropy(x, t.to(kInt32)); }, "expected int64 class indices");
  throws([&] { F::cross_entropy(x.to(kInt64), t); }, "expected float32 or float64 logits");
  throws([&] { F::cross_entropy(randn({}), longs({0}, {})); }, "0-dim");
  throws([&] { F::cross_entropy(x, t, F::CrossEntropyFuncOptions().weight(ones({4}))); },
         "expected a weight of shape [5], got [4]");
  throws([&] { F::cross_entropy(x, t, F::CrossEntropyFuncOptions().label_smoothing(1.5)); },
         "label_smoothing must be in [0, 1]");
  throws([&] { F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kBatchMean)); },
         "reduction kBatchMean is not supported");
  throws([&] { F::nll_loss(x, longs({1, 0, 7, 3}, {4})); }, "nll_loss: target 7 is out of bounds");
  throws([&] { F::nll_loss(x, t, F::NLLLossFuncOptions().weight(ones({2}))); },
         "nll_loss: expected a weight of shape [5]");
  throws([&] { F::mse_loss(x, x, kBatchMean); }, "mse_loss: reduction kBatchMean");
  throws([&] { F::mse_loss(x, randn({3})); },
         "mse_loss: shapes [4, 5] and [3] cannot be broadcast");
  throws([&] { F::smooth_l1_loss(x, randn({3})); }, "smooth_l1_loss: shapes [4, 5] and [3]");
  throws(
      [&] {
        F::binary_cross_entropy(rand({4}), rand({2, 4}));
      },
      "binary_cross_entropy: expected a target of the input's shape [4], got [2, 4]");
  throws([&] { F::binary_cross_entropy_with_logits(rand({4}), rand({5})); },
         "binary_cross_entropy_with_logits: expected a target");
  throws([&] { F::smooth_l1_loss(x, x, F::SmoothL1LossFuncOptions().beta(-1)); },
         "beta must not be negative");
  throws([&] { F::l1_loss(t, t); }, "l1_loss: expected a floating point input");
  throws([&] { F::cross_entropy(x, randn({4, 6})); }, "expected a target of the input's shape");
}

TEST(NNLoss, AtenFormsAndOptions) {
  const Tensor x = randn({4, 5}), t = longs({1, 0, 4, 3}, {4});
  const Tensor w = rand({5}) + 0.5;
  EXPECT_TRUE(allclose(
      ember::cross_entropy_loss(x, t, w, kSum, 3, 0.1),
      F::cross_entropy(
          x, t,
          F::CrossEntropyFuncOptions().weight(w).reduction(kSum).ignore_index(3).label_smoothing(
              0.1))));
  const Tensor lp = log_softmax(x, 1);
  EXPECT_TRUE(
      allclose(ember::nll_loss(lp, t, w), F::nll_loss(lp, t, F::NLLLossFuncOptions().weight(w))));
  EXPECT_TRUE(allclose(ember::mse_loss(x, x * 2, kNone), (x * x)));
  EXPECT_TRUE(allclose(ember::l1_loss(x, x * 2, kSum), x.abs().sum()));
  const Tensor p = rand({4, 5}) * 0.9 + 0.05, y = rand({4, 5}).gt(0.5).to(kFloat32);
  EXPECT_TRUE(allclose(ember::binary_cross_entropy(p, y), F::binary_cross_entropy(p, y)));
  EXPECT_TRUE(allclose(ember::binary_cross_entropy_with_logits(x, y, {}, w),
                       F::binary_cross_entropy_with_logits(
                           x, y, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(w))));
  // options read back
  const auto o = F::CrossEntropyFuncOptions().ignore_index(3).label_smoothing(0.2).reduction(kSum);
  EXPECT_EQ(o.ignore_index(), 3);
  EXPECT_EQ(o.label_smoothing(), 0.2);
  EXPECT_EQ(o.reduction(), kSum);
  EXPECT_FALSE(o.weight().defined());
  EXPECT_EQ(nn::MSELossOptions().reduction(), kMean);
  EXPECT_EQ(nn::KLDivLossOptions(kBatchMean).reduction(), kBatchMean);
  EXPECT_EQ(nn::SmoothL1LossOptions().beta(), 1.0);
}

// ---- modules ----

TEST(NNLossModules, ForwardMatchesFunctional) {
  manual_seed(5);
  const Tensor x = randn({6, 4}), t = randint(0, 4, {6}), w = rand({4}) + 0.5;
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().weight(w).label_smoothing(0.1));
  EXPECT_TRUE(allclose(
      ce(x, t),
      F::cross_entropy(x, t, F::CrossEntropyFuncOptions().weight(w).label_smoothing(0.1))));
  EXPECT_TRUE(ce->named_buffers().contains("weight"));
  nn::NLLLoss nll(nn::NLLLossOptions().ignore_index(1).reduction(kSum));
  EXPECT_TRUE(allclose(
      nll->forward(x.log_softmax(1), t),
      F::nll_loss(x.log_softmax(1), t, F::NLLLossFuncOptions().ignore_index(1).reduction(kSum))));
  const Tensor y = randn({6, 4});
  EXPECT_TRUE(allclose(nn::MSELoss()(x, y), F::mse_loss(x, y)));
  EXPECT_TRUE(allclose(nn::L1Loss(kSum)(x, y), F::l1_loss(x, y, kSum)));
  EXPECT_TRUE(allclose(nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(0.3))(x, y),
                       F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(0.3))));
  const Tensor p = x.sigmoid(), b = rand({6, 4}).gt(0.5).to(kFloat32);
  EXPECT_TRUE(
      allclose(nn::BCELoss(nn::BCELossOptions().weight(w))(p, b),
               F::binary_cross_entropy(p, b, F::BinaryCrossEntropyFuncOptions().weight(w))));
  nn::BCEWithLogitsLoss bcel(nn::BCEWithLogitsLossOptions().pos_weight(w));
  EXPECT_TRUE(
      allclose(bcel(x, b), F::binary_cross_entropy_with_logits(
                               x, b, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(w))));
  EXPECT_TRUE(bcel->named_buffers().contains("pos_weight"));
  EXPECT_TRUE(allclose(nn::KLDivLoss(kBatchMean)(x.log_softmax(1), p),
                       F::kl_div(x.log_softmax(1), p, F::KLDivFuncOptions(kBatchMean))));
  // a training step through the module
  Tensor logits = x.clone().requires_grad_(true);
  ce(logits, t).backward();
  EXPECT_EQ(logits.grad().sizes(), x.sizes());
}

TEST(NNLossModules, PrettyPrint) {
  auto str = [](const auto& m) {
    std::ostringstream os;
    os << m;
    return os.str();
  };
  EXPECT_EQ(str(nn::CrossEntropyLoss()), "CrossEntropyLoss()");
  EXPECT_EQ(
      str(nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().ignore_index(0).label_smoothing(0.1))),
      "CrossEntropyLoss(ignore_index=0, label_smoothing=0.1)");
  EXPECT_EQ(str(nn::NLLLoss(nn::NLLLossOptions().reduction(kSum))), "NLLLoss(reduction=sum)");
  EXPECT_EQ(str(nn::MSELoss()), "MSELoss()");
  EXPECT_EQ(str(nn::L1Loss(kNone)), "L1Loss(reduction=none)");
  EXPECT_EQ(str(nn::SmoothL1Loss(nn::SmoothL1LossOptions().beta(0.5))), "SmoothL1Loss(beta=0.5)");
  EXPECT_EQ(str(nn::BCELoss()), "BCELoss()");
  EXPECT_EQ(str(nn::BCEWithLogitsLoss()), "BCEWithLogitsLoss()");
  EXPECT_EQ(str(nn::KLDivLoss(nn::KLDivLossOptions(kBatchMean).log_target(true))),
            "KLDivLoss(reduction=batchmean, log_target=true)");
}
