// The activations, distances, image ops and initializers of nn/functional_activation.h,
// nn/functional_distance.h, nn/functional_vision.h and nn/init.h (eye_, dirac_): against naive
// per-element references in double, PyTorch's values (LibTorch's twin records), and PyTorch's
// gradients at branch points. The losses and modules are in test_nn_loss_more.cpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nn_test_util.h"

using namespace ember;
using namespace nn_test;
namespace F = ember::nn::functional;

namespace {
const Tensor X = wave({3, 7}, 0.2, 4.0);  // values in (-4, 4)
}  // namespace

TEST(NNFunctionalMore, ActivationsMatchNaiveReferences) {
  const double sa = 1.6732632423543772, ss = 1.0507009873554805;
  expect_values(F::elu(X, F::ELUFuncOptions().alpha(0.5)),
                map(X, [](double x) { return x > 0 ? x : 0.5 * std::expm1(x); }));
  expect_values(F::selu(X),
                map(X, [&](double x) { return ss * (x > 0 ? x : sa * std::expm1(x)); }));
  expect_values(F::celu(X, F::CELUFuncOptions().alpha(2.0)), map(X, [](double x) {
                  return std::max(0.0, x) + std::min(0.0, 2.0 * std::expm1(x / 2.0));
                }));
  expect_values(F::softplus(X, F::SoftplusFuncOptions().beta(2).threshold(1)),
                map(X, [](double x) { return 2 * x > 1 ? x : std::log1p(std::exp(2 * x)) / 2; }));
  expect_values(F::hardtanh(X, F::HardtanhFuncOptions().min_val(-0.5).max_val(1.5)),
                map(X, [](double x) { return std::min(1.5, std::max(-0.5, x)); }));
  expect_values(F::relu6(X * 3),
                map(X * 3, [](double x) { return std::min(6.0, std::max(0.0, x)); }));
  expect_values(hardswish(X),
                map(X, [](double x) { return x * std::min(6.0, std::max(0.0, x + 3)) / 6; }));
  expect_values(hardsigmoid(X),
                map(X, [](double x) { return std::min(6.0, std::max(0.0, x + 3)) / 6; }));
  expect_values(F::mish(X),
                map(X, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }));
  expect_values(F::logsigmoid(X), map(X, [](double x) { return -std::log1p(std::exp(-x)); }));
  expect_values(F::softsign(X), map(X, [](double x) { return x / (1 + std::abs(x)); }));
  expect_values(F::tanhshrink(X), map(X, [](double x) { return x - std::tanh(x); }));
  expect_values(F::hardshrink(X, 1.0), map(X, [](double x) { return std::abs(x) > 1 ? x : 0; }));
  expect_values(F::softshrink(X, 1.0),
                map(X, [](double x) { return x > 1 ? x - 1 : (x < -1 ? x + 1 : 0); }));
  expect_values(F::threshold(X, F::ThresholdFuncOptions(0.5, -7)),
                map(X, [](double x) { return x > 0.5 ? x : -7; }));
  expect_values(threshold(X, 0.5, -7), map(X, [](double x) { return x > 0.5 ? x : -7; }));
  expect_values(gelu(X, "tanh"), map(X, [](double x) {
                  return 0.5 * x *
                         (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
                }));
  expect_values(gelu(X, "none"), values(gelu(X)));
  expect_values(F::softmin(X, 1), values(softmax(-X, 1)));
}

