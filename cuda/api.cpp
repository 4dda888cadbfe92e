// The public ember::cuda API in CUDA builds: device queries never throw (no GPU or no
// driver reads as zero devices); memory figures come from the allocator's counters.
#include <ember/cuda/api.h>

#include <cuda_runtime.h>

#include <ember/cuda/allocator.h>
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

// Waits for all work on the current device; with no GPU there is nothing to wait for.
void synchronize() {
  if (!is_available()) return;
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

size_t memory_allocated(int device) {
  return is_available() ? allocated_bytes(resolve(device)) : 0;
}

size_t max_memory_allocated(int device) {
  return is_available() ? peak_allocated_bytes(resolve(device)) : 0;
}

// No cache yet: reserved memory is exactly what live tensors hold.
size_t memory_reserved(int device) { return memory_allocated(device); }

void reset_peak_memory_stats(int device) {
  if (is_available()) reset_peak_allocated_bytes(resolve(device));
}

void empty_cache() {}

}  // namespace cuda
}  // namespace ember
