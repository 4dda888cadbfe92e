// SequentialSampler and RandomSampler. RandomSampler's permutation is a Fisher-Yates shuffle
// over std::mt19937_64 (whose output the standard fixes, unlike std::shuffle's), so a seeded
// order is the same with every standard library.
#include <ember/data/samplers.h>

#include <algorithm>
#include <numeric>

#include <ember/core/error.h>
#include <ember/core/functions.h>

namespace ember {
namespace data {
namespace samplers {

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  EMBER_CHECK(batch_size > 0, "SequentialSampler::next: batch_size must be positive");
  const size_t n = std::min(batch_size, size_ - index_);
  if (n == 0) return std::nullopt;
  std::vector<size_t> batch(n);
  std::iota(batch.begin(), batch.end(), index_);
  index_ += n;
  return batch;
}

RandomSampler::RandomSampler(int64_t size, std::optional<uint64_t> seed, bool shuffle)
    : seed_(seed), shuffle_(shuffle), engine_(seed.value_or(0)) {
  EMBER_CHECK(size >= 0, "RandomSampler: size must be non-negative, got ", size);
  indices_.resize(static_cast<size_t>(size));
  reset();
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) indices_.resize(*new_size);
  const size_t n = indices_.size();
  index_ = 0;
  if (!shuffle_) {
    std::iota(indices_.begin(), indices_.end(), size_t{0});
    return;
  }
  if (!seed_) {
    // The global generator, as LibTorch's torch::randperm: manual_seed repeats the orders.
    if (n == 0) return;
    const Tensor perm = randperm(static_cast<int64_t>(n));
    const int64_t* p = perm.data_ptr<int64_t>();
    for (size_t i = 0; i < n; ++i) indices_[i] = static_cast<size_t>(p[i]);
    return;
  }
  std::iota(indices_.begin(), indices_.end(), size_t{0});
  for (size_t i = n; i > 1; --i) {
    const size_t j = static_cast<size_t>(engine_() % i);  // bias < i / 2^64: negligible
    std::swap(indices_[i - 1], indices_[j]);
  }
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  EMBER_CHECK(batch_size > 0, "RandomSampler::next: batch_size must be positive");
  const size_t n = std::min(batch_size, indices_.size() - index_);
  if (n == 0) return std::nullopt;
  std::vector<size_t> batch(indices_.begin() + index_, indices_.begin() + index_ + n);
  index_ += n;
  return batch;
}

}  // namespace samplers
}  // namespace data
}  // namespace ember
