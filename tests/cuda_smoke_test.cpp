// Smoke test of the CUDA plumbing: availability queries never throw, and with a GPU the
// allocator, host<->device copies (dense, strided, converting) and fill work. Skips without one.
#include <ember/ember.h>

#include <gtest/gtest.h>

namespace {

using namespace ember;

TEST(CudaSmoke, QueriesNeverThrow) {
  EXPECT_NO_THROW(cuda::is_available());
  EXPECT_EQ(cuda::is_available(), cuda::device_count() > 0);
  EXPECT_NO_THROW(cuda::synchronize());
  EXPECT_NO_THROW(cuda::empty_cache());
}

TEST(CudaSmoke, NoGpuMeansCleanError) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW(zeros({2, 3}, kCUDA), Error);
  EXPECT_THROW(ones({2}).to(kCUDA), Error);
  EXPECT_EQ(cuda::memory_allocated(), 0u);
}

class CudaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(CudaGpu, RoundTripDense) {
  Tensor x = arange(1000, kFloat32);
  Tensor y = x.to(kCUDA);
  EXPECT_TRUE(y.is_cuda());
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_TRUE(equal(y.cpu(), x));
}

TEST_F(CudaGpu, RoundTripStridedAndConverting) {
  Tensor x = randn({7, 5});
  EXPECT_TRUE(equal(x.t().to(kCUDA).cpu(), x.t().contiguous()));  // strided source on the host
  Tensor y = x.to(kCUDA);
  EXPECT_TRUE(equal(y.t().cpu(), x.t().contiguous()));       // strided source on the GPU
  EXPECT_TRUE(equal(y.to(kFloat64).cpu(), x.to(kFloat64)));  // device-side conversion
  EXPECT_TRUE(equal(x.to(Device(kCUDA), kInt64).cpu(), x.to(kInt64)));
  Tensor z = zeros({5, 7}, kCUDA);
  z.copy_(y.t());  // device to device, strided
  EXPECT_TRUE(equal(z.cpu(), x.t().contiguous()));
  Tensor w = zeros({7, 10}, kCUDA);
  w.slice(1, 0, 10, 2).copy_(x);  // strided destination on the GPU
  EXPECT_TRUE(equal(w.cpu().slice(1, 0, 10, 2), x));
  EXPECT_EQ(w.cpu().slice(1, 1, 10, 2).abs().sum().item<float>(), 0.0f);
}

TEST_F(CudaGpu, Fill) {
  for (ScalarType t : {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool}) {
    Tensor a = full({1001}, 1, TensorOptions(t).device(kCUDA));
    EXPECT_TRUE(equal(a.cpu(), ones({1001}, t))) << t;
  }
  Tensor b = zeros({4, 6}, kCUDA);
  b.slice(1, 0, 6, 2).fill_(2.5);
  EXPECT_EQ(b.cpu().sum().item<float>(), 2.5f * 12);
  b.zero_();
  EXPECT_EQ(b.cpu().sum().item<float>(), 0.0f);
}

TEST_F(CudaGpu, MemoryCounters) {
  const size_t before = cuda::memory_allocated();
  {
    Tensor a = empty({1 << 20}, kCUDA);
    EXPECT_GE(cuda::memory_allocated(), before + (4u << 20));
    EXPECT_GE(cuda::max_memory_allocated(), before + (4u << 20));
  }
  EXPECT_EQ(cuda::memory_allocated(), before);
  EXPECT_THROW(cuda::set_device(cuda::device_count()), Error);
}

}  // namespace
