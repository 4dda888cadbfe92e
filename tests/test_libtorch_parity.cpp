// Calls that compile in LibTorch and in ember and once computed something else here (issue 13's
// silent differences): var/std with an int dim, the dtypes of tensor literals and the default
// dtype, a custom Function returning gradients for defaulted arguments. Expected values are
// LibTorch's (its documented rules and its output for these calls), written out by hand.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace ember;

namespace {

// Restores the default dtype when a test that changes it ends (or fails).
struct DefaultDtypeGuard {
  ScalarType saved = get_default_dtype();
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
};

// The unbiased variance of each row of a [rows, cols] table, naively.
std::vector<double> row_vars(const std::vector<double>& v, int rows, int cols) {
  std::vector<double> out;
  for (int r = 0; r < rows; ++r) {
    double mean = 0, ss = 0;
    for (int c = 0; c < cols; ++c) mean += v[r * cols + c] / cols;
    for (int c = 0; c < cols; ++c) ss += (v[r * cols + c] - mean) * (v[r * cols + c] - mean);
    out.push_back(ss / (cols - 1));
  }
  return out;
}

std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace

// ---- var/std(int dim): over the dim, not `unbiased` (LibTorch's C++-only overloads) ----

TEST(LibTorchParity, VarStdWithAnIntDimReduceThatDim) {
  const std::vector<double> v = {1, 2, 4, 8, 3, 5, 7, 11, 0, -1, 2, 6};
  Tensor x = tensor(v, kFloat64).view({3, 4});
  const std::vector<double> want = row_vars(v, 3, 4);
  EXPECT_EQ(x.var(1).sizes(), IntArrayRef({3}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(values(x.var(1))[i], want[i], 1e-12);
    EXPECT_NEAR(values(x.var(-1))[i], want[i], 1e-12);
    EXPECT_NEAR(values(ember::var(x, -1))[i], want[i], 1e-12);
    EXPECT_NEAR(values(x.std(1))[i], std::sqrt(want[i]), 1e-12);
    EXPECT_NEAR(values(ember::std(x, 1))[i], std::sqrt(want[i]), 1e-12);
  }
  EXPECT_EQ(x.std(0).sizes(), IntArrayRef({4}));
  EXPECT_TRUE(allclose(x.std(0), x.std({0})));
  EXPECT_TRUE(allclose(ember::var(x, 0), x.var({0}, true, false)));
  // bool still means unbiased: x.var(false) is the biased variance of every element.
  EXPECT_EQ(x.var(false).dim(), 0);
  EXPECT_TRUE(allclose(x.var(false), x.var(true) * (11.0 / 12.0)));
  // The other reductions take an int as a dim already.
  EXPECT_EQ(x.sum(1).sizes(), IntArrayRef({3}));
  EXPECT_EQ(x.mean(0).sizes(), IntArrayRef({4}));
  EXPECT_EQ(x.amax(1).sizes(), IntArrayRef({3}));
  EXPECT_EQ(x.norm(2, 1).sizes(), IntArrayRef({3}));
}

// ---- tensor literals: integers -> int64, floating values -> the default dtype ----

TEST(LibTorchParity, TensorLiteralDtypesFollowLibTorch) {
  EXPECT_EQ(tensor({1, 2, 3}).dtype(), kInt64);
  EXPECT_EQ(tensor({int32_t(1)}).dtype(), kInt64);
  EXPECT_EQ(tensor({int64_t(1)}).dtype(), kInt64);
  EXPECT_EQ(tensor({1.0, 2.0}).dtype(), kFloat32);
  EXPECT_EQ(tensor({1.0f}).dtype(), kFloat32);
  EXPECT_EQ(tensor({true, false}).dtype(), kBool);
  EXPECT_EQ(tensor({uint8_t(3)}).dtype(), kUInt8);
  EXPECT_EQ(tensor(std::vector<int>{1, 2}).dtype(), kInt64);
  EXPECT_EQ(tensor(std::vector<double>{1, 2}).dtype(), kFloat32);
  // Explicit options win.
  EXPECT_EQ(tensor({1, 2}, kInt32).dtype(), kInt32);
  EXPECT_EQ(tensor({1.0, 2.0}, kFloat64).dtype(), kFloat64);
  // int64, so no int32 overflow: 3 * 10^9 fits.
  EXPECT_EQ((tensor({1, 2, 3}) * 1000000000)[2].item<int64_t>(), 3000000000LL);
  // Integer literal targets are what the losses and one_hot take.
  Tensor logits = zeros({2, 3});
  Tensor target = tensor({0, 2});
  EXPECT_EQ(one_hot(target, 3).sizes(), IntArrayRef({2, 3}));
  EXPECT_NEAR(nn::functional::cross_entropy(logits, target).item<float>(), std::log(3.0), 1e-6);
  EXPECT_NEAR(nn::functional::nll_loss(logits, target).item<float>(), 0.0, 1e-7);
}

TEST(LibTorchParity, DefaultDtype) {
  DefaultDtypeGuard guard;
  EXPECT_EQ(get_default_dtype(), kFloat32);
  set_default_dtype(scalarTypeToTypeMeta(kFloat64));  // LibTorch's spelling
  EXPECT_EQ(get_default_dtype(), kFloat64);
  EXPECT_EQ(get_default_dtype_as_scalartype(), kFloat64);
  EXPECT_EQ(tensor({1.5}).dtype(), kFloat64);
  EXPECT_EQ(tensor({1.5f}).dtype(), kFloat64);
  EXPECT_EQ(tensor({1, 2}).dtype(), kInt64);
  EXPECT_EQ(zeros({2}).dtype(), kFloat64);
  EXPECT_EQ(randn({2}).dtype(), kFloat64);
  EXPECT_EQ(TensorOptions().dtype(), kFloat64);
  EXPECT_EQ((arange(3) * 0.5).dtype(), kFloat64);  // int tensor with a float scalar
  EXPECT_EQ(arange(3).exp().dtype(), kFloat64);
  EXPECT_EQ(nn::Linear(2, 3)->weight.dtype(), kFloat64);
  EXPECT_THROW(set_default_dtype(kInt64), Error);
  set_default_dtype(kFloat32);
  EXPECT_EQ(zeros({2}).dtype(), kFloat32);
}

// ---- custom Function: trailing undefined gradients of defaulted arguments are dropped ----

namespace {

// pytorch/examples cpp/autograd's LinearFunction: bias defaults to an undefined tensor, and
// backward returns three gradients even when apply got two arguments.
struct LinearFunction : autograd::Function<LinearFunction> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor input, Tensor weight,
                        Tensor bias = Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    Tensor out = input.mm(weight.t());
    if (bias.defined()) out += bias.unsqueeze(0).expand_as(out);
    return out;
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx,
                                          autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    Tensor input = saved[0], weight = saved[1], bias = saved[2];
    Tensor g = grads[0];
    Tensor grad_bias;
    if (bias.defined()) grad_bias = g.sum(0);
    return {g.mm(weight), g.t().mm(input), grad_bias};
  }
};

}  // namespace

