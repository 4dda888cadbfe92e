// Samplers, as LibTorch's torch::data::samplers: they hand the data loader the indices of
// each batch. SequentialSampler: 0, 1, 2, ...; RandomSampler: a new permutation per epoch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace ember {
namespace data {
namespace samplers {

template <class BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;
  // Starts a new epoch (the loader calls it at every begin()), optionally with a new size.
  virtual void reset(std::optional<size_t> new_size = std::nullopt) = 0;
  // The next batch_size indices (fewer at the end of the epoch), nullopt once exhausted.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size) : size_(size) {}

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const { return index_; }  // indices handed out this epoch

 private:
  size_t size_;
  size_t index_ = 0;
};

// Every index once per epoch, in a new random order each epoch. Unseeded, each permutation
// draws from ember's global generator (ember::manual_seed makes runs repeatable, as in
// LibTorch); seeded, the sampler has its own generator, so the same seed gives the same
// sequence of epoch orders whatever else draws random numbers. shuffle = false (the data
// loader's shuffle(false)) hands out 0, 1, 2, ... instead.
class RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(int64_t size, std::optional<uint64_t> seed = std::nullopt,
                         bool shuffle = true);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  size_t index() const { return index_; }
  const std::vector<size_t>& permutation() const { return indices_; }  // this epoch's order

 private:
  std::optional<uint64_t> seed_;
  bool shuffle_;
  std::mt19937_64 engine_;
  std::vector<size_t> indices_;
  size_t index_ = 0;
};

}  // namespace samplers
}  // namespace data
}  // namespace ember
