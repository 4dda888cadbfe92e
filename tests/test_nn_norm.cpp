// Normalization, channel dropout, padding and interpolation (nn/normalization_ops.cpp,
// dropout_ops.cpp, resample_ops.cpp, functional_conv.h): every norm/pad/interpolate case of
// tests/cases/cnn_cases.inc against LibTorch (outputs, running stats, input gradients; on CUDA
// too when present), then naive double loops for batch/group/instance norm and the running
// statistics (momentum and cumulative average), dropout statistics and scaling, and errors.
#include <ember/ember.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/modules/batchnorm.h>
#include <ember/nn/modules/dropout2d.h>
#include <ember/nn/modules/groupnorm.h>
#include <ember/nn/modules/instancenorm.h>
#include <ember/nn/modules/upsampling.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cnn_reference.h"
#include "error_of.h"

namespace {

namespace F = ember::nn::functional;
namespace nn = ember::nn;
using ember::Tensor;
using ember::TensorOptions;

std::vector<double> vals(const Tensor& t) {
  const Tensor c = t.detach().to(ember::kCPU).to(ember::kFloat64).contiguous().reshape({-1});
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void expect_near(const Tensor& got, const std::vector<double>& want, double tol,
                 const std::string& what = "") {
  const std::vector<double> g = vals(got);
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], want[i], tol * (1 + std::abs(want[i]))) << what << " at " << i;
  }
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Per-group statistics of x viewed as [A, G, B, S] (A outer, G the statistic's index, B and S
// inner): reduced over A, B and S. Biased variance; count = A * B * S.
struct Stats {
  std::vector<double> mean, var;
  int64_t count = 0;
};
Stats stats(const std::vector<double>& x, int64_t a, int64_t g, int64_t b) {
  const int64_t s = static_cast<int64_t>(x.size()) / (a * g * b);
  Stats st;
  st.count = a * b * s;
  for (int64_t k = 0; k < g; ++k) {
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < b * s; ++j) sum += x[(i * g + k) * b * s + j];
    }
    const double mean = sum / st.count;
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < b * s; ++j) {
        const double d = x[(i * g + k) * b * s + j] - mean;
        sq += d * d;
      }
    }
    st.mean.push_back(mean);
    st.var.push_back(sq / st.count);
  }
  return st;
}

// Naive batch norm of x [N, C, S] with the given per-channel statistics and affine.
std::vector<double> normalize(const std::vector<double>& x, int64_t n, int64_t c,
                              const std::vector<double>& mean, const std::vector<double>& var,
                              const std::vector<double>& w, const std::vector<double>& b,
                              double eps) {
  const int64_t s = static_cast<int64_t>(x.size()) / (n * c);
  std::vector<double> y(x.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < c; ++k) {
      for (int64_t j = 0; j < s; ++j) {
        const size_t at = static_cast<size_t>((i * c + k) * s + j);
        y[at] = (x[at] - mean[k]) / std::sqrt(var[k] + eps) * (w.empty() ? 1.0 : w[k]) +
                (b.empty() ? 0.0 : b[k]);
      }
    }
  }
  return y;
}

Tensor randn(std::vector<int64_t> shape, double offset = 0, double scale = 1) {
  return ember::randn(shape) * scale + offset;
}

// ---- against LibTorch ----

TEST(NormAgainstLibTorch, EveryCase) { cnnref::check_cases(cnnref::norm_cases(), ember::kCPU); }

TEST(NormAgainstLibTorch, EveryCaseOnCuda) {
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  cnnref::check_cases(cnnref::norm_cases(), ember::Device(ember::kCUDA), 1e-9);
}

// ---- batch_norm ----

