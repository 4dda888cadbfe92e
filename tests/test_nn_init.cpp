// nn::init (gains, fans, bounds and moments of each distribution, in place without history)
// and dropout (keep rate, 1/(1-p) scaling, eval/p=0 identity, p=1 zeros, gradient, errors).
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "autograd_helpers.h"

namespace {

namespace F = ember::nn::functional;
namespace init = ember::nn::init;
namespace nn = ember::nn;
using agtest::close;
using agtest::error_of;
using agtest::has;
using ember::Tensor;

double max_abs(const Tensor& t) { return t.abs().max().item<double>(); }
double mean_of(const Tensor& t) { return t.mean().item<double>(); }
double std_of(const Tensor& t) { return t.std().item<double>(); }

TEST(Init, Gains) {
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kLinear), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kConv2D), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kSigmoid), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kTanh), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kReLU), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kLeakyReLU), std::sqrt(2.0 / (1 + 0.01 * 0.01)));
  EXPECT_DOUBLE_EQ(init::calculate_gain(ember::kLeakyReLU, std::sqrt(5.0)), std::sqrt(1.0 / 3.0));
}

TEST(Init, Fans) {
  auto [in2, out2] = init::_calculate_fan_in_and_fan_out(ember::empty({3, 4}));
  EXPECT_EQ(in2, 4);
  EXPECT_EQ(out2, 3);
  auto [in4, out4] = init::_calculate_fan_in_and_fan_out(ember::empty({8, 4, 3, 5}));
  EXPECT_EQ(in4, 4 * 15);
  EXPECT_EQ(out4, 8 * 15);
  EXPECT_TRUE(has(error_of([] { init::_calculate_fan_in_and_fan_out(ember::empty({3})); }),
                  "fewer than 2 dimensions"));
  EXPECT_TRUE(
      has(error_of([] { init::kaiming_uniform_(ember::empty({5})); }), "fewer than 2 dimensions"));
}

TEST(Init, UniformNormalConstant) {
  ember::manual_seed(1);
  Tensor t = ember::empty({200, 250});
  init::uniform_(t, -2, 3);
  EXPECT_GE(t.min().item<double>(), -2);
  EXPECT_LT(t.max().item<double>(), 3);
  EXPECT_NEAR(mean_of(t), 0.5, 0.02);
  EXPECT_NEAR(std_of(t), 5 / std::sqrt(12.0), 0.02);
  init::normal_(t, 1.5, 0.5);
  EXPECT_NEAR(mean_of(t), 1.5, 0.005);
  EXPECT_NEAR(std_of(t), 0.5, 0.005);
  init::constant_(t, 0.25);
  EXPECT_EQ(t.min().item<double>(), 0.25);
  EXPECT_EQ(t.max().item<double>(), 0.25);
  init::ones_(t);
  EXPECT_EQ(t.sum().item<double>(), 50000.0);
  init::zeros_(t);
  EXPECT_EQ(max_abs(t), 0.0);
  EXPECT_TRUE(has(error_of([] { init::uniform_(ember::zeros({2}, ember::kInt64)); }),
                  "uniform_: expected a floating-point tensor"));
  EXPECT_TRUE(has(error_of([] { init::normal_(ember::zeros({2}), 0, -1); }), "std >= 0"));
}

TEST(Init, InPlaceOnParametersKeepsIdentityDtypeAndNoHistory) {
  Tensor p = ember::zeros({30, 20}, ember::TensorOptions().dtype(ember::kFloat64));
  p.requires_grad_(true);
  Tensor same = init::xavier_uniform_(p);
  EXPECT_TRUE(same.is_same(p));
  EXPECT_TRUE(p.is_leaf());
  EXPECT_EQ(p.grad_fn(), nullptr);
  EXPECT_EQ(p.dtype(), ember::kFloat64);
  EXPECT_GT(max_abs(p), 0.0);
  // A non-contiguous view is filled in place too.
  Tensor base = ember::zeros({4, 6});
  init::ones_(base.t());
  init::normal_(base.slice(1, 0, 6, 2));
  EXPECT_EQ(base.select(1, 1).sum().item<double>(), 4.0);
}

TEST(Init, XavierBoundsAndStd) {
  ember::manual_seed(2);
  Tensor w = ember::empty({300, 200});
  const double std = 2.0 * std::sqrt(2.0 / 500.0);
  init::xavier_uniform_(w, 2.0);
  EXPECT_LE(max_abs(w), std::sqrt(3.0) * std);
  EXPECT_GT(max_abs(w), 0.99 * std::sqrt(3.0) * std);
  EXPECT_NEAR(std_of(w), std, 0.02 * std);
  init::xavier_normal_(w, 2.0);
  EXPECT_NEAR(std_of(w), std, 0.02 * std);
  EXPECT_NEAR(mean_of(w), 0.0, 0.02 * std);
}

