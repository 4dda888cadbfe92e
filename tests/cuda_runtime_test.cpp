// Tests of the CUDA runtime: the caching allocator (reuse, splitting, merging, stats,
// empty_cache, out of memory), streams and events, pinned memory and every kind of copy.
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace ember;

constexpr size_t kMiB = size_t(1) << 20;

TEST(CudaRuntimeNoGpu, PinMemoryThrowsWithoutAGpu) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  Tensor x = ones({3});
  EXPECT_FALSE(x.is_pinned());
  try {
    x.pin_memory();
    FAIL() << "pin_memory without a GPU did not throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pin_memory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cuda::getStreamFromPool(), Error);
  cuda::Event event;  // never recorded: nothing to wait for
  EXPECT_TRUE(event.query());
  EXPECT_NO_THROW(cuda::DeviceGuard(-1));
  EXPECT_EQ(cuda::memory_reserved(), 0u);
}

class CudaRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    cuda::synchronize();
    cuda::empty_cache();
  }
};

const char* byte_ptr(const Tensor& t) { return static_cast<const char*>(t.data_ptr()); }

// The allocator tests run on a pool stream: blocks are cached per stream, so after
// empty_cache that stream has no cached segment and the figures below are exact whatever
// other code keeps alive on the default stream.
TEST_F(CudaRuntime, AllocatorReusesAFreedBlock) {
  cuda::StreamGuard guard(cuda::getStreamFromPool(true));
  const size_t reserved0 = cuda::memory_reserved();
  Tensor a = empty({1000}, kCUDA);
  const void* p = a.data_ptr();
  EXPECT_EQ(cuda::memory_reserved(), reserved0 + 2 * kMiB);  // one small segment
  a = Tensor();
  Tensor b = empty({1000}, kCUDA);
  EXPECT_EQ(b.data_ptr(), p);
  EXPECT_EQ(cuda::memory_reserved(), reserved0 + 2 * kMiB);
}

TEST_F(CudaRuntime, AllocatorSplitsAndMerges) {
  cuda::StreamGuard guard(cuda::getStreamFromPool(true));
  const size_t reserved0 = cuda::memory_reserved();
  {
    // Small pool: 4000 bytes round to 4096; both blocks come from one 2 MiB segment.
    Tensor a = empty({1000}, kCUDA);
    Tensor b = empty({1000}, kCUDA);
    EXPECT_EQ(byte_ptr(b), byte_ptr(a) + 4096);
    EXPECT_EQ(cuda::memory_reserved(), reserved0 + 2 * kMiB);
    // Large pool: requests of 1-10 MiB share a 20 MiB segment.
    Tensor c = empty({int64_t(3 * kMiB / 4)}, kCUDA);  // 3 MiB
    Tensor d = empty({int64_t(3 * kMiB / 4)}, kCUDA);
    EXPECT_EQ(byte_ptr(d), byte_ptr(c) + 3 * kMiB);
    EXPECT_EQ(cuda::memory_reserved(), reserved0 + 22 * kMiB);
    // Freeing the first block and asking again gives it back (best fit in the hole).
    a = Tensor();
    Tensor e = empty({1000}, kCUDA);
    EXPECT_EQ(byte_ptr(e), byte_ptr(b) - 4096);
  }
  // Everything freed: the blocks merged back into whole segments, which empty_cache frees.
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(), reserved0);
  // Two 5 MiB blocks share a 20 MiB segment; once both are freed, a 20 MiB request fits
  // in that segment only if the pieces merged back into one block.
  Tensor s1 = empty({int64_t(5 * kMiB / 4)}, kCUDA);
  Tensor s2 = empty({int64_t(5 * kMiB / 4)}, kCUDA);
  const char* start = byte_ptr(s1);
  EXPECT_EQ(byte_ptr(s2), start + 5 * kMiB);
  EXPECT_EQ(cuda::memory_reserved(), reserved0 + 20 * kMiB);
  s1 = Tensor();
  s2 = Tensor();
  Tensor whole = empty({int64_t(20 * kMiB / 4)}, kCUDA);
  EXPECT_EQ(byte_ptr(whole), start);
  EXPECT_EQ(cuda::memory_reserved(), reserved0 + 20 * kMiB);
}

