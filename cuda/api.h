// The public ember::cuda API: availability, devices, synchronization, memory stats.
// Declarations only (no CUDA headers); without a CUDA build or a GPU, is_available() is false.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember {
namespace cuda {

bool is_available();
int device_count();
int current_device();
void set_device(int index);
void synchronize();

size_t memory_allocated(int device = -1);
size_t max_memory_allocated(int device = -1);
size_t memory_reserved(int device = -1);
void reset_peak_memory_stats(int device = -1);
void empty_cache();

}  // namespace cuda
}  // namespace ember
