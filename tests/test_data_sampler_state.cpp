// Samplers' state_dict()/load_state_dict(): a data loader whose sampler state (and, for an
// unseeded shuffle, the global generator) is restored, mid-epoch or at an epoch boundary, hands
// out exactly the batches an uninterrupted loader would have; bad states change nothing.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "error_of.h"

using namespace ember;
using ::testing::HasSubstr;
namespace samplers = ember::data::samplers;
namespace transforms = ember::data::transforms;

namespace {

// Example i: data [i], target i.
struct Indexed : data::datasets::Dataset<Indexed> {
  explicit Indexed(size_t n) : n(n) {}
  data::Example<> get(size_t i) override {
    return {tensor({static_cast<float>(i)}), scalar_tensor(static_cast<int64_t>(i), kInt64)};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
};

using Batches = std::vector<std::vector<int64_t>>;

template <class Loader>
Batches take(Loader& loader, size_t count) {  // count batches of a new epoch (all: SIZE_MAX)
  Batches out;
  for (auto& batch : loader) {
    const Tensor t = batch.target.contiguous();
    out.emplace_back(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
    if (out.size() == count) break;
  }
  return out;
}

Batches concat(Batches a, const Batches& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::map<std::string, Tensor> to_map(const OrderedDict<std::string, Tensor>& dict) {
  std::map<std::string, Tensor> m;
  for (const auto& item : dict) m.emplace(item.key(), item.value().clone());
  return m;
}

template <class Sampler>
auto make_loader(std::optional<uint64_t> seed, size_t workers = 0) {
  data::DataLoaderOptions options(3);
  options.workers(workers);
  if (seed) options.seed(*seed);
  return data::make_data_loader<Sampler>(Indexed(10).map(transforms::Stack<>()), options);
}

// Runs 3 epochs straight, and again interrupted after `stop` batches of epoch 2 (saving the
// sampler's state, through the loader or the sampler itself, and the generator's, then
// restoring them into a fresh loader made after other random draws): the batches must be the
// same.
template <class Sampler>
void check_resume(std::optional<uint64_t> seed, size_t stop, size_t workers = 0,
                  bool through_loader = false) {
  SCOPED_TRACE("stop " + std::to_string(stop) + ", workers " + std::to_string(workers));
  manual_seed(5);
  auto straight = make_loader<Sampler>(seed, workers);
  const Batches e1 = take(*straight, SIZE_MAX);
  const Batches e2 = take(*straight, SIZE_MAX);
  const Batches e3 = take(*straight, SIZE_MAX);

  manual_seed(5);
  auto first = make_loader<Sampler>(seed, workers);
  EXPECT_EQ(take(*first, SIZE_MAX), e1);
  const Batches head = stop == 0 ? Batches{} : take(*first, stop);
  const auto state = to_map(through_loader ? first->state_dict() : first->sampler().state_dict());
  const Tensor rng = get_rng_state();
  first.reset();

  manual_seed(99);
  randn({17});  // other draws before the restore
  auto resumed = make_loader<Sampler>(seed, workers);
  if (through_loader) {
    resumed->load_state_dict(state);
  } else {
    resumed->sampler().load_state_dict(state);
  }
  set_rng_state(rng);
  const Batches tail = take(*resumed, SIZE_MAX);
  if (stop == 0) {
    EXPECT_EQ(tail, e2);  // saved at the end of epoch 1: the next begin() starts epoch 2
  } else {
    EXPECT_EQ(concat(head, tail), e2);
  }
  EXPECT_EQ(take(*resumed, SIZE_MAX), e3);
}

TEST(SamplerState, RandomSamplerUnseededResumesMidEpochAndAtTheBoundary) {
  check_resume<samplers::RandomSampler>(std::nullopt, 2);
  check_resume<samplers::RandomSampler>(std::nullopt, 0);
}

TEST(SamplerState, RandomSamplerSeededResumesMidEpochAndAtTheBoundary) {
  check_resume<samplers::RandomSampler>(uint64_t{42}, 1);
  check_resume<samplers::RandomSampler>(uint64_t{42}, 0);
}

TEST(SamplerState, SequentialSamplerResumesMidEpoch) {
  check_resume<samplers::SequentialSampler>(std::nullopt, 2);
  check_resume<samplers::SequentialSampler>(std::nullopt, 0);
}

// With worker threads the sampler runs ahead of the loop; the loader's state_dict() counts
// the batches handed out instead.
TEST(SamplerState, LoaderStateIsExactWithWorkers) {
  for (size_t stop : {0, 1, 2, 3}) {
    check_resume<samplers::RandomSampler>(std::nullopt, stop, 2, true);
    check_resume<samplers::RandomSampler>(uint64_t{8}, stop, 3, true);
    check_resume<samplers::SequentialSampler>(std::nullopt, stop, 2, true);
    check_resume<samplers::RandomSampler>(std::nullopt, stop, 0, true);
  }
  // drop_last with a dropped partial batch, at the end of the epoch
  manual_seed(5);
  auto loader = data::make_data_loader(Indexed(10).map(transforms::Stack<>()),
                                       data::DataLoaderOptions(4).workers(2).drop_last(true));
  take(*loader, SIZE_MAX);
  EXPECT_EQ(to_map(loader->state_dict()).at("index").item<int64_t>(), 10);
  // and the sampler's own state is ahead mid-epoch
  take(*loader, 1);
  EXPECT_EQ(to_map(loader->state_dict()).at("index").item<int64_t>(), 4);
  EXPECT_GT(loader->sampler().index(), 4u);
}

TEST(SamplerState, SeededStateRestoresTheGeneratorWithoutTheGlobalOne) {
  samplers::RandomSampler a(50, uint64_t{3});
  a.reset();
  const auto state = to_map(a.state_dict());
  ASSERT_EQ(state.count("generator"), 1u);
  a.reset();
  const std::vector<size_t> next = a.permutation();

  samplers::RandomSampler b(50, uint64_t{3});
  b.load_state_dict(state);
  b.reset();  // the restored epoch was not started: continue it
  b.next(50);
  b.reset();
  EXPECT_EQ(b.permutation(), next);
}

TEST(SamplerState, KeysAndValues) {
  samplers::RandomSampler s(5, std::nullopt);
  s.next(2);
  const auto state = to_map(s.state_dict());
  EXPECT_EQ(state.size(), 2u);  // unseeded: no generator of its own
  EXPECT_EQ(state.at("index").item<int64_t>(), 2);
  EXPECT_EQ(state.at("permutation").dtype(), kInt64);
  EXPECT_EQ(state.at("permutation").numel(), 5);

  samplers::SequentialSampler q(7);
  q.next(3);
  const auto seq = to_map(q.state_dict());
  EXPECT_EQ(seq.at("size").item<int64_t>(), 7);
  EXPECT_EQ(seq.at("index").item<int64_t>(), 3);
}

TEST(SamplerState, BadStatesThrowAndChangeNothing) {
  samplers::RandomSampler s(4, std::nullopt);
  const std::vector<size_t> before = s.permutation();
  auto state = to_map(s.state_dict());

  auto wrong_size = state;
  wrong_size["permutation"] = tensor(std::vector<int64_t>{0, 1, 2});
  EXPECT_THAT(error_of([&] { s.load_state_dict(wrong_size); }),
              HasSubstr("RandomSampler::load_state_dict: 'permutation' has 3 indices"));
  auto repeated = state;
  repeated["permutation"] = tensor(std::vector<int64_t>{0, 1, 1, 3});
  EXPECT_THAT(error_of([&] { s.load_state_dict(repeated); }), HasSubstr("not a permutation"));
  auto far = state;
  far["index"] = scalar_tensor(int64_t{9}, kInt64);
  EXPECT_THAT(error_of([&] { s.load_state_dict(far); }), HasSubstr("'index' is 9"));
  auto extra = state;
  extra["epoch"] = scalar_tensor(int64_t{1}, kInt64);
  EXPECT_THAT(error_of([&] { s.load_state_dict(extra); }), HasSubstr("'epoch'"));
  auto missing = state;
  missing.erase("index");
  EXPECT_THAT(error_of([&] { s.load_state_dict(missing); }), HasSubstr("missing key 'index'"));
  // a seeded sampler's state needs a seeded sampler
  samplers::RandomSampler seeded(4, uint64_t{1});
  EXPECT_THAT(error_of([&] { s.load_state_dict(seeded.state_dict()); }), HasSubstr("'generator'"));
  EXPECT_EQ(s.permutation(), before);
  EXPECT_EQ(s.index(), 0u);

  samplers::SequentialSampler q(7);
  samplers::SequentialSampler other(8);
  EXPECT_THAT(error_of([&] { q.load_state_dict(other.state_dict()); }),
              HasSubstr("'size' is 8, but the sampler has 7"));
}

}  // namespace
