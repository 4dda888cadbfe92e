// CUDA GEMM (cuBLAS), index and random kernels against the CPU kernels, and the float32 matmul
// precision setting. The precision tests run everywhere; the GPU tests skip without a GPU.
#include <ember/core/dispatch.h>
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace ember;

// Restores the default precision whatever a test does.
struct PrecisionGuard {
  ~PrecisionGuard() { set_float32_matmul_precision("highest"); }
};

TEST(MatmulPrecision, DefaultIsHighest) {
  EXPECT_EQ(get_float32_matmul_precision(), "highest");
  EXPECT_FALSE(float32_matmul_allows_tf32());
}

TEST(MatmulPrecision, RoundTrip) {
  PrecisionGuard restore;
  for (const char* p : {"high", "medium", "highest", "high"}) {
    set_float32_matmul_precision(p);
    EXPECT_EQ(get_float32_matmul_precision(), p);
    EXPECT_EQ(float32_matmul_allows_tf32(), std::string(p) != "highest") << p;
  }
}

TEST(MatmulPrecision, RejectsUnknownNames) {
  PrecisionGuard restore;
  set_float32_matmul_precision("high");
  EXPECT_THROW(set_float32_matmul_precision("low"), Error);
  EXPECT_THROW(set_float32_matmul_precision("HIGH"), Error);
  EXPECT_THROW(set_float32_matmul_precision(""), Error);
  EXPECT_EQ(get_float32_matmul_precision(), "high");  // a rejected name changes nothing
}

TEST(MatmulPrecision, CpuProductsIgnoreIt) {
  PrecisionGuard restore;
  Tensor a = randn({17, 9}), b = randn({9, 5});
  Tensor full = mm(a, b);
  set_float32_matmul_precision("high");
  EXPECT_TRUE(equal(mm(a, b), full));
}

class CudaKernelsMisc : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

Tensor gpu(const Tensor& t) { return t.to(kCUDA); }

// ---- GEMM ----

// A copy on the GPU with t's layout: a view transposed in (d0, d1) stays transposed there.
Tensor gpu_same_layout(const Tensor& t, int64_t d0, int64_t d1) {
  if (t.is_contiguous()) return gpu(t);
  return gpu(t.transpose(d0, d1).contiguous()).transpose(d0, d1);
}

// Every combination of plain and transposed operands, both dtypes, against the CPU.
TEST_F(CudaKernelsMisc, MmTransposedOperands) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const double tol = dt == kFloat32 ? 1e-4 : 1e-12;
    const int64_t m = 37, k = 53, n = 29;
    Tensor a = randn({m, k}, dt), at = randn({k, m}, dt).t();
    Tensor b = randn({k, n}, dt), bt = randn({n, k}, dt).t();
    for (const Tensor& x : {a, at}) {
      for (const Tensor& y : {b, bt}) {
        Tensor gx = gpu_same_layout(x, 0, 1), gy = gpu_same_layout(y, 0, 1);
        EXPECT_EQ(gx.is_contiguous(), x.is_contiguous());
        EXPECT_TRUE(allclose(mm(gx, gy).cpu(), mm(x, y), tol, tol)) << dt;
      }
    }
  }
}

