// The data loader, as LibTorch's torch::data::make_data_loader: batches of a dataset in the
// order a sampler gives (RandomSampler by default), optionally prepared ahead by background
// worker threads. `for (auto& batch : *loader)` runs one epoch; every begin() starts another.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/tensor.h>
#include <ember/data/example.h>
#include <ember/data/samplers.h>

namespace ember {
namespace data {

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT: as LibTorch

  // Examples per batch.
  DataLoaderOptions& batch_size(size_t v) { return set(batch_size_, v); }
  // Background threads preparing batches (at most 1024); 0 prepares each batch on the
  // iterating thread.
  DataLoaderOptions& workers(size_t v) { return set(workers_, v); }
  // Batches requested ahead of the one being consumed (default 2 * workers): bounds memory.
  DataLoaderOptions& max_jobs(size_t v) { return set(max_jobs_, std::optional<size_t>(v)); }
  // Longest wait for a worker's batch before ember::Error (default: no limit).
  DataLoaderOptions& timeout(std::chrono::milliseconds v) {
    return set(timeout_, std::optional<std::chrono::milliseconds>(v));
  }
  // Drop the last batch of an epoch when it is smaller than batch_size.
  DataLoaderOptions& drop_last(bool v) { return set(drop_last_, v); }
  // Batch tensors in page-locked memory, so `batch.data.to(kCUDA, true)` is asynchronous.
  // The copy into pinned memory happens on the worker. A no-op when no GPU is available.
  DataLoaderOptions& pin_memory(bool v) { return set(pin_memory_, v); }
  // ember extensions, used when the loader makes its RandomSampler: shuffle(false) keeps the
  // dataset's order; seed(s) gives the sampler its own generator (same seed, same orders).
  DataLoaderOptions& shuffle(bool v) { return set(shuffle_, v); }
  DataLoaderOptions& seed(uint64_t v) { return set(seed_, std::optional<uint64_t>(v)); }

  size_t batch_size() const { return batch_size_; }
  size_t workers() const { return workers_; }
  const std::optional<size_t>& max_jobs() const { return max_jobs_; }
  const std::optional<std::chrono::milliseconds>& timeout() const { return timeout_; }
  bool drop_last() const { return drop_last_; }
  bool pin_memory() const { return pin_memory_; }
  bool shuffle() const { return shuffle_; }
  const std::optional<uint64_t>& seed() const { return seed_; }

 private:
  template <class T, class V>
  DataLoaderOptions& set(T& field, V&& value) {
    field = std::forward<V>(value);
    return *this;
  }
  size_t batch_size_ = 1;
  size_t workers_ = 0;
  std::optional<size_t> max_jobs_;
  std::optional<std::chrono::milliseconds> timeout_;
  bool drop_last_ = false;
  bool pin_memory_ = false;
  bool shuffle_ = true;
  std::optional<uint64_t> seed_;
};

namespace detail {

// The most worker threads a loader starts, as set_num_threads' limit for the CPU pool (a typo
// such as workers(100000) would otherwise copy the dataset and start threads until the system
// refuses).
constexpr size_t kMaxWorkers = 1024;

// Background threads running tasks first in, first out. stop() (and the destructor) lets
// each thread finish its current task, drops the rest and joins.
class WorkerThreads {
 public:
  using Task = std::function<void(size_t worker)>;  // must not throw
  explicit WorkerThreads(size_t count);
  ~WorkerThreads();
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  void push(Task task);
  void clear();  // drops the tasks no thread has started
  void stop();

 private:
  void loop(size_t worker);
  struct State;
  std::unique_ptr<State> state_;
};

bool pinning_available();  // a GPU is there to page-lock memory for
void pin(Tensor& tensor);  // replaces a CPU tensor by a pinned copy

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_example : std::false_type {};
template <class D, class T>
struct is_example<Example<D, T>> : std::true_type {};

// Pins the tensors of a batch: a Tensor, an Example's data and target, a vector's elements.
template <class T>
void pin_batch(T& batch) {
  if constexpr (std::is_same<T, Tensor>::value) {
    pin(batch);
  } else if constexpr (is_example<T>::value) {
    pin_batch(batch.data);
    pin_batch(batch.target);
  } else if constexpr (is_vector<T>::value) {
    for (auto& item : batch) pin_batch(item);
  }
}

[[noreturn]] void throw_timeout(std::chrono::milliseconds timeout, size_t sequence_number);

}  // namespace detail

template <class Batch>
class Iterator;

// What iteration needs of a loader: reset() starts an epoch, next() gives a batch or nullopt.
template <class Batch>
class DataLoaderBase {
 public:
  using BatchType = Batch;
  virtual ~DataLoaderBase() = default;

