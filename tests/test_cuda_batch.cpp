// Small-op batching on CUDA (cuda/batch.h): tiny float32 ops are recorded and run by one
// launch; these tests check their results against the CPU and every point where recorded
// ops must be submitted (launches, copies, data_ptr, streams, events, empty_cache, threads).
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using namespace ember;

int64_t unsubmitted() { return detail::g_unsubmitted_cuda_ops.load(); }

class CudaBatch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    const char* off = std::getenv("EMBER_CUDA_BATCH");
    const char* sync = std::getenv("EMBER_CUDA_SYNC");
    batching_ = !(off && std::strcmp(off, "0") == 0) && !(sync && *sync && std::strcmp(sync, "0"));
    const char* nocache = std::getenv("EMBER_CUDA_NO_CACHING");
    exact_counts_ = !(nocache && *nocache && std::strcmp(nocache, "0"));
    cuda::synchronize();
  }
  // With batching off (EMBER_CUDA_BATCH=0) the results must be the same; only the counts
  // of recorded ops differ. Without the cache (EMBER_CUDA_NO_CACHING=1, under memcheck)
  // every freed tensor submits what is recorded, so counts are at most n.
  void expect_recorded(int64_t n) {
    if (!batching_)
      EXPECT_EQ(unsubmitted(), 0);
    else if (exact_counts_)
      EXPECT_EQ(unsubmitted(), n);
    else
      EXPECT_LE(unsubmitted(), n);
  }
  bool batching_ = true;
  bool exact_counts_ = true;
};

void expect_close(const Tensor& cuda_result, const Tensor& cpu_result, double tol = 1e-6) {
  ASSERT_TRUE(cuda_result.is_cuda());
  const Tensor got = cuda_result.cpu();
  ASSERT_EQ(got.sizes().vec(), cpu_result.sizes().vec());
  EXPECT_TRUE(allclose(got, cpu_result, tol, tol)) << got << "\nexpected\n" << cpu_result;
}

TEST_F(CudaBatch, TinyOpsAreRecordedNotLaunched) {
  Tensor a = randn({8}, kCUDA), b = randn({8}, kCUDA);
  cuda::synchronize();
  ASSERT_EQ(unsubmitted(), 0);
  Tensor c = a + b;
  Tensor d = c * 2;
  Tensor s = d.sum();
  expect_recorded(3);
  expect_close(s, ((a.cpu() + b.cpu()) * 2).sum(), 1e-5);
  EXPECT_EQ(unsubmitted(), 0);  // copying to the CPU submitted them
}

TEST_F(CudaBatch, LongChainsSpanManyLaunches) {
  Tensor s = ones({8}, kCUDA);
  for (int i = 0; i < 1000; ++i) s = s + 1;  // ten times a batch's capacity
  expect_close(s, full({8}, 1001.0f));
  Tensor t = ones({5}, kCUDA);
  for (int i = 0; i < 300; ++i) t.mul_(1.01f);
  Tensor expected = ones({5});
  for (int i = 0; i < 300; ++i) expected.mul_(1.01f);
  expect_close(t, expected, 1e-5);
}

TEST_F(CudaBatch, EveryRecordedOpMatchesTheCpu) {
  Tensor a = randn({7, 9}), b = randn({7, 9}), one = randn({1}) + 3;
  Tensor ga = a.cuda(), gb = b.cuda(), gone = one.cuda();
  cuda::synchronize();
  std::vector<std::pair<Tensor, Tensor>> results = {
      {ga + gb, a + b},
      {ga - gb, a - b},
      {ga * gb, a * b},
      {ga / gone, a / one},  // a broadcast element
      {gone - ga, one - a},
      {ga + 2.5, a + 2.5},
      {ga * -3, a * -3},
      {ga / 7, a / 7},
      {ga.sum(), a.sum()},
      {ga.mean(), a.mean()},
      {ga.clone(), a.clone()},
      {ones({3, 5}, kCUDA), ones({3, 5})},
      {full({11}, -2.25f, kCUDA), full({11}, -2.25f)},
      {zeros({4, 4}, kCUDA), zeros({4, 4})},
  };
  expect_recorded(14);
  for (auto& [got, want] : results) expect_close(got, want, 1e-5);
}

TEST_F(CudaBatch, OtherDtypesFillAndCopyByWords) {
  // -7 as int64 is not one 32-bit word repeated: launched as before
  Tensor i64 = full({6}, int64_t(-7), TensorOptions().dtype(kInt64).device(kCUDA));
  expect_recorded(0);
  Tensor u8 = full({12}, 200, TensorOptions().dtype(kUInt8).device(kCUDA));
  Tensor z64 = zeros({10}, TensorOptions().dtype(kFloat64).device(kCUDA));
  Tensor copy = i64.clone();
  expect_recorded(3);
  EXPECT_TRUE(equal(i64.cpu(), full({6}, int64_t(-7), kInt64)));
  EXPECT_TRUE(equal(u8.cpu(), full({12}, 200, kUInt8)));
  EXPECT_TRUE(equal(z64.cpu(), zeros({10}, kFloat64)));
  EXPECT_TRUE(equal(copy.cpu(), full({6}, int64_t(-7), kInt64)));
}

