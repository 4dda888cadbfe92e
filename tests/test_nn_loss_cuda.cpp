// The fused cross_entropy on CUDA against the CPU: loss and input gradient for N = 1, 128,
// 1000 rows of C = 10, 1000, 5000 classes, every reduction, with and without class weights,
// label smoothing and ignored rows, float32 and float64; repeatability (the reduction is
// deterministic); out-of-range targets give NaN, not a fault. Skips without a GPU.
#include <ember/ember.h>
#include <ember/nn/functional_loss.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace ember;
namespace F = ember::nn::functional;

namespace {

#define REQUIRE_GPU() \
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device"

struct Result {
  Tensor loss, grad;
};

// Loss and d(sum(coef * loss))/dx on x's device.
Result run(const Tensor& x0, const Tensor& t, const Tensor& coef,
           const F::CrossEntropyFuncOptions& opts) {
  Tensor x = x0.detach().clone().requires_grad_(true);
  Tensor loss = F::cross_entropy(x, t, opts);
  loss.backward(coef);
  return {loss.detach(), x.grad()};
}

F::CrossEntropyFuncOptions on(const F::CrossEntropyFuncOptions& o, Device d) {
  auto r = o;
  if (o.weight().defined()) r.weight(o.weight().to(d));
  return r;
}

void expect_close(const Tensor& cpu, const Tensor& gpu, double rtol, double atol,
                  const std::string& what) {
  ASSERT_TRUE(gpu.is_cuda()) << what;
  ASSERT_EQ(cpu.sizes(), gpu.sizes()) << what;
  const Tensor g = gpu.cpu().to(kFloat64), c = cpu.to(kFloat64);
  const Tensor nan_c = c.ne(c), nan_g = g.ne(g);
  EXPECT_TRUE(equal(nan_c, nan_g)) << what << ": NaN in different places";
  const Tensor ok = (c - g).abs().le((c.abs() * rtol + atol)).logical_or(nan_c);
  EXPECT_TRUE(ok.all().item<bool>())
      << what << ": max |diff| " << where(nan_c, 0.0, (c - g).abs()).max().item<double>();
}

}  // namespace

TEST(CrossEntropyCuda, MatchesCpu) {
  REQUIRE_GPU();
  manual_seed(11);
  for (int64_t n : {1, 128, 1000}) {
    for (int64_t c : {10, 1000, 5000}) {
      for (ScalarType dtype : {kFloat32, kFloat64}) {
        const Tensor x = randn({n, c}, dtype) * 4;
        Tensor t = randint(0, c, {n});
        t = where(rand({n}).lt(0.1), Scalar(1), t);  // ~10% ignored rows (ignore_index 1)
        for (int variant = 0; variant < 2; ++variant) {
          auto opts = F::CrossEntropyFuncOptions();
          if (variant == 1)
            opts.weight(rand({c}, dtype) + 0.5).ignore_index(1).label_smoothing(0.1);
          for (nn::Reduction r : {kMean, kSum, kNone}) {
            opts.reduction(r);
            const std::string what = "N " + std::to_string(n) + " C " + std::to_string(c) + " " +
                                     std::string(dtype == kFloat32 ? "float32" : "float64") +
                                     " variant " + std::to_string(variant) + " " +
                                     nn::reduction_name(r);
            SCOPED_TRACE(what);
            const Tensor coef = r == kNone ? rand({n}, dtype) + 0.5 : full({}, 1.5, dtype);
            const Result cpu = run(x, t, coef, opts);
            const Result gpu = run(x.cuda(), t.cuda(), coef.cuda(), on(opts, Device(kCUDA)));
            // summation orders differ: the error grows like sqrt of the terms summed
            const double terms = std::sqrt(static_cast<double>(r == kNone ? c : n * c));
            const double rtol = dtype == kFloat32 ? 1e-4 : 1e-10;
            const double atol = (dtype == kFloat32 ? 1e-5 : 1e-12) * (1 + terms);
            expect_close(cpu.loss, gpu.loss, rtol, atol, "loss");
            expect_close(cpu.grad, gpu.grad, rtol, atol, "grad");
          }
        }
      }
    }
  }
}

TEST(CrossEntropyCuda, ShapesAndEdges) {
  REQUIRE_GPU();
  manual_seed(12);
  const auto opts = F::CrossEntropyFuncOptions().label_smoothing(0.2).ignore_index(0);
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{2, 3, 4}, {3, 5, 2, 2}, {7}, {0, 4}, {4, 1}, {5000, 3}}) {
    const Tensor x = randn(shape, kFloat64);
    std::vector<int64_t> tshape = shape;
    tshape.erase(tshape.begin() + (shape.size() == 1 ? 0 : 1));
    const int64_t classes = shape[shape.size() == 1 ? 0 : 1];
    const Tensor t = randint(0, classes, tshape);
    for (nn::Reduction r : {kMean, kSum, kNone}) {
      auto o = opts;
      o.reduction(r);
      const Tensor coef = r == kNone ? rand(tshape, kFloat64) : full({}, 2.0, kFloat64);
      const Result cpu = run(x, t, coef, o);
      const Result gpu = run(x.cuda(), t.cuda(), coef.cuda(), o);
      expect_close(cpu.loss, gpu.loss, 1e-10, 1e-12, "loss");
      expect_close(cpu.grad, gpu.grad, 1e-10, 1e-12, "grad");
    }
  }
}

TEST(CrossEntropyCuda, DeterministicAndOnItsStream) {
  REQUIRE_GPU();
  manual_seed(13);
  const Tensor x = randn({4096, 100}, kCUDA);
  const Tensor t = randint(0, 100, {4096}, TensorOptions(kInt64).device(kCUDA));
  const Tensor first = F::cross_entropy(x, t);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(equal(first, F::cross_entropy(x, t)));
  // another stream: its own counter, same result
  cuda::Stream s = cuda::getStreamFromPool();
  {
    cuda::StreamGuard guard(s);
    EXPECT_TRUE(equal(first, F::cross_entropy(x, t)));
  }
}

TEST(CrossEntropyCuda, OutOfRangeTargetsGiveNaN) {
  REQUIRE_GPU();
  const Tensor x = randn({3, 4}, kCUDA).requires_grad_(true);
  const Tensor t = tensor({1, 7, 2}, TensorOptions(kInt64)).cuda();  // 7 >= C: no host check
  Tensor loss = F::cross_entropy(x, t, F::CrossEntropyFuncOptions().reduction(kNone));
  const Tensor l = loss.detach().cpu();
  EXPECT_FALSE(std::isnan(l[0].item<float>()));
  EXPECT_TRUE(std::isnan(l[1].item<float>()));
  loss.sum().backward();
  EXPECT_TRUE(std::isnan(x.grad().cpu()[1][0].item<float>()));
  EXPECT_FALSE(std::isnan(x.grad().cpu()[0][0].item<float>()));
}
