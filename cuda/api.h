// The public ember::cuda API: availability, devices, memory stats, streams, events, guards.
// Declarations only (no CUDA headers); without a CUDA build or a GPU, is_available() is false.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace ember {

class Tensor;

namespace cuda {

bool is_available();
int device_count();

// What torch.cuda.get_device_properties gives, and the launch limits CUDA programs care about.
struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;  // compute capability
  size_t total_memory = 0;   // bytes
  int multi_processor_count = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  int max_threads_per_multi_processor = 0;
  int max_block_dim[3] = {0, 0, 0};
  int max_grid_dim[3] = {0, 0, 0};
  size_t shared_memory_per_block = 0;        // without opting in
  size_t shared_memory_per_block_optin = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int clock_rate_khz = 0;                    // the SMs' peak clock
};
// Of `device` (-1: the current one); throws without a GPU.
DeviceProperties get_device_properties(int device = -1);
int current_device();
void set_device(int index);
// Waits for all work on `device` (-1: the current device); a no-op without a GPU.
void synchronize(int device = -1);

// ---- memory (the caching allocator) ----
size_t memory_allocated(int device = -1);      // bytes of live tensors
size_t max_memory_allocated(int device = -1);  // peak of memory_allocated since the last reset
size_t memory_reserved(int device = -1);       // bytes the cache holds from cudaMalloc
void reset_peak_memory_stats(int device = -1);
// Synchronizes each device, then gives its unused cached memory back to the driver.
void empty_cache();
// Caps the memory the caching allocator reserves on `device` (-1: the current one) at
// `fraction` (0..1) of the device's total memory, as torch.cuda.set_per_process_memory_fraction:
// a request beyond it frees the cache and retries, then throws OutOfMemoryError. 1 lifts the
// cap. Throws without a GPU.
void set_per_process_memory_fraction(double fraction, int device = -1);
// {free, total} bytes of the device (-1: the current one), as torch.cuda.mem_get_info.
std::pair<size_t, size_t> mem_get_info(int device = -1);
double get_per_process_memory_fraction(int device = -1);

// ---- streams ----
// A CUDA stream of one device (the handle is a cudaStream_t; nullptr is the legacy default
// stream). Cheap to copy; the streams themselves live as long as the process.
class Stream {
 public:
  Stream(void* handle, int device) : handle_(handle), device_(device) {}

  // 0 for the default stream, else a number unique to the stream within the process.
  int64_t id() const { return static_cast<int64_t>(reinterpret_cast<intptr_t>(handle_)); }
  int device_index() const { return device_; }
  // The cudaStream_t (cast it). Handing it out submits the small ops ember recorded for this
  // stream (docs/gpu.md), so that work queued on it from outside runs after them.
  void* stream() const;
  bool query() const;        // true when all work queued on it is done
  void synchronize() const;  // waits for all work queued on it

  bool operator==(const Stream& o) const { return handle_ == o.handle_ && device_ == o.device_; }
  bool operator!=(const Stream& o) const { return !(*this == o); }

 private:
  friend struct StreamAccess;  // the handle without submitting (cuda/stream.cpp)
  void* handle_;
  int device_;
};

// A stream from a small per-device pool (created on first use, handed out round robin).
// Pool streams do not synchronize with the default stream: order work with Events.
Stream getStreamFromPool(bool high_priority = false, int device = -1);
Stream getDefaultStream(int device = -1);
// The stream that kernels and copies on `device` use in this thread (the default stream
// until setCurrentStream or a StreamGuard changes it).
Stream getCurrentStream(int device = -1);
void setCurrentStream(Stream stream);
// Wraps a cudaStream_t created elsewhere (it must belong to `device`).
Stream getStreamFromExternal(void* handle, int device);

// Makes `stream` the current stream of its device, and its device the current device, for
// the guard's lifetime; restores both afterwards.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  int previous_device_ = -1;
  int device_ = -1;
  void* previous_stream_ = nullptr;
};

// Makes `device` current for the guard's lifetime (no-op for a negative index).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// ---- events ----
// A marker in a stream's work (a cudaEvent_t created on the first record, on that stream's
// device). Move-only.
class Event {
 public:
  explicit Event(bool enable_timing = false) : timing_(enable_timing) {}
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record();  // on the current stream of the current device
  void record(const Stream& stream);
  // Makes `stream` wait (on the device, the host does not block) for the recorded work.
  // Nothing to wait for if the event was never recorded.
  void block(const Stream& stream) const;
  bool query() const;        // true when the recorded work is done (or nothing was recorded)
  void synchronize() const;  // the host waits for the recorded work
  // Milliseconds from this event to `end`; both made with enable_timing and recorded.
  // Waits for `end` to complete.
  float elapsed_time(const Event& end) const;

  bool is_created() const { return event_ != nullptr; }
  int device_index() const { return device_; }

 private:
  void* event_ = nullptr;  // cudaEvent_t
  int device_ = -1;
  bool timing_ = false;
};

namespace detail {
// For Tensor::pin_memory / is_pinned, through core's device hooks: a contiguous copy of a CPU
// tensor in page-locked host memory (throws without a GPU), and whether ptr points into
// page-locked host memory.
Tensor pin_memory(const Tensor& cpu_tensor);
bool is_pinned(const void* ptr);
}  // namespace detail

}  // namespace cuda
}  // namespace ember