// Vectors (matmul's 1-D rules), a sliced leading dimension, and addmm's beta/alpha.
TEST_F(CudaKernelsMisc, MatmulShapesAndAddmm) {
  Tensor a = randn({8, 12}, kFloat64), v = randn({12}, kFloat64), w = randn({8}, kFloat64);
  EXPECT_TRUE(allclose(matmul(gpu(a), gpu(v)).cpu(), matmul(a, v), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(matmul(gpu(w), gpu(a)).cpu(), matmul(w, a), 1e-12, 1e-12));
  EXPECT_TRUE(allclose(matmul(gpu(v), gpu(v)).cpu(), matmul(v, v), 1e-12, 1e-12));
  Tensor big = randn({8, 20}, kFloat64);
  Tensor sub = big.slice(1, 3, 15);  // ld 20 > 12 columns
  Tensor c = randn({12, 6}, kFloat64);
  EXPECT_TRUE(allclose(mm(gpu(big).slice(1, 3, 15), gpu(c)).cpu(), mm(sub, c), 1e-12, 1e-12));
  Tensor self = randn({8, 6}, kFloat64);
  Tensor expect = addmm(self, a, c, 0.5, 2.0);
  EXPECT_TRUE(allclose(addmm(gpu(self), gpu(a), gpu(c), 0.5, 2.0).cpu(), expect, 1e-12, 1e-12));
  // beta == 0 must not read out: NaN garbage in self has no effect
  Tensor nan_self = full({8, 6}, std::nan(""), kFloat64);
  EXPECT_TRUE(
      allclose(addmm(gpu(nan_self), gpu(a), gpu(c), 0.0, 1.0).cpu(), mm(a, c), 1e-12, 1e-12));
}

// float32 products below EMBER_CUDA_SMALL_GEMM_MACS (2^26) run on ember's own kernel
// (cuda/gemm_small.cu), larger ones on cuBLAS: both against the CPU, in every layout, with
// addmm's beta/alpha, at the MLP's shapes, tile edges and just above the limit.
TEST_F(CudaKernelsMisc, SmallGemmKernelAndCublasAgree) {
  struct Shape {
    int64_t m, k, n;
  };
  for (Shape s : {Shape{1, 1, 1}, Shape{31, 33, 65}, Shape{128, 784, 512}, Shape{512, 128, 784},
                  Shape{128, 10, 256}, Shape{10, 128, 256}, Shape{128, 256, 10},
                  Shape{64, 4096, 300}}) {  // the last: 2^26.2 multiply-adds, k > 1024: cuBLAS
    Tensor a = randn({s.m, s.k}), at = randn({s.k, s.m}).t();
    Tensor b = randn({s.k, s.n}), bt = randn({s.n, s.k}).t();
    const double tol = 1e-4 * std::sqrt(static_cast<double>(s.k));
    for (const Tensor& x : {a, at}) {
      for (const Tensor& y : {b, bt}) {
        Tensor gx = gpu_same_layout(x, 0, 1), gy = gpu_same_layout(y, 0, 1);
        EXPECT_TRUE(allclose(mm(gx, gy).cpu(), mm(x, y), tol, tol))
            << s.m << "x" << s.k << "x" << s.n << " " << x.is_contiguous() << y.is_contiguous();
      }
    }
    Tensor bias = randn({s.n}), self = randn({s.m, s.n});
    EXPECT_TRUE(allclose(addmm(gpu(bias), gpu(a), gpu(bt)).cpu(), addmm(bias, a, bt), tol, tol));
    EXPECT_TRUE(allclose(addmm(gpu(self), gpu(at), gpu(b), 0.5, -2.0).cpu(),
                         addmm(self, at, b, 0.5, -2.0), 2 * tol, 2 * tol));
    Tensor nan_self = full({s.m, s.n}, std::nan(""));  // beta == 0 reads nothing
    EXPECT_TRUE(allclose(addmm(gpu(nan_self), gpu(a), gpu(b), 0.0, 1.0).cpu(), mm(a, b), tol, tol));
  }
}

// bmm, and the baddbmm kernel with a broadcast (stride-0) batch and beta/alpha.
TEST_F(CudaKernelsMisc, BatchedAndBroadcastBatch) {
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const double tol = dt == kFloat32 ? 1e-4 : 1e-12;
    Tensor a = randn({5, 7, 9}, dt), b = randn({5, 11, 9}, dt).transpose(1, 2);
    EXPECT_TRUE(allclose(bmm(gpu(a), gpu_same_layout(b, 1, 2)).cpu(), bmm(a, b), tol, tol)) << dt;
    EXPECT_TRUE(
        allclose(bmm(gpu_same_layout(b, 1, 2).transpose(1, 2), gpu(a).transpose(1, 2)).cpu(),
                 bmm(b.transpose(1, 2), a.transpose(1, 2)), tol, tol))
        << dt;
    // a: one [7, 9] matrix for every batch (stride 0), b transposed per batch
    Tensor one = randn({1, 7, 9}, dt);
    Tensor bt = randn({5, 11, 9}, dt);
    Tensor out_cpu = randn({5, 7, 11}, dt);
    Tensor out_gpu = gpu(out_cpu);
    kernel<Op::baddbmm>(kCPU)(out_cpu, one.expand({5, 7, 9}), bt.transpose(1, 2), 0.25, -1.5);
    kernel<Op::baddbmm>(kCUDA)(out_gpu, gpu(one).expand({5, 7, 9}), gpu(bt).transpose(1, 2), 0.25,
                               -1.5);
    EXPECT_TRUE(allclose(out_gpu.cpu(), out_cpu, tol, tol)) << dt;
    // matmul broadcasting a [7, 9] matrix against a batch goes through the same path
    Tensor m2 = randn({7, 9}, dt), batch = randn({5, 9, 4}, dt);
    EXPECT_TRUE(allclose(matmul(gpu(m2), gpu(batch)).cpu(), matmul(m2, batch), tol, tol)) << dt;
  }
}

