// Streams and events: the per-thread current stream of each device (the legacy default
// stream until set), the per-device pools of created streams, StreamGuard and Event.
#include <ember/cuda/stream.h>

#include <atomic>
#include <functional>
#include <mutex>

#include <ember/core/error.h>
#include <ember/cuda/api.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/capture.h>
#include <ember/cuda/check.h>

namespace ember {
namespace cuda {

struct StreamAccess {
  static cudaStream_t raw(const Stream& s) { return static_cast<cudaStream_t>(s.handle_); }
};

namespace {
constexpr int kMaxDevices = 64;
constexpr int kStreamsPerPool = 8;  // per device and priority

thread_local cudaStream_t t_current[kMaxDevices] = {};

int this_device() {
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

// A valid device index for the public API (-1: the current device).
int checked_device(const char* what, int device) {
  EMBER_CHECK(device_count() > 0, what, ": no CUDA device is available");
  if (device < 0) device = this_device();
  EMBER_CHECK(device < device_count() && device < kMaxDevices, what, ": device ", device,
              " does not exist (", device_count(), " CUDA devices)");
  return device;
}

// The streams of one device's pool, created on first use; never destroyed (as in PyTorch:
// a Stream handed out must stay valid for the whole process).
struct StreamPool {
  std::once_flag created;
  cudaStream_t streams[2][kStreamsPerPool] = {};  // [high_priority][i]
  std::atomic<unsigned> next[2] = {{0}, {0}};
};
StreamPool g_pools[kMaxDevices];

void create_pool(int device, StreamPool& pool) {
  DeviceGuard guard(device);
  int least = 0, greatest = 0;  // numerically greatest priority = lowest
  EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  for (int high = 0; high < 2; ++high) {
    for (int i = 0; i < kStreamsPerPool; ++i) {
      // Non-blocking: pool streams do not wait for the legacy default stream (PyTorch's choice).
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&pool.streams[high][i], cudaStreamNonBlocking,
                                                    high ? greatest : least));
    }
  }
}

cudaStream_t as_stream(const Stream& s) { return StreamAccess::raw(s); }
cudaEvent_t as_event(void* e) { return static_cast<cudaEvent_t>(e); }
}  // namespace

// ---- the internal current stream ----

cudaStream_t current_stream() {
  const int device = this_device();
  batch::submit(device, t_current[device]);
  return t_current[device];
}

cudaStream_t current_stream(int device) {
  const cudaStream_t stream = peek_current_stream(device);
  batch::submit(device < 0 ? this_device() : device, stream);
  return stream;
}

cudaStream_t peek_current_stream(int device) {
  if (device < 0) device = this_device();
  EMBER_CHECK(device < kMaxDevices, "cuda: device index ", device, " out of range");
  return t_current[device];
}

void set_current_stream(int device, cudaStream_t stream) {
  if (device < 0) device = this_device();
  EMBER_CHECK(device < kMaxDevices, "cuda: device index ", device, " out of range");
  t_current[device] = stream;
}

// ---- Stream ----

void* Stream::stream() const {
  batch::submit(device_, as_stream(*this));
  return handle_;
}

bool Stream::query() const {
  check_stream_not_capturing("Stream::query", device_, as_stream(*this));
  batch::submit(device_, as_stream(*this));
  DeviceGuard guard(device_);
  const cudaError_t err = cudaStreamQuery(as_stream(*this));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return true;
}

void Stream::synchronize() const {
  check_stream_not_capturing("Stream::synchronize", device_, as_stream(*this));
  batch::submit(device_, as_stream(*this));
  DeviceGuard guard(device_);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(as_stream(*this)));
}

Stream getStreamFromPool(bool high_priority, int device) {
  device = checked_device("getStreamFromPool", device);
  StreamPool& pool = g_pools[device];
  std::call_once(pool.created, create_pool, device, std::ref(pool));
  const int h = high_priority ? 1 : 0;
  const unsigned i = pool.next[h].fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool;
  return Stream(pool.streams[h][i], device);
}

