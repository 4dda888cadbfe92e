// CUDA graphs (cuda/graph.h): capture on a side stream in relaxed mode, instantiate, replay;
// the bookkeeping of captures underway and the checks that refuse illegal calls during one.
#include <ember/cuda/graph.h>

#include <cstring>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/generator.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/capture.h>
#include <ember/cuda/check.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {

std::atomic<int> g_captures_underway{0};

namespace {

// The captures underway: device, stream, private pool, the graph's device-side generator
// state and the random counters reserved in the capture so far.
struct Capture {
  int device;
  cudaStream_t stream;
  MempoolId pool;
  uint64_t* rng_state;
  uint64_t rng_counters;
  std::vector<std::function<void()>> replay_hooks;  // on_each_replay's
};
std::mutex g_mu;
std::vector<Capture>& captures() {
  static auto* all = new std::vector<Capture>;  // leaked, as the caches
  return *all;
}

void add_capture(int device, cudaStream_t stream, MempoolId pool, uint64_t* rng_state) {
  std::lock_guard<std::mutex> lock(g_mu);
  captures().push_back(Capture{device, stream, pool, rng_state, 0, {}});
  g_captures_underway.fetch_add(1, std::memory_order_relaxed);
}

// Returns the random counters the capture reserved; moves its replay hooks to *hooks (when
// given).
uint64_t remove_capture(int device, cudaStream_t stream,
                        std::vector<std::function<void()>>* hooks = nullptr) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto& all = captures();
  for (auto it = all.begin(); it != all.end(); ++it) {
    if (it->device == device && it->stream == stream) {
      const uint64_t counters = it->rng_counters;
      if (hooks != nullptr) *hooks = std::move(it->replay_hooks);
      all.erase(it);
      g_captures_underway.fetch_sub(1, std::memory_order_relaxed);
      return counters;
    }
  }
  return 0;
}

// The global generator's (seed, offset), through its public state (16 little-endian bytes).
void save_generator(uint64_t out[2]) {
  const Tensor state = ember::get_rng_state();
  std::memcpy(out, state.data_ptr<uint8_t>(), 16);
}
void restore_generator(const uint64_t saved[2]) {
  Tensor state = empty({16}, kUInt8);
  std::memcpy(state.data_ptr<uint8_t>(), saved, 16);
  ember::set_rng_state(state);
}

[[noreturn]] void throw_capturing(const char* op) {
  EMBER_THROW(op,
              ": not allowed during CUDA graph capture (it would wait for the host or "
              "synchronize a stream being captured); do it before the capture or after it");
}

void check_available(const char* what) {
  EMBER_CHECK(is_available(), what, ": CUDA is not available (no GPU found)");
}

int this_device() {
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

}  // namespace

namespace {

// Whether `stream` (of the current device) is being captured; the legacy stream counts as
// captured beside a blocking capture (it cannot be used then).
bool is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t err = cudaStreamIsCapturing(stream, &status);
  if (err == cudaErrorStreamCaptureImplicit) {
    cudaGetLastError();
    return true;
  }
  EMBER_CUDA_CHECK(err);
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace

void check_stream_not_capturing(const char* op, int device, cudaStream_t stream) {
  if (!capture_underway()) return;
  DeviceGuard guard(device);
  if (is_capturing(stream)) throw_capturing(op);
}

void check_device_not_capturing(const char* op, int device) {
  if (!capture_underway()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  for (const auto& c : captures()) {
    if (device < 0 || c.device == device) throw_capturing(op);
  }
}

bool captured_philox(int device, cudaStream_t stream, uint64_t count, const uint64_t** state,
                     uint64_t* intra) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& c : captures()) {
    if (c.device == device && c.stream == stream) {
      *state = c.rng_state;
      *intra = c.rng_counters;
      c.rng_counters += count;
      return true;
    }
  }
  return false;
}

void on_each_replay(std::function<void()> f) {
  const int device = this_device();
  const cudaStream_t stream = peek_current_stream(device);
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& c : captures()) {
    if (c.device == device && c.stream == stream) {
      c.replay_hooks.push_back(std::move(f));
      return;
    }
  }
  EMBER_THROW("cuda::on_each_replay: the current stream of cuda:", device,
              " is not being captured");
}

