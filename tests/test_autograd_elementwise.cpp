// Autograd of the elementwise ops where a rule has a special case: maximum/minimum ties,
// kinks (relu, abs, clamp bounds), pow at zero, gelu's derivative near 0 (first and
// second), where/masked_fill routing, node names, gradient dtypes, and the in-place forms
// (leaf checks, fill_/zero_ history, saved values).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <cmath>
#include <string>
#include <vector>

#include "autograd_helpers.h"

using namespace ember;
using agtest::close;
using agtest::error_of;
using agtest::has;
using autograd::tensor_list;

namespace {

TensorOptions f64() { return TensorOptions().dtype(kFloat64); }

Tensor leaf(std::vector<double> v) { return tensor(v, f64()).requires_grad_(true); }

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(kFloat64).contiguous().reshape({-1});
  std::vector<double> out;
  for (int64_t i = 0; i < c.numel(); ++i) out.push_back(c[i].item<double>());
  return out;
}

void expect_values(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  ASSERT_TRUE(t.defined());
  std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

std::string node_name(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "(leaf)"; }

}  // namespace

TEST(ElementwiseGrad, MaximumMinimumSplitTies) {
  Tensor a = leaf({1, 2, 3, -1});
  Tensor b = leaf({1, 0, 5, -1});
  ember::maximum(a, b).sum().backward();
  expect_values(a.grad(), {0.5, 1, 0, 0.5});
  expect_values(b.grad(), {0.5, 0, 1, 0.5});

  Tensor c = leaf({1, 2, 3, -1});
  Tensor d = leaf({1, 0, 5, -1});
  ember::minimum(c, d).sum().backward();
  expect_values(c.grad(), {0.5, 0, 1, 0.5});
  expect_values(d.grad(), {0.5, 1, 0, 0.5});
}

TEST(ElementwiseGrad, MaximumBroadcastTieSums) {
  Tensor a = leaf({2});  // [1], ties with two of three elements of b
  Tensor b = leaf({2, 2, 1});
  ember::maximum(a, b).sum().backward();
  expect_values(a.grad(), {0.5 + 0.5 + 1});
  expect_values(b.grad(), {0.5, 0.5, 0});
}

TEST(ElementwiseGrad, KinksGiveZero) {
  Tensor x = leaf({-1, 0, 2});
  x.relu().sum().backward();
  expect_values(x.grad(), {0, 0, 1});

  Tensor y = leaf({-1, 0, 2});
  y.abs().sum().backward();
  expect_values(y.grad(), {-1, 0, 1});
}

// LibTorch 2.x's clamp backward: the gradient passes strictly inside the bounds, 0 on them
// (x.clamp(0, 1) of [-1, 0, 0.5, 1, 2] gives [0, 0, 1, 0, 0] in LibTorch 2.15).
TEST(ElementwiseGrad, ClampStopsAtTheBounds) {
  Tensor x = leaf({-2, -1, 0, 1, 2});
  x.clamp(-1, 1).sum().backward();
  expect_values(x.grad(), {0, 0, 1, 0, 0});

  Tensor y = leaf({-2, -1, 0, 1, 2});
  y.clamp(std::nullopt, 0.0).sum().backward();
  expect_values(y.grad(), {1, 1, 0, 0, 0});

  Tensor z = leaf({-2, -1, 0, 1, 2});
  z.clamp(0).sum().backward();
  expect_values(z.grad(), {0, 0, 0, 1, 1});
}

TEST(ElementwiseGrad, PowAtZero) {
  // x ** 0: gradient 0 everywhere, even at 0.
  Tensor x = leaf({0, 2});
  x.pow(0).sum().backward();
  expect_values(x.grad(), {0, 0});
  // x ** 2 at 0; x ** 0.5 at 4.
  Tensor y = leaf({0, 3});
  y.pow(2).sum().backward();
  expect_values(y.grad(), {0, 6});
  // Tensor exponents: base 0 with exponent 0 or positive gives finite gradients.
  Tensor a = leaf({0, 0, 2});
  Tensor b = leaf({0, 2, 3});
  a.pow(b).sum().backward();
  expect_values(a.grad(), {0, 0, 12});
  expect_values(b.grad(), {0, 0, 8 * std::log(2.0)});
  // Scalar base 0: d/db 0 ** b = 0 for b >= 0.
  Tensor e = leaf({0, 1.5});
  ember::pow(0.0, e).sum().backward();
  expect_values(e.grad(), {0, 0});
  // Scalar base: d/db 2 ** b = 2 ** b log 2.
  Tensor f = leaf({-1, 3});
  ember::pow(2, f).sum().backward();
  expect_values(f.grad(), {0.5 * std::log(2.0), 8 * std::log(2.0)});
}

