// ember::data transforms (Normalize, Stack, Lambda), datasets written by users (a custom
// Dataset, map chains) and the samplers, against hand-computed values.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "error_of.h"

using namespace ember;
using data::Example;
using ::testing::HasSubstr;
namespace transforms = ember::data::transforms;
namespace samplers = ember::data::samplers;

namespace {

// A dataset as users write it: example i has data [i, 10 i] (float) and target i (int64).
struct Squares : data::datasets::Dataset<Squares> {
  explicit Squares(size_t n) : n(n) {}
  Example<> get(size_t i) override {
    const auto v = static_cast<float>(i);
    return {tensor({v, 10 * v}), scalar_tensor(static_cast<int64_t>(i), kInt64)};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
};

// ---- Normalize ----

TEST(Normalize, ScalarMeanAndStddev) {
  transforms::Normalize<> norm(0.5, 0.25);
  Example<> e = norm.apply({tensor({0.0f, 0.5f, 1.0f}), tensor({int64_t{3}})});
  EXPECT_TRUE(equal(e.data, tensor({-2.0f, 0.0f, 2.0f})));
  EXPECT_TRUE(equal(e.target, tensor({int64_t{3}})));  // targets are left alone
  // Any shape, any floating dtype; bytes promote to float.
  Tensor d = norm(tensor({1.0, 0.0}, kFloat64).view({1, 2, 1}));
  EXPECT_EQ(d.dtype(), kFloat64);
  EXPECT_TRUE(equal(d, tensor({2.0, -2.0}, kFloat64).view({1, 2, 1})));
  Tensor b = norm(tensor({uint8_t{1}, uint8_t{3}}));
  EXPECT_EQ(b.dtype(), kFloat32);
  EXPECT_TRUE(equal(b, tensor({2.0f, 10.0f})));
}

TEST(Normalize, PerChannelAsLibTorch) {
  // data [2, 1, 2]: channel 0 = [1, 2], channel 1 = [3, 4]; mean {1, 2}, stddev {2, 4}.
  transforms::Normalize<> norm({1.0, 2.0}, {2.0, 4.0});
  Tensor x = tensor({1.0f, 2.0f, 3.0f, 4.0f}).view({2, 1, 2});
  EXPECT_TRUE(equal(norm(x), tensor({0.0f, 0.5f, 0.25f, 0.5f}).view({2, 1, 2})));
  // A batch [N, C, H, W] works too; one stddev broadcasts against two means.
  transforms::Normalize<> shared_std({1.0, 2.0}, 2.0);
  Tensor batch = x.unsqueeze(0).expand({3, 2, 1, 2});
  EXPECT_TRUE(equal(shared_std(batch),
                    tensor({0.0f, 0.5f, 0.5f, 1.0f}).view({1, 2, 1, 2}).expand({3, 2, 1, 2})));
}

TEST(Normalize, Errors) {
  EXPECT_THAT(error_of([] { transforms::Normalize<>(std::vector<double>{}, 1.0); }),
              HasSubstr("Normalize: expected at least one mean"));
  EXPECT_THAT(error_of([] {
                transforms::Normalize<>({1.0, 2.0}, {1.0, 2.0, 3.0});
              }),
              HasSubstr("mean [1, 2] and stddev [1, 2, 3] have different numbers of channels"));
  EXPECT_THAT(error_of([] {
                transforms::Normalize<>(0.5, {1.0, 0.0});
              }),
              HasSubstr("stddev [1, 0] has a zero at index 1"));
  transforms::Normalize<> rgb({0.1, 0.2, 0.3}, {1.0, 1.0, 1.0});
  EXPECT_THAT(error_of([&] {
                rgb(zeros({1, 28, 28}));
              }),
              HasSubstr("3 per-channel values need data of shape [..., 3, H, W], got [1, 28, 28]"));
  EXPECT_THAT(error_of([&] { rgb(zeros({3, 4})); }), HasSubstr("got [3, 4]"));
}

// ---- Stack ----

TEST(Stack, StacksDataAndTargets) {
  std::vector<Example<>> batch = {{tensor({1.0f, 2.0f}), scalar_tensor(7, kInt64)},
                                  {tensor({3.0f, 4.0f}), scalar_tensor(8, kInt64)},
                                  {tensor({5.0f, 6.0f}), scalar_tensor(9, kInt64)}};
  Example<> out = transforms::Stack<>().apply_batch(batch);
  EXPECT_TRUE(equal(out.data, tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).view({3, 2})));
  EXPECT_TRUE(equal(out.target, tensor(std::vector<int64_t>{7, 8, 9})));
}

TEST(Stack, NonContiguousMixedAndGradientInputsUseEmberStack) {
  Tensor m = arange(6, kFloat32).view({2, 3});
  std::vector<Example<>> batch = {{m.t(), zeros({2})}, {m.t() * 2, ones({2})}};
  Example<> out = transforms::Stack<>().apply_batch(batch);
  EXPECT_TRUE(equal(out.data, stack({m.t(), m.t() * 2})));
  EXPECT_TRUE(equal(out.target, stack({zeros({2}), ones({2})})));
  // Different dtypes promote as ember::stack does.
  Example<> mixed = transforms::Stack<>().apply_batch(
      {{tensor({1.0f}), tensor({1.0f})}, {tensor({2.0}, kFloat64), tensor({2.0f})}});
  EXPECT_EQ(mixed.data.dtype(), kFloat64);
  // Tensors that require grad keep their history.
  Tensor w = tensor({1.0f, 2.0f}, requires_grad());
  Example<> g = transforms::Stack<>().apply_batch({{w, zeros({})}, {w * 3, zeros({})}});
  g.data.sum().backward();
  EXPECT_TRUE(equal(w.grad(), tensor({4.0f, 4.0f})));
}

TEST(Stack, Errors) {
  EXPECT_THAT(error_of([] { transforms::Stack<>().apply_batch({}); }),
              HasSubstr("Stack: expected a non-empty batch"));
  EXPECT_THAT(
      error_of([] {
        transforms::Stack<>().apply_batch({{zeros({2}), zeros({})}, {zeros({3}), zeros({})}});
      }),
      HasSubstr("stack: expects each tensor to be equal size"));
}

// ---- Lambda ----

TEST(Lambda, TensorLambdaMapsDataOnly) {
  transforms::Lambda<> twice([](Tensor x) { return x * 2; });
  Example<> e = twice.apply({tensor({1.0f, 2.0f}), tensor({5.0f})});
  EXPECT_TRUE(equal(e.data, tensor({2.0f, 4.0f})));
  EXPECT_TRUE(equal(e.target, tensor({5.0f})));
  transforms::TensorLambda<> same([](Tensor x) { return x + 1; });
  EXPECT_TRUE(equal(same.apply({zeros({1}), zeros({1})}).data, ones({1})));
}

TEST(Lambda, ExampleAndBatchLambdasAsLibTorch) {
  transforms::Lambda<Example<>> swap([](Example<> e) { return Example<>(e.target, e.data); });
  Example<> e = swap.apply({zeros({1}), ones({1})});
  EXPECT_TRUE(equal(e.data, ones({1})));
  transforms::BatchLambda<std::vector<Example<>>, Tensor> count(
      [](std::vector<Example<>> b) { return scalar_tensor(static_cast<int64_t>(b.size())); });
  EXPECT_EQ(count.apply_batch({e, e, e}).item<int64_t>(), 3);
}

// ---- datasets written by users, map chains ----

TEST(CustomDataset, GetBatchAndMapChain) {
  Squares ds(5);
  EXPECT_EQ(ds.size(), std::optional<size_t>(5));
  std::vector<Example<>> batch = ds.get_batch({4, 1});
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_TRUE(equal(batch[0].data, tensor({4.0f, 40.0f})));
  EXPECT_EQ(batch[1].target.item<int64_t>(), 1);

  // map() on an lvalue copies the dataset; the original stays usable.
  auto mapped = ds.map(transforms::Normalize<>(1.0, 2.0)).map(transforms::Stack<>());
  Example<> b = mapped.get_batch({0, 3});
  EXPECT_TRUE(equal(b.data, tensor({-0.5f, -0.5f, 1.0f, 14.5f}).view({2, 2})));
  EXPECT_TRUE(equal(b.target, tensor(std::vector<int64_t>{0, 3})));
  EXPECT_EQ(mapped.size(), std::optional<size_t>(5));
  EXPECT_EQ(mapped.dataset().dataset().n, 5u);
  EXPECT_TRUE(equal(ds.get(2).data, tensor({2.0f, 20.0f})));

  // On an rvalue it moves; a Lambda in the chain sees each example.
  auto chain = Squares(3)
                   .map(transforms::Lambda<>([](Tensor x) { return x.neg(); }))
                   .map(transforms::Stack<>());
  EXPECT_TRUE(equal(chain.get_batch({2}).data, tensor({-2.0f, -20.0f}).view({1, 2})));
}

TEST(CustomDataset, OverriddenGetBatch) {
  // A dataset may read a whole batch at once.
  struct Rows : data::datasets::Dataset<Rows> {
    Tensor table = arange(12, kFloat32).view({6, 2});
    Example<> get(size_t i) override { return {table[int64_t(i)], zeros({})}; }
    std::vector<Example<>> get_batch(ArrayRef<size_t> idx) override {
      std::vector<int64_t> i(idx.begin(), idx.end());
      Tensor rows = table.index_select(0, tensor(i));
      return {{rows, zeros({rows.size(0)})}};
    }
    std::optional<size_t> size() const override { return 6; }
  };
  auto batch = Rows().get_batch({5, 0});
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_TRUE(equal(batch[0].data, tensor({10.0f, 11.0f, 0.0f, 1.0f}).view({2, 2})));
}

// ---- samplers ----

std::vector<size_t> drain(samplers::Sampler<>& s, size_t batch_size,
                          std::vector<size_t>* sizes = nullptr) {
  std::vector<size_t> all;
  while (auto b = s.next(batch_size)) {
    if (sizes) sizes->push_back(b->size());
    all.insert(all.end(), b->begin(), b->end());
  }
  return all;
}

bool is_permutation_of_range(std::vector<size_t> v, size_t n) {
  std::sort(v.begin(), v.end());
  std::vector<size_t> r(n);
  std::iota(r.begin(), r.end(), size_t{0});
  return v == r;
}

TEST(Samplers, SequentialInOrderWithAShortLastBatch) {
  samplers::SequentialSampler s(7);
  std::vector<size_t> sizes;
  EXPECT_EQ(drain(s, 3, &sizes), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 3, 1}));
  EXPECT_EQ(s.index(), 7u);
  EXPECT_FALSE(s.next(3).has_value());
  s.reset();
  EXPECT_EQ(s.next(2), (std::vector<size_t>{0, 1}));
  s.reset(2);
  EXPECT_EQ(drain(s, 5), (std::vector<size_t>{0, 1}));
  EXPECT_THAT(error_of([&] { s.next(0); }), HasSubstr("batch_size must be positive"));
}

