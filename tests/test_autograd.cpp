// Autograd semantics: accumulation, retain_graph, grad(), create_graph, grad mode guards,
// hooks, retain_grad, version checks, custom functions, anomaly mode, gradcheck reports,
// to_dot, a 100,000-op chain, and that graphs free what they hold.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <cmath>
#include <memory>
#include <string>

#include "autograd_helpers.h"

using namespace ember;
using agtest::close;
using agtest::error_of;
using agtest::has;
using autograd::tensor_list;

TEST(Backward, AccumulatesAcrossCalls) {
  Tensor w = randn({4}, requires_grad());
  Tensor x = randn({4});
  (w * x).sum().backward();
  EXPECT_TRUE(close(w.grad(), x));
  EXPECT_FALSE(x.grad().defined());
  (w * x).sum().backward();
  EXPECT_TRUE(close(w.grad(), x * 2));
  w.mutable_grad().zero_();
  (w * w).sum().backward();
  EXPECT_TRUE(close(w.grad(), w * 2));
}

TEST(Backward, BroadcastSumsBackToShape) {
  Tensor a = randn({2, 3}, requires_grad());
  Tensor b = randn({3}, requires_grad());
  Tensor c = randn({1, 1}, requires_grad());
  ((a * b) + c).sum().backward();
  EXPECT_TRUE(close(a.grad(), b.expand({2, 3})));
  EXPECT_TRUE(close(b.grad(), a.detach().sum({0})));
  EXPECT_TRUE(close(c.grad(), full({1, 1}, 6.0)));
}

