// The margin, embedding and robust losses of nn/functional_loss_more.h and the modules of
// nn/loss_more.h, nn/modules/activation_more.h, distance.h and vision.h: against naive
// references in double, PyTorch's values (LibTorch's twin records) and PyTorch's errors.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "nn_test_util.h"

using namespace ember;
using namespace nn_test;
namespace F = ember::nn::functional;

TEST(NNLossMore, LossesMatchNaiveReferences) {
  const Tensor a = wave({3, 4}, 0.1, 2.0), b = wave({3, 4}, 1.3, 2.0);
  const std::vector<double> va = values(a), vb = values(b);
  const double delta = 0.8;
  double huber = 0, sm = 0;
  for (size_t i = 0; i < va.size(); ++i) {
    const double d = std::abs(va[i] - vb[i]);
    huber += d < delta ? 0.5 * d * d : delta * (d - 0.5 * delta);
    sm += std::log1p(std::exp(-va[i] * (vb[i] > 0 ? 1 : -1)));
  }
  expect_values(F::huber_loss(a, b, F::HuberLossFuncOptions().delta(delta)), {huber / 12});
  expect_values(F::soft_margin_loss(a, sign_of(b), kSum), {sm});
  // smooth_l1 with beta is huber / beta.
  expect_values(F::smooth_l1_loss(a, b, kSum, delta), {huber / delta});
  // multi_margin and multilabel_margin, per sample.
  const Tensor y = tensor(std::vector<int64_t>{2, 0, 3});
  const Tensor w = tensor({0.5, 1.0, 2.0, 1.5}, kFloat64);
  std::vector<double> mm1, mm2;
  const int64_t ys[3] = {2, 0, 3};
  const double ws[4] = {0.5, 1.0, 2.0, 1.5};
  for (int n = 0; n < 3; ++n) {
    double s1 = 0, s2 = 0;
    for (int i = 0; i < 4; ++i) {
      if (i == ys[n]) continue;
      const double z = std::max(0.0, 1.0 - va[n * 4 + ys[n]] + va[n * 4 + i]);
      const double z2 = std::max(0.0, 0.3 - va[n * 4 + ys[n]] + va[n * 4 + i]);
      s1 += z, s2 += ws[ys[n]] * z2 * z2;
    }
    mm1.push_back(s1 / 4), mm2.push_back(s2 / 4);
  }
  expect_values(F::multi_margin_loss(a, y, F::MultiMarginLossFuncOptions().reduction(kNone)), mm1);
  expect_values(
      F::multi_margin_loss(
          a, y, F::MultiMarginLossFuncOptions().p(2).margin(0.3).weight(w).reduction(kNone)),
      mm2);
  const std::vector<std::vector<int64_t>> targets = {{3, 0, -1, 1}, {2, 2, 1, -1}, {-1, 2, 0, 1}};
  const Tensor ty =
      tensor(std::vector<int64_t>{3, 0, -1, 1, 2, 2, 1, -1, -1, 2, 0, 1}).reshape({3, 4});
  std::vector<double> mlm;
  for (int n = 0; n < 3; ++n) {
    std::vector<int64_t> list;
    for (int64_t t : targets[n]) {
      if (t < 0) break;
      list.push_back(t);
    }
    double s = 0;
    for (int64_t j : list)
      for (int i = 0; i < 4; ++i)
        if (std::find(list.begin(), list.end(), i) == list.end())
          s += std::max(0.0, 1 - (va[n * 4 + j] - va[n * 4 + i]));
    mlm.push_back(s / 4);
  }
  expect_values(F::multilabel_margin_loss(a, ty, kNone), mlm);
  // multilabel_soft_margin: the mean over classes of BCE with logits, weighted.
  const Tensor t01 =
      tensor({1., 0., 1., 1., 0., 0., 1., 0., 0., 1., 1., 0.}, kFloat64).reshape({3, 4});
  const std::vector<double> vt = values(t01);
  double msm = 0;
  for (int n = 0; n < 3; ++n)
    for (int i = 0; i < 4; ++i) {
      const double x = va[n * 4 + i], t = vt[n * 4 + i];
      msm += ws[i] *
             -(t * std::log(1 / (1 + std::exp(-x))) + (1 - t) * std::log(1 / (1 + std::exp(x)))) /
             4;
    }
  expect_values(
      F::multilabel_soft_margin_loss(a, t01, F::MultilabelSoftMarginLossFuncOptions().weight(w)),
      {msm / 3});
  // triplet with swap, p = 1.5.
  const Tensor c = wave({3, 4}, 2.2, 1.0);
  const std::vector<double> vcn = values(c);
  auto dist = [](const std::vector<double>& u, const std::vector<double>& v, int n) {
    double s = 0;
    for (int i = 0; i < 4; ++i) s += std::pow(std::abs(u[n * 4 + i] - v[n * 4 + i] + 1e-6), 1.5);
    return std::pow(s, 1 / 1.5);
  };
  std::vector<double> tri;
  for (int n = 0; n < 3; ++n)
    tri.push_back(
        std::max(0.0, dist(va, vb, n) - std::min(dist(va, vcn, n), dist(vb, vcn, n)) + 2.0));
  expect_values(
      F::triplet_margin_loss(
          a, b, c,
          F::TripletMarginLossFuncOptions().p(1.5).margin(2.0).swap(true).reduction(kNone)),
      tri);
}