TEST(Samplers, RandomGivesAPermutationPerEpoch) {
  samplers::RandomSampler s(100, /*seed=*/7);
  const std::vector<size_t> first = drain(s, 32);
  EXPECT_TRUE(is_permutation_of_range(first, 100));
  EXPECT_EQ(first, s.permutation());
  s.reset();
  const std::vector<size_t> second = drain(s, 32);
  EXPECT_TRUE(is_permutation_of_range(second, 100));
  EXPECT_NE(first, second);  // a new order each epoch
  std::vector<size_t> identity(100);
  std::iota(identity.begin(), identity.end(), size_t{0});
  EXPECT_NE(first, identity);
  s.reset(10);
  EXPECT_TRUE(is_permutation_of_range(drain(s, 3), 10));
}

TEST(Samplers, RandomSeedingIsDeterministic) {
  samplers::RandomSampler a(50, 123), b(50, 123), c(50, 124);
  for (int epoch = 0; epoch < 3; ++epoch) {
    manual_seed(epoch);  // a seeded sampler ignores the global generator
    const auto ea = drain(a, 8), eb = drain(b, 8), ec = drain(c, 8);
    EXPECT_EQ(ea, eb) << epoch;
    EXPECT_NE(ea, ec) << epoch;
    a.reset();
    b.reset();
    c.reset();
  }
  // Unseeded samplers draw from the global generator: manual_seed repeats them.
  manual_seed(5);
  samplers::RandomSampler u(50);
  const auto u1 = drain(u, 50);
  manual_seed(5);
  samplers::RandomSampler v(50);
  EXPECT_EQ(drain(v, 50), u1);
  EXPECT_TRUE(is_permutation_of_range(u1, 50));
}

TEST(Samplers, RandomWithoutShuffleAndEdgeCases) {
  samplers::RandomSampler s(5, std::nullopt, /*shuffle=*/false);
  EXPECT_EQ(drain(s, 2), (std::vector<size_t>{0, 1, 2, 3, 4}));
  samplers::RandomSampler empty(0, 1);
  EXPECT_FALSE(empty.next(4).has_value());
  EXPECT_THAT(error_of([] { samplers::RandomSampler(-1); }), HasSubstr("non-negative, got -1"));
}

}  // namespace