TEST(Backward, MixedDtypesGiveEachInputItsOwnDtype) {
  Tensor a = randn({3}, requires_grad());
  Tensor b = randn({3}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor y = (a * b).sum();
  EXPECT_EQ(y.dtype(), kFloat64);
  y.backward();
  EXPECT_EQ(a.grad().dtype(), kFloat32);
  EXPECT_EQ(b.grad().dtype(), kFloat64);
  EXPECT_TRUE(close(a.grad(), b.to(kFloat32)));
}

TEST(Backward, ExplicitGradientAndShapeChecks) {
  Tensor w = randn({3}, requires_grad());
  Tensor y = w * w;
  EXPECT_TRUE(
      has(error_of([&] { y.backward(); }), "grad can be implicitly created only for scalar"));
  Tensor g = tensor({1.0f, 2.0f, 3.0f});
  y.backward(g);
  EXPECT_TRUE(close(w.grad(), w * 2 * g));
  Tensor y2 = w * w;
  EXPECT_TRUE(has(error_of([&] { y2.backward(ones({4})); }), "Mismatch in shape"));
  Tensor plain = randn({3});
  EXPECT_TRUE(has(error_of([&] { plain.sum().backward(); }), "does not require grad"));
}

TEST(Backward, FreedGraphThrowsAndRetainGraphKeepsIt) {
  Tensor w = randn({3}, requires_grad());
  Tensor y = (w * w).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  EXPECT_TRUE(close(w.grad(), w * 4));
  std::string msg = error_of([&] { y.backward(); });
  EXPECT_TRUE(has(msg, "MulBackward0")) << msg;
  EXPECT_TRUE(has(msg, "second time")) << msg;
  EXPECT_TRUE(has(msg, "retain_graph")) << msg;
}

TEST(Backward, LeafBackwardAndNames) {
  Tensor w = randn({}, requires_grad());
  w.backward();
  EXPECT_TRUE(close(w.grad(), ones({})));
  Tensor y = (w * w).sum();
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  EXPECT_EQ(y.grad_fn()->next_edges()[0].function->name(), "MulBackward0");
  EXPECT_EQ(y.grad_fn()->next_edges()[0].function->next_edges()[0].function->name(),
            "AccumulateGrad");
  EXPECT_TRUE(w.is_leaf());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_TRUE(y.requires_grad());
  std::ostringstream os;
  os << y;
  EXPECT_TRUE(has(os.str(), "grad_fn=<SumBackward0>")) << os.str();
}

TEST(Grad, ReturnsGradientsWithoutTouchingGrad) {
  Tensor x = randn({3}, requires_grad());
  Tensor y = randn({3}, requires_grad());
  Tensor out = (x * y).sum();
  tensor_list g = autograd::grad({out}, {x, y});
  EXPECT_TRUE(close(g[0], y));
  EXPECT_TRUE(close(g[1], x));
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(g[0].requires_grad());
}

TEST(Grad, AllowUnused) {
  Tensor x = randn({3}, requires_grad());
  Tensor z = randn({3}, requires_grad());
  Tensor out = (x * x).sum();
  std::string msg = error_of([&] { autograd::grad({out}, {x, z}, {}, true); });
  EXPECT_TRUE(has(msg, "allow_unused")) << msg;
  tensor_list g = autograd::grad({out}, {x, z}, {}, true, false, /*allow_unused=*/true);
  EXPECT_TRUE(close(g[0], x * 2));
  EXPECT_FALSE(g[1].defined());
  Tensor plain = randn({3});
  EXPECT_TRUE(
      has(error_of([&] { autograd::grad({out}, {plain}, {}, true); }), "does not require grad"));
}

TEST(Grad, NonLeafInputs) {
  Tensor x = randn({3}, requires_grad());
  Tensor h = x * x;
  Tensor out = (h * x).sum();
  tensor_list g = autograd::grad({out}, {h});
  EXPECT_TRUE(close(g[0], x));
}

TEST(Grad, CreateGraphGivesSecondDerivatives) {
  Tensor x = randn({4}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor y = (x * x * x).sum();  // dy/dx = 3x^2, d2y/dx2 = 6x
  tensor_list g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_TRUE(g[0].requires_grad());
  EXPECT_TRUE(close(g[0], x * x * 3));
  tensor_list gg = autograd::grad({g[0].sum()}, {x});
  EXPECT_TRUE(close(gg[0], x * 6));
  // backward(create_graph) leaves a grad with history.
  Tensor z = (x * x).sum();
  z.backward({}, std::nullopt, /*create_graph=*/true);
  EXPECT_TRUE(x.grad().requires_grad());
  Tensor gx = x.grad();
  x.mutable_grad() = Tensor();
  gx.sum().backward();
  EXPECT_TRUE(close(x.grad(), full({4}, 2.0, kFloat64)));
}

TEST(GradMode, GuardsNest) {
  Tensor w = randn({3}, requires_grad());
  EXPECT_TRUE(GradMode::is_enabled());
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(GradMode::is_enabled());
    Tensor y = w * w;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_FALSE(y.grad_fn());
    {
      EnableGradGuard enable;
      EXPECT_TRUE((w * w).requires_grad());
    }
    EXPECT_FALSE(GradMode::is_enabled());
    AutoGradMode on(true);
    EXPECT_TRUE((w * w).requires_grad());
  }
  EXPECT_TRUE(GradMode::is_enabled());
}

TEST(Flags, RequiresGradRules) {
  EXPECT_TRUE(has(error_of([] { zeros({2}, kInt64).requires_grad_(); }), "floating-point"));
  EXPECT_TRUE(has(error_of([] { zeros({2}, TensorOptions().dtype(kInt32).requires_grad(true)); }),
                  "floating-point"));
  Tensor w = randn({2}, requires_grad());
  Tensor y = w * w;
  EXPECT_TRUE(has(error_of([&] { y.requires_grad_(false); }), "leaf"));
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());
  y.detach_();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_FALSE(y.grad_fn());
  w.requires_grad_(false);
  EXPECT_FALSE((w * w).requires_grad());
}

TEST(Hooks, LeafAndNonLeafHooksChangeGradients) {
  Tensor w = randn({3}, requires_grad());
  int calls = 0;
  unsigned h = w.register_hook([&](const Tensor& g) {
    ++calls;
    return g * 2;
  });
  Tensor y = w * w;
  y.register_hook([&](Tensor g) {
    ++calls;
    return g * 10;
  });
  y.register_hook([&](const Tensor&) { ++calls; });  // void hooks observe only
  y.sum().backward();
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(close(w.grad(), w * 2 * 10 * 2));
  w.remove_hook(h);
  w.mutable_grad() = Tensor();
  (w * 1.0f).sum().backward();  // mul by a scalar
  EXPECT_TRUE(close(w.grad(), ones({3})));
  Tensor plain = randn({3});
  EXPECT_TRUE(has(error_of([&] { plain.register_hook([](const Tensor& g) { return g; }); }),
                  "doesn't require gradient"));
}

