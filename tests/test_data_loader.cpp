// ember::data::make_data_loader: every index once per epoch, batch sizes and drop_last, the same
// batches with 0 and N worker threads whatever their timing, early breaks and destruction
// mid-epoch without hangs, worker exceptions reaching the loop, several epochs, max_jobs.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <numeric>
#include <random>
#include <thread>

#include "data_idx.h"

using namespace ember;
using data::DataLoaderOptions;
using data::Example;
using ::testing::HasSubstr;
namespace transforms = ember::data::transforms;
namespace samplers = ember::data::samplers;

namespace {

// Example i: data [i] (float32), target i (int64). Copies share the call counter.
struct Indexed : data::datasets::Dataset<Indexed> {
  explicit Indexed(size_t n) : n(n) {}
  Example<> get(size_t i) override {
    if (static_cast<int64_t>(i) == throw_at)
      throw Error("Indexed: bad example " + std::to_string(i));
    if (max_delay_us > 0) {  // deterministic pseudo-random delays shuffle the finishing order
      std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % max_delay_us));
    }
    calls->fetch_add(1);
    return {tensor({static_cast<float>(i)}), scalar_tensor(static_cast<int64_t>(i), kInt64)};
  }
  std::optional<size_t> size() const override { return n; }

  size_t n;
  int64_t throw_at = -1;
  int max_delay_us = 0;
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
};

using Batches = std::vector<std::vector<int64_t>>;

std::vector<int64_t> targets_of(const Example<>& batch) {
  const Tensor t = batch.target.contiguous();
  return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
}

template <class Loader>
Batches epoch(Loader& loader) {
  Batches out;
  for (auto& batch : loader) {
    // data and target travel together
    EXPECT_TRUE(equal(batch.data.view({-1}), batch.target.to(kFloat32)));
    out.push_back(targets_of(batch));
  }
  return out;
}

std::vector<int64_t> flat_sorted(const Batches& b) {
  std::vector<int64_t> all;
  for (const auto& x : b) all.insert(all.end(), x.begin(), x.end());
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<int64_t> range(int64_t n) {
  std::vector<int64_t> r(static_cast<size_t>(n));
  std::iota(r.begin(), r.end(), int64_t{0});
  return r;
}

std::vector<size_t> sizes_of(const Batches& b) {
  std::vector<size_t> s;
  for (const auto& x : b) s.push_back(x.size());
  return s;
}

TEST(DataLoader, EveryIndexOncePerEpoch) {
  for (size_t workers : {0, 1, 3}) {
    auto loader = data::make_data_loader(Indexed(103).map(transforms::Stack<>()),
                                         DataLoaderOptions().batch_size(10).workers(workers));
    for (int e = 0; e < 3; ++e) {
      const Batches b = epoch(*loader);
      EXPECT_EQ(flat_sorted(b), range(103)) << workers << " workers, epoch " << e;
      EXPECT_EQ(b.size(), 11u);
    }
  }
}

TEST(DataLoader, BatchSizesAndDropLast) {
  auto loader = data::make_data_loader<samplers::SequentialSampler>(
      Indexed(10).map(transforms::Stack<>()), DataLoaderOptions(3));
  const Batches b = epoch(*loader);
  EXPECT_EQ(sizes_of(b), (std::vector<size_t>{3, 3, 3, 1}));
  EXPECT_EQ(b[3], (std::vector<int64_t>{9}));
  for (size_t workers : {0, 2}) {
    auto dropping =
        data::make_data_loader(Indexed(10).map(transforms::Stack<>()),
                               DataLoaderOptions().batch_size(3).drop_last(true).workers(workers));
    const Batches d = epoch(*dropping);
    EXPECT_EQ(sizes_of(d), (std::vector<size_t>{3, 3, 3})) << workers;
  }
  auto empty = data::make_data_loader(Indexed(0).map(transforms::Stack<>()),
                                      DataLoaderOptions().batch_size(4).workers(2));
  EXPECT_TRUE(epoch(*empty).empty());
  EXPECT_TRUE(empty->begin() == empty->end());
}

TEST(DataLoader, SequentialSamplerAndShuffleFalseKeepTheOrder) {
  auto sequential = data::make_data_loader<samplers::SequentialSampler>(
      Indexed(7).map(transforms::Stack<>()), DataLoaderOptions().batch_size(4).workers(2));
  EXPECT_EQ(epoch(*sequential), (Batches{{0, 1, 2, 3}, {4, 5, 6}}));
  auto unshuffled = data::make_data_loader(Indexed(7).map(transforms::Stack<>()),
                                           DataLoaderOptions().batch_size(4).shuffle(false));
  EXPECT_EQ(epoch(*unshuffled), (Batches{{0, 1, 2, 3}, {4, 5, 6}}));
  // The default shuffles.
  auto shuffled = data::make_data_loader(Indexed(50).map(transforms::Stack<>()),
                                         DataLoaderOptions().batch_size(50).seed(1));
  EXPECT_NE(epoch(*shuffled)[0], range(50));
}

TEST(DataLoader, SameBatchesWithAndWithoutWorkersWhateverTheTiming) {
  Indexed slow(64);
  slow.max_delay_us = 300;
  auto batches_with = [&](size_t workers) {
    auto loader = data::make_data_loader(
        slow.map(transforms::Stack<>()),
        DataLoaderOptions().batch_size(5).workers(workers).max_jobs(6).seed(42));
    Batches all;
    for (int e = 0; e < 2; ++e) {
      Batches b = epoch(*loader);
      all.insert(all.end(), b.begin(), b.end());
    }
    return all;
  };
  const Batches inline_batches = batches_with(0);
  EXPECT_EQ(batches_with(1), inline_batches);
  EXPECT_EQ(batches_with(4), inline_batches);
  // Two epochs of one loader are two different orders.
  EXPECT_NE(Batches(inline_batches.begin(), inline_batches.begin() + 13),
            Batches(inline_batches.begin() + 13, inline_batches.end()));
}

TEST(DataLoader, UnseededFollowsManualSeed) {
  auto run = [] {
    manual_seed(3);
    auto loader = data::make_data_loader(Indexed(30).map(transforms::Stack<>()),
                                         DataLoaderOptions().batch_size(7).workers(2));
    return epoch(*loader);
  };
  EXPECT_EQ(run(), run());
}

TEST(DataLoader, EarlyBreakThenANewEpoch) {
  Indexed slow(200);
  slow.max_delay_us = 500;
  auto loader = data::make_data_loader(slow.map(transforms::Stack<>()),
                                       DataLoaderOptions().batch_size(4).workers(3).max_jobs(8));
  int seen = 0;
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.target.numel(), 4);
    if (++seen == 2) break;
  }
  // Iterating again starts over: batches of the abandoned epoch never show up.
  EXPECT_EQ(flat_sorted(epoch(*loader)), range(200));
  for (auto& batch : *loader) {
    (void)batch;
    break;
  }
  EXPECT_EQ(flat_sorted(epoch(*loader)), range(200));
}

