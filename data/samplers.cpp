// SequentialSampler and RandomSampler. RandomSampler's permutation is a Fisher-Yates shuffle
// over std::mt19937_64 (whose output the standard fixes, unlike std::shuffle's), so a seeded
// order is the same with every standard library.
#include <ember/data/samplers.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <sstream>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/optim/state_dict.h>

namespace ember {
namespace data {
namespace samplers {

namespace {

using optim::detail::StateReader;
using optim::detail::StateWriter;

// Reads a sampler's state with `read` (which reads every key and returns what assigns them),
// then checks that no key is left over; errors start with `who`.
void read_state(const char* who, const std::map<std::string, Tensor>& state,
                const std::function<std::function<void()>(StateReader&)>& read) {
  std::function<void()> assign;
  optim::detail::prefix_errors(who, [&] {
    std::set<std::string> used;
    StateReader in(state, "", used);
    assign = read(in);
    optim::detail::check_no_unexpected(who, state, used);
  });
  assign();
}

size_t read_index(StateReader& in, size_t size) {
  const int64_t index = in.integer("index");
  EMBER_CHECK(index >= 0 && static_cast<size_t>(index) <= size, "'index' is ", index,
              ", outside [0, ", size, "]");
  return static_cast<size_t>(index);
}

}  // namespace

OrderedDict<std::string, Tensor> SequentialSampler::state_dict() const {
  OrderedDict<std::string, Tensor> state;
  StateWriter out(state, "");
  out.integer("size", static_cast<int64_t>(size_));
  out.integer("index", static_cast<int64_t>(index_));
  return state;
}

void SequentialSampler::load_state_dict(const std::map<std::string, Tensor>& state) {
  read_state("SequentialSampler::load_state_dict", state, [&](StateReader& in) {
    const int64_t size = in.integer("size");
    EMBER_CHECK(size == static_cast<int64_t>(size_), "'size' is ", size, ", but the sampler has ",
                size_, " indices");
    const size_t index = read_index(in, size_);
    return std::function<void()>([this, index] {
      index_ = index;
      resume_ = index_ < size_;
    });
  });
}

void SequentialSampler::load_state_dict(const OrderedDict<std::string, Tensor>& state) {
  load_state_dict(optim::detail::to_map(state));
}

void SequentialSampler::reset(std::optional<size_t> new_size) {
  const bool resume = resume_ && (!new_size || *new_size == size_);
  resume_ = false;
  if (resume) return;
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

OrderedDict<std::string, Tensor> RandomSampler::state_dict() const {
  OrderedDict<std::string, Tensor> state;
  StateWriter out(state, "");
  out.integer("index", static_cast<int64_t>(index_));
  out.integers("permutation", std::vector<int64_t>(indices_.begin(), indices_.end()));
  if (seed_) {
    std::ostringstream text;
    text << engine_;
    out.text("generator", text.str());
  }
  return state;
}

void RandomSampler::load_state_dict(const std::map<std::string, Tensor>& state) {
  read_state("RandomSampler::load_state_dict", state, [&](StateReader& in) {
    const size_t n = indices_.size();
    const std::vector<int64_t> order = in.integers("permutation");
    EMBER_CHECK(order.size() == n, "'permutation' has ", order.size(),
                " indices, but the sampler has ", n);
    std::vector<bool> seen(n, false);
    for (int64_t i : order) {
      EMBER_CHECK(i >= 0 && static_cast<size_t>(i) < n && !seen[i],
                  "'permutation' is not a permutation of 0 to ", n - 1, " (", i, ")");
      seen[i] = true;
    }
    const size_t index = read_index(in, n);
    std::mt19937_64 engine = engine_;
    if (seed_) {
      std::istringstream text(in.text("generator"));
      text >> engine;
      EMBER_CHECK(!text.fail(), "'generator' is not a std::mt19937_64 state");
    }
    return std::function<void()>([this, order, index, engine] {
      indices_.assign(order.begin(), order.end());
      index_ = index;
      engine_ = engine;
      resume_ = index_ < indices_.size();
    });
  });
}

void RandomSampler::load_state_dict(const OrderedDict<std::string, Tensor>& state) {
  load_state_dict(optim::detail::to_map(state));
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  const bool resume = resume_ && (!new_size || *new_size == indices_.size());
  resume_ = false;
  if (resume) return;
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