TEST_F(CudaRuntime, AllocatorStats) {
  cuda::StreamGuard guard(cuda::getStreamFromPool(true));
  const size_t allocated0 = cuda::memory_allocated();
  cuda::reset_peak_memory_stats();
  EXPECT_EQ(cuda::max_memory_allocated(), allocated0);
  Tensor a = empty({1000}, kCUDA);  // 4000 bytes, rounded to 4096
  EXPECT_EQ(cuda::memory_allocated(), allocated0 + 4096);
  {
    Tensor b = empty({int64_t(kMiB)}, kCUDA);  // 4 MiB
    EXPECT_EQ(cuda::memory_allocated(), allocated0 + 4096 + 4 * kMiB);
    Tensor z = empty({0}, kCUDA);  // no memory at all
    EXPECT_EQ(cuda::memory_allocated(), allocated0 + 4096 + 4 * kMiB);
  }
  EXPECT_EQ(cuda::memory_allocated(), allocated0 + 4096);
  EXPECT_EQ(cuda::max_memory_allocated(), allocated0 + 4096 + 4 * kMiB);
  EXPECT_GE(cuda::memory_reserved(), cuda::memory_allocated());
  cuda::reset_peak_memory_stats();
  EXPECT_EQ(cuda::max_memory_allocated(), allocated0 + 4096);
  a = Tensor();
  EXPECT_EQ(cuda::memory_allocated(), allocated0);
}

TEST_F(CudaRuntime, EmptyCacheLowersReserved) {
  cuda::StreamGuard guard(cuda::getStreamFromPool(true));
  const size_t reserved0 = cuda::memory_reserved();
  {
    Tensor a = empty({int64_t(64 * kMiB / 4)}, kCUDA);
    a.fill_(1);  // queued work on the block: empty_cache must wait for it
  }
  EXPECT_GE(cuda::memory_reserved(), reserved0 + 64 * kMiB);  // cached, not freed
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(), reserved0);
}

TEST_F(CudaRuntime, OutOfMemoryNamesTheSizes) {
  const int64_t ten_tb = int64_t(10) * 1000 * 1000 * 1000 * 1000;
  try {
    Tensor t = empty({ten_tb}, TensorOptions(kUInt8).device(kCUDA));
    FAIL() << "allocating 10 TB did not throw";
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("out of memory"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Tried to allocate 9.09 TiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("total capacity"), std::string::npos) << msg;
    EXPECT_NE(msg.find("free"), std::string::npos) << msg;
    EXPECT_NE(msg.find("allocated"), std::string::npos) << msg;
    EXPECT_NE(msg.find("reserved"), std::string::npos) << msg;
  }
  // OutOfMemoryError is an ember::Error, and the device still works afterwards.
  EXPECT_THROW(empty({ten_tb}, TensorOptions(kUInt8).device(kCUDA)), Error);
  Tensor ok = full({100}, 2.0, kCUDA);
  EXPECT_EQ(ok.cpu().sum().item<float>(), 200.0f);
}

TEST_F(CudaRuntime, StreamsAndEvents) {
  const cuda::Stream default_stream = cuda::getDefaultStream();
  EXPECT_EQ(cuda::getCurrentStream(), default_stream);
  EXPECT_EQ(default_stream.id(), 0);
  EXPECT_EQ(default_stream.stream(), nullptr);

  const cuda::Stream s = cuda::getStreamFromPool();
  EXPECT_NE(s, default_stream);
  EXPECT_NE(s.id(), 0);
  EXPECT_EQ(s.device_index(), cuda::current_device());
  EXPECT_NE(cuda::getStreamFromPool(true), s);

  const int64_t n = int64_t(1) << 24;
  Tensor x = empty({n}, kCUDA);
  Tensor y;
  cuda::Event done;
  EXPECT_TRUE(done.query());  // never recorded
  cuda::synchronize();        // x's memory is ready for another stream
  {
    cuda::StreamGuard guard(s);
    EXPECT_EQ(cuda::getCurrentStream(), s);
    x.fill_(7);
    y = x.to(kFloat64);  // a converting device copy, on s too
    done.record(s);
  }
  EXPECT_EQ(cuda::getCurrentStream(), default_stream);  // the guard restored it
  done.block(cuda::getCurrentStream());                 // the default stream waits for s
  Tensor y_host = y.cpu();                              // on the default stream
  EXPECT_TRUE(done.query());
  EXPECT_TRUE(equal(y_host, full({n}, 7.0, kFloat64)));
  s.synchronize();
  EXPECT_TRUE(s.query());

  // setCurrentStream and nested guards.
  cuda::setCurrentStream(s);
  EXPECT_EQ(cuda::getCurrentStream(), s);
  {
    cuda::StreamGuard guard(default_stream);
    EXPECT_EQ(cuda::getCurrentStream(), default_stream);
  }
  EXPECT_EQ(cuda::getCurrentStream(), s);
  cuda::setCurrentStream(default_stream);

  // Timing events.
  cuda::Event start(true), end(true);
  start.record();
  x.fill_(1);
  end.record();
  EXPECT_GE(start.elapsed_time(end), 0.0f);
  end.synchronize();
  EXPECT_TRUE(end.query());
  cuda::Event untimed;
  untimed.record();
  EXPECT_THROW(untimed.elapsed_time(end), Error);
  cuda::Event moved = std::move(untimed);
  EXPECT_TRUE(moved.is_created());
  EXPECT_FALSE(untimed.is_created());  // NOLINT(bugprone-use-after-move)
}