Tensor replay_buffer(IntArrayRef sizes, ScalarType dtype) {
  const int device = this_device();
  const cudaStream_t stream = peek_current_stream(device);
  MempoolId pool = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (const auto& c : captures()) {
      if (c.device == device && c.stream == stream) pool = c.pool;
    }
  }
  EMBER_CHECK(pool != 0, "cuda::replay_buffer: the current stream of cuda:", device,
              " is not being captured");
  // Routed to the stream's normal cache for this one allocation: freed, the block returns
  // there, and Graph::reset makes that stream wait for the last replay first.
  end_allocate_to_pool(device, stream);
  Tensor t;
  std::exception_ptr failed;
  try {
    t = empty(sizes, TensorOptions(dtype).device(Device(kCUDA, device)));
  } catch (...) {
    failed = std::current_exception();
  }
  begin_allocate_to_pool(device, pool, stream);
  release_pool(device, pool);  // begin took a second reference
  if (failed) std::rethrow_exception(failed);
  return t;
}

bool is_current_stream_capturing() {
  return capture_underway() && is_capturing(peek_current_stream(this_device()));
}

MempoolId graph_pool_handle() {
  static std::atomic<MempoolId> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

Stream graph_capture_stream(int device) {
  check_available("cuda::graph_capture_stream");
  if (device < 0) device = this_device();
  constexpr int kMaxDevices = 64;
  EMBER_CHECK(device < device_count() && device < kMaxDevices,
              "cuda::graph_capture_stream: device ", device, " does not exist");
  static std::once_flag once[kMaxDevices];
  static void* streams[kMaxDevices] = {};
  std::call_once(once[device],
                 [device] { streams[device] = getStreamFromPool(false, device).stream(); });
  return getStreamFromExternal(streams[device], device);
}

// ---- Graph ----

namespace {
void free_rng_state(void* state, int device) noexcept {
  if (state == nullptr) return;
  try {
    DeviceGuard guard(device);
    if (cudaFree(state) != cudaSuccess) cudaGetLastError();
  } catch (...) {
    cudaGetLastError();
  }
}
}  // namespace

Graph::~Graph() {
  reset();
  free_rng_state(rng_state_, rng_device_);
}

Graph::Graph(Graph&& other) noexcept { *this = std::move(other); }

Graph& Graph::operator=(Graph&& other) noexcept {
  if (this == &other) return *this;
  reset();
  std::swap(graph_, other.graph_);
  std::swap(exec_, other.exec_);
  std::swap(stream_, other.stream_);
  std::swap(replay_event_, other.replay_event_);
  std::swap(rng_state_, other.rng_state_);
  std::swap(rng_device_, other.rng_device_);
  std::swap(rng_counters_, other.rng_counters_);
  std::swap(rng_saved_, other.rng_saved_);
  std::swap(replay_hooks_, other.replay_hooks_);
  std::swap(device_, other.device_);
  std::swap(pool_, other.pool_);
  std::swap(capturing_, other.capturing_);
  return *this;
}

void Graph::capture_begin(MempoolId pool) {
  check_available("cuda::Graph::capture_begin");
  EMBER_CHECK(!capturing_, "cuda::Graph::capture_begin: the graph is already capturing");
  EMBER_CHECK(exec_ == nullptr,
              "cuda::Graph::capture_begin: the graph holds a capture already (reset() it first)");
  const int device = this_device();
  const cudaStream_t stream = peek_current_stream(device);
  EMBER_CHECK(stream != nullptr,
              "cuda::Graph::capture_begin: cannot capture the default stream; make a side stream "
              "current first (cuda::GraphCapture does)");
  // Ops recorded for small-op batching so far run before the capture, not inside it.
  batch::submit_all(device);
  prepare_blas_for_capture(device);
  if (rng_state_ != nullptr && rng_device_ != device) {  // made for another device: remake
    free_rng_state(rng_state_, rng_device_);
    rng_state_ = nullptr;
  }
  if (rng_state_ == nullptr) {
    EMBER_CUDA_CHECK(cudaMalloc(&rng_state_, 2 * sizeof(uint64_t)));
    rng_device_ = device;
  }
  save_generator(rng_saved_);
  const MempoolId id = pool != 0 ? pool : graph_pool_handle();
  begin_allocate_to_pool(device, id, stream);
  add_capture(device, stream, id, static_cast<uint64_t*>(rng_state_));
  // Relaxed: cudaMalloc stays legal in this thread (the private pool grows; cuBLAS and the
  // fused cross entropy create per-stream workspaces on first use); the illegal calls are
  // refused by ember's own checks, before they reach CUDA.
  const cudaError_t err = cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
  if (err != cudaSuccess) {
    remove_capture(device, stream);
    end_allocate_to_pool(device, stream);
    release_pool(device, id);
    EMBER_CUDA_CHECK(err);
  }
  device_ = device;
  stream_ = stream;
  pool_ = id;
  capturing_ = true;
}

void Graph::capture_end() {
  EMBER_CHECK(capturing_, "cuda::Graph::capture_end: capture_begin was not called");
  DeviceGuard guard(device_);
  const cudaStream_t stream = as_stream(stream_);
  // Ops recorded during the capture belong to the graph, in order: launch them into it.
  cudaError_t submitted = cudaSuccess;
  try {
    batch::submit(device_, stream);
  } catch (const Error&) {
    submitted = cudaErrorStreamCaptureInvalidated;
  }
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(stream, &graph);
  capturing_ = false;
  rng_counters_ = remove_capture(device_, stream, &replay_hooks_);
  end_allocate_to_pool(device_, stream);
  restore_generator(rng_saved_);  // the capture drew no numbers: its replays will
  if (err == cudaSuccess) err = submitted;
  if (err == cudaSuccess) {
    cudaGraphExec_t exec = nullptr;
    err = cudaGraphInstantiate(&exec, graph, 0);
    if (err == cudaSuccess) exec_ = exec;
  }
  if (graph != nullptr) graph_ = graph;
  if (err != cudaSuccess) {
    cudaGetLastError();
    reset();
    EMBER_THROW("cuda::Graph::capture_end: the capture failed (", cudaGetErrorName(err), ": ",
                cudaGetErrorString(err), "); was an illegal call made during it?");
  }
}

void Graph::abort_capture() noexcept {
  if (!capturing_) return;
  try {
    DeviceGuard guard(device_);
    try {
      batch::submit(device_, as_stream(stream_));  // into the capture, discarded with it
    } catch (...) {
    }
    cudaGraph_t graph = nullptr;
    if (cudaStreamEndCapture(as_stream(stream_), &graph) != cudaSuccess) cudaGetLastError();
    if (graph != nullptr) cudaGraphDestroy(graph);
  } catch (...) {
    cudaGetLastError();
  }
  capturing_ = false;
  remove_capture(device_, as_stream(stream_));
  end_allocate_to_pool(device_, as_stream(stream_));
  try {
    restore_generator(rng_saved_);
  } catch (...) {
  }
  reset();
}

void Graph::replay() {
  EMBER_CHECK(exec_ != nullptr, "cuda::Graph::replay: nothing captured (capture_end first)");
  DeviceGuard guard(device_);
  for (const auto& hook : replay_hooks_) hook();
  const cudaStream_t stream = current_stream(device_);  // submits recorded ops (new inputs) first
  if (rng_counters_ != 0) {  // the numbers the captured random ops would draw eagerly now
    const PhiloxSeed philox = next_philox(rng_counters_);
    write_philox_state(static_cast<uint64_t*>(rng_state_), philox.seed, philox.offset, stream);
  }
  EMBER_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), stream));
  if (replay_event_ == nullptr) {
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    replay_event_ = e;
  }
  EMBER_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(replay_event_), stream));
}

