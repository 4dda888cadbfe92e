// The CUDA allocator (plain cudaMalloc/cudaFree for now; the caching allocator is its own
// issue), its per-device byte counters, and a guard that switches the current device.
#pragma once

#include <cstddef>

#include <ember/core/storage.h>

namespace ember {
namespace cuda {

Allocator* cuda_allocator();

// Bytes held by live allocations and the high-water mark since the last reset, per device.
size_t allocated_bytes(int device);
size_t peak_allocated_bytes(int device);
void reset_peak_allocated_bytes(int device);

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

}  // namespace cuda
}  // namespace ember