TEST_F(CudaRuntime, DeviceGuardRestores) {
  const int before = cuda::current_device();
  {
    cuda::DeviceGuard guard(cuda::device_count() - 1);
    EXPECT_EQ(cuda::current_device(), cuda::device_count() - 1);
  }
  EXPECT_EQ(cuda::current_device(), before);
}

TEST_F(CudaRuntime, PinMemory) {
  Tensor x = randn({37, 11});
  EXPECT_FALSE(x.is_pinned());
  Tensor p = x.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.is_cpu());
  EXPECT_NE(p.data_ptr(), x.data_ptr());
  EXPECT_TRUE(equal(p, x));
  EXPECT_TRUE(p.slice(0, 3, 9).is_pinned());  // views of pinned memory are pinned
  EXPECT_TRUE(p.pin_memory().is_same(p));     // already pinned: itself
  Tensor pt = x.t().pin_memory();             // a strided source gives a dense copy
  EXPECT_TRUE(pt.is_pinned());
  EXPECT_TRUE(pt.is_contiguous());
  EXPECT_TRUE(equal(pt, x.t().contiguous()));
  EXPECT_TRUE(equal(ones({5}, kInt64).pin_memory(), ones({5}, kInt64)));
  EXPECT_FALSE(x.to(kCUDA).is_pinned());
  EXPECT_THROW(x.to(kCUDA).pin_memory(), Error);
  // A freed pinned block is cached and handed out again.
  const void* ptr = p.data_ptr();
  p = Tensor();
  Tensor q = randn({37, 11}).pin_memory();
  EXPECT_EQ(q.data_ptr(), ptr);
}

TEST_F(CudaRuntime, NonBlockingPinnedRoundTrip) {
  const int64_t n = int64_t(1) << 22;
  Tensor h = arange(n, kFloat32).pin_memory();
  Tensor d = h.to(kCUDA, /*non_blocking=*/true);
  Tensor d64 = h.to(Device(kCUDA), kFloat64, /*non_blocking=*/true);  // converted on the GPU
  Tensor back = empty({n}).pin_memory();
  back.copy_(d, /*non_blocking=*/true);
  Tensor back64 = empty({n}, kFloat64).pin_memory();
  back64.copy_(d64, /*non_blocking=*/true);
  cuda::synchronize();
  EXPECT_TRUE(equal(back, h));
  EXPECT_TRUE(equal(back64, h.to(kFloat64)));

  // A pinned source dropped while its copy may be pending: its block must not be reused
  // (and overwritten) before the copy has read it.
  for (int round = 0; round < 4; ++round) {
    Tensor src = full({n}, float(round + 1)).pin_memory();
    Tensor dst = src.to(kCUDA, /*non_blocking=*/true);
    src = Tensor();
    Tensor other = zeros({n}).pin_memory();  // same size: the cache's candidate
    cuda::synchronize();
    EXPECT_TRUE(equal(dst.cpu(), full({n}, float(round + 1)))) << "round " << round;
  }
}

// ---- copies of every dtype pair and layout, against the CPU ----

const ScalarType kTypes[] = {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool};

// A [6, 10] view of `base` (made by make_base with the same layout) in one of four layouts.
enum Layout { kDense, kTransposed, kStepped, kBroadcast };
const Layout kLayouts[] = {kDense, kTransposed, kStepped, kBroadcast};