TEST_F(CudaBatch, IneligibleOpsRunAsBefore) {
  Tensor m = randn({4, 6}), big = randn({5000});
  Tensor gm = m.cuda(), gbig = big.cuda();
  cuda::synchronize();
  Tensor t = gm.t() + 1;                                                   // strided input
  Tensor d = gm.to(kFloat64) * 2;                                          // not float32
  Tensor l = gbig + 1;                                                     // too many elements
  Tensor odd = full({3}, 5, TensorOptions().dtype(kUInt8).device(kCUDA));  // 3 bytes
  expect_recorded(0);
  expect_close(t, m.t() + 1);
  expect_close(d, m.to(kFloat64) * 2);
  expect_close(l, big + 1);
  EXPECT_TRUE(equal(odd.cpu(), full({3}, 5, kUInt8)));
}

TEST_F(CudaBatch, InPlaceWithAnAliasedInput) {
  Tensor x = arange(8, kFloat32).cuda(), xc = arange(8, kFloat32);
  x.add_(x.select(0, 3));  // core clones an input that aliases the output elsewhere
  xc.add_(xc.select(0, 3));
  x.mul_(x);
  xc.mul_(xc);
  expect_close(x, xc);
}

TEST_F(CudaBatch, BigKernelsRunAfterRecordedOps) {
  Tensor a = randn({128, 128}).cuda();
  cuda::synchronize();
  Tensor s = ones({1}, kCUDA) * 3;  // recorded
  Tensor prod = matmul(a, a * s);   // the multiply is too big to record: a launch, then cuBLAS
  Tensor acpu = a.cpu();
  expect_close(prod, matmul(acpu, acpu * 3), 1e-2);
  // and the other way round: a big kernel writes, a recorded op reads
  Tensor big = randn({10000}, kCUDA);
  Tensor head = big.slice(0, 0, 8) + 1;  // randn launched, + recorded
  expect_close(head, big.cpu().slice(0, 0, 8) + 1);
}

TEST_F(CudaBatch, DataPtrSubmits) {
  Tensor a = ones({8}, kCUDA) + 1;
  expect_recorded(2);
  void* p = a.data_ptr();
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(unsubmitted(), 0);
  // so does handing out the raw stream
  Tensor b = a * 2;
  expect_recorded(1);
  EXPECT_EQ(cuda::getCurrentStream().stream(), nullptr);  // the legacy default stream
  EXPECT_EQ(unsubmitted(), 0);
  expect_close(b, full({8}, 4.0f));
}

TEST_F(CudaBatch, OneElementAccumulatorsInPlace) {
  Tensor acc = ones({1}, kCUDA);
  acc.mul_(3);
  acc.add_(acc);  // out is the broadcast element itself: still one thread, recorded
  expect_recorded(3);
  expect_close(acc, full({1}, 6.0f));
}

TEST_F(CudaBatch, StreamsAndEventsSubmit) {
  cuda::Stream side = cuda::getStreamFromPool();
  Tensor x;
  cuda::Event done;
  {
    cuda::StreamGuard guard(side);
    x = full({16}, 2.0f, kCUDA) * 21;  // recorded for the side stream
    done.record();
  }
  EXPECT_EQ(unsubmitted(), 0);  // recording the event submitted them
  done.block(cuda::getCurrentStream());
  expect_close(x + 0, full({16}, 42.0f));
  {
    cuda::StreamGuard guard(side);
    Tensor y = full({4}, 1.0f, kCUDA) + 1;
    expect_recorded(2);
    side.synchronize();
    EXPECT_EQ(unsubmitted(), 0);
    Tensor z = y * 3;
    expect_recorded(1);
    side.query();  // submits first, else it could say "done" with work still recorded
    EXPECT_EQ(unsubmitted(), 0);
    side.synchronize();
    expect_close(z, full({4}, 6.0f));
  }
}

TEST_F(CudaBatch, FreedTemporariesAreReusedSafely) {
  // Each iteration frees the previous tensor; its block goes to the next result at once.
  Tensor a = arange(100, kFloat32).cuda();
  Tensor acpu = arange(100, kFloat32);
  for (int i = 0; i < 500; ++i) {
    a = (a * 3 - 1) / 3;
    acpu = (acpu * 3 - 1) / 3;
  }
  expect_close(a, acpu, 1e-4);
}

TEST_F(CudaBatch, EmptyCacheSubmitsFirst) {
  Tensor y;
  {
    Tensor x = full({32}, 4.0f, kCUDA);
    y = x * x;  // x is freed below while the multiply is only recorded
  }
  cuda::empty_cache();
  EXPECT_EQ(unsubmitted(), 0);
  expect_close(y, full({32}, 16.0f));
}

TEST_F(CudaBatch, AnotherThreadsSynchronizeSubmits) {
  Tensor y = full({8}, 3.0f, kCUDA) + 4;
  std::thread([] { cuda::synchronize(); }).join();
  EXPECT_EQ(unsubmitted(), 0);
  expect_close(y, full({8}, 7.0f));
}

TEST_F(CudaBatch, TinyBackwardAccumulates) {
  Tensor w = randn({8}, kCUDA).requires_grad_();
  Tensor x = randn({8}, kCUDA);
  (w * x).sum().backward();
  cuda::synchronize();
  // forward mul and sum; backward: the seed's fill, grad * x, w.grad += that
  (w * x).sum().backward();
  expect_recorded(5);
  for (int i = 2; i < 250; ++i) (w * x).sum().backward();
  expect_close(w.grad(), x.cpu() * 250, 1e-4);
}

}  // namespace