TEST(BatchNorm, TrainingMatchesNaiveLoopAndUpdatesRunningStats) {
  ember::manual_seed(1);
  const Tensor x = randn({3, 4, 5, 2}, 0.5, 2.0);
  const Tensor w = randn({4}), b = randn({4});
  Tensor rm = ember::arange(4, ember::kFloat32) * 0.1;
  Tensor rv = ember::arange(4, ember::kFloat32) + 1.0;
  const std::vector<double> rm0 = vals(rm), rv0 = vals(rv);
  const Tensor y = ember::batch_norm(x, w, b, rm, rv, /*training=*/true, 0.25, 1e-5);
  const Stats st = stats(vals(x), 3, 4, 1);
  expect_near(y, normalize(vals(x), 3, 4, st.mean, st.var, vals(w), vals(b), 1e-5), 1e-5, "y");
  std::vector<double> want_rm, want_rv;
  for (int k = 0; k < 4; ++k) {
    want_rm.push_back(0.75 * rm0[k] + 0.25 * st.mean[k]);
    want_rv.push_back(0.75 * rv0[k] + 0.25 * st.var[k] * st.count / (st.count - 1.0));
  }
  expect_near(rm, want_rm, 1e-6, "running_mean");
  expect_near(rv, want_rv, 1e-6, "running_var");
  EXPECT_FALSE(rm.requires_grad());
  EXPECT_EQ(rm.grad_fn(), nullptr);
}

TEST(BatchNorm, Float32KeepsPrecisionWithALargeMean) {
  // y = x * scale + shift with shift ~ -mean scale: fine in float32 for |mean| / std ~ 50.
  ember::manual_seed(2);
  const Tensor x = randn({16, 3, 6, 6}, 50.0, 1.0);
  const Tensor y = ember::batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5);
  const Stats st = stats(vals(x), 16, 3, 1);
  expect_near(y, normalize(vals(x), 16, 3, st.mean, st.var, {}, {}, 1e-5), 2e-4);
}

// Training-mode gradients of sum(y * g) against the closed form in double loops: with
// xhat = (x - mean) invstd, dx = invstd w (g - mean(g) - xhat mean(g xhat)), dw = sum(g xhat),
// db = sum(g). Then the create_graph route (a composite) must give the same first derivatives.
TEST(BatchNorm, TrainingGradientsMatchTheClosedForm) {
  ember::manual_seed(5);
  for (auto dev : {ember::Device(ember::kCPU), ember::Device(ember::kCUDA)}) {
    if (dev.is_cuda() && !ember::cuda::is_available()) continue;
    const int64_t n = 5, c = 3, sp = 7;
    const Tensor x0 = randn({n, c, sp}, 3.0, 2.0), g0 = randn({n, c, sp});
    const Tensor w0 = randn({c}), b0 = randn({c});
    const std::vector<double> x = vals(x0), g = vals(g0), w = vals(w0);
    const Stats st = stats(x, n, c, 1);
    std::vector<double> dx(x.size()), dw(c, 0.0), db(c, 0.0);
    for (int64_t k = 0; k < c; ++k) {
      const double invstd = 1.0 / std::sqrt(st.var[k] + 1e-5);
      double mg = 0, mgx = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < sp; ++j) {
          const size_t at = static_cast<size_t>((i * c + k) * sp + j);
          const double xhat = (x[at] - st.mean[k]) * invstd;
          mg += g[at];
          mgx += g[at] * xhat;
        }
      }
      dw[k] = mgx;
      db[k] = mg;
      mg /= st.count;
      mgx /= st.count;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < sp; ++j) {
          const size_t at = static_cast<size_t>((i * c + k) * sp + j);
          const double xhat = (x[at] - st.mean[k]) * invstd;
          dx[at] = invstd * w[k] * (g[at] - mg - xhat * mgx);
        }
      }
    }
    for (bool create_graph : {false, true}) {
      const std::string what = std::string(dev.is_cuda() ? "cuda" : "cpu") +
                               (create_graph ? " create_graph" : " native");
      Tensor xi = x0.to(dev).requires_grad_(true), wi = w0.to(dev).requires_grad_(true);
      Tensor bi = b0.to(dev).requires_grad_(true);
      Tensor y = ember::batch_norm(xi, wi, bi, {}, {}, /*training=*/true, 0.1, 1e-5);
      auto grads =
          ember::autograd::grad({(y * g0.to(dev)).sum()}, {xi, wi, bi}, {}, true, create_graph);
      expect_near(grads[0], dx, 1e-4, what + " grad x");
      expect_near(grads[1], dw, 1e-4, what + " grad weight");
      expect_near(grads[2], db, 1e-4, what + " grad bias");
      EXPECT_EQ(grads[0].requires_grad(), create_graph) << what;
    }
  }
}