std::vector<int64_t> base_shape(Layout l) {
  switch (l) {
    case kDense:
      return {6, 10};
    case kTransposed:
      return {10, 6};
    case kStepped:
      return {6, 20};
    case kBroadcast:
      return {1, 10};
  }
  return {};
}

Tensor view_of(const Tensor& base, Layout l) {
  switch (l) {
    case kDense:
      return base;
    case kTransposed:
      return base.t();
    case kStepped:
      return base.slice(1, 0, 20, 2);
    case kBroadcast:
      return base.expand({6, 10});
  }
  return {};
}

// Non-negative values (exact in every dtype after truncation), fractional for floats.
Tensor values(Layout l, ScalarType t) { return (rand(base_shape(l), kFloat64) * 100).to(t); }

enum Direction { kHostToDevice, kDeviceToHost, kDeviceToDevice };

void check_copy(Direction dir, ScalarType src_t, Layout src_l, ScalarType dst_t, Layout dst_l) {
  const Tensor src_base_cpu = values(src_l, src_t);
  Tensor dst_base_cpu = zeros(base_shape(dst_l), dst_t);
  view_of(dst_base_cpu, dst_l).copy_(view_of(src_base_cpu, src_l));  // the reference

  const Device src_dev = dir == kHostToDevice ? Device(kCPU) : Device(kCUDA);
  const Device dst_dev = dir == kDeviceToHost ? Device(kCPU) : Device(kCUDA);
  const Tensor src_base = src_base_cpu.to(src_dev);
  Tensor dst_base = zeros(base_shape(dst_l), TensorOptions(dst_t).device(dst_dev));
  view_of(dst_base, dst_l).copy_(view_of(src_base, src_l));
  EXPECT_TRUE(equal(dst_base.cpu(), dst_base_cpu))
      << "direction " << dir << ": " << src_t << " layout " << src_l << " -> " << dst_t
      << " layout " << dst_l;
}

TEST_F(CudaRuntime, CopiesMatchTheCpu) {
  for (Direction dir : {kHostToDevice, kDeviceToHost, kDeviceToDevice}) {
    for (ScalarType src_t : kTypes) {
      for (ScalarType dst_t : kTypes) {
        for (Layout src_l : kLayouts) {
          for (Layout dst_l : {kDense, kTransposed, kStepped}) {
            check_copy(dir, src_t, src_l, dst_t, dst_l);
          }
        }
      }
    }
  }
}

TEST_F(CudaRuntime, ToAndItem) {
  Tensor x = randn({4, 5});
  Tensor d = x.to(kCUDA);
  EXPECT_TRUE(equal(d.cpu(), x));
  EXPECT_TRUE(equal(d.t().cpu(), x.t().contiguous()));
  EXPECT_TRUE(equal(d.to(kInt64).cpu(), x.to(kInt64)));
  EXPECT_TRUE(equal(x.t().to(Device(kCUDA), kFloat64).cpu(), x.t().to(kFloat64)));
  EXPECT_EQ(d[2][3].item<float>(), x[2][3].item<float>());
  // Empty tensors copy nothing and need no memory.
  Tensor e = empty({0, 3}, kCUDA);
  EXPECT_EQ(e.cpu().numel(), 0);
}

TEST_F(CudaRuntime, CrossDeviceCopies) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two GPUs";
  Tensor x = randn({33, 17});
  Tensor a = x.to("cuda:0");
  Tensor b = a.to("cuda:1");  // dense, same dtype: a peer copy
  EXPECT_EQ(b.device().index(), 1);
  EXPECT_TRUE(equal(b.cpu(), x));
  EXPECT_TRUE(equal(a.t().to("cuda:1").cpu(), x.t().contiguous()));            // strided source
  EXPECT_TRUE(equal(a.to(Device("cuda:1"), kFloat64).cpu(), x.to(kFloat64)));  // converting
  Tensor c = zeros({17, 33}, Device("cuda:1"));
  c.t().copy_(a);  // strided destination on the other device
  EXPECT_TRUE(equal(c.cpu(), x.t().contiguous()));
  Tensor back = zeros({33, 17}, kInt32).to("cuda:0");
  back.copy_(b);  // 1 -> 0, converting
  EXPECT_TRUE(equal(back.cpu(), x.to(kInt32)));
}

}  // namespace