// LibTorch's values of the twin snippets (float32), computed by ember's float32 path.
TEST(NNFunctionalMore, ActivationsMatchPyTorchValues) {
  const Tensor l = linspace(-2, 2, 5);
  expect_values(F::celu(l, F::CELUFuncOptions().alpha(2.0)),
                {-1.264241099357605, -0.78693866729736328, 0, 1, 2}, 1e-6);
  expect_values(
      F::selu(l),
      {-1.5201665163040161, -1.1113307476043701, 0, 1.0507010221481323, 2.1014020442962646}, 1e-6);
  expect_values(F::softplus(l, F::SoftplusFuncOptions().beta(2).threshold(1)),
                {0.0090749645605683327, 0.063464000821113586, 0.3465735912322998, 1, 2}, 1e-6);
  expect_values(
      gelu(l, "tanh"),
      {-0.045402288436889648, -0.15880799293518066, 0, 0.84119200706481934, 1.9545977115631104},
      1e-6);
  expect_values(F::logsigmoid(tensor({-100.0f, -1.0f, 0.0f, 50.0f})),
                {-100, -1.3132617473602295, -0.69314718246459961, -1.9287498933537385e-22}, 1e-6);
  expect_values(F::mish(linspace(-3, 3, 7)),
                {-0.14564746618270874, -0.25250145792961121, -0.30340144038200378, 0,
                 0.86509835720062256, 1.9439589977264404, 2.9865350723266602},
                1e-6);
  expect_values(F::glu(arange(8.).reshape({2, 4})),
                {0, 0.95257413387298584, 3.9901096820831299, 4.9954452514648438}, 1e-6);
  expect_values(
      F::prelu(linspace(-2, 2, 10).reshape({1, 2, 5}), tensor({0.1, 0.3})),
      {-0.2, -0.15555556118488312, -0.111111119389534, -0.066666662693023682, -0.022222220897674561,
       0.22222220897674561, 0.66666662693023682, 1.1111111640930176, 1.5555555820465088, 2},
      1e-6);
  expect_values(
      F::softmin(arange(4.), F::SoftminFuncOptions(0)),
      {0.64391428232192993, 0.23688283562660217, 0.087144322693347931, 0.032058604061603546}, 1e-6);
  Tensor x = tensor({-2.0, 3.0});
  leaky_relu_(x, 0.5);
  expect_values(x, {-1, 3});
  EXPECT_EQ(threshold(arange(5), 2, -1).dtype(), kInt64);
  // The in-place ATen forms write the composite's result into their input.
  const Tensor v = linspace(-4, 4, 9, kFloat64);
  const std::vector<std::pair<std::function<Tensor&(Tensor&)>, Tensor>> inplace = {
      {[](Tensor& t) -> Tensor& { return elu_(t, 0.5); }, elu(v, 0.5)},
      {[](Tensor& t) -> Tensor& { return selu_(t); }, selu(v)},
      {[](Tensor& t) -> Tensor& { return celu_(t, 2.0); }, celu(v, 2.0)},
      {[](Tensor& t) -> Tensor& { return hardtanh_(t, -0.5, 2); }, hardtanh(v, -0.5, 2)},
      {[](Tensor& t) -> Tensor& { return relu6_(t); }, relu6(v * 2)},
      {[](Tensor& t) -> Tensor& { return threshold_(t, 0.5, 9); }, threshold(v, 0.5, 9)},
      {[](Tensor& t) -> Tensor& { return hardswish_(t); }, hardswish(v)},
      {[](Tensor& t) -> Tensor& { return hardsigmoid_(t); }, hardsigmoid(v)},
      {[](Tensor& t) -> Tensor& { return mish_(t); }, mish(v)}};
  for (size_t i = 0; i < inplace.size(); ++i) {
    Tensor t = i == 4 ? v * 2 : v.clone();
    const void* data = t.data_ptr<double>();
    Tensor& r = inplace[i].first(t);
    EXPECT_EQ(&r, &t) << i;
    EXPECT_EQ(t.data_ptr<double>(), data) << i;
    expect_values(t, values(inplace[i].second));
  }
}

