// The CUDA allocator: cudaMalloc per storage, cudaFree when the last view dies, with
// per-device counters behind memory_allocated(); an out-of-memory names the sizes involved.
#include <ember/cuda/allocator.h>

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>

#include <ember/cuda/check.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kMaxDevices = 64;
std::atomic<size_t> g_allocated[kMaxDevices];
std::atomic<size_t> g_peak[kMaxDevices];

// The deleter's context packs the device index (top 8 bits) and the size (low 56 bits),
// so a free needs no side table and an allocation no extra heap block.
void* pack(int device, size_t nbytes) {
  return reinterpret_cast<void*>((static_cast<uint64_t>(device) << 56) | nbytes);
}

void free_block(void* ptr, void* ctx) {
  const uint64_t packed = reinterpret_cast<uint64_t>(ctx);
  const int device = static_cast<int>(packed >> 56);
  const size_t nbytes = static_cast<size_t>(packed & ((uint64_t(1) << 56) - 1));
  g_allocated[device] -= nbytes;
  // Deleters must not throw; at process exit the runtime may already be unloaded, which
  // cudaFree reports as an error that is safe to ignore.
  if (cudaFree(ptr) != cudaSuccess) cudaGetLastError();
}

std::string bytes_str(size_t n) {
  char buf[32];
  if (n >= (size_t(1) << 30)) {
    snprintf(buf, sizeof buf, "%.2f GiB", n / double(size_t(1) << 30));
  } else if (n >= (size_t(1) << 20)) {
    snprintf(buf, sizeof buf, "%.2f MiB", n / double(size_t(1) << 20));
  } else {
    snprintf(buf, sizeof buf, "%zu bytes", n);
  }
  return buf;
}

class CudaAllocator : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device device) override {
    if (nbytes == 0) return {};
    int index = device.index();
    if (index < 0) EMBER_CUDA_CHECK(cudaGetDevice(&index));
    EMBER_CHECK(index < kMaxDevices, "cuda: device index ", index, " is out of range");
    DeviceGuard guard(index);
    void* ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, nbytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      throw OutOfMemoryError(::ember::detail::str(
          "CUDA out of memory: tried to allocate ", bytes_str(nbytes), " on cuda:", index, " (",
          bytes_str(g_allocated[index].load()), " allocated by ember, 0 bytes cached, ",
          bytes_str(free_b), " free of ", bytes_str(total_b), ")"));
    }
    EMBER_CUDA_CHECK(err);
    const size_t now = g_allocated[index] += nbytes;
    size_t peak = g_peak[index].load();
    while (now > peak && !g_peak[index].compare_exchange_weak(peak, now)) {
    }
    return DataPtr{ptr, pack(index, nbytes), &free_block};
  }
};

}  // namespace

Allocator* cuda_allocator() {
  static CudaAllocator allocator;
  return &allocator;
}

size_t allocated_bytes(int device) {
  return device >= 0 && device < kMaxDevices ? g_allocated[device].load() : 0;
}
size_t peak_allocated_bytes(int device) {
  return device >= 0 && device < kMaxDevices ? g_peak[device].load() : 0;
}
void reset_peak_allocated_bytes(int device) {
  if (device >= 0 && device < kMaxDevices) g_peak[device] = g_allocated[device].load();
}

DeviceGuard::DeviceGuard(int device) {
  if (device < 0) return;
  int current = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device) {
    EMBER_CUDA_CHECK(cudaSetDevice(device));
    previous_ = current;
  }
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

}  // namespace cuda
}  // namespace ember
