// Samplers, as LibTorch's torch::data::samplers: they hand the data loader the indices of
// each batch. SequentialSampler: 0, 1, 2, ...; RandomSampler: a new permutation per epoch.
// Both save and restore their position with state_dict()/load_state_dict() (samplers.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/ordered_dict.h>

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

  // ember extension (LibTorch's samplers have save/load to serialize archives instead): the
  // position, as "size" and "index" (0-dim int64), for ember::Checkpoint. After
  // load_state_dict, the next reset() (the data loader's begin()) continues the restored epoch
  // where it stopped when it was unfinished, and starts a new one as usual when it was done.
  // A size other than the sampler's throws ember::Error and changes nothing.
  OrderedDict<std::string, Tensor> state_dict() const;
  void load_state_dict(const std::map<std::string, Tensor>& state);
  void load_state_dict(const OrderedDict<std::string, Tensor>& state);

 private:
  size_t size_;
  size_t index_ = 0;
  bool resume_ = false;  // the next reset() keeps the restored epoch
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

  // ember extension, as SequentialSampler's: "index" (0-dim int64), "permutation" (this
  // epoch's order, 1-D int64) and, for a seeded sampler, "generator" (its std::mt19937_64
  // state in the standard's text form, as uint8 bytes), so that the restored sampler hands
  // out the rest of the epoch and then the same epoch orders as the saved one would have. An
  // unseeded sampler draws each epoch's order from the global generator: restore that too
  // (ember::set_rng_state; ember::Checkpoint does by default) for the following epochs to
  // match. After load_state_dict, the next reset() continues an unfinished restored epoch, as
  // SequentialSampler's. A permutation of another size or that is not one, a missing or
  // unexpected key, throws ember::Error and changes nothing.
  OrderedDict<std::string, Tensor> state_dict() const;
  void load_state_dict(const std::map<std::string, Tensor>& state);
  void load_state_dict(const OrderedDict<std::string, Tensor>& state);

 private:
  std::optional<uint64_t> seed_;
  bool shuffle_;
  std::mt19937_64 engine_;
  std::vector<size_t> indices_;
  size_t index_ = 0;
  bool resume_ = false;  // the next reset() keeps the restored epoch
};

}  // namespace samplers
}  // namespace data
}  // namespace ember