void Graph::reset() {
  if (capturing_) return abort_capture();
  if (device_ < 0) return;
  try {
    DeviceGuard guard(device_);
    if (replay_event_ != nullptr) {
      // The pool's blocks return to the capturing stream's cache: that stream's next use of
      // them waits for the last replay.
      if (cudaStreamWaitEvent(as_stream(stream_), static_cast<cudaEvent_t>(replay_event_), 0) !=
          cudaSuccess)
        cudaGetLastError();
      cudaEventDestroy(static_cast<cudaEvent_t>(replay_event_));
    }
    if (exec_ != nullptr) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
    if (graph_ != nullptr) cudaGraphDestroy(static_cast<cudaGraph_t>(graph_));
  } catch (...) {
    cudaGetLastError();
  }
  if (pool_ != 0) release_pool(device_, pool_);
  graph_ = exec_ = stream_ = replay_event_ = nullptr;  // rng_state_ is kept for the next capture
  rng_counters_ = 0;
  replay_hooks_.clear();
  device_ = -1;
  pool_ = 0;
}

// ---- GraphCapture ----

GraphCapture::GraphCapture(Graph& graph, MempoolId pool)
    : GraphCapture(graph, graph_capture_stream(), pool) {}

GraphCapture::GraphCapture(Graph& graph, const Stream& stream, MempoolId pool)
    : graph_(graph), stream_(stream), guard_(stream), exceptions_(std::uncaught_exceptions()) {
  // As torch.cuda.graph: start from a quiet device (and surface earlier asynchronous errors).
  synchronize(stream.device_index());
  graph_.capture_begin(pool);
}

GraphCapture::~GraphCapture() noexcept(false) {
  if (std::uncaught_exceptions() > exceptions_) {
    graph_.abort_capture();
    return;
  }
  graph_.capture_end();
}

}  // namespace cuda
}  // namespace ember