// A ResNet block adds the shortcut in place (out += identity) to the batch norm's output: the
// output must be a tensor of its own, not a view of one with history.
TEST(BatchNorm, OutputTakesInPlaceOpsUnderAutograd) {
  ember::manual_seed(6);
  for (bool instance : {false, true}) {
    Tensor x = randn({2, 3, 4, 4}).requires_grad_(true);
    Tensor y = instance ? ember::instance_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5)
                        : ember::batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5);
    y += x;
    y.sum().backward();
    // d/dx sum(norm(x) + x) = 1: the normalized part's gradient of a sum is zero.
    expect_near(x.grad(), std::vector<double>(static_cast<size_t>(x.numel()), 1.0), 1e-5,
                instance ? "instance" : "batch");
  }
}

TEST(BatchNorm, EvalUsesTheRunningStats) {
  ember::manual_seed(3);
  const Tensor x = randn({4, 3, 2});
  const Tensor rm = ember::tensor({0.5f, -1.0f, 2.0f}), rv = ember::tensor({1.0f, 0.25f, 4.0f});
  const Tensor w = ember::tensor({2.0f, 1.0f, -1.0f}), b = ember::tensor({0.0f, 1.0f, 0.5f});
  const Tensor y = F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().weight(w).bias(b).eps(0.01));
  expect_near(y, normalize(vals(x), 4, 3, vals(rm), vals(rv), vals(w), vals(b), 0.01), 1e-5);
  expect_near(rm, {0.5, -1.0, 2.0}, 0, "running stats unchanged in eval");
}

TEST(BatchNorm, ModuleCumulativeAverageWhenMomentumIsNone) {
  ember::manual_seed(4);
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(2).momentum(std::nullopt));
  std::vector<double> mean_sum(2, 0), var_sum(2, 0);
  for (int step = 0; step < 3; ++step) {
    const Tensor x = randn({3, 2, 4, 4}, step, 1.0 + step);
    bn->forward(x);
    const Stats st = stats(vals(x), 3, 2, 1);
    for (int k = 0; k < 2; ++k) {
      mean_sum[k] += st.mean[k];
      var_sum[k] += st.var[k] * st.count / (st.count - 1.0);
    }
  }
  expect_near(bn->running_mean, {mean_sum[0] / 3, mean_sum[1] / 3}, 1e-5, "running_mean");
  expect_near(bn->running_var, {var_sum[0] / 3, var_sum[1] / 3}, 1e-5, "running_var");
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 3);
  EXPECT_EQ(bn->num_batches_tracked.dtype(), ember::kInt64);
  EXPECT_EQ(bn->num_batches_tracked.dim(), 0);
}

TEST(BatchNorm, ModuleMomentumAndEval) {
  ember::manual_seed(5);
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(3).momentum(0.3));
  const Tensor x = randn({8, 3}, 1.0, 2.0);
  const Tensor y = bn->forward(x);
  const Stats st = stats(vals(x), 8, 3, 1);
  std::vector<double> rm, rv;
  for (int k = 0; k < 3; ++k) {
    rm.push_back(0.3 * st.mean[k]);
    rv.push_back(0.7 + 0.3 * st.var[k] * 8 / 7);
  }
  expect_near(bn->running_mean, rm, 1e-5);
  expect_near(bn->running_var, rv, 1e-5);
  expect_near(y, normalize(vals(x), 8, 3, st.mean, st.var, {}, {}, 1e-5), 1e-5);
  bn->eval();
  expect_near(bn->forward(x), normalize(vals(x), 8, 3, rm, rv, {}, {}, 1e-5), 1e-5, "eval");
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);  // eval does not count
  // Parameters receive gradients; buffers don't require them.
  bn->train();
  bn->forward(x).pow(2).sum().backward();
  EXPECT_TRUE(bn->weight.grad().defined());
  EXPECT_TRUE(bn->bias.grad().defined());
  EXPECT_FALSE(bn->running_mean.requires_grad());
}

TEST(BatchNorm, ModuleWithoutRunningStatsUsesBatchStatsInEval) {
  ember::manual_seed(6);
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(2).track_running_stats(false).affine(false));
  EXPECT_FALSE(bn->running_mean.defined());
  EXPECT_FALSE(bn->weight.defined());
  EXPECT_TRUE(bn->parameters().empty());
  EXPECT_TRUE(bn->buffers().empty());
  bn->eval();
  const Tensor x = randn({2, 2, 3, 3});
  const Stats st = stats(vals(x), 2, 2, 1);
  expect_near(bn->forward(x), normalize(vals(x), 2, 2, st.mean, st.var, {}, {}, 1e-5), 1e-5);
}

