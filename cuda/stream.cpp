// The per-thread current stream of each device (the legacy default stream until set).
#include <ember/cuda/stream.h>

#include <ember/core/error.h>
#include <ember/cuda/check.h>

namespace ember {
namespace cuda {

namespace {
constexpr int kMaxDevices = 64;
thread_local cudaStream_t t_current[kMaxDevices] = {};

int this_device() {
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}
}  // namespace

cudaStream_t current_stream() { return t_current[this_device()]; }

cudaStream_t current_stream(int device) {
  if (device < 0) device = this_device();
  EMBER_CHECK(device < kMaxDevices, "cuda: device index ", device, " out of range");
  return t_current[device];
}

void set_current_stream(int device, cudaStream_t stream) {
  if (device < 0) device = this_device();
  EMBER_CHECK(device < kMaxDevices, "cuda: device index ", device, " out of range");
  t_current[device] = stream;
}

}  // namespace cuda
}  // namespace ember