  // Starts a new epoch (abandoning what is left of the current one) and fetches its first batch.
  Iterator<Batch> begin() {
    reset();
    return Iterator<Batch>(this);
  }
  Iterator<Batch> end() { return Iterator<Batch>(); }

  virtual void reset() = 0;
  virtual std::optional<Batch> next() = 0;
};

// An input iterator over one epoch; it owns the current batch.
template <class Batch>
class Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;

  Iterator() = default;  // the end
  explicit Iterator(DataLoaderBase<Batch>* loader) : loader_(loader) { advance(); }

  Batch& operator*() {
    EMBER_CHECK(batch_.has_value(), "DataLoader iterator: dereferenced past the end of the epoch");
    return *batch_;
  }
  Batch* operator->() { return &**this; }
  Iterator& operator++() {
    EMBER_CHECK(batch_.has_value(), "DataLoader iterator: incremented past the end of the epoch");
    advance();
    return *this;
  }
  // Iterators compare equal when both are past the end (or are the same iterator).
  bool operator==(const Iterator& other) const {
    return this == &other || (!batch_.has_value() && !other.batch_.has_value());
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  void advance() {
    batch_.reset();  // frees the previous batch before the next one is waited for
    batch_ = loader_->next();
  }
  DataLoaderBase<Batch>* loader_ = nullptr;
  std::optional<Batch> batch_;
};

// Loads batches of a dataset with known size, by the indices that Sampler gives.
template <class Dataset, class Sampler = samplers::RandomSampler>
class StatelessDataLoader : public DataLoaderBase<typename Dataset::BatchType> {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(std::move(options)), sampler_(std::move(sampler)) {
    EMBER_CHECK(options_.batch_size() > 0, "DataLoader: batch_size must be positive");
    EMBER_CHECK(options_.workers() <= detail::kMaxWorkers, "DataLoader: ", options_.workers(),
                " workers is more than the ", detail::kMaxWorkers, " a data loader allows");
    max_jobs_ = options_.max_jobs().value_or(2 * options_.workers());
    EMBER_CHECK(options_.workers() == 0 || max_jobs_ > 0,
                "DataLoader: max_jobs must be positive with ", options_.workers(), " workers");
    pin_ = options_.pin_memory() && detail::pinning_available();
    // Each worker gets its own copy of the dataset when it can be copied (as in LibTorch;
    // tensor-backed datasets copy cheaply); otherwise they share one under a lock.
    const size_t copies =
        std::is_copy_constructible<Dataset>::value ? std::max<size_t>(1, options_.workers()) : 1;
    for (size_t i = 0; i + 1 < copies; ++i) {
      if constexpr (std::is_copy_constructible<Dataset>::value) {
        datasets_.push_back(std::make_unique<Dataset>(dataset));
      }
    }
    datasets_.push_back(std::make_unique<Dataset>(std::move(dataset)));
    if (options_.workers() > 0) {
      threads_ = std::make_unique<detail::WorkerThreads>(options_.workers());
    }
  }

  ~StatelessDataLoader() override { join(); }

  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;

  // Stops the worker threads (each finishes the batch it is on); the destructor does it too.
  void join() {
    if (threads_) threads_->stop();
  }

  const DataLoaderOptions& options() const { return options_; }
  Sampler& sampler() { return sampler_; }

  // ember extension: where the loop is in the epoch, for ember::Checkpoint (docs/data.md,
  // "Resuming"): the sampler's state_dict() with its "index" at the batches handed out so far.
  // With worker threads the sampler runs ahead by the batches prepared in advance, so its own
  // state would skip them on a resume; this one does not. load_state_dict restores the
  // sampler: the next begin() continues the saved epoch, or starts the next one if it was done.
  // For samplers that have state_dict()/load_state_dict() (RandomSampler, SequentialSampler).
  template <class S = Sampler>
  auto state_dict() const -> decltype(std::declval<const S&>().state_dict()) {
    auto state = sampler_.state_dict();
    // Every batch before the last one requested is full, so the handed-out ones are
    // next_sequence_ * batch_size indices; when all were handed out, the sampler's own
    // index is right (it may have passed a last batch that drop_last dropped).
    if (threads_ && next_sequence_ < pushed_ && state.contains("index")) {
      state.update(
          "index",
          scalar_tensor(static_cast<int64_t>(next_sequence_ * options_.batch_size()), kInt64));
    }
    return state;
  }
  template <class State, class S = Sampler>
  auto load_state_dict(const State& state) -> decltype(std::declval<S&>().load_state_dict(state)) {
    return sampler_.load_state_dict(state);
  }

