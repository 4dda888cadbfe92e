// The public ember::cuda API in CUDA builds: device queries never throw (no GPU or no
// driver reads as zero devices); memory figures come from the caching allocator; pinning.
#include <ember/cuda/api.h>

#include <cuda_runtime.h>

#include <memory>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/tensor.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/capture.h>
#include <ember/cuda/check.h>

namespace ember {
namespace cuda {
namespace {

int resolve(int device) {
  if (device >= 0) return device;
  int current = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&current));
  return current;
}

}  // namespace

int device_count() {
  // Counted once: the answer cannot change while the process runs, and a failed query
  // (no driver, no device, a driver older than the runtime) means no CUDA here.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

bool is_available() { return device_count() > 0; }

int current_device() {
  EMBER_CHECK(is_available(), "cuda::current_device: CUDA is not available (no GPU found)");
  int device = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void set_device(int index) {
  EMBER_CHECK(index >= 0 && index < device_count(), "cuda::set_device: device ", index,
              " does not exist (", device_count(), " CUDA devices)");
  EMBER_CUDA_CHECK(cudaSetDevice(index));
}

// Waits for all work on the device; with no GPU there is nothing to wait for.
DeviceProperties get_device_properties(int device) {
  EMBER_CHECK(is_available(), "cuda::get_device_properties: no CUDA device is available");
  device = resolve(device);
  EMBER_CHECK(device < device_count(), "cuda::get_device_properties: device ", device,
              " does not exist (", device_count(), " CUDA devices)");
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  DeviceProperties d;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.total_memory = p.totalGlobalMem;
  d.multi_processor_count = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
  for (int i = 0; i < 3; ++i) {
    d.max_block_dim[i] = p.maxThreadsDim[i];
    d.max_grid_dim[i] = p.maxGridSize[i];
  }
  d.shared_memory_per_block = p.sharedMemPerBlock;
  d.shared_memory_per_block_optin = p.sharedMemPerBlockOptin;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&d.clock_rate_khz, cudaDevAttrClockRate, device));
  return d;
}

void synchronize(int device) {
  if (!is_available()) return;
  EMBER_CHECK(device < device_count(), "cuda::synchronize: device ", device, " does not exist (",
              device_count(), " CUDA devices)");
  check_device_not_capturing("cuda::synchronize", device);
  DeviceGuard guard(device);
  batch::submit_all(device < 0 ? current_device() : device);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

size_t memory_allocated(int device) {
  return is_available() ? allocated_bytes(resolve(device)) : 0;
}

size_t max_memory_allocated(int device) {
  return is_available() ? peak_allocated_bytes(resolve(device)) : 0;
}

size_t memory_reserved(int device) { return is_available() ? reserved_bytes(resolve(device)) : 0; }

void reset_peak_memory_stats(int device) {
  if (is_available()) reset_peak_allocated_bytes(resolve(device));
}

void empty_cache() {
  if (is_available()) release_cached_memory();
}

void set_per_process_memory_fraction(double fraction, int device) {
  EMBER_CHECK(fraction >= 0.0 && fraction <= 1.0,
              "cuda::set_per_process_memory_fraction: the fraction must be in [0, 1], got ",
              fraction);
  EMBER_CHECK(is_available(), "cuda::set_per_process_memory_fraction: no CUDA device is available");
  set_memory_fraction(fraction, resolve(device));
}

std::pair<size_t, size_t> mem_get_info(int device) {
  EMBER_CHECK(is_available(), "cuda::mem_get_info: no CUDA device is available");
  DeviceGuard guard(resolve(device));
  size_t free_b = 0, total_b = 0;
  EMBER_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return {free_b, total_b};
}

double get_per_process_memory_fraction(int device) {
  EMBER_CHECK(is_available(), "cuda::get_per_process_memory_fraction: no CUDA device is available");
  return memory_fraction(resolve(device));
}

namespace detail {

// A contiguous copy in a storage from the pinned allocator. No autograd history: like
// LibTorch's pin_memory on a tensor that does not require grad.
Tensor pin_memory(const Tensor& t) {
  EMBER_CHECK(is_available(),
              "pin_memory: no CUDA device is available (page-locked memory needs a GPU)");
  EMBER_CHECK(t.is_cpu(), "pin_memory: only CPU tensors can be pinned, got a tensor on ",
              t.device());
  const size_t nbytes = t.nbytes();
  Storage storage = std::make_shared<StorageImpl>(pinned_allocator()->allocate(nbytes, kCPU),
                                                  nbytes, Device(kCPU));
  Tensor out(std::make_shared<TensorImpl>(std::move(storage), t.dtype(), t.sizes(),
                                          contiguous_strides(t.sizes()), 0));
  if (t.numel() > 0) kernel<Op::copy>(kCPU)(out, t, false);
  return out;
}

bool is_pinned(const void* ptr) { return is_available() && is_pinned_pointer(ptr); }

}  // namespace detail

}  // namespace cuda
}  // namespace ember