// PyTorch's backward formulas at the branch points.
TEST(NNFunctionalMore, ActivationGradientsAtBranchPoints) {
  expect_values(grad_at({-4, -3, 0, 3, 4}, [](const Tensor& x) { return hardswish(x); }),
                {0, -0.5, 0.5, 1.5, 1});
  expect_values(grad_at({-3, 0, 3}, [](const Tensor& x) { return hardsigmoid(x); }),
                {0, 1.0 / 6, 0});
  expect_values(grad_at({0.5, 0.6}, [](const Tensor& x) { return threshold(x, 0.5, 2); }), {0, 1});
  expect_values(grad_at({-0.5, 0.5, 0.6}, [](const Tensor& x) { return F::hardshrink(x); }),
                {0, 0, 1});
  expect_values(
      grad_at({0, 1}, [](const Tensor& x) { return F::prelu(x, tensor({0.25}, kFloat64)); }),
      {0.25, 1});
  expect_values(
      grad_at({0.0}, [](const Tensor& x) { return F::celu(x, F::CELUFuncOptions().alpha(2.0)); }),
      {1});
  expect_values(grad_at({1.0},
                        [](const Tensor& x) {
                          return F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(1));
                        }),
                {1});
}

TEST(NNFunctionalMore, ActivationOptionsAndInPlace) {
  EXPECT_EQ(F::ELUFuncOptions().alpha(), 1.0);
  EXPECT_EQ(F::SoftplusFuncOptions().threshold(), 20.0);
  EXPECT_EQ(F::HardshrinkFuncOptions().lambda(), 0.5);
  EXPECT_EQ(F::GLUFuncOptions().dim(), -1);
  EXPECT_EQ(nn::PReLUOptions().init(), 0.25);
  Tensor x = linspace(-2, 2, 5);
  Tensor y = F::elu(x, F::ELUFuncOptions().inplace(true));
  EXPECT_EQ(y.data_ptr<float>(), x.data_ptr<float>());
  EXPECT_FLOAT_EQ(x[0].item<float>(), std::expm1(-2.0f));
  Tensor z = linspace(-1, 1, 5);
  F::threshold(z, F::ThresholdFuncOptions(0.5, -1.0).inplace(true));
  expect_values(z, {-1, -1, -1, -1, 1});
}

TEST(NNFunctionalMore, ActivationErrors) {
  expect_throw_with([] { F::glu(ones({2, 3})); }, "Halving dimension must be even");
  expect_throw_with([] { F::glu(tensor(1.0)); }, "does not support scalars");
  expect_throw_with(
      [] {
        F::prelu(ones({2, 3, 4}), ones({2}));
      },
      "Found parameter numbers = 2 and channel size = 3");
  expect_throw_with([] { F::prelu(ones({2, 3}), ones({3, 1})); }, "scalar or 1D tensor");
  expect_throw_with(
      [] {
        F::prelu(ones({2, 3}), ones({3}, kFloat64));
      },
      "Type promoting not supported");
  expect_throw_with([] { F::prelu(tensor(1.0), ones({2})); }, "Not allow zero-dim input");
  expect_throw_with([] { F::softshrink(ones({2}), -1.0); }, "lambda must be greater or equal");
  expect_throw_with([] { F::hardtanh(ones({2}), F::HardtanhFuncOptions().min_val(2).max_val(1)); },
                    "cannot be greater than max_val");
  expect_throw_with([] { gelu(ones({2}), "fast"); }, "approximate");
  expect_throw_with([] { celu(ones({2}), 0.0); }, "alpha cannot be 0");
}