TEST(ElementwiseGrad, DivisionAndScalarOperators) {
  Tensor x = leaf({2, -4});
  (1.0 / x).sum().backward();
  expect_values(x.grad(), {-0.25, -1.0 / 16});

  Tensor y = leaf({2, -4});
  (3 - y * 2).sum().backward();
  expect_values(y.grad(), {-2, -2});

  Tensor a = leaf({1, 2});
  Tensor b = leaf({3, 4});
  ember::sub(a, b, 2.5).sum().backward();
  expect_values(a.grad(), {1, 1});
  expect_values(b.grad(), {-2.5, -2.5});

  Tensor c = leaf({1, 2});
  Tensor d = leaf({4});
  (c / d).sum().backward();
  expect_values(c.grad(), {0.25, 0.25});
  expect_values(d.grad(), {-3.0 / 16});
}

TEST(ElementwiseGrad, GeluDerivativeMatchesErfForm) {
  const std::vector<double> xs = {-6,   -3,   -1,     -0.1, -0.05, -1e-9, 0,
                                  1e-9, 0.05, 0.0999, 0.1,  0.5,   2,     6};
  auto Phi = [](double v) { return 0.5 * (1 + std::erf(v / std::sqrt(2.0))); };
  auto phi = [](double v) { return std::exp(-v * v / 2) / std::sqrt(2 * M_PI); };
  std::vector<double> d1, d2;
  for (double v : xs) {
    d1.push_back(Phi(v) + v * phi(v));
    d2.push_back(phi(v) * (2 - v * v));
  }
  Tensor x = leaf(xs);
  tensor_list g = autograd::grad({x.gelu().sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_values(g[0], d1, 1e-14);
  tensor_list gg = autograd::grad({g[0].sum()}, {x});
  expect_values(gg[0], d2, 1e-12);

  // float32: first derivative accurate to float rounding.
  Tensor xf = tensor(std::vector<float>{-3.f, -0.01f, 0.f, 0.2f, 1.5f}).requires_grad_(true);
  xf.gelu().sum().backward();
  EXPECT_EQ(xf.grad().dtype(), kFloat32);
  expect_values(xf.grad(),
                {Phi(-3) - 3 * phi(-3), Phi(-0.01f) - 0.01f * phi(-0.01f), 0.5,
                 Phi(0.2f) + 0.2f * phi(0.2f), Phi(1.5) + 1.5 * phi(1.5)},
                1e-6);
}

TEST(ElementwiseGrad, WhereRoutesToBothValues) {
  Tensor c = tensor({true, false, true});
  Tensor a = leaf({1, 2, 3});
  Tensor b = leaf({4});
  ember::where(c, a, b).sum().backward();
  expect_values(a.grad(), {1, 0, 1});
  expect_values(b.grad(), {1});

  Tensor x = leaf({1, 2, 3});
  Tensor y = ember::where(c, 0.5, x) + ember::where(c, x, 2.0);
  EXPECT_EQ(node_name(y), "AddBackward0");
  y.sum().backward();
  expect_values(x.grad(), {1, 1, 1});

  Tensor z = leaf({1, 2, 3});
  z.masked_fill(c, 7.0).sum().backward();
  expect_values(z.grad(), {0, 1, 0});
}

TEST(ElementwiseGrad, NodeNames) {
  Tensor x = leaf({1, 2});
  Tensor y = leaf({3, 4});
  EXPECT_EQ(node_name(x + y), "AddBackward0");
  EXPECT_EQ(node_name(x + 1), "AddBackward1");
  EXPECT_EQ(node_name(x - y), "SubBackward0");
  EXPECT_EQ(node_name(x - 1), "SubBackward1");
  EXPECT_EQ(node_name(2 - x), "AddBackward1");
  EXPECT_EQ(node_name(x * y), "MulBackward0");
  EXPECT_EQ(node_name(x * 2), "MulBackward1");
  EXPECT_EQ(node_name(x / y), "DivBackward0");
  EXPECT_EQ(node_name(x / 2), "DivBackward1");
  EXPECT_EQ(node_name(2 / x), "DivBackward0");
  EXPECT_EQ(node_name(x.pow(2)), "PowBackward0");
  EXPECT_EQ(node_name(x.pow(y)), "PowBackward1");
  EXPECT_EQ(node_name(ember::pow(2, x)), "PowBackward2");
  EXPECT_EQ(node_name(-x), "NegBackward0");
  EXPECT_EQ(node_name(x.clamp(0, 1)), "ClampBackward1");
  EXPECT_EQ(node_name(x.gelu()), "GeluBackward0");
  EXPECT_EQ(node_name(x.log1p()), "Log1PBackward0");
  EXPECT_EQ(node_name(ember::maximum(x, y)), "MaximumBackward0");
  EXPECT_EQ(std::string((x * y).grad_fn()->forward_op()), "mul");
  EXPECT_EQ(std::string((x - 1).grad_fn()->forward_op()), "sub");
  // Comparisons and logical ops record nothing.
  EXPECT_FALSE((x > y).requires_grad());
  EXPECT_FALSE((x == 1).grad_fn());
  // Nothing is recorded without grad mode or without an input that requires grad.
  {
    NoGradGuard no_grad;
    EXPECT_FALSE((x * y).requires_grad());
  }
  EXPECT_FALSE((x.detach() * 2).requires_grad());
}

// Each row of core/elementwise.def records its node under PyTorch's name and its op's name.
TEST(ElementwiseGrad, TableRowsRecordTheirNodes) {
  Tensor x = leaf({0.5, 1.5}), y = leaf({1, -1});
#define EMBER_UNARY_FLOAT(name, formula, reference, node, ...) \
  EXPECT_EQ(node_name(x.name()), node);                        \
  EXPECT_EQ(node_name(ember::name(x)), node);                  \
  EXPECT_EQ(std::string(x.name().grad_fn()->forward_op()), #name);
#define EMBER_BINARY(name, types, formula, reference, node, ...) EMBER_NODE_##types(name, node)
#define EMBER_NODE_ROW(name, node)               \
  EXPECT_EQ(node_name(ember::name(x, y)), node); \
  EXPECT_EQ(node_name(x.name(y)), node);         \
  EXPECT_EQ(std::string(x.name(y).grad_fn()->forward_op()), #name);
#define EMBER_NODE_All EMBER_NODE_ROW
#define EMBER_NODE_Numeric EMBER_NODE_ROW
#define EMBER_NODE_Float EMBER_NODE_ROW
// bitwise rows: floats are refused, nothing is recorded
#define EMBER_NODE_Bits(name, node) EXPECT_THROW(ember::name(x, y), Error);
#define EMBER_NODE_Integer(name, node) EXPECT_THROW(ember::name(x, y), Error);
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_BINARY
#undef EMBER_NODE_ROW
#undef EMBER_NODE_All
#undef EMBER_NODE_Numeric
#undef EMBER_NODE_Float
#undef EMBER_NODE_Bits
#undef EMBER_NODE_Integer
}

TEST(ElementwiseGrad, ErfDerivativeIsTheGaussian) {
  const std::vector<double> xs = {-4, -1, -1e-8, 0, 0.3, 2};
  Tensor x = leaf(xs);
  tensor_list g = autograd::grad({x.erf().sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  std::vector<double> d1, d2;
  for (double v : xs) {
    d1.push_back(2 / std::sqrt(M_PI) * std::exp(-v * v));
    d2.push_back(-2 * v * d1.back());
  }
  expect_values(g[0], d1, 1e-15);
  expect_values(autograd::grad({g[0].sum()}, {x})[0], d2, 1e-15);
}

TEST(ElementwiseGrad, GradientsKeepTheInputDtype) {
  Tensor a = randn({3}, requires_grad());  // float32
  Tensor b = randn({3}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor y = ember::maximum(a, b) + (a / b) + a.pow(b.abs()) * 2.0;
  EXPECT_EQ(y.dtype(), kFloat64);
  y.sum().backward();
  EXPECT_EQ(a.grad().dtype(), kFloat32);
  EXPECT_EQ(b.grad().dtype(), kFloat64);
}

TEST(ElementwiseGradInplace, LeafThatRequiresGradThrows) {
  Tensor x = randn({3}, requires_grad());
  Tensor y = randn({3});
  const char* msg = "a leaf Variable that requires grad";
  EXPECT_TRUE(has(error_of([&] { x.add_(1); }), msg));
  EXPECT_TRUE(has(error_of([&] { x.add_(y); }), msg));
  EXPECT_TRUE(has(error_of([&] { x.sub_(y, 2); }), msg));
  EXPECT_TRUE(has(error_of([&] { x.mul_(y); }), msg));
  EXPECT_TRUE(has(error_of([&] { x *= 2; }), msg));
  EXPECT_TRUE(has(error_of([&] { x.div_(2); }), msg));
  EXPECT_TRUE(has(error_of([&] { x.clamp_(0, 1); }), msg));
  EXPECT_TRUE(has(error_of([&] { x.masked_fill_(x.detach() > 0, 0); }), msg));
  EXPECT_TRUE(has(error_of([&] { x.fill_(1); }), msg));
  EXPECT_TRUE(has(error_of([&] { x.zero_(); }), msg));
  EXPECT_EQ(x.grad_fn(), nullptr);
  // Allowed under NoGradGuard (what optimizers do); x stays a leaf.
  {
    NoGradGuard no_grad;
    x.mul_(0.5).add_(y).zero_();
  }
  EXPECT_EQ(x.grad_fn(), nullptr);
  EXPECT_TRUE(x.requires_grad());
  expect_values(x, {0, 0, 0});
}

TEST(ElementwiseGradInplace, RebasesHistory) {
  Tensor x = leaf({1, 2, 3});
  Tensor w = leaf({2, 3, 4});
  Tensor y = x * 1;
  y.mul_(w);
  EXPECT_EQ(node_name(y), "MulBackward0");
  y.add_(x, 2);
  EXPECT_EQ(node_name(y), "AddBackward0");
  y.div_(2);
  EXPECT_EQ(node_name(y), "DivBackward1");
  y.clamp_(0, 6);  // 2, 5, 9 -> 9 clamped
  EXPECT_EQ(node_name(y), "ClampBackward1");
  y.sum().backward();
  // y = (x w + 2 x) / 2, clamped at 6 for the third element.
  expect_values(x.grad(), {2, 2.5, 0});
  expect_values(w.grad(), {0.5, 1, 0});
}

TEST(ElementwiseGradInplace, IntoATensorWithoutGrad) {
  Tensor x = leaf({1, 2});
  Tensor acc = zeros({2}, f64());
  acc.add_(x * x);
  EXPECT_TRUE(acc.requires_grad());
  acc.sum().backward();
  expect_values(x.grad(), {2, 4});
}

TEST(ElementwiseGradInplace, FillCutsTheGradient) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3;
  y.fill_(5.0);
  EXPECT_EQ(node_name(y), "FillBackward0");
  EXPECT_EQ(std::string(y.grad_fn()->forward_op()), "fill_");
  EXPECT_TRUE(y.requires_grad());
  expect_values(y, {5, 5});
  (y * x).sum().backward();
  expect_values(x.grad(), {5, 5});

  Tensor a = leaf({1, 2});
  Tensor b = a.exp();
  b.zero_();
  EXPECT_EQ(node_name(b), "FillBackward0");
  tensor_list g = autograd::grad({b.sum()}, {a}, {}, std::nullopt, false, /*allow_unused=*/true);
  EXPECT_FALSE(g[0].defined());  // nothing flows past FillBackward0
}

TEST(ElementwiseGradInplace, SavedValuesSurviveTheWrite) {
  // mul_ with an other that requires grad keeps self's old value for other's gradient.
  Tensor x = leaf({1, 2});
  Tensor w = leaf({3, 5});
  Tensor y = x * 2;
  y.mul_(w);
  y.mul_(w);  // y = 2 x w^2
  y.sum().backward();
  expect_values(x.grad(), {18, 50});
  expect_values(w.grad(), {12, 40});

  // clamp_ keeps the value before clamping for its mask.
  Tensor a = leaf({-3, 0.5, 3});
  Tensor b = a * 1;
  b.clamp_(-1, 1);
  b.sum().backward();
  expect_values(a.grad(), {0, 1, 0});

  // An input saved by a later op and then modified in place is caught at backward.
  Tensor p = leaf({1, 2});
  Tensor q = p * 1;
  Tensor r = q * q;
  q.add_(1);
  EXPECT_TRUE(has(error_of([&] { r.sum().backward(); }), "modified by an inplace operation"));
}

TEST(ElementwiseGradInplace, OutputsNotSavedCanBeModified) {
  // Ops that save only their input (gelu, log1p) allow in-place ops on their output.
  Tensor x = leaf({-0.5, 0.5, 2});
  Tensor y = x.gelu();
  y.add_(1);
  Tensor z = x.log1p();
  z.mul_(2);
  (y + z).sum().backward();
  auto Phi = [](double v) { return 0.5 * (1 + std::erf(v / std::sqrt(2.0))); };
  auto phi = [](double v) { return std::exp(-v * v / 2) / std::sqrt(2 * M_PI); };
  std::vector<double> want;
  for (double v : {-0.5, 0.5, 2.0}) want.push_back(Phi(v) + v * phi(v) + 2 / (1 + v));
  expect_values(x.grad(), want, 1e-14);
  // exp saves its output: modifying it is caught.
  Tensor w = leaf({1, 2});
  Tensor e = w.exp();
  e.add_(1);
  EXPECT_TRUE(has(error_of([&] { e.sum().backward(); }), "modified by an inplace operation"));
}

TEST(ElementwiseGradInplace, DoubleBackwardThroughInplace) {
  Tensor x = leaf({1, 2});
  Tensor y = x * x;
  y.mul_(x);  // x^3
  tensor_list g = autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_values(g[0], {3, 12});
  tensor_list gg = autograd::grad({g[0].sum()}, {x});
  expect_values(gg[0], {6, 12});
}
