// cuda::ElementwiseKernel and cuda::ReductionKernel (cuda/elementwise_kernel.h,
// cuda/reduction_kernel.h): parameter lists refused with clear errors (everywhere), the
// generated source compiled by NVRTC for several signatures (CUDA builds, no GPU needed), and
// calls on the GPU against the same maths on the CPU.
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "error_of.h"

namespace {

using namespace ember;
using cuda::ElementwiseKernel;
using cuda::ReductionKernel;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(ElementwiseKernelParams, BadParameterListsAreRefused) {
  struct Case {
    std::string in, out, name, want;
  };
  const std::vector<Case> cases = {
      {"float32", "float32 z", "k", "is not \"TYPE name\""},
      {"float31 x", "float32 z", "k", "unknown type 'float31'"},
      {"float32 x, float32 x", "float32 z", "k", "'x' is used twice"},
      {"float32 i", "float32 z", "k", "'i' is used twice"},
      {"float32 x", "raw float32 z", "k", "output z can't be raw"},
      {"float32 x", "", "k", "no output parameter"},
      {"float32 x", "float32 z", "not a name", "is not a C identifier"},
      {"float32 x y", "float32 z", "k", "is not \"TYPE name\""},
  };
  for (const Case& c : cases) {
    const std::string m = error_of([&] { ElementwiseKernel(c.in, c.out, "z = x", c.name); });
    EXPECT_TRUE(contains(m, c.want)) << c.in << " / " << c.out << ": " << m;
    EXPECT_TRUE(contains(m, "cuda::ElementwiseKernel")) << m;
  }
}

TEST(ElementwiseKernelParams, GeneratedSourceReadsInputsAndWritesOutputs) {
  ElementwiseKernel k("T x, float32 a, raw T table", "T z, int64 idx",
                      "z = x * a + table[0]; idx = i", "fused");
  const std::string src = k.source({kFloat64, kFloat32, kFloat64}, {false, true, false});
  EXPECT_TRUE(contains(src, "extern \"C\" __global__ void fused(")) << src;
  EXPECT_TRUE(contains(src, "const double x = x_ptr_[i];")) << src;
  EXPECT_TRUE(contains(src, "const float a = a_value_;")) << src;  // a scalar: by value
  EXPECT_TRUE(contains(src, "const double* __restrict__ table")) << src;
  EXPECT_TRUE(contains(src, "double& z = z_ptr_[i];")) << src;  // T bound to float64 by x
  EXPECT_TRUE(contains(src, "long long& idx = idx_ptr_[i];")) << src;
  EXPECT_TRUE(contains(src, "z = x * a + table[0]; idx = i;")) << src;
  // Conflicting bindings of T, and types runtime kernels do not take.
  EXPECT_TRUE(contains(error_of([&] {
                         k.source({kFloat64, kFloat32, kFloat32});
                       }),
                       "T is bound to float64 and to float32"));
  EXPECT_TRUE(contains(error_of([&] {
                         k.source({kFloat16, kFloat32, kFloat16});
                       }),
                       "which runtime kernels do not take"));
}

// NVRTC compiles the generated source for each signature (no GPU needed).
TEST(ElementwiseKernelNvrtc, GeneratedSourceCompiles) {
  setenv("EMBER_KERNEL_CACHE", "0", 1);  // compile every time; leave the user's cache alone
  ElementwiseKernel k("T x, T y, float64 a", "T z, bool positive",
                      "z = x * x + y * (T)a; positive = z > 0", "squared_sum");
  for (ScalarType t : {kFloat32, kFloat64, kInt32, kInt64, kUInt8}) {
    for (bool scalar_y : {false, true}) {
      const std::string src = k.source({t, t, kFloat64}, {false, scalar_y, true});
      std::string m;
      try {
        const auto compiled = cuda::detail::compile_module(src, {}, {}, "squared_sum.cu", "sm_90");
        EXPECT_GT(compiled.cubin.size(), 0u);
      } catch (const Error& e) {
        m = e.what();
      }
      if (contains(m, "built without CUDA")) GTEST_SKIP() << "a build without CUDA (no NVRTC)";
      EXPECT_EQ(m, "") << t << ":\n" << src;
    }
  }
  // A body that does not compile: NVRTC's log, with the line.
  ElementwiseKernel broken("float32 x", "float32 z", "z = undefined_name(x)", "broken");
  const std::string m = error_of([&] {
    cuda::detail::compile_module(broken.source({kFloat32}), {}, {}, "broken.cu", "sm_90");
  });
  EXPECT_TRUE(contains(m, "undefined_name")) << m;
}

class ElementwiseKernelCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(ElementwiseKernelCuda, SquaredSumWithBroadcastScalarsAndNonContiguousInputs) {
  ElementwiseKernel k("float32 x, float32 y", "float32 z", "z = x * x + y", "squared_sum");
  const Tensor x = randn({4, 5}), y = randn({5});
  EXPECT_TRUE(allclose(k(x.cuda(), y.cuda()).cpu(), x * x + y, 1e-6, 1e-6));  // broadcast
  EXPECT_TRUE(allclose(k(x.cuda(), 2.5).cpu(), x * x + 2.5, 1e-6, 1e-6));     // a scalar
  const Tensor xt = randn({5, 4}).cuda().t();                                 // non-contiguous
  EXPECT_TRUE(allclose(k(xt, y.cuda()).cpu(), xt.cpu() * xt.cpu() + y, 1e-6, 1e-6));
  // float64 inputs convert to the parameter's float32
  EXPECT_TRUE(allclose(k(x.to(kFloat64).cuda(), y.cuda()).cpu(), x * x + y, 1e-6, 1e-6));
  // a given output, non-contiguous: written through a copy
  Tensor out = zeros({5, 4}, kCUDA).t();
  k.call({x.cuda(), y.cuda(), out});
  EXPECT_TRUE(allclose(out.cpu(), x * x + y, 1e-6, 1e-6));
  // empty tensors launch nothing
  EXPECT_EQ(k(zeros({0, 5}, kCUDA), y.cuda()).sizes(), IntArrayRef({0, 5}));
}

TEST_F(ElementwiseKernelCuda, PlaceholdersSeveralOutputsAndRawParameters) {
  ElementwiseKernel k("T x, raw T table", "T scaled, bool above",
                      "scaled = x * table[i % 3]; above = scaled > 1", "scale_by_table");
  for (ScalarType t : {kFloat32, kFloat64}) {
    const Tensor x = randn({10}, t), table = tensor({1.0, 2.0, 3.0}).to(t);
    const std::vector<Tensor> out = k.call({x.cuda(), table.cuda()});
    ASSERT_EQ(out.size(), 2u);
    const Tensor want = x * table.index_select(0, arange(10) % 3);
    EXPECT_EQ(out[0].dtype(), t);
    EXPECT_TRUE(allclose(out[0].cpu(), want, 1e-6, 1e-6));
    EXPECT_TRUE(equal(out[1].cpu(), want > 1));
  }
  EXPECT_TRUE(
      contains(error_of([&] { (void)k(randn({3}).cuda(), randn({3}).cuda()); }), "use call()"));
}

TEST_F(ElementwiseKernelCuda, BadCallsAreRefusedBeforeTheLaunch) {
  ElementwiseKernel k("float32 x, float32 y", "float32 z", "z = x + y", "add2");
  const Tensor g = ones({3}, kCUDA);
  EXPECT_TRUE(contains(error_of([&] { (void)k(ones({3}), g); }), "must be a CUDA tensor"));
  EXPECT_TRUE(contains(error_of([&] { (void)k(g); }), "takes 2 inputs"));
  EXPECT_TRUE(contains(error_of([&] { k.call({g, g, ones({4}, kCUDA)}); }), "has shape [4]"));
  const std::string shapes = error_of([&] { (void)k(ones({3}, kCUDA), ones({4}, kCUDA)); });
  EXPECT_TRUE(contains(shapes, "(add2): shapes [3] and [4] cannot be broadcast")) << shapes;
  EXPECT_TRUE(contains(error_of([&] {
                         k.call({g, g, ones({3}, TensorOptions(kFloat64).device(kCUDA))});
                       }),
                       "output z is float64"));
}

// ---- ReductionKernel ----

TEST(ReductionKernelParams, BadDefinitionsAreRefused) {
  EXPECT_TRUE(contains(error_of([] { ReductionKernel("T a", "T y", "a", "a + b", "y = a", "0"); }),
                       "'a' is used twice"));
  EXPECT_TRUE(contains(error_of([] { ReductionKernel("T x", "T y", "", "a + b", "y = a", "0"); }),
                       "can't be empty"));
  EXPECT_TRUE(contains(error_of([] { ReductionKernel("T x", "", "x", "a + b", "y = a", "0"); }),
                       "no output parameter"));
}

// NVRTC compiles the generated reductions (no GPU needed).
TEST(ReductionKernelNvrtc, GeneratedSourceCompiles) {
  setenv("EMBER_KERNEL_CACHE", "0", 1);
  const ReductionKernel l2("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  const ReductionKernel argmax_like("T x", "T best, int64 count", "x", "a > b ? a : b",
                                    "best = a; count = 1", "-1e30", "max_and_one", "double");
  for (ScalarType t : {kFloat32, kFloat64}) {
    for (const auto& [k, dtypes] :
         std::vector<std::pair<const ReductionKernel*, std::vector<ScalarType>>>{
             {&l2, {t, t}}, {&argmax_like, {t, t, kInt64}}}) {
      const std::string src = k->source(dtypes);
      std::string m;
      try {
        EXPECT_GT(cuda::detail::compile_module(src, {}, {}, "r.cu", "sm_90").cubin.size(), 0u);
      } catch (const Error& e) {
        m = e.what();
      }
      if (contains(m, "built without CUDA")) GTEST_SKIP() << "a build without CUDA (no NVRTC)";
      EXPECT_EQ(m, "") << src;
    }
  }
}

class ReductionKernelCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(ReductionKernelCuda, L2NormOverAllAndOneDim) {
  const ReductionKernel l2("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  const Tensor x = randn({7, 300, 5}, kFloat64);
  EXPECT_TRUE(allclose(l2(x.cuda()).cpu(), x.square().sum().sqrt(), 1e-12, 1e-12));
  for (int64_t d : {0, 1, 2, -1}) {
    const Tensor got = l2.call({x.cuda()}, d)[0].cpu();
    EXPECT_TRUE(allclose(got, x.square().sum(d).sqrt(), 1e-12, 1e-12)) << "dim " << d;
    EXPECT_EQ(l2.call({x.cuda()}, d, true)[0].sizes(), x.square().sum(d, true).sizes());
  }
  // float32 through the same kernel (another module), and nothing to reduce: the identity.
  EXPECT_TRUE(
      allclose(l2(x.to(kFloat32).cuda()).cpu(), x.to(kFloat32).square().sum().sqrt(), 1e-4, 1e-4));
  EXPECT_EQ(l2(zeros({0}, kCUDA)).item<float>(), 0.0f);
}

TEST_F(ReductionKernelCuda, MaxWithAScalarAndTwoOutputs) {
  const ReductionKernel k("T x, T shift", "T best, int64 count", "x + shift", "a > b ? a : b",
                          "best = a; count = 1", "-1e300", "shifted_max", "double");
  const Tensor x = randn({4, 1000});
  const std::vector<Tensor> out = k.call({x.cuda(), 2.0}, 1);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(allclose(out[0].cpu(), x.amax(1) + 2, 1e-6, 1e-6));
  EXPECT_TRUE(equal(out[1].cpu(), ones({4}, kInt64)));
}

}  // namespace
