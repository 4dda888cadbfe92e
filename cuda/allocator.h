// The CUDA caching allocator (device memory), the pinned host allocator, their statistics,
// and DeviceGuard (the public class of cuda/api.h). Private to cuda/.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include <ember/core/storage.h>
#include <ember/cuda/api.h>

namespace ember {
namespace cuda {

// Device memory: blocks cached per device and per stream (see allocator.cpp).
Allocator* cuda_allocator();

// Per device: bytes of live blocks, their high-water mark since the last reset, and bytes of
// all segments taken from cudaMalloc (live or cached).
size_t allocated_bytes(int device);
size_t peak_allocated_bytes(int device);
void reset_peak_allocated_bytes(int device);
size_t reserved_bytes(int device);
// The cap on a device's reserved bytes, as a fraction of its total memory (1: none).
void set_memory_fraction(double fraction, int device);
double memory_fraction(int device);
// Synchronizes every device, then cudaFree's the segments that hold no live block.
void release_cached_memory();

// Page-locked host memory (cudaHostAlloc), cached by size. A block freed while an
// asynchronous copy recorded with record_pinned_use may still read or write it is reused
// only once that copy is done.
Allocator* pinned_allocator();
// Notes that the work queued so far on `stream` (of `device`) uses the pinned block that
// holds ptr; a no-op for memory that pinned_allocator() did not hand out.
void record_pinned_use(const void* ptr, cudaStream_t stream, int device);
// Whether ptr points into page-locked host memory (ours or registered by anyone).
bool is_pinned_pointer(const void* ptr);

}  // namespace cuda
}  // namespace ember
