// Autograd of the reductions and of linear algebra: the special cases gradcheck doesn't
// show (node names, prod with zeros, even split among ties, index-position gradients of
// max(dim), zero norms, gradient dtypes, the graphs of matmul and linear).
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>

using namespace ember;

namespace {

Tensor f64(std::vector<double> v) { return tensor(v, kFloat64); }
Tensor leaf(std::vector<double> v) { return f64(v).requires_grad_(); }

void expect_values(const Tensor& t, std::vector<double> want) {
  ASSERT_TRUE(t.defined());
  Tensor flat = t.detach().contiguous().reshape({-1}).to(kFloat64);
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(flat[static_cast<int64_t>(i)].item<double>(), want[i], 1e-12) << "element " << i;
  }
}

std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "<none>"; }

TEST(AutogradReduce, NodeNames) {
  Tensor x = randn({2, 3}, kFloat64).requires_grad_();
  EXPECT_EQ(name_of(x.sum()), "SumBackward0");
  EXPECT_EQ(name_of(x.sum({1})), "SumBackward1");
  EXPECT_EQ(name_of(x.mean()), "MeanBackward0");
  EXPECT_EQ(name_of(x.mean({0}, true)), "MeanBackward1");
  EXPECT_EQ(name_of(x.prod()), "ProdBackward0");
  EXPECT_EQ(name_of(x.prod(1)), "ProdBackward1");
  EXPECT_EQ(name_of(x.max()), "MaxBackward1");
  EXPECT_EQ(name_of(x.min()), "MinBackward1");
  EXPECT_EQ(name_of(x.amax({1})), "AmaxBackward0");
  EXPECT_EQ(name_of(x.amin()), "AminBackward0");
  EXPECT_EQ(name_of(x.var()), "VarBackward0");
  EXPECT_EQ(name_of(x.var({1}, false, true)), "VarBackward0");
  EXPECT_EQ(name_of(x.std()), "SqrtBackward0");
  EXPECT_EQ(x.std({0}).grad_fn()->next_edges()[0].function->name(), "VarBackward0");
  EXPECT_EQ(name_of(x.norm()), "NormBackward0");
  EXPECT_EQ(name_of(x.norm(1, {1})), "NormBackward1");
  // not differentiable: no history
  EXPECT_FALSE(x.argmax().requires_grad());
  EXPECT_FALSE(x.gt(0).all().requires_grad());
}

TEST(AutogradReduce, MaxDimIndicesGetNoHistory) {
  Tensor x = leaf({1, 5, 2, 7, 0, 3}).reshape({2, 3});
  auto [v, i] = x.max(1);
  EXPECT_EQ(name_of(v), "MaxBackward0");
  EXPECT_TRUE(v.requires_grad());
  EXPECT_FALSE(i.requires_grad());
  EXPECT_FALSE(i.grad_fn());
  auto [mv, mi] = x.min(0, true);
  EXPECT_EQ(name_of(mv), "MinBackward0");
  EXPECT_FALSE(mi.requires_grad());
}

// One zero: only it gets a gradient (the product of the others); several zeros: none.
TEST(AutogradReduce, ProdWithZeros) {
  Tensor x = leaf({2, 0, 3, -1});
  x.prod().backward();
  expect_values(x.grad(), {0, -6, 0, 0});

  Tensor y = leaf({2, 0, 3, 0});
  y.prod().backward();
  expect_values(y.grad(), {0, 0, 0, 0});

  Tensor z = leaf({1.5, 2, 3, -1});  // no zeros: result / x
  z.prod().backward();
  expect_values(z.grad(), {-6, -4.5, -3, 9});

  // along a dim: row 0 has one zero, row 1 two, row 2 none
  Tensor m = leaf({2, 0, 3, 0, 4, 0, 1, 2, 5});
  Tensor m2 = m.reshape({3, 3});
  m2.prod(1).backward(f64({1, 1, 2}));
  expect_values(m.grad(), {0, 6, 0, 0, 0, 0, 20, 10, 4});

  // dim 0 with keepdim, transposed input
  Tensor t = leaf({0, 2, 3, 4, 0, 5});
  t.reshape({2, 3}).t().prod(0, true).backward(f64({1, 1}).reshape({1, 2}));
  // columns of the transpose are rows of [[0, 2, 3], [4, 0, 5]]
  expect_values(t.grad(), {6, 0, 0, 0, 20, 0});
}