Stream getDefaultStream(int device) {
  return Stream(nullptr, checked_device("getDefaultStream", device));
}

Stream getCurrentStream(int device) {
  device = checked_device("getCurrentStream", device);
  return Stream(t_current[device], device);
}

void setCurrentStream(Stream stream) {
  const int device = checked_device("setCurrentStream", stream.device_index());
  t_current[device] = as_stream(stream);
}

Stream getStreamFromExternal(void* handle, int device) {
  return Stream(handle, checked_device("getStreamFromExternal", device));
}

// ---- StreamGuard ----

StreamGuard::StreamGuard(const Stream& stream) {
  device_ = checked_device("StreamGuard", stream.device_index());
  previous_device_ = this_device();
  previous_stream_ = t_current[device_];
  if (previous_device_ != device_) EMBER_CUDA_CHECK(cudaSetDevice(device_));
  t_current[device_] = as_stream(stream);
}

StreamGuard::~StreamGuard() {
  t_current[device_] = static_cast<cudaStream_t>(previous_stream_);
  if (previous_device_ != device_) cudaSetDevice(previous_device_);
}

// ---- Event ----

// Destroys a created event without throwing (destructors; at exit the runtime may be gone).
// A pending event is released once it completes.
namespace {
void destroy_event(void* event, int device) noexcept {
  if (event == nullptr) return;
  try {
    DeviceGuard guard(device);
    if (cudaEventDestroy(as_event(event)) != cudaSuccess) cudaGetLastError();
  } catch (...) {
    cudaGetLastError();
  }
}
}  // namespace

Event::~Event() { destroy_event(event_, device_); }

Event::Event(Event&& other) noexcept
    : event_(other.event_), device_(other.device_), timing_(other.timing_) {
  other.event_ = nullptr;
  other.device_ = -1;
}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    destroy_event(event_, device_);
    event_ = other.event_;
    device_ = other.device_;
    timing_ = other.timing_;
    other.event_ = nullptr;
    other.device_ = -1;
  }
  return *this;
}

void Event::record() {
  EMBER_CHECK(device_count() > 0, "Event::record: no CUDA device is available");
  record(getCurrentStream());
}

void Event::record(const Stream& stream) {
  const int device = stream.device_index();
  DeviceGuard guard(device);
  if (event_ == nullptr) {
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(
        cudaEventCreateWithFlags(&e, timing_ ? cudaEventDefault : cudaEventDisableTiming));
    event_ = e;
    device_ = device;
  }
  EMBER_CHECK(device == device_, "Event::record: the event belongs to cuda:", device_,
              " but the stream to cuda:", device);
  batch::submit(device, as_stream(stream));
  EMBER_CUDA_CHECK(cudaEventRecord(as_event(event_), as_stream(stream)));
}

void Event::block(const Stream& stream) const {
  if (event_ == nullptr) return;
  batch::submit(stream.device_index(), as_stream(stream));
  DeviceGuard guard(stream.device_index());
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(as_stream(stream), as_event(event_), 0));
}

bool Event::query() const {
  if (event_ == nullptr) return true;
  DeviceGuard guard(device_);
  const cudaError_t err = cudaEventQuery(as_event(event_));
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return true;
}

void Event::synchronize() const {
  if (event_ == nullptr) return;
  DeviceGuard guard(device_);
  EMBER_CUDA_CHECK(cudaEventSynchronize(as_event(event_)));
}

float Event::elapsed_time(const Event& end) const {
  EMBER_CHECK(event_ != nullptr && end.event_ != nullptr,
              "Event::elapsed_time: both events must be recorded first");
  EMBER_CHECK(timing_ && end.timing_,
              "Event::elapsed_time: both events must be created with enable_timing=true");
  end.synchronize();
  DeviceGuard guard(device_);
  float ms = 0;
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, as_event(event_), as_event(end.event_)));
  return ms;
}

}  // namespace cuda
}  // namespace ember