// TF32 products stay close to fp32 (about 1e-3 relative); the setting is read per call.
TEST_F(CudaKernelsMisc, Tf32WhenAllowed) {
  PrecisionGuard restore;
  Tensor a = randn({256, 512}), b = randn({512, 128});
  Tensor ref = mm(a.to(kFloat64), b.to(kFloat64));
  set_float32_matmul_precision("high");
  Tensor tf32 = mm(gpu(a), gpu(b)).cpu().to(kFloat64);
  EXPECT_TRUE(allclose(tf32, ref, 1e-2, 0.5));
  set_float32_matmul_precision("highest");
  Tensor full32 = mm(gpu(a), gpu(b)).cpu().to(kFloat64);
  EXPECT_TRUE(allclose(full32, ref, 1e-4, 1e-3));
}

// ---- index kernels ----

const std::vector<ScalarType> kAllTypes = {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool};

Tensor sample(IntArrayRef sizes, ScalarType dt) {
  if (dt == kBool) return randint(0, 2, sizes, kBool);
  if (dt == kUInt8) return randint(0, 256, sizes, kUInt8);
  return randint(-100, 100, sizes, dt);
}

TEST_F(CudaKernelsMisc, IndexSelectMatchesCpu) {
  for (ScalarType dt : kAllTypes) {
    Tensor x = sample({6, 9, 4}, dt);
    Tensor idx = randint(0, 9, {13});
    for (const Tensor& in : {x, x.transpose(0, 2), x.slice(1, 0, 9, 2)}) {
      for (int64_t d = 0; d < 3; ++d) {
        Tensor i = randint(0, in.sizes()[d], {13});
        EXPECT_TRUE(equal(index_select(gpu(in), d, gpu(i)).cpu(), index_select(in, d, i)))
            << dt << " dim " << d;
      }
    }
    // strided device inputs: a transposed and a stepped view on the GPU
    Tensor xt = gpu(x).transpose(0, 1);
    Tensor i5 = randint(0, 5, {13});
    EXPECT_TRUE(equal(index_select(gpu(x).slice(1, 0, 9, 2), 1, gpu(i5)).cpu(),
                      index_select(x.slice(1, 0, 9, 2), 1, i5)))
        << dt;
    EXPECT_TRUE(equal(index_select(xt, 0, gpu(idx)).cpu(), index_select(x.transpose(0, 1), 0, idx)))
        << dt;
    EXPECT_TRUE(equal(index_select(gpu(x), 1, gpu(idx.to(kInt32))).cpu(), index_select(x, 1, idx)))
        << dt;
  }
}

TEST_F(CudaKernelsMisc, GatherMatchesCpu) {
  for (ScalarType dt : kAllTypes) {
    Tensor x = sample({7, 8}, dt);
    Tensor i0 = randint(0, 7, {5, 8}), i1 = randint(0, 8, {7, 3});
    EXPECT_TRUE(equal(gather(gpu(x), 0, gpu(i0)).cpu(), gather(x, 0, i0))) << dt;
    EXPECT_TRUE(equal(gather(gpu(x), 1, gpu(i1)).cpu(), gather(x, 1, i1))) << dt;
    // transposed input and a smaller index than the input in the other dim
    Tensor i2 = randint(0, 8, {4, 6});
    EXPECT_TRUE(equal(gather(gpu(x).t(), 0, gpu(i2)).cpu(), gather(x.t(), 0, i2))) << dt;
  }
}