TEST(Hooks, RetainGrad) {
  Tensor w = randn({3}, requires_grad());
  Tensor h = w * w;
  h.retain_grad();
  EXPECT_TRUE(h.retains_grad());
  Tensor h2 = w * w;
  (h * 3 + h2).sum().backward();
  EXPECT_TRUE(close(h.grad(), full({3}, 3.0f)));
  EXPECT_FALSE(h2.grad().defined());  // not retained
}

TEST(Versions, InPlaceOnSavedTensorThrowsAtBackward) {
  Tensor w = randn({3}, requires_grad());
  Tensor x = randn({3});
  Tensor y = (w * x).sum();  // MulBackward0 saved x
  const int64_t v = x._version();
  x.add_(1);
  EXPECT_EQ(x._version(), v + 1);
  std::string msg = error_of([&] { y.backward(); });
  EXPECT_TRUE(has(msg, "modified by an inplace operation")) << msg;
  EXPECT_TRUE(has(msg, "MulBackward0")) << msg;
  EXPECT_TRUE(has(msg, "'mul'")) << msg;
}

TEST(Versions, InPlaceOnLeafThatRequiresGradThrows) {
  Tensor w = randn({3}, requires_grad());
  std::string msg = error_of([&] { w.add_(1); });
  EXPECT_TRUE(has(msg, "add_")) << msg;
  EXPECT_TRUE(has(msg, "leaf")) << msg;
  {
    NoGradGuard no_grad;  // what optimizers do
    w.add_(1);
  }
}

TEST(Versions, InPlaceOnNonLeafRebasesHistory) {
  Tensor w = randn({3}, requires_grad());
  Tensor y = w * 2;
  y.mul_(w);  // y = 2w * w
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  y.sum().backward();
  EXPECT_TRUE(close(w.grad(), w * 4));
  Tensor buf = zeros({3});
  buf.add_(w);  // a plain tensor takes the history of what is added in
  EXPECT_TRUE(buf.requires_grad());
  w.mutable_grad() = Tensor();
  buf.sum().backward();
  EXPECT_TRUE(close(w.grad(), ones({3})));
}

// ---- custom functions ----

namespace {

struct ScaledMul : autograd::Function<ScaledMul> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor a, Tensor b, double scale) {
    ctx->save_for_backward({a, b});
    ctx->saved_data["scale"] = scale;
    return a * b * scale;
  }
  static tensor_list backward(autograd::AutogradContext* ctx, tensor_list grads) {
    tensor_list s = ctx->get_saved_variables();
    const double scale = ctx->saved_data["scale"].toDouble();
    Tensor g = grads[0] * scale;
    return {ctx->needs_input_grad(0) ? g * s[1] : Tensor(),
            ctx->needs_input_grad(1) ? g * s[0] : Tensor(), Tensor()};
  }
};

struct SortedWithIndex : autograd::Function<SortedWithIndex> {
  static tensor_list forward(autograd::AutogradContext* ctx, Tensor x) {
    Tensor y = x * 2;
    Tensor idx = arange(x.numel());
    ctx->mark_non_differentiable({idx});
    ctx->save_for_backward({y});  // an output
    return {y, idx};
  }
  static tensor_list backward(autograd::AutogradContext* ctx, tensor_list grads) {
    Tensor y = ctx->get_saved_variables()[0];
    EXPECT_TRUE(y.defined());
    return {grads[0] * 2};
  }
};

struct InPlaceDouble : autograd::Function<InPlaceDouble> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static tensor_list backward(autograd::AutogradContext*, tensor_list grads) {
    return {grads[0] * 2};
  }
};

struct WrongCount : autograd::Function<WrongCount> {
  static Tensor forward(autograd::AutogradContext*, Tensor x, Tensor y) { return x * y; }
  static tensor_list backward(autograd::AutogradContext*, tensor_list grads) { return {grads[0]}; }
};