TEST(NNFunctionalMore, DistancesMatchNaiveReferences) {
  const Tensor a = wave({4, 5}, 0.1, 2.0), b = wave({4, 5}, 1.7, 1.5);
  std::vector<double> cos, l2, l1;
  const std::vector<double> va = values(a), vb = values(b);
  for (int i = 0; i < 4; ++i) {
    double dot = 0, na = 0, nb = 0, d2 = 0, d1 = 0;
    for (int j = 0; j < 5; ++j) {
      const double x = va[i * 5 + j], y = vb[i * 5 + j];
      dot += x * y, na += x * x, nb += y * y;
      d2 += (x - y + 1e-6) * (x - y + 1e-6), d1 += std::abs(x - y + 1e-6);
    }
    cos.push_back(dot / std::sqrt(na) / std::sqrt(nb));
    l2.push_back(std::sqrt(d2));
    l1.push_back(d1);
  }
  expect_values(F::cosine_similarity(a, b), cos);
  expect_values(F::pairwise_distance(a, b), l2);
  expect_values(F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().p(1).keepdim(true)),
                l1);
  EXPECT_EQ(F::pairwise_distance(a, b, F::PairwiseDistanceFuncOptions().keepdim(true)).sizes(),
            IntArrayRef({4, 1}));
  // pdist and cdist: every pair of rows.
  std::vector<double> pd, cd;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = 0, t = 0;
      for (int k = 0; k < 5; ++k) {
        s += std::pow(std::abs(va[i * 5 + k] - va[j * 5 + k]), 3);
        t += (va[i * 5 + k] - vb[j * 5 + k]) * (va[i * 5 + k] - vb[j * 5 + k]);
      }
      if (j > i) pd.push_back(std::cbrt(s));
      cd.push_back(std::sqrt(t));
    }
  expect_values(F::pdist(a, 3), pd);
  expect_values(cdist(a, b), cd);
  EXPECT_EQ(cdist(wave({2, 3, 5}, 0, 1), wave({2, 4, 5}, 1, 1)).sizes(), IntArrayRef({2, 3, 4}));
  // normalize: rows (or columns) divided by their p-norm, clamped at eps.
  std::vector<double> nrm = values(a);
  for (int j = 0; j < 5; ++j) {
    double s = 0;
    for (int i = 0; i < 4; ++i) s += std::abs(nrm[i * 5 + j]);
    for (int i = 0; i < 4; ++i) nrm[i * 5 + j] /= s;
  }
  expect_values(F::normalize(a, F::NormalizeFuncOptions().p(1).dim(0)), nrm);
  Tensor out = empty({4, 5}, kFloat64);
  F::normalize(a, F::NormalizeFuncOptions().p(1).dim(0).out(out));
  expect_values(out, nrm);
}

TEST(NNFunctionalMore, DistancesMatchPyTorchValues) {
  expect_values(F::cosine_similarity(arange(6.).reshape({3, 2}), tensor({{1.0}, {1.0}, {-1.0}}),
                                     F::CosineSimilarityFuncOptions().dim(0)),
                {-0.25819888710975647, -0.097589999437332153}, 1e-6);
  // Zero vectors give 0 (each norm clamped at eps, as PyTorch 2.x), and a zero gradient.
  Tensor z = zeros({1, 3}, kFloat64).requires_grad_();
  Tensor c = F::cosine_similarity(z, ones({1, 3}, kFloat64));
  expect_values(c, {0});
  c.sum().backward();
  for (double g : values(z.grad())) EXPECT_TRUE(std::isfinite(g));
  expect_values(F::normalize(zeros({2, 2}), F::NormalizeFuncOptions().dim(-1)), {0, 0, 0, 0});
  expect_values(F::normalize(arange(6.).reshape({2, 3})),
                {0, 0.44721359014511108, 0.89442718029022217, 0.42426407337188721,
                 0.5656854510307312, 0.70710676908493042},
                1e-6);
  expect_values(F::pairwise_distance(arange(6.).reshape({2, 3}), ones({2, 3}),
                                     F::PairwiseDistanceFuncOptions().p(1).keepdim(true)),
                {2.0000009536743164, 9.0000028610229492}, 1e-6);
  expect_values(F::pdist(tensor({{0.0, 0.0}, {3.0, 4.0}, {1.0, 1.0}})),
                {5, 1.4142135381698608, 3.6055512428283691}, 1e-6);
  expect_throw_with([] { F::pdist(ones({2, 2, 2})); }, "pdist only supports 2D tensors");
  expect_throw_with([] { cdist(ones({2, 3}), ones({2, 4})); }, "same number of columns");
  expect_throw_with(
      [] {
        F::cosine_similarity(ones({2, 3}, kInt64), ones({2, 3}, kInt64));
      },
      "expected common dtype to be floating point");
  // An integer input is cast to the other's floating dtype.
  EXPECT_EQ(F::cosine_similarity(ones({2, 3}, kInt64), ones({2, 3}, kFloat64)).dtype(), kFloat64);
  expect_throw_with(
      [] {
        F::cosine_similarity(ones({2, 3}), ones({4, 3}));
      },
      "cannot be broadcast");
}

