// The CPU thread pool behind parallel_for and set_num_threads: persistent workers blocked
// on a condition variable; the caller works too, nested calls run inline, errors propagate.
#include <ember/cpu/parallel.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/functions.h>

namespace ember {
namespace cpu {
namespace {

// set_num_threads refuses more (a typo such as 100000 would otherwise try to start that many
// threads at the next large op).
constexpr int kMaxThreads = 1024;

int default_num_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(std::min<unsigned>(n, kMaxThreads));
}

std::atomic<int> g_num_threads{default_num_threads()};

// True on pool workers and on a caller inside parallel_for: nested calls then run inline
// instead of queueing behind (or deadlocking on) the job they are part of.
thread_local bool t_in_parallel = false;

// One parallel_for call. Shared with the workers by shared_ptr, because a worker may
// look at it after the caller has returned (it then finds no chunk left and drops it).
struct Job {
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  int64_t begin = 0, end = 0, chunk = 0, nchunks = 0;
  std::atomic<int64_t> next{0};  // next chunk to claim
  std::atomic<int64_t> done{0};  // chunks finished
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // the first exception, guarded by m
  std::mutex m;
  std::condition_variable finished;
};

// Claims and runs chunks until none are left. After an exception the remaining
// chunks are skipped (but still counted, so the caller wakes).
void work_on(Job& job) {
  for (;;) {
    const int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.nchunks) return;
    if (!job.failed.load(std::memory_order_relaxed)) {
      try {
        const int64_t b = job.begin + c * job.chunk;
        (*job.fn)(b, std::min(job.end, b + job.chunk));
      } catch (...) {
        std::lock_guard<std::mutex> lock(job.m);
        if (!job.error) job.error = std::current_exception();
        job.failed.store(true, std::memory_order_relaxed);
      }
    }
    if (job.done.fetch_add(1, std::memory_order_acq_rel) + 1 == job.nchunks) {
      std::lock_guard<std::mutex> lock(job.m);  // pairs with the caller's wait
      job.finished.notify_one();
    }
  }
}

class Pool {
 public:
  ~Pool() { stop_workers(); }

  void run(const std::shared_ptr<Job>& job, int nthreads) {
    ensure_workers(nthreads - 1);
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = job;
      ++generation_;
    }
    wake_.notify_all();
    t_in_parallel = true;
    work_on(*job);
    t_in_parallel = false;
    {
      std::unique_lock<std::mutex> lock(job->m);
      job->finished.wait(lock, [&] { return job->done.load() == job->nchunks; });
    }
    std::lock_guard<std::mutex> lock(m_);
    if (job_ == job) job_.reset();
  }

 private:
  void ensure_workers(int n) {
    if (nworkers_.load(std::memory_order_acquire) == n) return;
    std::lock_guard<std::mutex> resize(resize_m_);
    if (static_cast<int>(workers_.size()) == n) return;
    stop_workers();
    std::unique_lock<std::mutex> lock(m_);
    stop_ = false;
    try {
      for (int i = 0; i < n; ++i) workers_.emplace_back([this, seen = generation_] { loop(seen); });
    } catch (const std::system_error& e) {  // the system's thread limit: no pool, an error
      const size_t started = workers_.size();
      lock.unlock();
      stop_workers();
      EMBER_THROW("parallel_for: cannot start ", n, " worker threads for set_num_threads(", n + 1,
                  "), the system refused after ", started, ": ", e.what());
    }
    nworkers_.store(n, std::memory_order_release);
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
    nworkers_.store(0, std::memory_order_release);
  }

  void loop(uint64_t seen) {
    t_in_parallel = true;
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      if (job) work_on(*job);
    }
  }

  std::mutex m_;  // guards job_, generation_, stop_
  std::condition_variable wake_;
  std::shared_ptr<Job> job_;
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::mutex resize_m_;  // serializes worker (re)creation
  std::vector<std::thread> workers_;
  std::atomic<int> nworkers_{0};
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int nthreads = g_num_threads.load(std::memory_order_relaxed);
  grain = std::max<int64_t>(grain, 1);
  if (n <= grain || nthreads <= 1 || t_in_parallel) {
    fn(begin, end);
    return;
  }
  // A few chunks per thread, claimed dynamically, so a thread delayed by other load on
  // the machine does not hold everyone up; never smaller than grain.
  const int64_t nchunks = std::min<int64_t>((n + grain - 1) / grain, int64_t(nthreads) * 4);
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->begin = begin;
  job->end = end;
  job->chunk = (n + nchunks - 1) / nchunks;
  job->nchunks = (n + job->chunk - 1) / job->chunk;
  pool().run(job, nthreads);
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace cpu

void set_num_threads(int n) {
  EMBER_CHECK(n >= 1, "set_num_threads: expected a positive number of threads, got ", n);
  EMBER_CHECK(n <= cpu::kMaxThreads, "set_num_threads: ", n, " threads is more than the ",
              cpu::kMaxThreads, " that ember's CPU pool allows");
  cpu::g_num_threads.store(n, std::memory_order_relaxed);
}

int get_num_threads() { return cpu::g_num_threads.load(std::memory_order_relaxed); }

}  // namespace ember
