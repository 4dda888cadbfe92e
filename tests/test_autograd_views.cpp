// Autograd of the view ops and copies: node names, gradients reaching the base through
// chains of views, reshape's copy path, in-place refusal on views, contiguous/to returning
// self, gradient dtypes of to() and copy_(), and copy_'s history.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <functional>
#include <string>

#include "autograd_helpers.h"

using namespace ember;
using agtest::close;
using agtest::error_of;
using agtest::has;
using autograd::tensor_list;

namespace {

Tensor leaf(IntArrayRef sizes, ScalarType dtype = kFloat64) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return arange(n, TensorOptions().dtype(dtype)).reshape(sizes).requires_grad_();
}

std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "(none)"; }

}  // namespace

TEST(AutogradViews, NodeNames) {
  Tensor x = leaf({2, 3});
  EXPECT_EQ(name_of(x.view({3, 2})), "ViewBackward0");
  EXPECT_EQ(name_of(x.reshape({6})), "ViewBackward0");
  EXPECT_EQ(name_of(x.t()), "TBackward0");
  EXPECT_EQ(x.t().grad_fn()->forward_op(), std::string("transpose"));
  EXPECT_EQ(name_of(x.transpose(0, 1)), "TransposeBackward0");
  EXPECT_EQ(name_of(x.permute({1, 0})), "PermuteBackward0");
  EXPECT_EQ(name_of(x.unsqueeze(0)), "UnsqueezeBackward0");
  EXPECT_EQ(name_of(x.unsqueeze(0).squeeze()), "SqueezeBackward0");
  EXPECT_EQ(name_of(x.unsqueeze(0).squeeze(0)), "SqueezeBackward1");
  EXPECT_EQ(name_of(x.unsqueeze(0).expand({2, 2, 3})), "ExpandBackward0");
  EXPECT_EQ(name_of(x.slice(1, 1)), "SliceBackward0");
  EXPECT_EQ(name_of(x.narrow(1, 0, 2)), "SliceBackward0");
  EXPECT_EQ(name_of(x[1]), "SelectBackward0");
  EXPECT_EQ(name_of(x.as_strided({2}, {1})), "AsStridedBackward0");
  EXPECT_EQ(name_of(x.clone()), "CloneBackward0");
  EXPECT_EQ(name_of(x.to(kFloat32)), "ToCopyBackward0");
  for (const Tensor& part : x.chunk(3, 1)) EXPECT_EQ(name_of(part), "SliceBackward0");
  for (const Tensor& part : x.unbind(0)) EXPECT_EQ(name_of(part), "SelectBackward0");
  // Views are marked as such (in-place ops on them are refused); copies are not.
  EXPECT_TRUE(x.t().grad_fn()->is_view());
  EXPECT_FALSE(x.clone().grad_fn()->is_view());
}

TEST(AutogradViews, NothingRecordedWithoutGrad) {
  Tensor x = leaf({2, 3});
  NoGradGuard no_grad;
  EXPECT_FALSE(x.t().requires_grad());
  EXPECT_FALSE(x.reshape({-1}).requires_grad());
  EXPECT_EQ(x.clone().grad_fn(), nullptr);
  Tensor y = zeros({2, 3});
  EXPECT_FALSE(x.view({6}).requires_grad());
  EXPECT_FALSE(y.requires_grad());
}

TEST(AutogradViews, ReshapeOfNonContiguousRecordsCloneThenView) {
  Tensor x = leaf({2, 3});
  Tensor y = x.t().reshape({6});
  ASSERT_EQ(name_of(y), "ViewBackward0");
  const auto& edge = y.grad_fn()->next_edge(0);
  ASSERT_TRUE(edge.function);
  EXPECT_EQ(edge.function->name(), "CloneBackward0");
  (y * arange(6, kFloat64)).sum().backward();
  // y[k] = x.t().flatten()[k] = x[k % 2][k / 2]
  Tensor expected = tensor<double>({0, 2, 4, 1, 3, 5}).view({2, 3});
  EXPECT_TRUE(close(x.grad(), expected));
}

TEST(AutogradViews, GradientReachesTheLeafThroughAChainOfViews) {
  Tensor x = leaf({4, 4});
  // x.t()[1:3, 2] = x[2, 1:3]
  Tensor y = x.t().slice(0, 1, 3).select(1, 2);
  (y * tensor<double>({10, 20})).sum().backward();
  Tensor expected = zeros({4, 4}, kFloat64);
  {
    NoGradGuard g;
    expected[2][1].fill_(10);
    expected[2][2].fill_(20);
  }
  EXPECT_TRUE(close(x.grad(), expected));
}

TEST(AutogradViews, StepSliceAndExpandGradients) {
  Tensor x = leaf({7});
  x.slice(0, 1, std::nullopt, 3).sum().backward();  // elements 1, 4
  EXPECT_TRUE(close(x.grad(), tensor<double>({0, 1, 0, 0, 1, 0, 0})));

  Tensor b = leaf({3, 1});
  b.expand({2, 3, 4}).sum().backward();
  EXPECT_TRUE(close(b.grad(), full({3, 1}, 8.0, kFloat64)));
}