struct BadGradient : autograd::Function<BadGradient> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static tensor_list backward(autograd::AutogradContext* ctx, tensor_list grads) {
    return {grads[0] * ctx->get_saved_variables()[0] * 3};  // should be 2x
  }
};

struct MakesNan : autograd::Function<MakesNan> {
  static Tensor forward(autograd::AutogradContext*, Tensor x) { return x * 1.0; }
  static tensor_list backward(autograd::AutogradContext*, tensor_list grads) {
    return {grads[0] * std::nan("")};
  }
};

}  // namespace

TEST(CustomFunction, SavesTensorsAndValues) {
  Tensor a = randn({3}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor b = randn({3}, kFloat64);
  Tensor y = ScaledMul::apply(a, b, 3.0);
  EXPECT_TRUE(has(y.grad_fn()->name(), "ScaledMul")) << y.grad_fn()->name();
  EXPECT_TRUE(close(y, a * b * 3));
  y.sum().backward();
  EXPECT_TRUE(close(a.grad(), b * 3));
  // gradcheck works on user functions.
  Tensor b2 = randn({3}, TensorOptions().dtype(kFloat64).requires_grad(true));
  EXPECT_TRUE(autograd::gradcheck(
      [](const tensor_list& x) { return ScaledMul::apply(x[0], x[1], 0.5); }, {a, b2}));
  EXPECT_TRUE(autograd::gradgradcheck(
      [](const tensor_list& x) { return ScaledMul::apply(x[0], x[1], 0.5); }, {a, b2}));
}

TEST(CustomFunction, NonDifferentiableOutputsAndSavedOutputs) {
  Tensor x = randn({4}, requires_grad());
  tensor_list out = SortedWithIndex::apply(x);
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_FALSE(out[1].requires_grad());
  out[0].sum().backward();
  EXPECT_TRUE(close(x.grad(), full({4}, 2.0f)));
}

TEST(CustomFunction, MarkDirty) {
  Tensor w = randn({3}, requires_grad());
  Tensor h = w * 1.0f;
  Tensor r = InPlaceDouble::apply(h);
  EXPECT_TRUE(r.is_same(h));
  EXPECT_TRUE(has(h.grad_fn()->name(), "InPlaceDouble"));
  h.sum().backward();
  EXPECT_TRUE(close(w.grad(), full({3}, 2.0f)));
  EXPECT_TRUE(has(error_of([&] { InPlaceDouble::apply(w); }), "leaf"));
}

TEST(CustomFunction, WrongNumberOfGradientsThrows) {
  Tensor x = randn({3}, requires_grad());
  Tensor y = randn({3}, requires_grad());
  std::string msg = error_of([&] { WrongCount::apply(x, y).sum().backward(); });
  EXPECT_TRUE(has(msg, "incorrect number of gradients")) << msg;
}

TEST(Gradcheck, ReportsTheWorstElement) {
  Tensor x = randn({2, 2}, TensorOptions().dtype(kFloat64).requires_grad(true));
  std::string msg = error_of([&] {
    autograd::gradcheck([](const tensor_list& v) { return BadGradient::apply(v[0]); }, {x});
  });
  EXPECT_TRUE(has(msg, "Jacobian mismatch")) << msg;
  EXPECT_TRUE(has(msg, "input 0 element [")) << msg;
  EXPECT_TRUE(has(msg, "analytic")) << msg;
  EXPECT_TRUE(has(msg, "numeric")) << msg;
  autograd::GradcheckOptions quiet;
  quiet.raise = false;
  EXPECT_FALSE(autograd::gradcheck([](const tensor_list& v) { return BadGradient::apply(v[0]); },
                                   {x}, quiet));
  Tensor f32 = randn({2}, requires_grad());
  EXPECT_TRUE(has(error_of([&] {
                    autograd::gradcheck([](const tensor_list& v) { return v[0] * v[0]; }, {f32});
                  }),
                  "float64"));
}

TEST(Anomaly, NamesTheNodeAndForwardOp) {
  Tensor x = randn({3}, requires_grad());
  Tensor y = MakesNan::apply(x).sum();
  y.backward({}, true);  // no anomaly mode: NaNs flow silently, as in PyTorch
  EXPECT_TRUE(std::isnan(x.grad()[0].item<float>()));
  autograd::DetectAnomalyGuard guard;
  EXPECT_TRUE(autograd::AnomalyMode::is_enabled());
  std::string msg = error_of([&] { y.backward(); });
  EXPECT_TRUE(has(msg, "MakesNan")) << msg;
  EXPECT_TRUE(has(msg, "nan")) << msg;
}

TEST(Dot, DescribesTheGraph) {
  Tensor w = randn({2, 3}, requires_grad());
  Tensor x = randn({3});
  Tensor y = (w * x).sum();
  std::string dot = autograd::to_dot(y);
  EXPECT_TRUE(has(dot, "digraph")) << dot;
  EXPECT_TRUE(has(dot, "SumBackward0")) << dot;
  EXPECT_TRUE(has(dot, "MulBackward0")) << dot;
  EXPECT_TRUE(has(dot, "AccumulateGrad")) << dot;
  EXPECT_TRUE(has(dot, "leaf [2, 3]")) << dot;
  EXPECT_TRUE(has(dot, "->")) << dot;
}

TEST(Engine, LongChainNeedsNoRecursion) {
  Tensor c = randn({1}, requires_grad());
  Tensor h = c;
  for (int i = 0; i < 100000; ++i) h = h * 1.0f + c;
  h.sum().backward();
  EXPECT_TRUE(close(c.grad(), full({1}, 100001.0f), 1e-3));
  h = Tensor();  // dropping the chain must not overflow the stack either
}

TEST(Engine, DiamondAndReusedInputs) {
  Tensor x = randn({3}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor a = x * x;
  Tensor b = a * x + a;  // x^3 + x^2
  b.sum().backward();
  EXPECT_TRUE(close(x.grad(), x * x * 3 + x * 2));
}

TEST(Leaks, DroppingAGraphFreesNodesAndSavedTensors) {
  const int64_t before = autograd::live_node_count();
  std::weak_ptr<TensorImpl> saved;
  {
    Tensor w = randn({3}, requires_grad());
    Tensor a = w * 2.0f;
    saved = a.impl();
    Tensor y = (a * a).sum();
    EXPECT_GT(autograd::live_node_count(), before);
  }
  EXPECT_EQ(autograd::live_node_count(), before);
  EXPECT_TRUE(saved.expired());
}

TEST(Leaks, BackwardWithoutRetainFreesSavedTensors) {
  Tensor w = randn({3}, requires_grad());
  std::weak_ptr<TensorImpl> saved;
  Tensor y;
  {
    Tensor a = w * 2.0f;
    saved = a.impl();
    y = (a * a).sum();
  }
  EXPECT_FALSE(saved.expired());  // MulBackward0 holds it
  y.backward({}, /*retain_graph=*/true);
  EXPECT_FALSE(saved.expired());
  y.backward();
  EXPECT_TRUE(saved.expired());  // released right after the backward
}

TEST(Versions, RecordedInPlaceOnAViewIsRefused) {
  Tensor w = randn({3}, requires_grad());
  Tensor buf = zeros({2, 3});
  std::string msg = error_of([&] { buf[0].add_(w); });  // would leave buf without history
  EXPECT_TRUE(has(msg, "add_")) << msg;
  EXPECT_TRUE(has(msg, "view")) << msg;
  Tensor h = w * 2;
  EXPECT_TRUE(has(error_of([&] { h.view({3, 1}).mul_(2); }), "view"));
  buf[0].add_(1);  // nothing to record: fine
  Tensor w6 = randn({6}, requires_grad());
  Tensor c = randn({3, 2}).t().reshape({6});  // a reshape that copied: not a view
  c.add_(w6);
  EXPECT_TRUE(c.requires_grad());
  Tensor r = randn({6}).reshape({2, 3});  // a reshape that is a view
  EXPECT_TRUE(has(error_of([&] { r.add_(w6.view({2, 3})); }), "view"));
}