TEST(DataLoader, DestroyedMidEpochWithoutHanging) {
  Indexed slow(1000);
  slow.max_delay_us = 2000;
  const auto start = std::chrono::steady_clock::now();
  {
    auto loader = data::make_data_loader(slow.map(transforms::Stack<>()),
                                         DataLoaderOptions().batch_size(2).workers(4).max_jobs(16));
    auto it = loader->begin();
    ++it;
  }  // workers finish the batch they are on and exit; queued work is dropped
  {
    auto never_iterated =
        data::make_data_loader(slow.map(transforms::Stack<>()), DataLoaderOptions().workers(2));
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(s, 5.0);
  EXPECT_LT(slow.calls->load(), 1000);
}

TEST(DataLoader, WorkerExceptionsReachTheLoop) {
  for (size_t workers : {0, 1, 3}) {
    Indexed bad(40);
    bad.throw_at = 17;
    auto loader = data::make_data_loader<samplers::SequentialSampler>(
        bad.map(transforms::Stack<>()), DataLoaderOptions().batch_size(4).workers(workers));
    int batches = 0;
    try {
      for (auto& batch : *loader) {
        (void)batch;
        ++batches;
      }
      ADD_FAILURE() << "no exception with " << workers << " workers";
    } catch (const ember::Error& e) {  // the worker's own exception, type and message
      EXPECT_THAT(e.what(), HasSubstr("Indexed: bad example 17"));
    }
    EXPECT_EQ(batches, 4) << workers;  // batches 0-3 came, in order, before the bad one
    // The loader still works: the next epoch starts from scratch and fails at the same place.
    EXPECT_THROW(epoch(*loader), ember::Error);
  }
}

TEST(DataLoader, MaxJobsBoundsWorkAhead) {
  Indexed ds(60);
  auto loader = data::make_data_loader<samplers::SequentialSampler>(
      ds.map(transforms::Stack<>()), DataLoaderOptions().batch_size(2).workers(2).max_jobs(3));
  int consumed = 0;
  for (auto& batch : *loader) {
    (void)batch;
    ++consumed;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a slow consumer
    // Requested so far: 3 ahead at the start, one more per batch taken.
    EXPECT_LE(ds.calls->load(), 2 * (3 + consumed));
  }
  EXPECT_EQ(consumed, 30);
}

TEST(DataLoader, Timeout) {
  struct Stuck : data::datasets::Dataset<Stuck> {
    Example<> get(size_t) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      return {zeros({1}), zeros({})};
    }
    std::optional<size_t> size() const override { return 2; }
  };
  auto loader =
      data::make_data_loader(Stuck().map(transforms::Stack<>()),
                             DataLoaderOptions().workers(1).timeout(std::chrono::milliseconds(20)));
  try {
    loader->begin();
    ADD_FAILURE() << "no timeout";
  } catch (const ember::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("did not arrive within 20 ms"));
  }
}

