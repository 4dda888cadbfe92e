// The ember::cuda API for builds without CUDA: nothing is available, stats are zero,
// and asking for a device throws a clear Error instead of failing at link time.
#include <ember/core/error.h>
#include <ember/cuda/api.h>

namespace ember {
namespace cuda {

bool is_available() { return false; }
int device_count() { return 0; }

int current_device() { EMBER_THROW("cuda::current_device: ember was built without CUDA"); }

void set_device(int index) {
  EMBER_THROW("cuda: ember was built without CUDA (set_device(", index, ") is not possible)");
}

void synchronize() {}

size_t memory_allocated(int) { return 0; }
size_t max_memory_allocated(int) { return 0; }
size_t memory_reserved(int) { return 0; }
void reset_peak_memory_stats(int) {}
void empty_cache() {}

}  // namespace cuda
}  // namespace ember
