// Convolution and pooling front-ends (nn/layer_ops.h) against LibTorch: every case of
// tests/cases/conv_cases.inc (outputs, indices and input gradients in tests/data/
// conv_reference.txt, written by tools/conv_reference.cpp from the same source), then the
// front-ends' own behaviour: unbatched and 1-d forms, "same" padding, output sizes, errors.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "error_of.h"

namespace {

namespace NS = ember;
using ember::Tensor;

struct ConvCase {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;
};

#include "cases/conv_cases.inc"

Tensor wave(const std::vector<int64_t>& shape, double phase) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * i + phase);
  return ember::tensor(v, ember::kFloat64).reshape(shape);
}

struct Entry {
  char kind;
  std::vector<int64_t> sizes;
  std::vector<double> values;
};

std::map<std::string, std::vector<Entry>> references() {
  std::map<std::string, std::vector<Entry>> refs;
  std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/conv_reference.txt");
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string name, field;
    std::getline(fields, name, ';');
    while (std::getline(fields, field, ';')) {
      Entry e;
      e.kind = field[0];
      const size_t colon = field.find(':');
      std::stringstream sizes(field.substr(2, colon - 2)), values(field.substr(colon + 1));
      std::string s;
      while (std::getline(sizes, s, ',')) e.sizes.push_back(std::stoll(s));
      double v;
      while (values >> v) e.values.push_back(v);
      refs[name].push_back(e);
    }
  }
  return refs;
}

void expect_matches(const Tensor& got, const Entry& want, const std::string& what) {
  ASSERT_EQ(std::vector<int64_t>(got.sizes().begin(), got.sizes().end()), want.sizes) << what;
  const Tensor flat = got.detach().to(ember::kFloat64).contiguous().reshape({-1});
  ASSERT_EQ(flat.numel(), static_cast<int64_t>(want.values.size())) << what;
  const double* p = flat.data_ptr<double>();
  for (size_t i = 0; i < want.values.size(); ++i) {
    ASSERT_NEAR(p[i], want.values[i], 1e-10 * (1 + std::abs(want.values[i])))
        << what << " at flat index " << i;
  }
}

TEST(ConvAgainstLibTorch, EveryCase) {
  const auto refs = references();
  ASSERT_EQ(refs.size(), conv_cases().size()) << "tests/data/conv_reference.txt is out of date";
  for (const ConvCase& c : conv_cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_TRUE(refs.count(c.name)) << "no reference for " << c.name;
    const std::vector<Entry>& ref = refs.at(c.name);
    std::vector<Tensor> in;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      in.push_back(wave(c.shapes[i], 0.5 + i).requires_grad_(true));
    }
    const std::vector<Tensor> out = c.fn(in);
    Tensor loss = ember::zeros({}, ember::kFloat64);
    size_t k = 0;
    for (const Tensor& o : out) {
      ASSERT_LT(k, ref.size());
      ASSERT_EQ(ref[k].kind, 'o');
      expect_matches(o, ref[k++], "output");
      if (!o.is_floating_point()) continue;
      const Tensor coef =
          (ember::arange(o.numel(), ember::kFloat64) * 0.1 + 1.5).reshape(o.sizes());
      loss = loss + (o * coef).sum();
    }
    loss.backward();
    for (const Tensor& x : in) {
      ASSERT_LT(k, ref.size());
      ASSERT_EQ(ref[k].kind, 'g');
      expect_matches(x.grad(), ref[k++], "input gradient");
    }
    EXPECT_EQ(k, ref.size());
  }
}

// The cuDNN switches as LibTorch spells them and as torch.backends.cudnn does: one set of
// flags. TF32 in convolutions follows set_float32_matmul_precision until set explicitly (ctest
// runs each test in a process of its own, so this one starts from the defaults).
TEST(ConvFlags, LibTorchSpellingsAndTf32FollowsTheMatmulPrecision) {
  ember::Context& ctx = ember::globalContext();
  EXPECT_FALSE(ctx.allowTF32CuDNN());  // "highest" by default: full float32
  ember::set_float32_matmul_precision("high");
  EXPECT_TRUE(ctx.allowTF32CuDNN());
  EXPECT_TRUE(ember::cudnn::allow_tf32());
  EXPECT_TRUE(ctx.allowTF32CuBLAS());
  ember::set_float32_matmul_precision("highest");
  EXPECT_FALSE(ctx.allowTF32CuDNN());
  ctx.setAllowTF32CuDNN(true);  // explicit: no longer follows the precision
  EXPECT_TRUE(ember::cudnn::allow_tf32());
  EXPECT_FALSE(ctx.allowTF32CuBLAS());
  ember::cudnn::set_allow_tf32(false);
  EXPECT_FALSE(ctx.allowTF32CuDNN());
  ember::set_float32_matmul_precision("medium");
  EXPECT_FALSE(ctx.allowTF32CuDNN());
  ember::set_float32_matmul_precision("highest");
  for (bool on : {true, false}) {
    ctx.setBenchmarkCuDNN(on);
    EXPECT_EQ(ember::cudnn::benchmark(), on);
    ember::cudnn::set_deterministic(on);
    EXPECT_EQ(ctx.deterministicCuDNN(), on);
  }
}

