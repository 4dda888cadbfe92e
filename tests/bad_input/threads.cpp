// Bad-input suite, threads: set_num_threads with counts the CPU pool refuses (0, negative,
// beyond its 1024 limit), errors raised on worker threads (the data loader's), and data loaders
// asking for more threads than can exist. Each case asserts ember::Error and its message.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <thread>
#include <vector>

#include "bad_input.h"

using namespace ember;
using bad_input::expect_error;

namespace {

TEST(BadThreads, SetNumThreadsHundredThousand) {
  expect_error([] { set_num_threads(100000); }, {"set_num_threads", "100000", "1024"});
}

TEST(BadThreads, SetNumThreadsZero) {
  expect_error([] { set_num_threads(0); }, {"set_num_threads", "positive", "got 0"});
}

TEST(BadThreads, SetNumThreadsMinusOne) {
  expect_error([] { set_num_threads(-1); }, {"set_num_threads", "got -1"});
}

TEST(BadThreads, SetNumThreadsIntMin) {
  expect_error([] { set_num_threads(INT_MIN); }, {"set_num_threads", "-2147483648"});
}

TEST(BadThreads, SetNumThreadsIntMax) {
  expect_error([] { set_num_threads(INT_MAX); }, {"set_num_threads", "2147483647", "1024"});
}

TEST(BadThreads, SetNumThreadsJustAboveTheLimit) {
  expect_error([] { set_num_threads(1025); }, {"set_num_threads", "1025"});
}

TEST(BadThreads, RefusedCallKeepsThePool) {
  set_num_threads(2);
  expect_error([] { set_num_threads(100000); }, {"set_num_threads"});
  EXPECT_EQ(get_num_threads(), 2);
  // a large op after the refusal runs on the pool as before (and gives the right sum)
  const Tensor x = ones({1 << 20});
  EXPECT_EQ(x.sum().item<float>(), float(1 << 20));
}

TEST(BadThreads, ConcurrentBadCallsEachThrow) {
  const int before = get_num_threads();
  std::vector<std::thread> threads;
  std::vector<std::string> messages(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([i, &messages] {
      try {
        set_num_threads(i % 2 == 0 ? -i : 100000 + i);
      } catch (const Error& e) {
        messages[static_cast<size_t>(i)] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 4; ++i) {
    EXPECT_NE(messages[static_cast<size_t>(i)].find("set_num_threads"), std::string::npos) << i;
  }
  EXPECT_EQ(get_num_threads(), before);
}

// A dataset whose example 3 is broken: get(3) throws ember::Error on a loader's worker.
struct BrokenAtThree : data::datasets::Dataset<BrokenAtThree> {
  data::Example<> get(size_t i) override {
    EMBER_CHECK(i != 3, "BrokenAtThree: example ", i, " is corrupt");
    return {full({2}, static_cast<double>(i)), tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return 8; }
};

TEST(BadThreads, WorkerErrorReachesTheCaller) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      BrokenAtThree().map(data::transforms::Stack<>()), data::DataLoaderOptions(2).workers(2));
  expect_error(
      [&] {
        for (auto& batch : *loader) (void)batch;
      },
      {"BrokenAtThree", "example 3"});
}

TEST(BadThreads, LoaderWorkersSizeMax) {
  // not a std::length_error from reserving SIZE_MAX threads, nor an endless dataset copy
  expect_error(
      [] {
        data::make_data_loader(BrokenAtThree().map(data::transforms::Stack<>()),
                               data::DataLoaderOptions(2).workers(SIZE_MAX));
      },
      {"DataLoader", "18446744073709551615", "workers"});
}

TEST(BadThreads, LoaderWorkersJustAboveTheLimit) {
  expect_error(
      [] {
        data::make_data_loader(BrokenAtThree().map(data::transforms::Stack<>()),
                               data::DataLoaderOptions(2).workers(1025));
      },
      {"DataLoader", "1025", "workers"});
}

}  // namespace
