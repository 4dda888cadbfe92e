// CUDA graph capture, inside cuda/: whether a capture is underway, the checks that refuse
// illegal operations during one, and the caching allocator's private pools. Private to cuda/;
// the public API is cuda/graph.h.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

#include <ember/cuda/graph.h>

namespace ember {
namespace cuda {

// Captures underway in the process (cuda/graph.cpp): the checks below cost one relaxed load
// while it is zero.
extern std::atomic<int> g_captures_underway;
inline bool capture_underway() { return g_captures_underway.load(std::memory_order_relaxed) != 0; }

// Throws ember::Error naming `op` when `stream` (of `device`) is being captured: a host
// synchronization or a copy to or from the host there would invalidate the capture.
void check_stream_not_capturing(const char* op, int device, cudaStream_t stream);
// The same for work that waits for a whole device (-1: any device), when any of its streams
// is being captured.
void check_device_not_capturing(const char* op, int device);

// Makes the calling thread's cuBLAS handle for `device` and binds it (and its workspace) to the
// current stream, before a capture of that stream begins (cuda/gemm.cpp): creating a handle
// during a capture is refused.
void prepare_blas_for_capture(int device);

// ---- graph-safe random numbers (cuda/graph.cpp, cuda/random.cu) ----
// When `stream` of `device` is being captured: sets *state to the graph's device-side (seed,
// offset) and *intra to the counter offset within the graph of `count` counters it reserves,
// and returns true (a captured random kernel then draws from seed state[0] at counter
// state[1] + intra). False when the stream is not being captured.
bool captured_philox(int device, cudaStream_t stream, uint64_t count, const uint64_t** state,
                     uint64_t* intra);
// Writes (seed, offset) into a graph's device state, in stream order (a one-thread kernel).
void write_philox_state(uint64_t* state, uint64_t seed, uint64_t offset, cudaStream_t stream);

// ---- the caching allocator's private pools (cuda/allocator.cpp) ----
// From now on, allocations on `stream` of `device` come from pool `id` (created on first use;
// each begin takes a reference, dropped by release_pool). Blocks freed into it are reused
// only by allocations routed to it.
void begin_allocate_to_pool(int device, MempoolId id, cudaStream_t stream);
// Allocations on `stream` go to the normal cache again (the capture ended).
void end_allocate_to_pool(int device, cudaStream_t stream);
// Drops a reference to pool `id`; with the last one its memory joins the normal cache: free
// blocks at once, blocks still held by tensors when those are freed.
void release_pool(int device, MempoolId id);

}  // namespace cuda
}  // namespace ember