TEST(NNLossMore, LossesMatchPyTorchValues) {
  auto a = tensor({{1.0, 0.0}, {1.0, 1.0}, {0.0, 2.0}}),
       b = tensor({{0.5, 0.5}, {-1.0, 1.0}, {1.0, 1.0}});
  expect_values(F::cosine_embedding_loss(a, b, tensor({1.0, -1.0, -1.0}),
                                         F::CosineEmbeddingLossFuncOptions().margin(0.2)),
                {0.26666668057441711}, 1e-6);
  expect_values(
      F::hinge_embedding_loss(tensor({0.3, 2.0, 0.5, 1.5}), tensor({1.0, -1.0, -1.0, 1.0}),
                              F::HingeEmbeddingLossFuncOptions().margin(2)),
      {0.82499998807907104}, 1e-6);
  expect_values(F::huber_loss(linspace(-3, 3, 7), ones({7})), {1.4285714626312256}, 1e-6);
  expect_values(F::huber_loss(linspace(-3, 3, 7), zeros({7}),
                              F::HuberLossFuncOptions().delta(2.0).reduction(kNone)),
                {4, 2, 0.5, 0, 0.5, 2, 4}, 1e-6);
  expect_values(F::margin_ranking_loss(
                    tensor({1.0, 2.0, 3.0}), tensor({2.0, 2.0, 0.0}), tensor({1.0, -1.0, 1.0}),
                    F::MarginRankingLossFuncOptions().margin(0.5).reduction(kNone)),
                {1.5, 0.5, 0}, 1e-6);
  expect_values(
      F::multi_margin_loss(linspace(-1, 1, 8).reshape({2, 4}), tensor(std::vector<int64_t>{3, 0})),
      {0.75}, 1e-6);
  expect_values(
      F::multilabel_margin_loss(tensor({{0.1, 0.2, 0.4, 0.8}}),
                                tensor(std::vector<int64_t>{3, 0, -1, 1}).reshape({1, 4})),
      {0.85000002384185791}, 1e-6);
  expect_values(F::multilabel_soft_margin_loss(linspace(-1, 1, 6).reshape({2, 3}),
                                               tensor({{1., 0., 1.}, {0., 0., 1.}})),
                {0.78296291828155518}, 1e-6);
  expect_values(F::poisson_nll_loss(
                    tensor({0.5, 1.0, 3.0}), tensor({1.0, 2.0, 4.0}),
                    F::PoissonNLLLossFuncOptions().log_input(false).full(true).reduction(kNone)),
                {1.1931471824645996, 1.6518064737319946, 1.7628140449523926}, 1e-6);
  expect_values(F::poisson_nll_loss(tensor({0.0, 1.0, -1.0}), tensor({1.0, 2.0, 0.0})),
                {0.69538706541061401}, 1e-6);
  expect_values(F::smooth_l1_loss(linspace(-2, 2, 9), zeros({9}), kSum, 2.0), {3.75}, 1e-6);
  expect_values(F::soft_margin_loss(tensor({0.5, -1.0, 2.0}), tensor({1.0, 1.0, -1.0})),
                {1.3047555685043335}, 1e-6);
  auto t = arange(6.).reshape({2, 3});
  expect_values(F::triplet_margin_loss(
                    t, t + 1.0, t * 0.5,
                    F::TripletMarginLossFuncOptions().p(1).margin(3.0).swap(true).reduction(kNone)),
                {4.4999942779541016, 0}, 1e-6);
  // Unbatched [C] inputs give 0-dim losses.
  EXPECT_EQ(F::multi_margin_loss(ones({4}), tensor(int64_t{1}),
                                 F::MultiMarginLossFuncOptions().reduction(kNone))
                .dim(),
            0);
}