TEST(LibTorchParity, FunctionDropsTrailingUndefinedGradients) {
  Tensor x = randn({2, 3}, kFloat64).requires_grad_(true);
  Tensor w = randn({4, 3}, kFloat64).requires_grad_(true);
  LinearFunction::apply(x, w).sum().backward();  // the bias left out
  EXPECT_TRUE(allclose(x.grad(), ones({2, 4}, kFloat64).mm(w.detach())));
  EXPECT_TRUE(allclose(w.grad(), ones({2, 4}, kFloat64).t().mm(x.detach())));
  // A defined gradient for an argument that was not passed is still an error.
  struct TooMany : autograd::Function<TooMany> {
    static Tensor forward(autograd::AutogradContext*, Tensor a) { return a * 2; }
    static autograd::variable_list backward(autograd::AutogradContext*, autograd::variable_list g) {
      return {g[0] * 2, g[0]};
    }
  };
  Tensor a = randn({2}, kFloat64).requires_grad_(true);
  EXPECT_THROW(TooMany::apply(a).sum().backward(), Error);
}

// ---- misuse throws an ember::Error instead of crashing ----

namespace {

// Whether f throws an ember::Error whose message contains `words`.
template <class F>
bool throws_with(F f, const std::string& words) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.what()).find(words) != std::string::npos;
  }
  return false;
}

}  // namespace

