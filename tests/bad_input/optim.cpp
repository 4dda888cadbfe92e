// Bad-input suite, optim: optimizers and LR schedulers built with invalid options, bad
// parameter lists, gradients that don't match their parameter, misuse of LBFGS and of the
// state dicts. Each case asserts ember::Error and the optimizer and value its message names.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>

#include "bad_input.h"

using namespace ember;
using bad_input::expect_error;

namespace {

Tensor param(IntArrayRef sizes = {3}) { return zeros(sizes, TensorOptions().requires_grad(true)); }

TEST(BadOptim, SgdNegativeLr) {
  expect_error([] { optim::SGD({param()}, optim::SGDOptions(-0.1)); },
               {"SGD", "learning rate", "-0.1"});
}

TEST(BadOptim, SgdNaNLr) {
  expect_error([] { optim::SGD({param()}, optim::SGDOptions(std::nan(""))); },
               {"SGD", "learning rate", "nan"});
}

TEST(BadOptim, SgdNesterovWithoutMomentum) {
  expect_error([] { optim::SGD({param()}, optim::SGDOptions(0.1).nesterov(true)); },
               {"SGD", "esterov"});
}

TEST(BadOptim, SgdNegativeMomentum) {
  expect_error([] { optim::SGD({param()}, optim::SGDOptions(0.1).momentum(-0.5)); },
               {"SGD", "momentum", "-0.5"});
}

TEST(BadOptim, AdamBeta1One) {
  expect_error(
      [] {
        optim::Adam({param()}, optim::AdamOptions(1e-3).betas({1.0, 0.999}));
      },
      {"Adam", "beta", "index 0", "1"});
}

TEST(BadOptim, AdamBeta2NaN) {
  expect_error(
      [] {
        optim::Adam({param()}, optim::AdamOptions(1e-3).betas({0.9, std::nan("")}));
      },
      {"Adam", "beta", "index 1", "nan"});
}

TEST(BadOptim, AdamNegativeEps) {
  expect_error([] { optim::Adam({param()}, optim::AdamOptions(1e-3).eps(-1e-8)); },
               {"Adam", "epsilon", "-1e-08"});
}

TEST(BadOptim, AdamWNegativeWeightDecay) {
  expect_error([] { optim::AdamW({param()}, optim::AdamWOptions(1e-3).weight_decay(-0.01)); },
               {"AdamW", "weight_decay", "-0.01"});
}

TEST(BadOptim, RmspropNegativeAlpha) {
  expect_error([] { optim::RMSprop({param()}, optim::RMSpropOptions(1e-2).alpha(-0.9)); },
               {"RMSprop", "alpha", "-0.9"});
}

TEST(BadOptim, AdagradNegativeLrDecay) {
  expect_error([] { optim::Adagrad({param()}, optim::AdagradOptions(1e-2).lr_decay(-1)); },
               {"Adagrad", "lr_decay", "-1"});
}

TEST(BadOptim, LbfgsZeroMaxIter) {
  expect_error([] { optim::LBFGS({param()}, optim::LBFGSOptions(1).max_iter(0)); },
               {"LBFGS", "max_iter", "0"});
}

TEST(BadOptim, LbfgsStepWithoutClosure) {
  optim::LBFGS lbfgs({param()}, optim::LBFGSOptions(1));
  expect_error([&] { lbfgs.step(nullptr); }, {"LBFGS", "closure"});
}

TEST(BadOptim, LbfgsUnknownLineSearch) {
  Tensor w = param();
  optim::LBFGS lbfgs({w}, optim::LBFGSOptions(1).line_search_fn("armijo"));
  expect_error([&] { lbfgs.step([&] { return (w * w).sum(); }); }, {"armijo", "strong_wolfe"});
}

TEST(BadOptim, UndefinedParameter) {
  expect_error(
      [] {
        optim::SGD({param(), Tensor()}, optim::SGDOptions(0.1));
      },
      {"parameter 1", "undefined"});
}

TEST(BadOptim, NonLeafParameter) {
  Tensor w = param();
  expect_error([&] { optim::SGD({w * 2}, optim::SGDOptions(0.1)); }, {"parameter 0", "leaf"});
}

TEST(BadOptim, DuplicateParameter) {
  Tensor w = param();
  expect_error([&] { optim::Adam({w, w}, optim::AdamOptions(1e-3)); }, {"parameter 1"});
}

TEST(BadOptim, GradientOfWrongShape) {
  Tensor w = param({2, 3});
  optim::SGD sgd({w}, optim::SGDOptions(0.1));
  w.mutable_grad() = ones({3, 2});
  expect_error([&] { sgd.step(); }, {"SGD", "[2, 3]", "[3, 2]"});
}

TEST(BadOptim, GradientOfWrongDtype) {
  Tensor w = param({2});
  optim::Adam adam({w}, optim::AdamOptions(1e-3));
  w.mutable_grad() = ones({2}, kFloat64);
  expect_error([&] { adam.step(); }, {"Adam", "float32", "float64"});
}

TEST(BadOptim, AdagradNegativeInitialAccumulator) {
  expect_error(
      [] { optim::Adagrad({param()}, optim::AdagradOptions(1e-2).initial_accumulator_value(-1)); },
      {"Adagrad", "initial_accumulator_value", "-1"});
}

TEST(BadOptim, StepLRZeroStepSize) {
  optim::SGD sgd({param()}, optim::SGDOptions(0.1));
  expect_error([&] { optim::StepLR(sgd, 0); }, {"StepLR", "step_size"});
}

TEST(BadOptim, CosineAnnealingZeroTMax) {
  optim::SGD sgd({param()}, optim::SGDOptions(0.1));
  expect_error([&] { optim::CosineAnnealingLR(sgd, 0); }, {"CosineAnnealingLR", "T_max", "0"});
}

TEST(BadOptim, LinearLRZeroStartFactor) {
  optim::SGD sgd({param()}, optim::SGDOptions(0.1));
  expect_error([&] { optim::LinearLR(sgd, 0.0); }, {"LinearLR", "start_factor"});
}

TEST(BadOptim, OneCycleLRPctStartAboveOne) {
  optim::SGD sgd({param()}, optim::SGDOptions(0.1).momentum(0.9));
  expect_error([&] { optim::OneCycleLR(sgd, 1.0, 10, optim::OneCycleLROptions().pct_start(1.5)); },
               {"OneCycleLR", "pct_start", "1.5"});
}

TEST(BadOptim, OneCycleLRStepPastTotal) {
  optim::SGD sgd({param()}, optim::SGDOptions(0.1).momentum(0.9));
  optim::OneCycleLR sched(sgd, 1.0, 2);
  sched.step();
  sched.step();
  expect_error([&] { sched.step(); }, {"OneCycleLR", "4 times", "2"});
}

TEST(BadOptim, OneCycleLRWithoutMomentum) {
  optim::Adagrad adagrad({param()}, optim::AdagradOptions(0.1));
  expect_error([&] { optim::OneCycleLR(adagrad, 1.0, 10); }, {"OneCycleLR", "momentum"});
}

TEST(BadOptim, ReduceLROnPlateauFactorOne) {
  optim::SGD sgd({param()}, optim::SGDOptions(0.1));
  expect_error(
      [&] { optim::ReduceLROnPlateauScheduler(sgd, optim::ReduceLROnPlateauScheduler::min, 1.0f); },
      {"ReduceLROnPlateau", "factor", "1"});
}

TEST(BadOptim, ReduceLROnPlateauMinLrCount) {
  optim::SGD sgd({param()}, optim::SGDOptions(0.1));
  expect_error(
      [&] {
        optim::ReduceLROnPlateauScheduler(sgd, optim::ReduceLROnPlateauScheduler::min, 0.5f, 10,
                                          1e-4, optim::ReduceLROnPlateauScheduler::rel, 0,
                                          {0.1f, 0.2f});
      },
      {"ReduceLROnPlateau", "1", "2"});
}

TEST(BadOptim, LoadAdamStateIntoSgd) {
  Tensor w = param();
  optim::Adam adam({w}, optim::AdamOptions(1e-3));
  w.mutable_grad() = ones({3});
  adam.step();
  Tensor v = param();
  optim::SGD sgd({v}, optim::SGDOptions(0.1));
  expect_error([&] { sgd.load_state_dict(adam.state_dict()); }, {"load_state_dict", "momentum"});
}

TEST(BadOptim, LoadStateWithMoreParameters) {
  Tensor a = param(), b = param();
  optim::SGD two({a, b}, optim::SGDOptions(0.1).momentum(0.9));
  optim::SGD one({param()}, optim::SGDOptions(0.1).momentum(0.9));
  expect_error([&] { one.load_state_dict(two.state_dict()); }, {"2", "1"});
}

}  // namespace