  void reset() override {
    sampler_.reset();
    if (!threads_) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++epoch_;  // batches of earlier epochs still being made are dropped on arrival
      results_.clear();
    }
    threads_->clear();
    next_sequence_ = pushed_ = 0;
    prefetch(max_jobs_);
  }

  std::optional<BatchType> next() override {
    if (!threads_) {
      std::optional<BatchRequestType> request = next_request();
      if (!request) return std::nullopt;
      std::optional<BatchType> batch(datasets_[0]->get_batch(std::move(*request)));
      if (pin_) detail::pin_batch(*batch);
      return batch;
    }
    if (next_sequence_ == pushed_) return std::nullopt;
    Result result;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto ready = [&] { return results_.count(next_sequence_) != 0; };
      if (options_.timeout()) {
        if (!arrived_.wait_for(lock, *options_.timeout(), ready)) {
          detail::throw_timeout(*options_.timeout(), next_sequence_);
        }
      } else {
        arrived_.wait(lock, ready);
      }
      auto it = results_.find(next_sequence_);
      result = std::move(it->second);
      results_.erase(it);
    }
    ++next_sequence_;
    prefetch(1);
    if (result.error) std::rethrow_exception(result.error);  // the worker's own exception
    return std::move(result.batch);
  }

 private:
  struct Result {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };

  std::optional<BatchRequestType> next_request() {
    std::optional<BatchRequestType> request = sampler_.next(options_.batch_size());
    if (request && options_.drop_last() && request->size() < options_.batch_size()) {
      return std::nullopt;
    }
    return request;
  }

  void prefetch(size_t jobs) {
    for (size_t i = 0; i < jobs; ++i) {
      std::optional<BatchRequestType> request = next_request();
      if (!request) return;
      threads_->push([this, request = std::move(*request), sequence = pushed_++, epoch = epoch_](
                         size_t worker) mutable { work(worker, request, sequence, epoch); });
    }
  }

  // Runs on a worker thread.
  void work(size_t worker, BatchRequestType& request, size_t sequence, uint64_t epoch) {
    Result result;
    try {
      Dataset& dataset = *datasets_[datasets_.size() == 1 ? 0 : worker];
      if (datasets_.size() == 1 && options_.workers() > 1) {
        std::lock_guard<std::mutex> lock(shared_dataset_mutex_);
        result.batch.emplace(dataset.get_batch(std::move(request)));
      } else {
        result.batch.emplace(dataset.get_batch(std::move(request)));
      }
      if (pin_) detail::pin_batch(*result.batch);
    } catch (...) {
      result.batch.reset();
      result.error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (epoch != epoch_) return;
      results_.emplace(sequence, std::move(result));
    }
    arrived_.notify_all();
  }

  DataLoaderOptions options_;
  Sampler sampler_;
  size_t max_jobs_ = 0;
  bool pin_ = false;
  std::vector<std::unique_ptr<Dataset>> datasets_;
  std::mutex shared_dataset_mutex_;
  // Only the iterating thread touches these two.
  size_t next_sequence_ = 0;  // the batch next() returns next
  size_t pushed_ = 0;         // batches requested this epoch
  std::mutex mutex_;          // guards epoch_ and results_
  std::condition_variable arrived_;
  uint64_t epoch_ = 0;
  std::map<size_t, Result> results_;                // finished batches by sequence number
  std::unique_ptr<detail::WorkerThreads> threads_;  // last: stopped before the rest goes
};

namespace detail {
template <class Sampler>
Sampler make_sampler(size_t size, const DataLoaderOptions& options) {
  if constexpr (std::is_same<Sampler, samplers::RandomSampler>::value) {
    return samplers::RandomSampler(static_cast<int64_t>(size), options.seed(), options.shuffle());
  } else {
    return Sampler(size);
  }
}
}  // namespace detail

template <class Dataset, class Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                        Sampler sampler,
                                                                        DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

// make_data_loader(ds, options) shuffles (RandomSampler); make_data_loader<SequentialSampler>
// (ds, options) keeps the order. The sampler is made from the dataset's size.
template <class Sampler = samplers::RandomSampler, class Dataset,
          class = std::enable_if_t<std::is_constructible<Sampler, size_t>::value>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(),
              "make_data_loader: the dataset has no size(); pass a sampler to iterate it");
  Sampler sampler = detail::make_sampler<Sampler>(*size, options);
  return make_data_loader(std::move(dataset), std::move(sampler), std::move(options));
}

}  // namespace data
}  // namespace ember
