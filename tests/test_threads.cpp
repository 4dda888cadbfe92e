// The thread-safety contract (docs/reliability.md, "Threads"): no-grad inference of one model
// from 4 threads, separate models trained in separate threads, and thread-local grad mode, on
// the CPU (inference also on CUDA, a stream per thread), each checked bit for bit against the
// same work done on one thread.
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace ember;
namespace F = nn::functional;

// Runs body(t) on `n` threads at once and joins them; a failure inside a thread is recorded
// by gtest as usual (EXPECT_* is thread-safe on POSIX). EMBER_TEST_THREADS_ONE_AT_A_TIME=1
// joins each thread before starting the next (same threads, streams and kernels): for
// compute-sanitizer's racecheck, which loses track of launches from threads running at once.
void on_threads(int n, const std::function<void(int)>& body) {
  const char* serial = std::getenv("EMBER_TEST_THREADS_ONE_AT_A_TIME");
  const bool one_at_a_time = serial != nullptr && std::string(serial) == "1";
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back(body, t);
    if (one_at_a_time) threads.back().join();
  }
  for (auto& th : threads)
    if (th.joinable()) th.join();
}

nn::Sequential make_cnn() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)), nn::BatchNorm2d(8),
                        nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(8 * 14 * 14, 64),
                        nn::ReLU(), nn::Linear(64, 10));
}

nn::Sequential make_mlp() {
  return nn::Sequential(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
}

// One model, eval mode, NoGradGuard in every thread: each thread's outputs equal those computed
// before on the main thread, bit for bit (the thread pool serves several callers at once). On
// CUDA each thread runs on its own stream from the pool.
void expect_shared_inference_is_exact(nn::Sequential model, std::vector<int64_t> shape,
                                      Device device = kCPU) {
  manual_seed(0);
  model->to(device);
  model->eval();
  constexpr int kThreads = 4, kBatches = 6;
  std::vector<Tensor> inputs, want;
  {
    NoGradGuard no_grad;
    for (int i = 0; i < kThreads * kBatches; ++i) {
      inputs.push_back(randn(shape).to(device));
      want.push_back(model->forward(inputs.back()).cpu());
    }
  }
  std::vector<std::vector<Tensor>> got(kThreads);
  on_threads(kThreads, [&](int t) {
    NoGradGuard no_grad;
    std::unique_ptr<cuda::StreamGuard> own_stream;
    if (device.is_cuda())
      own_stream = std::make_unique<cuda::StreamGuard>(cuda::getStreamFromPool());
    for (int round = 0; round < 3; ++round) {  // interleave with the other threads' batches
      for (int b = 0; b < kBatches; ++b)
        got[t].push_back(model->forward(inputs[t * kBatches + b]).cpu());
    }
  });
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(got[t].size(), size_t{3 * kBatches});
    for (size_t i = 0; i < got[t].size(); ++i) {
      const Tensor& w = want[t * kBatches + i % kBatches];
      EXPECT_TRUE(equal(got[t][i], w)) << "thread " << t << " batch " << i;
      EXPECT_FALSE(got[t][i].requires_grad());
    }
  }
}

TEST(Threads, OneModelNoGradInferenceFromFourThreadsMlp) {
  expect_shared_inference_is_exact(make_mlp(), {32, 784});
}

TEST(Threads, OneModelNoGradInferenceFromFourThreadsCnn) {
  expect_shared_inference_is_exact(make_cnn(), {8, 1, 28, 28});
}

TEST(Threads, OneModelNoGradInferenceFromFourThreadsOnCudaStreams) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  expect_shared_inference_is_exact(make_mlp(), {32, 784}, kCUDA);
  expect_shared_inference_is_exact(make_cnn(), {8, 1, 28, 28}, kCUDA);
}

// Training: separate models, optimizers and data per thread give the same parameters as the
// same trainings run one after the other.
TEST(Threads, SeparateModelsTrainInSeparateThreads) {
  constexpr int kThreads = 4, kSteps = 8;
  auto train = [](nn::Sequential& model, const std::vector<Tensor>& xs,
                  const std::vector<Tensor>& ys) {
    optim::SGD opt(model->parameters(), optim::SGDOptions(0.05).momentum(0.9));
    for (size_t i = 0; i < xs.size(); ++i) {
      opt.zero_grad();
      F::cross_entropy(model->forward(xs[i]), ys[i]).backward();
      opt.step();
    }
  };
  std::vector<nn::Sequential> sequential, parallel;
  std::vector<std::vector<Tensor>> xs(kThreads), ys(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    manual_seed(t);
    sequential.push_back(make_mlp());
    manual_seed(t);
    parallel.push_back(make_mlp());
    for (int s = 0; s < kSteps; ++s) {
      xs[t].push_back(randn({16, 784}));
      ys[t].push_back(randint(10, {16}));
    }
  }
  for (int t = 0; t < kThreads; ++t) train(sequential[t], xs[t], ys[t]);
  on_threads(kThreads, [&](int t) { train(parallel[t], xs[t], ys[t]); });
  for (int t = 0; t < kThreads; ++t) {
    const auto want = sequential[t]->parameters(), got = parallel[t]->parameters();
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(equal(got[i], want[i])) << "thread " << t << " parameter " << i;
    }
  }
}

// Grad mode is per thread: a NoGradGuard in one thread leaves another thread recording.
TEST(Threads, GradModeIsPerThread) {
  Tensor w = ones({3}).requires_grad_();
  std::atomic<int> step{0};
  bool other_recorded = false;
  std::thread guarded([&] {
    NoGradGuard no_grad;
    step = 1;
    while (step.load() != 2) std::this_thread::yield();  // hold the guard while the other runs
    EXPECT_FALSE((w * 2).requires_grad());
  });
  std::thread plain([&] {
    while (step.load() != 1) std::this_thread::yield();
    other_recorded = (w * 2).requires_grad();
    step = 2;
  });
  guarded.join();
  plain.join();
  EXPECT_TRUE(other_recorded);
  EXPECT_TRUE(GradMode::is_enabled());
}

}  // namespace
