// CUDA out of memory in training (issue 18): with the allocator capped by
// set_per_process_memory_fraction, a step too big for the cap throws OutOfMemoryError naming
// the sizes; after it, empty_cache() and a smaller batch train on exactly as if it never happened.
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "error_of.h"

namespace {

using namespace ember;
namespace F = nn::functional;

constexpr size_t kMiB = size_t(1) << 20;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(CudaMemoryFraction, RefusesFractionsOutsideZeroToOne) {
  for (double bad : {-0.1, 1.5, std::nan("")}) {
    const std::string msg = error_of([&] { cuda::set_per_process_memory_fraction(bad); });
    EXPECT_TRUE(contains(msg, "cuda::set_per_process_memory_fraction")) << msg;
    if (cuda::is_available()) {
      EXPECT_TRUE(contains(msg, "[0, 1]")) << msg;
    }
  }
  if (!cuda::is_available()) {
    const std::string msg = error_of([] { cuda::set_per_process_memory_fraction(0.5); });
    EXPECT_TRUE(contains(msg, "cuda::set_per_process_memory_fraction")) << msg;
    EXPECT_TRUE(contains(error_of([] { cuda::mem_get_info(); }), "cuda::mem_get_info"));
  }
}

// Lifts the cap when a test ends, however it ends.
struct FractionGuard {
  ~FractionGuard() { cuda::set_per_process_memory_fraction(1.0); }
};

nn::Sequential make_mlp() {
  return nn::Sequential(nn::Linear(784, 2048), nn::ReLU(), nn::Linear(2048, 2048), nn::ReLU(),
                        nn::Linear(2048, 10));
}

// Steps of SGD with momentum on fixed batches; returns the losses.
std::vector<float> train(nn::Sequential& net, optim::SGD& opt, const Tensor& x, const Tensor& y,
                         int steps) {
  std::vector<float> losses;
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    Tensor loss = F::cross_entropy(net->forward(x), y);
    loss.backward();
    opt.step();
    losses.push_back(loss.item<float>());
  }
  return losses;
}

TEST(CudaOutOfMemory, CappedStepThrowsThenSmallerBatchTrainsOn) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  cuda::synchronize();
  cuda::empty_cache();
  FractionGuard restore;
  const size_t total = cuda::mem_get_info().second;
  ASSERT_GT(total, 0u);

  manual_seed(0);
  nn::Sequential net = make_mlp();
  net->to(kCUDA);
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  manual_seed(0);
  nn::Sequential twin = make_mlp();  // the same weights, never out of memory
  twin->to(kCUDA);
  optim::SGD twin_opt(twin->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  const Tensor x = randn({256, 784}).to(kCUDA), y = randint(10, {256}).to(kCUDA);

  // One step first, so that the optimizer state exists; then the cap: 512 MiB above what is
  // reserved now (weights, gradients, momentum, the step's cached blocks).
  const std::vector<float> first = train(net, opt, x, y, 1);
  const std::vector<float> twin_first = train(twin, twin_opt, x, y, 1);
  ASSERT_EQ(first, twin_first);
  const size_t cap = cuda::memory_reserved() + 512 * kMiB;
  cuda::set_per_process_memory_fraction(double(cap) / double(total));
  EXPECT_NEAR(cuda::get_per_process_memory_fraction(), double(cap) / double(total), 1e-12);

  // 100,000 samples: the first hidden layer alone is 781 MiB.
  const Tensor big_x = randn({100000, 784}).to(kCUDA), big_y = randint(10, {100000}).to(kCUDA);
  std::string msg;
  try {
    opt.zero_grad();
    Tensor loss = F::cross_entropy(net->forward(big_x), big_y);
    loss.backward();
    opt.step();
    FAIL() << "a 100,000-sample step under a " << cap / kMiB << " MiB cap did not throw";
  } catch (const OutOfMemoryError& e) {
    msg = e.what();
  }
  EXPECT_TRUE(contains(msg, "CUDA out of memory")) << msg;
  EXPECT_TRUE(contains(msg, "Tried to allocate")) << msg;
  EXPECT_TRUE(contains(msg, "per-process memory fraction")) << msg;
  EXPECT_TRUE(contains(msg, "100000")) << msg;  // the shape of the tensor it was for
  std::printf("the out-of-memory error: %s\n", msg.c_str());
  EXPECT_LE(cuda::memory_reserved(), cap);

  // Recovery: empty the cache, and train on with a smaller batch: the losses and weights are
  // those of the twin that never ran out of memory (the failed step changed nothing).
  cuda::empty_cache();
  const std::vector<float> after = train(net, opt, x, y, 20);
  const std::vector<float> twin_after = train(twin, twin_opt, x, y, 20);
  ASSERT_EQ(after.size(), twin_after.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i], twin_after[i]) << "step " << i;
  EXPECT_LT(after.back(), after.front());
  const auto params = net->parameters(), twin_params = twin->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_TRUE(equal(params[i].cpu(), twin_params[i].cpu())) << "parameter " << i;
  EXPECT_LE(cuda::memory_reserved(), cap);
}

TEST(CudaOutOfMemory, CapCountsCachedMemoryAndFreesItFirst) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  FractionGuard restore;
  cuda::synchronize();
  cuda::empty_cache();
  const auto u8 = TensorOptions(kUInt8).device(kCUDA);
  { Tensor warm = empty({64 * int64_t(kMiB)}, u8); }
  const size_t reserved = cuda::memory_reserved();
  ASSERT_GE(reserved, 64 * kMiB);  // cached, not in use
  // Room for 100 MiB more than what is reserved outside the cached 64 MiB block: a 96 MiB
  // tensor (which that block cannot hold) fits only once the cache is given back.
  const size_t cap = reserved - 64 * kMiB + 100 * kMiB;
  cuda::set_per_process_memory_fraction(double(cap) / double(cuda::mem_get_info().second));
  Tensor t = full({int64_t(24 * kMiB)}, 3.0f, kCUDA);  // 96 MiB
  EXPECT_EQ(t.sum().item<double>(), 3.0 * 24 * kMiB);
  EXPECT_LE(cuda::memory_reserved(), cap);
  // With it alive, 64 MiB more does not fit.
  EXPECT_THROW(empty({64 * int64_t(kMiB)}, u8), OutOfMemoryError);
  cuda::set_per_process_memory_fraction(1.0);
  Tensor more = empty({64 * int64_t(kMiB)}, u8);
  EXPECT_EQ(more.numel(), 64 * int64_t(kMiB));
}

}  // namespace