TEST(BatchNorm, Errors) {
  const Tensor x = ember::randn({2, 3, 4});
  EXPECT_TRUE(has(error_of([&] {
                    ember::batch_norm(x, {}, {}, ember::zeros({4}), ember::ones({3}), true, 0.1,
                                      1e-5);
                  }),
                  "batch_norm: running_mean should contain 3 elements not 4"));
  EXPECT_TRUE(
      has(error_of([&] { ember::batch_norm(x, ember::ones({2}), {}, {}, {}, true, 0.1, 1e-5); }),
          "batch_norm: weight should contain 3 elements not 2"));
  EXPECT_EQ(error_of([&] {
              F::batch_norm(ember::randn({1, 3}), {}, {}, F::BatchNormFuncOptions().training(true));
            }),
            "batch_norm: Expected more than 1 value per channel when training, got input size "
            "[1, 3]");
  EXPECT_TRUE(has(error_of([&] { F::batch_norm(x, {}, {}); }),
                  "running_mean must be defined in evaluation mode"));
  EXPECT_TRUE(
      has(error_of([&] { ember::batch_norm(ember::randn({3}), {}, {}, {}, {}, true, 0.1, 1e-5); }),
          "batch_norm: expected an input of at least 2 dims [N, C, *], got [3]"));
  EXPECT_TRUE(has(error_of([&] {
                    F::batch_norm(x, {}, {},
                                  F::BatchNormFuncOptions().training(true).momentum(std::nullopt));
                  }),
                  "batch_norm: momentum must be set"));
  nn::BatchNorm2d bn2(3);
  EXPECT_EQ(error_of([&] { bn2->forward(x); }), "BatchNorm2d: expected 4D input (got 3D input)");
  nn::BatchNorm1d bn1(3);
  EXPECT_EQ(error_of([&] {
              bn1->forward(ember::randn({2, 3, 4, 4}));
            }),
            "BatchNorm1d: expected 2D or 3D input (got 4D input)");
}

TEST(BatchNorm, EmptyBatchGivesAnEmptyOutputAndLeavesTheStats) {
  Tensor rm = ember::zeros({3}), rv = ember::ones({3});
  const Tensor y = ember::batch_norm(ember::zeros({0, 3, 2}), ember::ones({3}), ember::zeros({3}),
                                     rm, rv, true, 0.1, 1e-5);
  EXPECT_EQ(y.sizes(), ember::IntArrayRef({0, 3, 2}));
  expect_near(rm, {0, 0, 0}, 0);
}

// ---- group_norm ----

TEST(GroupNorm, MatchesNaiveLoop) {
  ember::manual_seed(7);
  const Tensor x = randn({2, 6, 5}, 1.0, 3.0);
  const Tensor w = randn({6}), b = randn({6});
  const Tensor y = F::group_norm(x, F::GroupNormFuncOptions(3).weight(w).bias(b).eps(1e-4));
  // Group statistics: x as [N * G, C / G * L] per row; then a per-channel affine.
  const std::vector<double> xv = vals(x), wv = vals(w), bv = vals(b);
  std::vector<double> want(xv.size());
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t g = 0; g < 3; ++g) {
      double sum = 0, sq = 0;
      for (int64_t j = 0; j < 10; ++j) sum += xv[(n * 3 + g) * 10 + j];
      const double mean = sum / 10;
      for (int64_t j = 0; j < 10; ++j) sq += std::pow(xv[(n * 3 + g) * 10 + j] - mean, 2);
      for (int64_t j = 0; j < 10; ++j) {
        const int64_t c = g * 2 + j / 5, at = (n * 3 + g) * 10 + j;
        want[at] = (xv[at] - mean) / std::sqrt(sq / 10 + 1e-4) * wv[c] + bv[c];
      }
    }
  }
  expect_near(y, want, 1e-5);
}