TEST(Init, KaimingFanModesAndNonlinearities) {
  ember::manual_seed(3);
  Tensor w = ember::empty({100, 25, 3, 3});  // fan_in 225, fan_out 900
  init::kaiming_uniform_(w);                 // a = 0, leaky_relu: gain sqrt(2)
  const double std_in = std::sqrt(2.0) / std::sqrt(225.0);
  EXPECT_LE(max_abs(w), std::sqrt(3.0) * std_in);
  EXPECT_GT(max_abs(w), 0.99 * std::sqrt(3.0) * std_in);
  EXPECT_NEAR(std_of(w), std_in, 0.02 * std_in);
  init::kaiming_normal_(w, 0, ember::kFanOut, ember::kReLU);
  const double std_out = std::sqrt(2.0) / std::sqrt(900.0);
  EXPECT_NEAR(std_of(w), std_out, 0.02 * std_out);
  init::kaiming_normal_(w, 0, ember::kFanIn, ember::kTanh);
  const double std_tanh = (5.0 / 3.0) / std::sqrt(225.0);
  EXPECT_NEAR(std_of(w), std_tanh, 0.02 * std_tanh);
  init::kaiming_uniform_(w, std::sqrt(5.0));  // Linear's default: bound 1/sqrt(fan_in)
  EXPECT_LE(max_abs(w), 1.0 / 15.0);
  EXPECT_GT(max_abs(w), 0.99 / 15.0);
  EXPECT_TRUE(has(error_of([] {
                    init::kaiming_normal_(ember::empty({0, 4}), 0, ember::kFanOut);
                  }),
                  "zero fan_out"));
}

TEST(Dropout, KeepsAboutOneMinusPAndScalesSurvivors) {
  ember::manual_seed(4);
  const double p = 0.3;
  Tensor x = ember::rand({200, 500}) + 1;  // no zeros in the input
  Tensor y = F::dropout(x, F::DropoutFuncOptions().p(p));
  Tensor kept = y.ne(0.0);
  const double keep_rate = kept.to(ember::kFloat64).mean().item<double>();
  EXPECT_NEAR(keep_rate, 1 - p, 0.005);  // ~5 standard deviations
  // Survivors are scaled by 1/(1-p), the rest are zero: y == x * kept / (1 - p).
  EXPECT_TRUE(close(y, x * kept.to(ember::kFloat32) / (1 - p), 1e-5));
  // The expectation is unchanged.
  EXPECT_NEAR(y.mean().item<double>(), x.mean().item<double>(), 0.01);
  // A new mask each call.
  EXPECT_FALSE(ember::equal(F::dropout(x, F::DropoutFuncOptions().p(p)).ne(0.0), kept));
}

TEST(Dropout, IdentityWhenEvalOrPZeroZerosWhenPOne) {
  Tensor x = ember::randn({4, 5}, ember::requires_grad());
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().p(0.5).training(false)).is_same(x));
  EXPECT_TRUE(F::dropout(x, F::DropoutFuncOptions().p(0.0)).is_same(x));
  nn::Dropout drop(0.5);
  drop->eval();
  EXPECT_TRUE(drop(x).is_same(x));
  drop->train();
  EXPECT_FALSE(close(drop(x), x));
  Tensor zero = F::dropout(x, F::DropoutFuncOptions().p(1.0));
  EXPECT_EQ(max_abs(zero), 0.0);
  zero.sum().backward();
  EXPECT_EQ(max_abs(x.grad()), 0.0);
  EXPECT_TRUE(has(error_of([] { nn::Dropout(1.5); }),
                  "probability has to be between 0 and 1, but got 1.5"));
  EXPECT_TRUE(has(error_of([&] { F::dropout(x, F::DropoutFuncOptions().p(-0.1)); }),
                  "dropout: probability"));
}

TEST(Dropout, GradientFollowsTheMaskAndInplace) {
  ember::manual_seed(6);
  Tensor x = ember::randn({50, 40}, ember::requires_grad());
  Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.5));
  y.sum().backward();
  // d(sum y)/dx = mask / (1 - p): 2 where kept, 0 where dropped.
  EXPECT_TRUE(close(x.grad(), y.ne(0.0).to(ember::kFloat32) * 2.0));
  Tensor z = ember::ones({1000});
  Tensor r = F::dropout(z, F::DropoutFuncOptions().p(0.5).inplace(true));
  EXPECT_TRUE(r.is_same(z));
  EXPECT_TRUE(close(z.eq(0.0).logical_or(z.eq(2.0)).to(ember::kFloat32), ember::ones({1000})));
}

}  // namespace
