// Device properties that launch configurations read, asked of the driver once per device and
// cached (cuda/reduce.cuh, cuda/batch_norm.cu). Private to cuda/.
#pragma once

#include <cuda_runtime.h>

#include <atomic>

#include <ember/cuda/check.h>

namespace ember {
namespace cuda {

// The number of streaming multiprocessors of `device`.
inline int sm_count(int device) {
  constexpr int kCachedDevices = 64;
  static std::atomic<int> cached[kCachedDevices];  // 0: not asked yet (static: zeroed)
  const bool cacheable = device >= 0 && device < kCachedDevices;
  if (cacheable) {
    const int n = cached[device].load(std::memory_order_relaxed);
    if (n > 0) return n;
  }
  int sms = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (cacheable) cached[device].store(sms, std::memory_order_relaxed);
  return sms;
}

}  // namespace cuda
}  // namespace ember