TEST(GroupNorm, ModuleAndErrors) {
  nn::GroupNorm gn(2, 4);
  EXPECT_EQ(gn->weight.sizes(), ember::IntArrayRef({4}));
  EXPECT_TRUE(ember::equal(gn->weight, ember::ones({4})));
  EXPECT_TRUE(ember::equal(gn->bias, ember::zeros({4})));
  std::ostringstream os;
  os << *gn;
  EXPECT_EQ(os.str(), "GroupNorm(2, 4, eps=1e-05, affine=true)");
  EXPECT_TRUE(has(error_of([] { nn::GroupNorm(3, 4); }),
                  "GroupNorm: num_channels must be divisible by num_groups"));
  EXPECT_EQ(error_of([] {
              F::group_norm(ember::randn({2, 6, 4}), F::GroupNormFuncOptions(4));
            }),
            "group_norm: Expected number of channels in input to be divisible by num_groups, but "
            "got input of shape [2, 6, 4] and num_groups=4");
  EXPECT_TRUE(has(
      error_of([] {
        F::group_norm(ember::randn({2, 6, 4}), F::GroupNormFuncOptions(3).weight(ember::ones({3})));
      }),
      "Expected weight to be a vector of size equal to the number of channels in "
      "input, but got weight of shape [3] and input of shape [2, 6, 4]"));
}

// ---- instance_norm ----

TEST(InstanceNorm, MatchesNaiveLoopAndAveragesRunningStatsOverTheBatch) {
  ember::manual_seed(8);
  const Tensor x = randn({3, 2, 4, 2}, -1.0, 2.0);
  Tensor rm = ember::zeros({2}), rv = ember::ones({2});
  const Tensor y = F::instance_norm(
      x, F::InstanceNormFuncOptions().running_mean(rm).running_var(rv).momentum(0.4));
  const std::vector<double> xv = vals(x);
  // Per (n, c) statistics: rows of 8.
  const Stats st = stats(xv, 1, 6, 1);
  std::vector<double> want(xv.size());
  for (int64_t r = 0; r < 6; ++r) {
    for (int64_t j = 0; j < 8; ++j) {
      want[r * 8 + j] = (xv[r * 8 + j] - st.mean[r]) / std::sqrt(st.var[r] + 1e-5);
    }
  }
  expect_near(y, want, 1e-5, "y");
  std::vector<double> want_rm(2, 0), want_rv(2, 1.0 - 0.4);
  for (int64_t n = 0; n < 3; ++n) {
    for (int64_t c = 0; c < 2; ++c) {
      want_rm[c] += 0.4 * st.mean[n * 2 + c] / 3;
      want_rv[c] += 0.4 * st.var[n * 2 + c] * 8 / 7 / 3;
    }
  }
  expect_near(rm, want_rm, 1e-5, "running_mean");
  expect_near(rv, want_rv, 1e-5, "running_var");
}

TEST(InstanceNorm, ModuleDefaultsAndErrors) {
  nn::InstanceNorm2d in(3);
  EXPECT_TRUE(in->parameters().empty());
  EXPECT_TRUE(in->buffers().empty());
  EXPECT_EQ(in->state_dict().size(), 0u);
  std::ostringstream os;
  os << *in;
  EXPECT_EQ(os.str(),
            "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false)");
  EXPECT_EQ(error_of([&] {
              in->forward(ember::randn({3, 4}));
            }),
            "InstanceNorm2d: expected 3D or 4D input (got 2D input)");
  EXPECT_TRUE(has(error_of([] {
                    F::instance_norm(ember::randn({2, 3, 1}));
                  }),
                  "instance_norm: Expected more than 1 spatial element when training, got input "
                  "size [2, 3, 1]"));
  EXPECT_TRUE(has(error_of([] {
                    F::instance_norm(ember::randn({2, 3, 4}),
                                     F::InstanceNormFuncOptions().use_input_stats(false));
                  }),
                  "Expected running_mean and running_var to be defined when use_input_stats is "
                  "false"));
  // Unbatched (C, H, W) is a batch of one.
  ember::manual_seed(9);
  const Tensor x = ember::randn({3, 4, 5});
  EXPECT_TRUE(ember::allclose(in->forward(x), in->forward(x.unsqueeze(0)).squeeze(0)));
}

// ---- channel dropout ----