TEST(NNLossMore, LossErrors) {
  expect_throw_with([] { F::huber_loss(ones({2}), ones({2}), F::HuberLossFuncOptions().delta(0)); },
                    "non-positive values for delta");
  expect_throw_with(
      [] {
        F::multi_margin_loss(ones({2, 3}), tensor(std::vector<int64_t>{0, 1}),
                             F::MultiMarginLossFuncOptions().p(3));
      },
      "only p == 1 and p == 2 supported");
  expect_throw_with(
      [] {
        F::multi_margin_loss(ones({2, 3}), tensor(std::vector<int64_t>{0, 3}));
      },
      "out of range");
  expect_throw_with(
      [] {
        F::multilabel_margin_loss(ones({2, 3}), tensor(std::vector<int64_t>{0, 1}));
      },
      "inconsistent target size");
  expect_throw_with(
      [] {
        F::cosine_embedding_loss(ones({2, 3}), ones({2, 3}), ones({2, 1}));
      },
      "0D or 1D target tensor expected");
  expect_throw_with(
      [] {
        F::triplet_margin_loss(ones({2, 3}), ones({2, 3}), ones({3}));
      },
      "same number of dimensions");
  expect_throw_with(
      [] {
        F::margin_ranking_loss(ones({2}), ones({2}), ones({2, 1}));
      },
      "All input tensors should have same dimension");
  expect_throw_with(
      [] { F::smooth_l1_loss(ones({2}), ones({2}), nn::SmoothL1LossOptions().beta(0.5), 2.0); },
      "expected beta not to be provided");
  expect_throw_with([] { F::huber_loss(ones({2}), ones({2}), nn::HuberLossOptions(kBatchMean)); },
                    "not supported");
}

TEST(NNLossMore, Modules) {
  nn::HuberLoss huber(nn::HuberLossOptions().delta(0.5));
  expect_values(huber(linspace(-2, 2, 5), zeros({5})), {0.5}, 1e-6);
  nn::ELU elu(nn::ELUOptions().alpha(0.5));
  expect_values(elu(tensor({-1.0, 2.0}, kFloat64)), {0.5 * std::expm1(-1.0), 2});
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(3).init(0.1));
  EXPECT_EQ(prelu->parameters().size(), 1u);
  expect_values(prelu->weight, {0.1, 0.1, 0.1}, 1e-7);
  Tensor out = prelu(-ones({2, 3, 2}));
  out.sum().backward();
  expect_values(prelu->weight.grad(), {-4, -4, -4});
  nn::Threshold th(0.5, -1.0);
  expect_values(th(linspace(-1, 1, 5)), {-1, -1, -1, -1, 1});
  nn::Softmin softmin(0);
  expect_values(softmin(arange(4.)), values(F::softmin(arange(4.), 0)));
  nn::GLU glu;
  EXPECT_EQ(glu(ones({2, 4})).sizes(), IntArrayRef({2, 2}));
  nn::Mish mish;
  expect_values(mish(tensor({0.0})), {0});
  nn::CosineSimilarity cosine(nn::CosineSimilarityOptions().dim(0));
  EXPECT_EQ(cosine(ones({3, 2}), ones({3, 2})).sizes(), IntArrayRef({2}));
  nn::PairwiseDistance pd;
  EXPECT_EQ(pd(ones({3, 2}), zeros({3, 2})).sizes(), IntArrayRef({3}));
  nn::PixelShuffle ps(2);
  EXPECT_EQ(ps(ones({1, 8, 2, 2})).sizes(), IntArrayRef({1, 2, 4, 4}));
  nn::Fold fold(nn::FoldOptions({3, 3}, {2, 2}));
  nn::Unfold unfold(nn::UnfoldOptions({2, 2}));
  EXPECT_EQ(fold(unfold(ones({1, 1, 3, 3}))).sizes(), IntArrayRef({1, 1, 3, 3}));
  nn::LocalResponseNorm lrn(2);
  EXPECT_EQ(lrn(ones({1, 3, 2})).sizes(), IntArrayRef({1, 3, 2}));
  nn::MultiMarginLoss mml(nn::MultiMarginLossOptions().weight(ones({4})));
  EXPECT_EQ(mml->buffers().size(), 1u);
  expect_values(mml(linspace(-1, 1, 8).reshape({2, 4}), tensor(std::vector<int64_t>{3, 0})), {0.75},
                1e-6);
  nn::TripletMarginLoss triplet;
  EXPECT_EQ(triplet(ones({2, 3}), ones({2, 3}), zeros({2, 3})).dim(), 0);
  std::ostringstream os;
  os << *huber << " " << *elu << " " << *prelu << " " << *ps;
  EXPECT_EQ(os.str(),
            "HuberLoss(delta=0.5) ELU(alpha=0.5) PReLU(num_parameters=3) "
            "PixelShuffle(upscale_factor=2)");
}