// The second derivative of x0 x1 x2 at (0, 2, 3) is exact: H = [[0, 3, 2], [3, 0, 0], [2, 0, 0]].
TEST(AutogradReduce, ProdDoubleBackwardWithZero) {
  Tensor x = leaf({0, 2, 3});
  Tensor g = autograd::grad({x.prod()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  expect_values(g, {6, 0, 0});
  Tensor h = autograd::grad({g.sum()}, {x})[0];
  expect_values(h, {5, 3, 2});
  // the same by dim
  Tensor y = leaf({0, 2, 3});
  Tensor gy = autograd::grad({y.reshape({1, 3}).prod(1)}, {y}, {}, std::nullopt, true)[0];
  expect_values(autograd::grad({gy.sum()}, {y})[0], {5, 3, 2});
}

// max() / min() / amax / amin split the gradient evenly among ties (PyTorch's
// evenly_distribute_backward); max(dim) sends it to the index position only.
TEST(AutogradReduce, TiesSplitEvenly) {
  Tensor x = leaf({1, 3, 3, 2, 3});
  x.max().backward();
  expect_values(x.grad(), {0, 1.0 / 3, 1.0 / 3, 0, 1.0 / 3});

  Tensor y = leaf({-1, 3, -1, 2});
  y.min().backward(scalar_tensor(2.0, kFloat64));
  expect_values(y.grad(), {1, 0, 1, 0});

  Tensor a = leaf({1, 4, 4, 2, 2, 0});
  a.reshape({2, 3}).amax({1}).backward(f64({1, 1}));
  expect_values(a.grad(), {0, 0.5, 0.5, 0.5, 0.5, 0});

  Tensor b = leaf({1, 4, 4, 2, 2, 0});
  b.reshape({2, 3}).amin().backward();
  expect_values(b.grad(), {0, 0, 0, 0, 0, 1});

  Tensor c = leaf({1, 4, 4, 2, 2, 0});
  auto [v, i] = c.reshape({2, 3}).max(1);
  v.backward(f64({1, 1}));
  Tensor want = zeros({2, 3}, kFloat64);
  {
    NoGradGuard no_grad;
    want = want.scatter_add(1, i.unsqueeze(1), ones({2, 1}, kFloat64));
  }
  EXPECT_TRUE(equal(c.grad().reshape({2, 3}), want));
  EXPECT_DOUBLE_EQ(c.grad().sum().item<double>(), 2.0);  // one position per row
}

TEST(AutogradReduce, MaxDimKeepdimAndZeroDim) {
  Tensor x = leaf({1, 5, 2, 7, 0, 3});
  std::get<0>(x.reshape({2, 3}).max(0, true)).backward(f64({1, 2, 3}).reshape({1, 3}));
  expect_values(x.grad(), {0, 2, 0, 1, 0, 3});
  Tensor s = scalar_tensor(2.5, kFloat64).requires_grad_();
  std::get<0>(s.min(0)).backward();
  expect_values(s.grad(), {1});
}

// The gradient of the 2-norm at an all-zero input is 0, not NaN (as PyTorch).
TEST(AutogradReduce, NormAtZero) {
  Tensor x = zeros({2, 3}, kFloat64).requires_grad_();
  x.norm().backward();
  expect_values(x.grad(), {0, 0, 0, 0, 0, 0});
  Tensor y = f64({0, 0, 0, 3, 4, 0}).reshape({2, 3}).requires_grad_();
  y.norm(2, {1}).sum().backward();
  expect_values(y.grad(), {0, 0, 0, 0.6, 0.8, 0});
  // double backward stays finite too
  Tensor z = zeros({3}, kFloat64).requires_grad_();
  Tensor g = autograd::grad({z.norm()}, {z}, {}, std::nullopt, true)[0];
  Tensor h = autograd::grad({g.sum()}, {z}, {}, std::nullopt, false, /*allow_unused=*/true)[0];
  if (h.defined()) {
    EXPECT_FALSE(h.ne(h).any().item<bool>());
  }
}

TEST(AutogradReduce, NormOtherP) {
  Tensor x = leaf({3, -4});
  x.norm(1).backward();
  expect_values(x.grad(), {1, -1});
  Tensor y = leaf({3, -4, 1});
  y.norm(INFINITY).backward();
  expect_values(y.grad(), {0, -1, 0});
  Tensor z = leaf({3, -4, 1});
  z.norm(0).backward();  // a count: zero gradient
  expect_values(z.grad(), {0, 0, 0});
}

TEST(AutogradReduce, VarStdValues) {
  Tensor x = leaf({1, 2, 3, 6});  // mean 3
  x.var().backward();
  expect_values(x.grad(), {2.0 * -2 / 3, 2.0 * -1 / 3, 0, 2.0 * 3 / 3});
  Tensor y = leaf({1, 2, 3, 6});
  y.var(false).backward();
  expect_values(y.grad(), {2.0 * -2 / 4, 2.0 * -1 / 4, 0, 2.0 * 3 / 4});
  Tensor z = leaf({1, 2, 3, 6});
  z.std().backward();  // d sqrt(v) = dv / (2 sqrt(v)), v = 14/3
  const double s = std::sqrt(14.0 / 3);
  expect_values(z.grad(), {-2.0 / 3 / s, -1.0 / 3 / s, 0, 1.0 / s});
}

// Gradients have the input's dtype when the reduction computes in another.
TEST(AutogradReduce, DtypeArgument) {
  Tensor x = randn({2, 3}).requires_grad_();
  Tensor s = x.sum({1}, false, kFloat64);
  EXPECT_EQ(s.dtype(), kFloat64);
  s.sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_TRUE(equal(x.grad(), ones({2, 3})));

  Tensor y = randn({2, 3}).requires_grad_();
  y.mean(kFloat64).backward();
  EXPECT_EQ(y.grad().dtype(), kFloat32);
  EXPECT_TRUE(allclose(y.grad(), full({2, 3}, 1.0 / 6)));

  Tensor z = (rand({4}) + 0.5).detach().requires_grad_();
  z.prod(0, false, kFloat64).backward();
  EXPECT_EQ(z.grad().dtype(), kFloat32);
}

TEST(AutogradReduce, MeanSumValuesAndZeroDim) {
  Tensor x = randn({2, 3, 4}, kFloat64).requires_grad_();
  x.mean({0, 2}).sum().backward();
  EXPECT_TRUE(allclose(x.grad(), full({2, 3, 4}, 1.0 / 8, kFloat64)));
  // an empty dim list with keepdim: all dims, kept as size 1 (as without autograd)
  Tensor k = randn({2, 3}, kFloat64).requires_grad_();
  EXPECT_EQ(k.sum({}, true).sizes(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(k.mean({}, true).sizes(), (std::vector<int64_t>{1, 1}));
  Tensor s = scalar_tensor(1.5, kFloat64).requires_grad_();
  s.sum({0}).backward();
  expect_values(s.grad(), {1});
  Tensor e = zeros({0, 3}, kFloat64).requires_grad_();
  e.sum().backward();
  EXPECT_EQ(e.grad().sizes(), (std::vector<int64_t>{0, 3}));
}

// ---- linear algebra ----

TEST(AutogradLinalg, NodeNames) {
  Tensor a = randn({2, 3}, kFloat64).requires_grad_();
  Tensor b = randn({3, 4}, kFloat64).requires_grad_();
  EXPECT_EQ(name_of(a.mm(b)), "MmBackward0");
  EXPECT_EQ(name_of(randn({2, 2, 3}, kFloat64).requires_grad_().bmm(randn({2, 3, 1}, kFloat64))),
            "BmmBackward0");
  EXPECT_EQ(name_of(addmm(randn({4}, kFloat64), a, b)), "AddmmBackward0");
  EXPECT_TRUE(matmul(a, b).grad_fn());
}

// linear records as PyTorch: AddmmBackward0 over TBackward0 (MmBackward0 without bias).
TEST(AutogradLinalg, LinearGraph) {
  Tensor x = randn({5, 3}, kFloat64);
  Tensor w = randn({4, 3}, kFloat64).requires_grad_();
  Tensor bias = randn({4}, kFloat64).requires_grad_();
  Tensor y = linear(x, w, bias);
  ASSERT_EQ(name_of(y), "AddmmBackward0");
  ASSERT_EQ(y.grad_fn()->next_edges().size(), 3u);
  EXPECT_FALSE(y.grad_fn()->next_edges()[1].is_valid());  // x needs no gradient
  ASSERT_TRUE(y.grad_fn()->next_edges()[2].is_valid());
  EXPECT_EQ(y.grad_fn()->next_edges()[2].function->name(), "TBackward0");
  Tensor y2 = linear(x, w);
  EXPECT_EQ(name_of(y2), "MmBackward0");
  Tensor y3 = linear(randn({2, 5, 3}, kFloat64), w, bias);
  EXPECT_TRUE(y3.grad_fn());
  EXPECT_EQ(y3.sizes(), (std::vector<int64_t>{2, 5, 4}));
  y.sum().backward();
  // d sum(x w^T + b) / d w = ones^T x (each row of w gets the column sums of x)
  EXPECT_TRUE(allclose(w.grad(), x.sum({0}, true).expand({4, 3})));
  expect_values(bias.grad(), {5, 5, 5, 5});
}

// Every matmul case records and gives the same gradients as an explicit formula.
TEST(AutogradLinalg, MatmulShapes) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{3}, {3}},
      {{2, 3}, {3}},
      {{3}, {3, 2}},
      {{2, 3}, {3, 4}},
      {{2, 2, 3}, {3}},
      {{2, 2, 3}, {3, 4}},
      {{3}, {2, 3, 4}},
      {{2, 3}, {2, 3, 4}},
      {{2, 2, 3}, {2, 3, 4}},
      {{2, 1, 2, 3}, {3, 3, 2}},
      {{1, 2, 3}, {2, 1, 3, 2}}};
  for (auto& [sa, sb] : cases) {
    Tensor a = randn(sa, kFloat64).requires_grad_();
    Tensor b = randn(sb, kFloat64).requires_grad_();
    Tensor out = matmul(a, b);
    ASSERT_TRUE(out.grad_fn()) << "matmul " << a.sizes() << " x " << b.sizes();
    Tensor gout = randn(out.sizes(), kFloat64);
    auto grads = autograd::grad({out}, {a, b}, {gout});
    EXPECT_EQ(grads[0].sizes(), a.sizes());
    EXPECT_EQ(grads[1].sizes(), b.sizes());
    // sum(out * gout) is linear in a: its gradient at a is matmul of ... checked numerically
    NoGradGuard no_grad;
    Tensor da = randn(sa, kFloat64) * 1e-3;
    Tensor lhs = (matmul(a + da, b) * gout).sum() - (matmul(a, b) * gout).sum();
    EXPECT_NEAR(lhs.item<double>(), (grads[0] * da).sum().item<double>(), 1e-10);
    Tensor db = randn(sb, kFloat64) * 1e-3;
    Tensor rhs = (matmul(a, b + db) * gout).sum() - (matmul(a, b) * gout).sum();
    EXPECT_NEAR(rhs.item<double>(), (grads[1] * db).sum().item<double>(), 1e-10);
  }
}

TEST(AutogradLinalg, AddmmBetaAlphaAndBroadcastSelf) {
  Tensor self = leaf({1, 2});  // [2] broadcast to [3, 2]
  Tensor m1 = randn({3, 4}, kFloat64).requires_grad_();
  Tensor m2 = randn({4, 2}, kFloat64).requires_grad_();
  addmm(self, m1, m2, 0.5, 2.0).sum().backward();
  expect_values(self.grad(), {1.5, 1.5});
  EXPECT_TRUE(allclose(m1.grad(), (ones({3, 2}, kFloat64).mm(m2.detach().t()) * 2.0)));
  EXPECT_TRUE(allclose(m2.grad(), (m1.detach().t().mm(ones({3, 2}, kFloat64)) * 2.0)));
  // beta = 0 ignores self's values but still gives it a (zero) gradient
  Tensor s2 = leaf({NAN, 1});
  addmm(s2, m1.detach(), m2.detach(), 0.0).sum().backward();
  expect_values(s2.grad(), {0, 0});
}

}  // namespace
