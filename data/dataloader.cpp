// The non-template parts of the data loader: the worker threads (a FIFO of tasks, drained and
// joined without waiting for queued work), pinning, and the timeout error.
#include <ember/data/dataloader.h>

#include <deque>
#include <system_error>
#include <thread>

#include <ember/cuda/api.h>

namespace ember {
namespace data {
namespace detail {

struct WorkerThreads::State {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<Task> tasks;
  bool stopping = false;
  std::vector<std::thread> threads;
};

WorkerThreads::WorkerThreads(size_t count) : state_(std::make_unique<State>()) {
  state_->threads.reserve(count);
  try {
    for (size_t w = 0; w < count; ++w) state_->threads.emplace_back([this, w] { loop(w); });
  } catch (const std::system_error& e) {  // the system refused a thread: leave none behind
    const size_t started = state_->threads.size();
    stop();
    EMBER_THROW("DataLoader: cannot start ", count, " worker threads, the system refused after ",
                started, ": ", e.what());
  } catch (...) {
    stop();
    throw;
  }
}

WorkerThreads::~WorkerThreads() { stop(); }

void WorkerThreads::push(Task task) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->tasks.push_back(std::move(task));
  }
  state_->wake.notify_one();
}

void WorkerThreads::clear() {
  std::deque<Task> dropped;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(state_->mutex);
  dropped.swap(state_->tasks);
}

void WorkerThreads::stop() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->stopping && state_->threads.empty()) return;
    state_->stopping = true;
    state_->tasks.clear();
  }
  state_->wake.notify_all();
  for (std::thread& t : state_->threads) {
    if (t.joinable()) t.join();
  }
  state_->threads.clear();
}

void WorkerThreads::loop(size_t worker) {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(state_->mutex);
      state_->wake.wait(lock, [&] { return state_->stopping || !state_->tasks.empty(); });
      if (state_->stopping) return;
      task = std::move(state_->tasks.front());
      state_->tasks.pop_front();
    }
    task(worker);
  }
}

bool pinning_available() { return cuda::is_available(); }

void pin(Tensor& tensor) {
  if (tensor.defined() && tensor.is_cpu()) tensor = tensor.pin_memory();
}

void throw_timeout(std::chrono::milliseconds timeout, size_t sequence_number) {
  EMBER_THROW("DataLoader: batch ", sequence_number, " of the epoch did not arrive within ",
              timeout.count(), " ms (timeout option)");
}

}  // namespace detail
}  // namespace data
}  // namespace ember
