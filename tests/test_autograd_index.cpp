// Autograd of softmax, indexing and joining: the special cases gradcheck doesn't show
// (dtype argument, repeated indices, in-place checks, skipped cat inputs, node names).
#include <ember/ember.h>
#include <gtest/gtest.h>

using namespace ember;

namespace {

Tensor idx(std::vector<int64_t> v) { return tensor(v, kInt64); }
Tensor f64(std::vector<double> v) { return tensor(v, kFloat64); }

TEST(AutogradSoftmax, NodeNamesAndSavedOutput) {
  Tensor x = randn({2, 3}, kFloat64).requires_grad_();
  Tensor y = x.softmax(1);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "SoftmaxBackward0");
  EXPECT_EQ(x.log_softmax(-1).grad_fn()->name(), "LogSoftmaxBackward0");
  // The rule reads the output: changing it in place makes backward refuse.
  {
    NoGradGuard no_grad;
    y.add_(1);
  }
  EXPECT_THROW(y.sum().backward(), Error);
}

TEST(AutogradSoftmax, GradOfSumIsZero) {
  Tensor x = randn({3, 4}, kFloat64).requires_grad_();
  x.softmax(0).sum().backward();
  EXPECT_TRUE(allclose(x.grad(), zeros({3, 4}, kFloat64), 0, 1e-12));
  Tensor z = randn({3, 4}, kFloat64).requires_grad_();
  z.log_softmax(1).exp().sum().backward();
  EXPECT_TRUE(allclose(z.grad(), zeros({3, 4}, kFloat64), 0, 1e-12));
}

// softmax(x, dim, kFloat64) of a float32 x: the cast is recorded, the result is float64 and
// x's gradient is float32 with the float64 gradient's values.
TEST(AutogradSoftmax, DtypeArgument) {
  for (bool log : {false, true}) {
    Tensor x = randn({2, 3}).requires_grad_();
    Tensor w = randn({2, 3}, kFloat64);
    Tensor y = log ? x.log_softmax(1, kFloat64) : x.softmax(1, kFloat64);
    EXPECT_EQ(y.dtype(), kFloat64);
    (y * w).sum().backward();
    ASSERT_TRUE(x.grad().defined()) << "log " << log;
    EXPECT_EQ(x.grad().dtype(), kFloat32);

    Tensor x64 = x.detach().to(kFloat64).requires_grad_();
    Tensor y64 = log ? x64.log_softmax(1) : x64.softmax(1);
    (y64 * w).sum().backward();
    EXPECT_TRUE(allclose(x.grad(), x64.grad().to(kFloat32), 1e-5, 1e-6)) << "log " << log;
  }
}

// x.index({i}) records LibTorch's node; negative indices count from the end in the gradient too.
TEST(AutogradIndex, AdvancedIndexRecordsIndexBackward) {
  Tensor x = f64({1, 2, 3, 4}).requires_grad_();
  Tensor y = x.index({idx({1, -1, 3, -3})});
  EXPECT_EQ(y.grad_fn()->name(), "IndexBackward0");
  EXPECT_TRUE(equal(y.detach(), f64({2, 4, 4, 2})));
  (y * f64({1, 10, 100, 1000})).sum().backward();
  EXPECT_TRUE(equal(x.grad(), f64({0, 1001, 0, 110})));
}

TEST(AutogradIndex, IndexSelectRepeatedIndicesAccumulate) {
  Tensor x = f64({1, 2, 3, 4}).requires_grad_();
  Tensor y = x.index_select(0, idx({1, 1, 3}));
  EXPECT_EQ(y.grad_fn()->name(), "IndexSelectBackward0");
  (y * f64({1, 10, 100})).sum().backward();
  EXPECT_TRUE(equal(x.grad(), f64({0, 11, 0, 100})));
}

TEST(AutogradIndex, GatherRepeatedIndicesAccumulate) {
  Tensor x = f64({1, 2, 3, 4, 5, 6}).view({2, 3}).requires_grad_();
  Tensor y = x.gather(1, idx({2, 2, 0, 1}).view({2, 2}));
  EXPECT_EQ(y.grad_fn()->name(), "GatherBackward0");
  y.backward(f64({1, 2, 3, 4}).view({2, 2}));
  EXPECT_TRUE(equal(x.grad(), f64({0, 0, 3, 3, 4, 0}).view({2, 3})));
}

// The index is saved: changing it in place before backward is refused.
TEST(AutogradIndex, SavedIndexIsVersionChecked) {
  Tensor x = f64({1, 2, 3}).requires_grad_();
  Tensor i = idx({0, 2});
  Tensor y = x.gather(0, i);
  i.fill_(1);
  EXPECT_THROW(y.sum().backward(), Error);
}