TEST(AutogradViews, AsStridedOfAViewAndOfAnExpandedTensor) {
  Tensor x = leaf({3, 3});
  // The view starts at storage element 3; as_strided keeps that offset by default and
  // reads elements 3, 4, 4, 5 (the overlap sums).
  x.slice(0, 1).as_strided({2, 2}, {1, 1}).sum().backward();
  EXPECT_TRUE(close(x.grad(), tensor<double>({0, 0, 0, 1, 2, 1, 0, 0, 0}).view({3, 3})));

  // An overlapping input: each storage element's gradient is shared by the input
  // elements that alias it, and expand's backward sums them back.
  Tensor b = leaf({3});
  b.expand({2, 3}).as_strided({2, 2}, {1, 1}, 0).sum().backward();
  EXPECT_TRUE(close(b.grad(), tensor<double>({1, 2, 1})));
}

TEST(AutogradViews, SliceDoubleBackward) {
  Tensor x = leaf({5});
  Tensor y = (x * x).slice(0, 0, std::nullopt, 2);  // x0^2, x2^2, x4^2
  tensor_list g = autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_TRUE(close(g[0], tensor<double>({0, 0, 4, 0, 8})));
  ASSERT_TRUE(g[0].requires_grad());
  tensor_list gg = autograd::grad({g[0].sum()}, {x});
  EXPECT_TRUE(close(gg[0], tensor<double>({2, 0, 2, 0, 2})));
}

TEST(AutogradViews, InPlaceOnAViewWithHistoryIsRefused) {
  Tensor x = leaf({2, 3});
  Tensor v = (x * 2).view({6});
  std::string msg = error_of([&] { v.copy_(zeros({6}, kFloat64)); });
  EXPECT_NE(msg.find("in-place"), std::string::npos) << msg;
  Tensor s = (x * 2)[0];
  EXPECT_NE(error_of([&] { s.copy_(ones({3}, kFloat64)); }), "(no error)");
  // A clone of the view may be modified.
  Tensor c = (x * 2).view({6}).clone();
  EXPECT_EQ(error_of([&] { c.copy_(ones({6}, kFloat64)); }), "(no error)");
}

TEST(AutogradViews, ContiguousAndNoOpToReturnSelf) {
  Tensor x = leaf({2, 3});
  EXPECT_TRUE(x.contiguous().is_same(x));
  EXPECT_TRUE(x.to(kFloat64).is_same(x));
  EXPECT_TRUE(x.to(Device(kCPU)).is_same(x));
  Tensor c = x.t().contiguous();
  EXPECT_EQ(name_of(c), "CloneBackward0");
  EXPECT_TRUE(c.is_contiguous());
}

TEST(AutogradViews, ToGradientHasTheInputsDtype) {
  Tensor x = leaf({3});
  Tensor y = x.to(kFloat32);
  EXPECT_EQ(y.dtype(), kFloat32);
  (y * tensor<float>({1, 2, 3})).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().dtype(), kFloat64);
  EXPECT_TRUE(close(x.grad(), tensor<double>({1, 2, 3})));

  // Converting to an integer type carries no gradient.
  Tensor i = x.to(kInt64);
  EXPECT_FALSE(i.requires_grad());
  EXPECT_EQ(i.grad_fn(), nullptr);
}

TEST(AutogradViews, CopyGivesTheSourceItsGradientAndSelfNone) {
  Tensor a = leaf({2, 3});
  Tensor b = leaf({3}, kFloat32);
  Tensor y = a * 2;
  y.copy_(b);
  EXPECT_EQ(name_of(y), "CopyBackwards");
  EXPECT_EQ(y.grad_fn()->forward_op(), std::string("copy_"));
  EXPECT_EQ(y.dtype(), kFloat64);
  (y * tensor<double>({1, 2, 3, 4, 5, 6}).view({2, 3})).sum().backward();
  EXPECT_FALSE(a.grad().defined());  // the overwritten value gets no gradient
  ASSERT_TRUE(b.grad().defined());
  EXPECT_EQ(b.grad().dtype(), kFloat32);                   // converted back to the source's dtype
  EXPECT_TRUE(close(b.grad(), tensor<float>({5, 7, 9})));  // summed over the broadcast
}

TEST(AutogradViews, CopyIntoAConstantBufferGivesItHistory) {
  Tensor x = leaf({3});
  Tensor buf = zeros({3}, kFloat64);
  buf.copy_(x);
  EXPECT_TRUE(buf.requires_grad());
  (buf * buf).sum().backward();
  EXPECT_TRUE(close(x.grad(), tensor<double>({0, 2, 4})));
}

TEST(AutogradViews, CopyIntoALeafThatRequiresGradIsRefused) {
  Tensor x = leaf({3});
  std::string msg = error_of([&] { x.copy_(ones({3}, kFloat64)); });
  EXPECT_NE(msg.find("leaf"), std::string::npos) << msg;
  {
    NoGradGuard g;  // what optimizers do
    x.copy_(ones({3}, kFloat64));
  }
  EXPECT_TRUE(close(x, ones({3}, kFloat64)));
}

TEST(AutogradViews, DetachHasNoHistory) {
  Tensor x = leaf({2, 2});
  Tensor d = (x * 2).t().detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.grad_fn(), nullptr);
}