TEST(FeatureDropout, ZeroesWholeChannelsWithProbabilityPAndScalesTheRest) {
  ember::manual_seed(10);
  const double p = 0.3;
  const Tensor x = ember::ones({64, 32, 3, 3}, ember::requires_grad());
  const Tensor y = F::dropout2d(x, F::Dropout2dFuncOptions().p(p));
  const std::vector<double> v = vals(y);
  int64_t zero_planes = 0;
  for (int64_t plane = 0; plane < 64 * 32; ++plane) {
    const double first = v[plane * 9];
    ASSERT_TRUE(first == 0.0 || std::abs(first - 1.0 / (1.0 - p)) < 1e-6) << first;
    for (int64_t j = 1; j < 9; ++j) ASSERT_EQ(v[plane * 9 + j], first) << "plane " << plane;
    zero_planes += first == 0.0;
  }
  // 2048 planes: the zero fraction has a standard deviation of 0.0101.
  EXPECT_NEAR(static_cast<double>(zero_planes) / 2048.0, p, 0.05);
  EXPECT_NEAR(y.mean().item<double>(), 1.0, 0.08);
  y.sum().backward();
  EXPECT_TRUE(ember::equal(x.grad(), y.detach()));  // d y / d x = mask / (1 - p)
}

TEST(FeatureDropout, UnbatchedThreeDimInputDropsChannels) {
  ember::manual_seed(11);
  const Tensor x = ember::ones({400, 2, 3});
  const std::vector<double> v = vals(F::dropout2d(x, F::Dropout2dFuncOptions().p(0.5)));
  int64_t zero = 0;
  for (int64_t c = 0; c < 400; ++c) {
    for (int64_t j = 1; j < 6; ++j) ASSERT_EQ(v[c * 6 + j], v[c * 6]) << "channel " << c;
    zero += v[c * 6] == 0.0;
  }
  EXPECT_NEAR(zero / 400.0, 0.5, 0.1);  // std 0.025
}

TEST(FeatureDropout, IdentityAndEdgeCases) {
  const Tensor x = ember::randn({2, 3, 4, 4}, ember::requires_grad());
  EXPECT_TRUE(F::dropout2d(x, F::Dropout2dFuncOptions().training(false)).is_same(x));
  EXPECT_TRUE(F::dropout2d(x, F::Dropout2dFuncOptions().p(0.0)).is_same(x));
  EXPECT_TRUE(ember::feature_dropout(x, 0.5, /*train=*/false).is_same(x));
  const Tensor zero = F::dropout2d(x, F::Dropout2dFuncOptions().p(1.0));
  EXPECT_TRUE(ember::equal(zero.detach(), ember::zeros({2, 3, 4, 4})));
  zero.sum().backward();
  EXPECT_TRUE(ember::equal(x.grad(), ember::zeros({2, 3, 4, 4})));
  // Same seed, same channels.
  ember::manual_seed(12);
  const Tensor a = ember::feature_dropout(x.detach(), 0.5, true);
  ember::manual_seed(12);
  EXPECT_TRUE(ember::equal(a, ember::feature_dropout(x.detach(), 0.5, true)));
  // In place: the input holds the result.
  Tensor z = ember::ones({2, 8, 2, 2});
  const Tensor r = F::dropout2d(z, F::Dropout2dFuncOptions().p(0.5).inplace(true));
  EXPECT_TRUE(r.is_same(z));
  EXPECT_TRUE(z.eq(0.0).logical_or(z.eq(2.0)).all().item<bool>());
  EXPECT_TRUE(has(error_of([&] { F::dropout2d(x, F::Dropout2dFuncOptions().p(1.5)); }),
                  "dropout2d: dropout probability has to be between 0 and 1, but got 1.5"));
  EXPECT_TRUE(has(error_of([] { ember::feature_dropout(ember::ones({4}), 0.5, true); }),
                  "Feature dropout requires at least 2 dimensions in the input"));
}

TEST(FeatureDropout, Dropout2dModule) {
  nn::Dropout2d drop(0.25);
  std::ostringstream os;
  os << *drop;
  EXPECT_EQ(os.str(), "Dropout2d(p=0.25, inplace=false)");
  ember::manual_seed(13);
  const Tensor x = ember::ones({4, 16, 2, 2});
  const Tensor y = drop(x);
  EXPECT_FALSE(ember::equal(y, x));
  drop->eval();
  EXPECT_TRUE(drop(x).is_same(x));
  EXPECT_TRUE(has(error_of([] { nn::Dropout2d(-0.5); }), "between 0 and 1"));
}