TEST(NNFunctionalMore, UnfoldAndFoldMatchNaiveIm2col) {
  const int64_t n = 2, c = 2, h = 5, w = 6, kh = 2, kw = 3, dh = 2, dw = 1, ph = 1, pw = 2, sh = 2,
                sw = 3;
  const Tensor x = wave({n, c, h, w}, 0.4, 1.0);
  const int64_t oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
  const int64_t ow = (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
  const auto opts =
      F::UnfoldFuncOptions({kh, kw}).dilation({dh, dw}).padding({ph, pw}).stride({sh, sw});
  const Tensor cols = F::unfold(x, opts);
  ASSERT_EQ(cols.sizes(), IntArrayRef({n, c * kh * kw, oh * ow}));
  const std::vector<double> vx = values(x);
  std::vector<double> want(static_cast<size_t>(n * c * kh * kw * oh * ow), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          for (int64_t y = 0; y < oh; ++y)
            for (int64_t z = 0; z < ow; ++z) {
              const int64_t r = y * sh - ph + i * dh, q = z * sw - pw + j * dw;
              const int64_t row = (ch * kh + i) * kw + j;
              want[((b * c * kh * kw + row) * oh + y) * ow + z] =
                  (r >= 0 && r < h && q >= 0 && q < w) ? vx[((b * c + ch) * h + r) * w + q] : 0;
            }
  expect_values(cols, want);
  // fold is col2im: each column value summed back where unfold took it from.
  const Tensor cv = wave({n, c * kh * kw, oh * ow}, 0.9, 1.0);
  const std::vector<double> vc = values(cv);
  std::vector<double> back(static_cast<size_t>(n * c * h * w), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          for (int64_t y = 0; y < oh; ++y)
            for (int64_t z = 0; z < ow; ++z) {
              const int64_t r = y * sh - ph + i * dh, q = z * sw - pw + j * dw;
              if (r < 0 || r >= h || q < 0 || q >= w) continue;
              const int64_t row = (ch * kh + i) * kw + j;
              back[((b * c + ch) * h + r) * w + q] +=
                  vc[((b * c * kh * kw + row) * oh + y) * ow + z];
            }
  expect_values(F::fold(cv, F::FoldFuncOptions({h, w}, {kh, kw})
                                .dilation({dh, dw})
                                .padding({ph, pw})
                                .stride({sh, sw})),
                back);
  // Unbatched forms, and LibTorch's values.
  EXPECT_EQ(F::unfold(x[0], opts).sizes(), IntArrayRef({c * kh * kw, oh * ow}));
  expect_values(F::fold(ones({1, 4, 4}), F::FoldFuncOptions({3, 3}, {2, 2})),
                {1, 2, 1, 2, 4, 2, 1, 2, 1});
  expect_values(
      F::unfold(arange(16.).reshape({1, 1, 4, 4}), F::UnfoldFuncOptions(2).padding(1).stride(2)),
      {0, 0, 0, 0, 5, 7,  0, 13, 15, 0, 0, 0, 4, 6,  0, 12, 14, 0,
       0, 1, 3, 0, 9, 11, 0, 0,  0,  0, 2, 0, 8, 10, 0, 0,  0,  0});
  expect_throw_with(
      [] {
        F::fold(ones({1, 5, 4}), F::FoldFuncOptions({3, 3}, {2, 2}));
      },
      "divisible by the product of kernel_size");
  expect_throw_with(
      [] {
        F::fold(ones({1, 4, 5}), F::FoldFuncOptions({3, 3}, {2, 2}));
      },
      "calculated number of sliding blocks 2 * 2 = 4, but got input.size(2)=5");
  expect_throw_with(
      [] {
        F::unfold(ones({1, 1, 2, 2}), F::UnfoldFuncOptions(3));
      },
      "must be at least one");
  expect_throw_with([] { F::unfold(ones({2, 2}), F::UnfoldFuncOptions(1)); }, "Expected 3D or 4D");
}

TEST(NNFunctionalMore, PixelShuffleAndLocalResponseNorm) {
  const Tensor x = wave({2, 8, 3, 2}, 0.3, 1.0);
  const Tensor y = F::pixel_shuffle(x, 2);
  ASSERT_EQ(y.sizes(), IntArrayRef({2, 2, 6, 4}));
  const std::vector<double> vx = values(x), vy = values(y);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          const int64_t src = ((b * 8 + c * 4 + (i % 2) * 2 + j % 2) * 3 + i / 2) * 2 + j / 2;
          EXPECT_EQ(vy[((b * 2 + c) * 6 + i) * 4 + j], vx[src]);
        }
  expect_values(F::pixel_unshuffle(y, 2), vx);
  expect_values(F::pixel_unshuffle(arange(16.).reshape({1, 1, 4, 4}), 2),
                {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});
  expect_throw_with([] { F::pixel_shuffle(ones({1, 3, 2, 2}), 2); }, "divisible by the square");
  expect_throw_with([] { F::pixel_unshuffle(ones({1, 1, 3, 2}), 2); }, "height to be divisible");

  // LRN: x / (k + alpha / size * sum over the zero-padded channel window of x^2)^beta.
  const Tensor v = wave({2, 5, 3}, 0.8, 2.0);
  const int64_t size = 4;
  const double alpha = 0.3, beta = 0.6, k = 1.5;
  const std::vector<double> vv = values(v);
  std::vector<double> want(vv.size());
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t c = 0; c < 5; ++c)
      for (int64_t l = 0; l < 3; ++l) {
        double s = 0;
        for (int64_t cc = c - size / 2; cc <= c + (size - 1) / 2; ++cc)
          if (cc >= 0 && cc < 5) s += vv[(b * 5 + cc) * 3 + l] * vv[(b * 5 + cc) * 3 + l];
        const double xv = vv[(b * 5 + c) * 3 + l];
        want[(b * 5 + c) * 3 + l] = xv / std::pow(k + alpha / size * s, beta);
      }
  expect_values(
      F::local_response_norm(v, F::LocalResponseNormFuncOptions(size).alpha(alpha).beta(beta).k(k)),
      want);
  expect_values(
      F::local_response_norm(arange(8.).reshape({1, 4, 2}), F::LocalResponseNormFuncOptions(3)),
      {0, 0.99975007772445679, 1.9990005493164062, 2.9973776340484619, 3.9944088459014893,
       4.9896502494812012, 5.9922118186950684, 6.9870781898498535},
      1e-6);
  EXPECT_EQ(
      F::local_response_norm(wave({1, 3, 2, 2}, 0, 1), F::LocalResponseNormFuncOptions(2)).sizes(),
      IntArrayRef({1, 3, 2, 2}));
  expect_throw_with(
      [] {
        F::local_response_norm(ones({2, 3}), F::LocalResponseNormFuncOptions(2));
      },
      "Expected 3D or higher");
}

TEST(NNFunctionalMore, InitEyeAndDirac) {
  Tensor w = empty({2, 3});
  nn::init::eye_(w);
  expect_values(w, {1, 0, 0, 0, 1, 0});
  Tensor d = empty({2, 2, 3});
  nn::init::dirac_(d);
  expect_values(d, {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  // Groups: each group of output channels maps onto the first input channels.
  Tensor g = empty({4, 2, 3, 3}, kFloat64);
  nn::init::dirac_(g, 2);
  const std::vector<double> vg = values(g);
  for (int64_t o = 0; o < 4; ++o)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t k = 0; k < 9; ++k)
        EXPECT_EQ(vg[(o * 2 + i) * 9 + k], (k == 4 && i == o % 2) ? 1.0 : 0.0);
  expect_throw_with([] { nn::init::eye_(empty({2, 2, 2})); }, "Only tensors with 2 dimensions");
  expect_throw_with([] { nn::init::dirac_(empty({2, 2})); }, "3, 4, or 5 dimensions");
  expect_throw_with([] { nn::init::dirac_(empty({3, 2, 3}), 2); }, "divisible by groups");
}