// src elements that the index doesn't reach get a zero gradient; self's gradient is g.
TEST(AutogradIndex, ScatterAddIndexSmallerThanSrc) {
  Tensor self = zeros({2, 3}, kFloat64).requires_grad_();
  Tensor src = f64({1, 2, 3, 4, 5, 6}).view({2, 3}).requires_grad_();
  Tensor y = self.scatter_add(1, idx({2, 0}).view({1, 2}), src);
  EXPECT_EQ(y.grad_fn()->name(), "ScatterAddBackward0");
  Tensor g = f64({1, 2, 3, 4, 5, 6}).view({2, 3});
  y.backward(g);
  EXPECT_TRUE(equal(self.grad(), g));
  EXPECT_TRUE(equal(src.grad(), f64({3, 1, 0, 0, 0, 0}).view({2, 3})));
}

TEST(AutogradIndex, ScatterAddInPlace) {
  Tensor leaf = zeros({3}, kFloat64).requires_grad_();
  Tensor src = f64({1, 2}).requires_grad_();
  EXPECT_THROW(leaf.scatter_add_(0, idx({0, 0}), src), Error);  // a leaf that requires grad

  Tensor base = f64({1, 1, 1}).requires_grad_();
  Tensor y = base * 2;
  const int64_t v = y._version();
  y.scatter_add_(0, idx({2, 2}), src);
  EXPECT_GT(y._version(), v);
  EXPECT_EQ(y.grad_fn()->name(), "ScatterAddBackward0");
  EXPECT_TRUE(equal(y.detach(), f64({2, 2, 5})));
  y.backward(f64({1, 2, 3}));
  EXPECT_TRUE(equal(base.grad(), f64({2, 4, 6})));
  EXPECT_TRUE(equal(src.grad(), f64({3, 3})));

  // Into a tensor without history: only src's gradient flows.
  Tensor c = zeros({3}, kFloat64);
  Tensor s = f64({1, 2}).requires_grad_();
  c.scatter_add_(0, idx({1, 0}), s);
  EXPECT_TRUE(c.requires_grad());
  c.backward(f64({5, 6, 7}));
  EXPECT_TRUE(equal(s.grad(), f64({6, 5})));
}

TEST(AutogradJoin, CatOneNodeEdgePerInput) {
  Tensor a = randn({2, 2}, kFloat64).requires_grad_();
  Tensor b = randn({2, 1}, kFloat64);  // no grad
  Tensor c = randn({2, 3}, kFloat64).requires_grad_();
  Tensor y = cat({a, b, c}, -1);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "CatBackward0");
  EXPECT_EQ(y.grad_fn()->num_outputs(), 3u);
  Tensor g = arange(12, kFloat64).view({2, 6});
  y.backward(g);
  EXPECT_TRUE(equal(a.grad(), g.narrow(1, 0, 2)));
  EXPECT_TRUE(equal(c.grad(), g.narrow(1, 3, 3)));
  EXPECT_FALSE(b.grad().defined());
}

// Legacy [0]-shaped inputs are skipped by cat and get no gradient.
TEST(AutogradJoin, CatSkippedEmptyInput) {
  Tensor e = zeros({0}, kFloat64).requires_grad_();
  Tensor a = randn({2, 3}, kFloat64).requires_grad_();
  Tensor y = cat({e, a}, 1);
  EXPECT_EQ(y.sizes(), a.sizes());
  y.sum().backward();
  EXPECT_FALSE(e.grad().defined());
  EXPECT_TRUE(equal(a.grad(), ones({2, 3}, kFloat64)));
}

// cat promotes; each input's gradient comes back in its own dtype.
TEST(AutogradJoin, CatMixedDtypes) {
  Tensor a = randn({2}).requires_grad_();
  Tensor b = randn({3}, kFloat64).requires_grad_();
  Tensor y = cat({a, b}, 0);
  EXPECT_EQ(y.dtype(), kFloat64);
  y.backward(f64({1, 2, 3, 4, 5}));
  EXPECT_EQ(a.grad().dtype(), kFloat32);
  EXPECT_TRUE(equal(a.grad(), tensor({1.f, 2.f})));
  EXPECT_TRUE(equal(b.grad(), f64({3, 4, 5})));
}

// stack records through unsqueeze + cat.
TEST(AutogradJoin, Stack) {
  Tensor a = randn({2, 3}, kFloat64).requires_grad_();
  Tensor b = randn({2, 3}, kFloat64).requires_grad_();
  Tensor y = stack({a, b, a}, 1);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "CatBackward0");
  Tensor g = arange(18, kFloat64).view({2, 3, 3});
  y.backward(g);
  EXPECT_TRUE(equal(a.grad(), g.select(1, 0) + g.select(1, 2)));
  EXPECT_TRUE(equal(b.grad(), g.select(1, 1)));
}

TEST(AutogradIndex, OneHotIsNotDifferentiable) {
  Tensor y = one_hot(idx({0, 2}), 3);
  EXPECT_EQ(y.dtype(), kInt64);
  EXPECT_FALSE(y.requires_grad());
  EXPECT_FALSE(y.grad_fn());
}

TEST(AutogradIndex, NoGradModeRecordsNothing) {
  Tensor x = randn({3}, kFloat64).requires_grad_();
  NoGradGuard no_grad;
  EXPECT_FALSE(x.softmax(0).requires_grad());
  EXPECT_FALSE(x.index_select(0, idx({1})).requires_grad());
  EXPECT_FALSE(cat({x, x}, 0).requires_grad());
}

}  // namespace