// Not copyable: the workers share it under a lock.
struct Unique : data::datasets::Dataset<Unique> {
  Unique() = default;
  Unique(Unique&&) = default;
  Unique(const Unique&) = delete;
  Example<> get(size_t i) override {
    return {tensor({static_cast<float>(*base + static_cast<int64_t>(i))}),
            scalar_tensor(*base + static_cast<int64_t>(i), kInt64)};
  }
  std::optional<size_t> size() const override { return 25; }
  std::unique_ptr<int64_t> base = std::make_unique<int64_t>(0);
};

TEST(DataLoader, NonCopyableDatasetWithWorkers) {
  auto loader = data::make_data_loader(Unique().map(transforms::Stack<>()),
                                       DataLoaderOptions().batch_size(4).workers(3));
  EXPECT_EQ(flat_sorted(epoch(*loader)), range(25));
}

TEST(DataLoader, ExplicitSamplerAndUnstackedBatches) {
  // Without Stack a batch is a std::vector of examples.
  auto loader = data::make_data_loader(Indexed(5), samplers::SequentialSampler(5),
                                       DataLoaderOptions().batch_size(2).workers(1));
  std::vector<size_t> sizes;
  for (std::vector<Example<>>& batch : *loader) sizes.push_back(batch.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
  EXPECT_EQ(loader->options().batch_size(), 2u);
}

TEST(DataLoader, Errors) {
  struct Unsized : data::datasets::Dataset<Unsized> {
    Example<> get(size_t) override { return {}; }
    std::optional<size_t> size() const override { return std::nullopt; }
  };
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const ember::Error& e) {
      return e.what();
    }
    return "did not throw";
  };
  EXPECT_THAT(message([] { data::make_data_loader(Unsized()); }),
              HasSubstr("the dataset has no size()"));
  EXPECT_THAT(message([] { data::make_data_loader(Indexed(3), DataLoaderOptions(0)); }),
              HasSubstr("batch_size must be positive"));
  EXPECT_THAT(message([] {
                data::make_data_loader(Indexed(3), DataLoaderOptions().workers(2).max_jobs(0));
              }),
              HasSubstr("max_jobs must be positive with 2 workers"));
  auto loader = data::make_data_loader(Indexed(1).map(transforms::Stack<>()));
  auto it = loader->begin();
  ++it;
  EXPECT_TRUE(it == loader->end());
  EXPECT_THAT(message([&] { *it; }), HasSubstr("dereferenced past the end"));
}

TEST(DataLoader, PinMemory) {
  auto loader =
      data::make_data_loader(Indexed(9).map(transforms::Stack<>()),
                             DataLoaderOptions().batch_size(4).workers(2).pin_memory(true));
  const bool gpu = cuda::is_available();
  int n = 0;
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.data.is_pinned(), gpu);  // a no-op without a GPU
    EXPECT_EQ(batch.target.is_pinned(), gpu);
    if (gpu) {
      Tensor on_gpu = batch.data.to(kCUDA, /*non_blocking=*/true);
      EXPECT_TRUE(equal(on_gpu.cpu(), batch.data));
    }
    ++n;
  }
  EXPECT_EQ(n, 3);
}

TEST(DataLoader, MnistPipeline) {
  data_test::TempDir dir;
  data_test::write_split(dir, "train", 10);
  auto train = data::datasets::MNIST(dir.path())
                   .map(transforms::Normalize<>(0.5, 0.25))
                   .map(transforms::Stack<>());
  auto loader = data::make_data_loader<samplers::SequentialSampler>(
      std::move(train), DataLoaderOptions().batch_size(4).workers(2));
  std::vector<int64_t> sizes;
  for (auto& batch : *loader) {
    EXPECT_EQ(batch.data.sizes().slice(1, 3), IntArrayRef({1, 28, 28}));
    EXPECT_EQ(batch.target.dtype(), kInt64);
    sizes.push_back(batch.data.size(0));
    if (sizes.size() == 1) {
      const float expected = (data_test::pixel(2, 3, 4) / 255.0f - 0.5f) / 0.25f;
      EXPECT_NEAR(batch.data[2][0][3][4].item<float>(), expected, 1e-6);
      EXPECT_EQ(batch.target[2].item<int64_t>(), 2);
    }
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2}));
}

}  // namespace