// ---- pad ----

TEST(Pad, ConstantPadsAnyDtypeAndReturnsANewTensor) {
  const Tensor x = ember::arange(6).reshape({2, 3});  // int64
  const Tensor y = F::pad(x, F::PadFuncOptions({1, 0}).value(7));
  EXPECT_EQ(y.dtype(), ember::kInt64);
  expect_near(y, {7, 0, 1, 2, 7, 3, 4, 5}, 0);
  const Tensor r = F::pad(x, F::PadFuncOptions({0, 1}).mode(ember::kReplicate));
  expect_near(r, {0, 1, 2, 2, 3, 4, 5, 5}, 0);
  const Tensor same = F::pad(x, F::PadFuncOptions({0, 0}));
  EXPECT_FALSE(same.is_same(x));
  EXPECT_NE(same.data_ptr(), x.data_ptr());
  expect_near(ember::constant_pad_nd(x, {0, 0, -1, 0}), {3, 4, 5}, 0);
}

TEST(Pad, Errors) {
  const Tensor x = ember::randn({1, 2, 3});
  EXPECT_EQ(error_of([&] {
              F::pad(x, F::PadFuncOptions({3, 1}).mode(ember::kReflect));
            }),
            "pad: Argument #4: Padding size should be less than the corresponding input "
            "dimension, but got: padding (3, 1) at dimension 2 of input [1, 2, 3]");
  EXPECT_EQ(error_of([&] {
              F::pad(x, F::PadFuncOptions({0, 0, 2, 0}).mode(ember::kReflect));
            }),
            "pad: Argument #6: Padding size should be less than the corresponding input "
            "dimension, but got: padding (2, 0) at dimension 1 of input [1, 2, 3]");
  EXPECT_TRUE(has(error_of([&] {
                    F::pad(x, F::PadFuncOptions({1, 2, 3}));
                  }),
                  "Padding length must be divisible by 2"));
  EXPECT_TRUE(has(error_of([&] {
                    F::pad(x, F::PadFuncOptions({1, 1, 1, 1, 1, 1, 1, 1}));
                  }),
                  "Padding length should be less than or equal to two times the input dimension"));
  EXPECT_TRUE(has(error_of([&] {
                    F::pad(x, F::PadFuncOptions({1, 1}).mode(ember::kReflect).value(2));
                  }),
                  "Padding mode \"reflect\" doesn't take in value argument"));
  EXPECT_TRUE(has(error_of([] {
                    F::pad(ember::randn({5}), F::PadFuncOptions({1, 1}).mode(ember::kReplicate));
                  }),
                  "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"));
  EXPECT_TRUE(has(error_of([&] {
                    F::pad(x, F::PadFuncOptions({4, 0}).mode(ember::kCircular));
                  }),
                  "Padding value causes wrapping around more than once"));
  EXPECT_TRUE(has(error_of([&] {
                    F::pad(x, F::PadFuncOptions({-2, -2}));
                  }),
                  "The input size 3, plus negative padding -2 and -2 resulted in a negative output "
                  "size, which is invalid. Check dimension 2 of your input."));
  EXPECT_TRUE(has(error_of([&] {
                    ember::pad(x, {1, 1}, "wrap");
                  }),
                  "Unrecognised padding mode wrap"));
  EXPECT_TRUE(
      has(error_of([&] {
            F::pad(x, F::PadFuncOptions({1, 1}).mode(ember::kZeros));
          }),
          "pad: mode must be ember::kConstant, kReflect, kReplicate or kCircular, got zeros"));
}

// ---- interpolate ----