TEST(LibTorchParity, UndefinedTensorsThrow) {
  Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_FALSE(u.requires_grad());
  EXPECT_TRUE(throws_with([&] { u.dim(); }, "dim() called on an undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.sizes(); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.numel(); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.dtype(); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.device(); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.data_ptr(); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.sum(); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.exp(); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.view({2}); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { ones({2}) + u; }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u * 2; }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { matmul(u, ones({2, 2})); }, "undefined Tensor"));
  EXPECT_TRUE(throws_with([&] { u.item<float>(); }, "undefined"));
  Tensor w = ones({2}, kFloat32).requires_grad_(true);
  EXPECT_TRUE(throws_with([&] { w.grad().sum(); }, "undefined Tensor"));  // before backward
}

TEST(LibTorchParity, ShapesWhoseSizeOverflowsThrow) {
  EXPECT_TRUE(throws_with([] { empty({int64_t(1) << 62, 4}); }, "int64"));
  EXPECT_TRUE(throws_with([] { empty({int64_t(1) << 40, int64_t(1) << 40}); }, "int64"));
  EXPECT_TRUE(throws_with([] { zeros({int64_t(1) << 61}, kFloat64); }, "int64"));  // bytes
  EXPECT_TRUE(throws_with([] { ones({1, 4}).expand({int64_t(1) << 62, 4}); }, "int64"));
  EXPECT_TRUE(throws_with([] { ones({4}).reshape({int64_t(1) << 62, 4, -1}); }, ""));
}

TEST(LibTorchParity, ValuesThatDoNotFitThrow) {
  EXPECT_TRUE(throws_with([] { full({2}, 1e40, kFloat32); }, "without overflow"));
  EXPECT_NO_THROW(full({2}, std::numeric_limits<double>::infinity(), kFloat32));
  EXPECT_NO_THROW(full({2}, 1e300, kFloat64));
  Tensor i32 = zeros({2}, kInt32);
  EXPECT_TRUE(throws_with([&] { i32.fill_(int64_t(1) << 40); }, "without overflow"));
  EXPECT_NO_THROW(i32.fill_(int64_t(1) << 30));
  EXPECT_TRUE(throws_with([] { full({1}, 1e20).item<int32_t>(); }, "without overflow"));
  EXPECT_TRUE(throws_with([] { full({1}, 3e9, kInt64).item<int32_t>(); }, "without overflow"));
  EXPECT_EQ(full({1}, 2.75).item<int32_t>(), 2);  // truncates, as LibTorch's
  EXPECT_EQ(full({1}, 300, kInt64).item<double>(), 300.0);
  EXPECT_TRUE(full({1}, 0.5).item<bool>());
}

TEST(LibTorchParity, BinaryCrossEntropyRefusesInputsOutsideZeroOne) {
  Tensor target = tensor({1.0f, 0.0f});
  EXPECT_TRUE(throws_with(
      [&] {
        nn::functional::binary_cross_entropy(tensor({1.5f, 0.5f}), target);
      },
      "between 0 and 1"));
  EXPECT_NO_THROW(nn::functional::binary_cross_entropy(tensor({1.0f, 0.0f}), target));
}

// ---- names a port meets ----

TEST(LibTorchParity, LiteralFormsAndDtypeNames) {
  Tensor three = tensor(3);
  EXPECT_EQ(three.dim(), 0);
  EXPECT_EQ(three.dtype(), kInt64);
  EXPECT_EQ(three.item<int64_t>(), 3);
  Tensor half = tensor(2.5, kLong);  // explicit dtype wins (truncates, as LibTorch's)
  EXPECT_EQ(half.dtype(), kInt64);
  EXPECT_EQ(half.item<int64_t>(), 2);
  EXPECT_EQ(tensor(1.5).dtype(), kFloat32);
  Tensor m = tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(m.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(m.dtype(), kInt64);
  EXPECT_EQ(m[1][2].item<int64_t>(), 6);
  Tensor c = tensor({{{1.0, 2.0}}, {{3.0, 4.0}}});
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 1, 2}));
  EXPECT_EQ(c.dtype(), kFloat32);
  EXPECT_THROW(tensor({{1, 2}, {3}}), Error);
  EXPECT_EQ(kF32, kFloat32);
  EXPECT_EQ(kF64, kFloat64);
  EXPECT_EQ(kI32, kInt32);
  EXPECT_EQ(kI64, kInt64);
  EXPECT_EQ(kU8, kUInt8);
}

TEST(LibTorchParity, AccessorDataAndRandomFills) {
  Tensor t = arange(6, kFloat32).view({2, 3});
  auto a = t.accessor<float, 2>();
  EXPECT_EQ(a.size(0), 2);
  EXPECT_EQ(a[1][2], 5.f);
  a[0][1] = 10.f;
  EXPECT_EQ(t[0][1].item<float>(), 10.f);
  Tensor tt = t.t();  // strided; a temporary's accessor is refused at compile time, as LibTorch's
  auto at = tt.accessor<float, 2>();
  EXPECT_EQ(at[2][1], 5.f);
  EXPECT_THROW((t.accessor<float, 3>()), Error);
  EXPECT_THROW((t.accessor<double, 2>()), Error);
  EXPECT_EQ(t.data<float>()[5], 5.f);
  Tensor u = zeros({1000}, kFloat64);
  u.uniform_(-2, 3);
  EXPECT_GE(u.min().item<double>(), -2.0);
  EXPECT_LT(u.max().item<double>(), 3.0);
  EXPECT_NEAR(u.mean().item<double>(), 0.5, 0.15);
  Tensor n = zeros({4000});
  n.normal_(1.0, 2.0);
  EXPECT_NEAR(n.mean().item<float>(), 1.0, 0.15);
  EXPECT_NEAR(n.std().item<float>(), 2.0, 0.15);
  Tensor strided = zeros({4, 4}).t();
  strided.uniform_();
  EXPECT_GT(strided.min().item<float>(), -1e-9);
  EXPECT_GT(strided.sum().item<float>(), 0.f);
  EXPECT_THROW(n.normal_(0, -1), Error);
  EXPECT_THROW(u.uniform_(1, 0), Error);
  Tensor leaf = zeros({2}).requires_grad_(true);
  EXPECT_THROW(leaf.uniform_(), Error);  // an in-place op on a leaf that requires grad
  {
    NoGradGuard no_grad;
    EXPECT_NO_THROW(leaf.uniform_());
  }
}

TEST(LibTorchParity, CheckWithoutAMessage) {
  try {
    const int x = 1;
    EMBER_CHECK(x == 2);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Expected x == 2 to be true, but got false."),
              std::string::npos);
  }
}