TEST(ConvFrontEnd, Float32MatchesFloat64AndNamesTheNode) {
  const Tensor x = wave({2, 3, 6, 6}, 0.1).to(ember::kFloat32).requires_grad_(true);
  const Tensor w = wave({4, 3, 3, 3}, 0.2).to(ember::kFloat32).requires_grad_(true);
  const Tensor y = ember::conv2d(x, w, {}, 1, 1);
  EXPECT_EQ(y.grad_fn()->name(), "ConvolutionBackward0");
  const Tensor y64 =
      ember::conv2d(x.detach().to(ember::kFloat64), w.detach().to(ember::kFloat64), {}, 1, 1);
  EXPECT_TRUE(ember::allclose(y.detach().to(ember::kFloat64), y64, 1e-5, 1e-5));
  EXPECT_EQ(std::get<0>(ember::max_pool2d_with_indices(x, 2)).grad_fn()->name(),
            "MaxPool2DWithIndicesBackward0");
  EXPECT_EQ(ember::avg_pool2d(x, 2).grad_fn()->name(), "AvgPool2DBackward0");
  EXPECT_EQ(ember::adaptive_avg_pool2d(x, {1, 1}).grad_fn()->name(), "AdaptiveAvgPool2DBackward0");
}

// conv_transpose2d is the adjoint of conv2d: <conv(x), g> == <x, conv_transpose(g)>.
TEST(ConvFrontEnd, TransposedIsTheAdjoint) {
  const Tensor x = wave({2, 4, 7, 6}, 0.3), w = wave({6, 2, 3, 2}, 0.7);
  const Tensor y = ember::conv2d(x, w, {}, {2, 1}, {1, 0}, {1, 2}, 2);
  const Tensor g = wave(std::vector<int64_t>(y.sizes().begin(), y.sizes().end()), 1.1);
  // output_padding 1 in H restores the 7 rows that stride 2 maps to 4 outputs.
  const Tensor xt = ember::conv_transpose2d(g, w, {}, {2, 1}, {1, 0}, {0, 0}, 2, {1, 2});
  ASSERT_EQ(xt.size(2), 7);
  EXPECT_NEAR((y * g).sum().item<double>(), (x * xt).sum().item<double>(), 1e-9);
}

TEST(ConvFrontEnd, SizesAndEmptyBatches) {
  EXPECT_EQ(ember::conv2d(ember::zeros({0, 3, 5, 5}), ember::zeros({2, 3, 3, 3})).sizes(),
            ember::IntArrayRef({0, 2, 3, 3}));
  const Tensor b = ember::ones({2});
  const Tensor y = ember::conv2d(ember::zeros({1, 3, 4, 4}), ember::zeros({2, 3, 1, 1}), b);
  EXPECT_EQ(y.sum().item<float>(), 32.0f);
  EXPECT_EQ(ember::max_pool2d(ember::zeros({1, 1, 5, 5}), 2, 2, 0, 1, true).sizes(),
            ember::IntArrayRef({1, 1, 3, 3}));
  EXPECT_EQ(ember::max_pool2d(ember::zeros({1, 1, 5, 5}), 2).sizes(),
            ember::IntArrayRef({1, 1, 2, 2}));
  // ceil_mode: the last window would start in the right padding, so it is dropped.
  EXPECT_EQ(ember::avg_pool2d(ember::zeros({1, 1, 4, 4}), 2, 2, 1, true).sizes(),
            ember::IntArrayRef({1, 1, 3, 3}));
}

TEST(ConvFrontEnd, Errors) {
  EXPECT_NE(error_of([] {
              ember::conv2d(ember::zeros({3, 4}), ember::zeros({2, 3, 3, 3}));
            })
                .find("conv2d: expected 3D (unbatched) or 4D (batched) input, but got input of "
                      "size: [3, 4]"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ember::conv2d(ember::zeros({1, 2, 3, 4, 5}), ember::zeros({2, 3, 3, 3}));
            }).find("[1, 2, 3, 4, 5]"),
            std::string::npos);
  const std::string groups = error_of([] {
    ember::conv2d(ember::zeros({1, 3, 5, 5}), ember::zeros({4, 1, 3, 3}), {}, 1, 0, 1, 2);
  });
  EXPECT_NE(groups.find("conv2d"), std::string::npos) << groups;
  EXPECT_NE(groups.find("[1, 3, 5, 5]"), std::string::npos) << groups;
  const std::string big = error_of([] {
    ember::conv2d(ember::zeros({1, 1, 2, 2}), ember::zeros({1, 1, 3, 3}));
  });
  EXPECT_NE(big.find("Kernel size can't be greater than actual input size"), std::string::npos)
      << big;
  EXPECT_NE(error_of([] {
              ember::conv2d(ember::zeros({1, 1, 4, 4}), ember::zeros({1, 1, 3, 3}), {}, 2, "same");
            }).find("padding='same' is not supported for strided convolutions"),
            std::string::npos);
  EXPECT_NE(
      error_of([] {
        ember::conv2d(ember::zeros({1, 1, 4, 4}), ember::zeros({1, 1, 3, 3}, ember::kFloat64));
      }).find("should be the same"),
      std::string::npos);
  EXPECT_EQ(error_of([] {
              ember::max_pool2d(ember::zeros({1, 1, 1, 1}), 2);
            }),
            "max_pool2d: output size [0, 0] is too small for input [1, 1, 1, 1]");
  EXPECT_NE(error_of([] {
              ember::max_pool2d(ember::zeros({1, 1, 4, 4}), 2, 2, 2);
            }).find("pad should be at most half of effective kernel size"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ember::conv_transpose2d(ember::zeros({1, 2, 3, 3}), ember::zeros({2, 2, 3, 3}), {}, 1,
                                      0, 1);
            }).find("output padding must be smaller than either stride or dilation"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ember::max_pool2d(ember::zeros({1, 1, 4, 4}, ember::kInt64), 2);
            }).find("max_pool2d: expected a float32 or float64 input"),
            std::string::npos);
}

}  // namespace