TEST(Interpolate, RecomputeScaleFactorMeansTheOutputSize) {
  ember::manual_seed(14);
  const Tensor x = ember::randn({1, 2, 3, 4});
  auto o = F::InterpolateFuncOptions().mode(ember::kBilinear).align_corners(false);
  const Tensor by_scale =
      F::interpolate(x, F::InterpolateFuncOptions(o).scale_factor(std::vector<double>{1.7, 1.3}));
  const Tensor recomputed = F::interpolate(x, F::InterpolateFuncOptions(o)
                                                  .scale_factor(std::vector<double>{1.7, 1.3})
                                                  .recompute_scale_factor(true));
  const Tensor by_size =
      F::interpolate(x, F::InterpolateFuncOptions(o).size(std::vector<int64_t>{5, 5}));
  EXPECT_EQ(by_scale.sizes(), ember::IntArrayRef({1, 2, 5, 5}));
  EXPECT_TRUE(ember::equal(recomputed, by_size));
  EXPECT_FALSE(ember::allclose(by_scale, by_size));  // the scales reach the kernel otherwise
}

TEST(Interpolate, NearestCopiesAndKLinearIsTheLinearMode) {
  const Tensor x = ember::arange(6, ember::kFloat32).reshape({1, 1, 2, 3});
  expect_near(F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 3})),
              {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}, 0);
  // ember::kLinear (also nn::init's constant) selects linear interpolation of [N, C, L].
  const Tensor l = F::interpolate(x.view({1, 2, 3}), F::InterpolateFuncOptions()
                                                         .size(std::vector<int64_t>{5})
                                                         .mode(ember::kLinear)
                                                         .align_corners(true));
  expect_near(l, {0, 0.5, 1, 1.5, 2, 3, 3.5, 4, 4.5, 5}, 1e-6);
  EXPECT_TRUE(has(error_of([] { F::InterpolateFuncOptions().mode(ember::kReLU); }),
                  "only ember::kLinear is a mode"));
}

TEST(Interpolate, Errors) {
  const Tensor x = ember::randn({1, 2, 3, 4});
  EXPECT_TRUE(
      has(error_of([&] { F::interpolate(x); }), "either size or scale_factor should be defined"));
  EXPECT_TRUE(has(error_of([&] {
                    F::interpolate(x, F::InterpolateFuncOptions()
                                          .size(std::vector<int64_t>{2, 2})
                                          .scale_factor(std::vector<double>{2, 2}));
                  }),
                  "only one of size or scale_factor should be defined"));
  EXPECT_TRUE(has(
      error_of([&] {
        F::interpolate(
            x, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 2}).align_corners(true));
      }),
      "align_corners option can only be set with the interpolating modes"));
  EXPECT_TRUE(
      has(error_of([] {
            F::interpolate(
                ember::randn({1, 2, 3}),
                F::InterpolateFuncOptions().size(std::vector<int64_t>{4}).mode(ember::kBilinear));
          }),
          "Got 3D input, but bilinear mode needs 4D input"));
  EXPECT_TRUE(has(error_of([&] {
                    F::interpolate(
                        x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2}));
                  }),
                  "scale_factor shape must match input shape. Input is 2D"));
  EXPECT_TRUE(has(
      error_of([&] {
        F::interpolate(
            x, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 2}).mode(ember::kBicubic));
      }),
      "mode bicubic is not supported"));
  EXPECT_TRUE(has(error_of([] {
                    ember::upsample_nearest2d(ember::randn({2, 3, 4}), {4, 4});
                  }),
                  "upsample_nearest2d: Non-empty 4D data tensor expected but got a tensor with "
                  "sizes [2, 3, 4]"));
  EXPECT_TRUE(has(error_of([&] {
                    ember::upsample_bilinear2d(x, {0, 4}, false);
                  }),
                  "Input and output sizes should be greater than 0"));
}

TEST(Interpolate, UpsampleModule) {
  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}));
  std::ostringstream os;
  os << *up;
  EXPECT_EQ(os.str(), "Upsample(scale_factor=[2, 2], mode=kNearest)");
  const Tensor x = ember::arange(4, ember::kFloat32).reshape({1, 1, 2, 2});
  expect_near(up(x), {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3}, 0);
  nn::Upsample sized(nn::UpsampleOptions().size(std::vector<int64_t>{3, 5}).mode(ember::kBilinear));
  std::ostringstream os2;
  os2 << *sized;
  EXPECT_EQ(os2.str(), "Upsample(size=[3, 5], mode=kBilinear)");
  EXPECT_EQ(sized(x).sizes(), ember::IntArrayRef({1, 1, 3, 5}));
}

}  // namespace