TEST_F(CudaKernelsMisc, ScatterAddMatchesCpu) {
  for (ScalarType dt : {kFloat32, kFloat64, kInt32, kInt64, kUInt8}) {
    Tensor self = sample({6, 10}, dt), src = sample({40, 10}, dt);
    Tensor idx = randint(0, 6, {40, 10});  // many duplicates: the atomics must add them all
    Tensor expect = scatter_add(self, 0, idx, src);
    Tensor got = scatter_add(gpu(self), 0, gpu(idx), gpu(src)).cpu();
    if (dt == kFloat32) {
      EXPECT_TRUE(allclose(got, expect, 1e-5, 1e-4));  // atomics add in any order
    } else {
      EXPECT_TRUE(equal(got, expect)) << dt;  // exact: integers (uint8 wraps), doubles of ints
    }
    Tensor idx1 = randint(0, 10, {6, 25});
    Tensor src1 = sample({6, 25}, dt);
    Tensor g = gpu(self);
    g.scatter_add_(1, gpu(idx1), gpu(src1));
    Tensor e = self.clone();
    e.scatter_add_(1, idx1, src1);
    if (dt == kFloat32) {
      EXPECT_TRUE(allclose(g.cpu(), e, 1e-5, 1e-4));
    } else {
      EXPECT_TRUE(equal(g.cpu(), e)) << dt;
    }
  }
  // uint8 neighbours share a 32-bit word and are updated concurrently; sums wrap mod 256
  Tensor idx = empty({512}, kInt64);
  for (int64_t i = 0; i < 512; ++i) idx.data_ptr<int64_t>()[i] = i % 8;
  Tensor src = full({512}, 200, kUInt8);
  Tensor got = scatter_add(zeros({8}, kUInt8).to(kCUDA), 0, gpu(idx), gpu(src)).cpu();
  EXPECT_TRUE(equal(got, full({8}, (64 * 200) % 256, kUInt8)));
  Tensor got64 = scatter_add(zeros({8}, kInt64).to(kCUDA), 0, gpu(idx), gpu(src.to(kInt64))).cpu();
  EXPECT_TRUE(equal(got64, full({8}, 64 * 200, kInt64)));
}

// ---- random kernels ----

// The same (seed, offset) gives the CPU's numbers, for odd sizes and offsets, and for a
// strided output (elements in row-major order of the view).
TEST_F(CudaKernelsMisc, RandomKernelsMatchCpu) {
  const uint64_t seed = 1234567, offset = 3;
  for (ScalarType dt : {kFloat32, kFloat64}) {
    for (int64_t n : {1, 2, 3, 5, 1001, 4099}) {
      Tensor c = empty({n}, dt), g = empty({n}, TensorOptions(dt).device(kCUDA));
      kernel<Op::uniform>(kCPU)(c, seed, offset, -2.0, 3.0);
      kernel<Op::uniform>(kCUDA)(g, seed, offset, -2.0, 3.0);
      EXPECT_TRUE(equal(g.cpu(), c)) << "uniform " << dt << " n " << n;
      kernel<Op::normal>(kCPU)(c, seed, offset, 0.5, 2.0);
      kernel<Op::normal>(kCUDA)(g, seed, offset, 0.5, 2.0);
      const double tol = dt == kFloat32 ? 1e-5 : 1e-12;
      EXPECT_TRUE(allclose(g.cpu(), c, tol, tol)) << "normal " << dt << " n " << n;
    }
  }
  for (ScalarType dt : kAllTypes) {
    const int64_t lo = dt == kBool ? 0 : (dt == kUInt8 ? 3 : -50), hi = dt == kBool ? 2 : 200;
    Tensor c = empty({1001}, dt), g = empty({1001}, TensorOptions(dt).device(kCUDA));
    kernel<Op::randint>(kCPU)(c, seed, offset, lo, hi);
    kernel<Op::randint>(kCUDA)(g, seed, offset, lo, hi);
    EXPECT_TRUE(equal(g.cpu(), c)) << "randint " << dt;
  }
  // a strided (transposed) output
  Tensor c = empty({7, 5}).t(), g = empty({7, 5}, kCUDA).t();
  kernel<Op::uniform>(kCPU)(c, seed, offset, 0.0, 1.0);
  kernel<Op::uniform>(kCUDA)(g, seed, offset, 0.0, 1.0);
  EXPECT_TRUE(equal(g.cpu(), c));
}

// Through the public API: manual_seed makes rand/randn/randint identical on both devices.
TEST_F(CudaKernelsMisc, SeededFactoriesMatchCpu) {
  manual_seed(42);
  Tensor u = rand({333}), n = randn({333}, kFloat64), i = randint(-5, 5, {333});
  manual_seed(42);
  Tensor ug = rand({333}, TensorOptions().device(kCUDA));
  Tensor ng = randn({333}, TensorOptions(kFloat64).device(kCUDA));
  Tensor ig = randint(-5, 5, {333}, TensorOptions(kInt64).device(kCUDA));
  EXPECT_TRUE(equal(ug.cpu(), u));
  EXPECT_TRUE(allclose(ng.cpu(), n, 1e-12, 1e-12));
  EXPECT_TRUE(equal(ig.cpu(), i));
}

}  // namespace
