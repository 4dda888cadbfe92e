// Small-op batching: tiny float32 ops (add sub mul div, fill, copy, sum, mean on at most
// kMaxNumel elements) are recorded per stream instead of launched, and one kernel runs them
// in order when anything else is about to use that stream. Private to cuda/.
//
// Why: on the H200 host one kernel launch costs 3.5-5 µs of CPU time, more than everything
// else an op does, and a training step does dozens of ops on scalars and tiny tensors. A
// batch of up to kCapacity ops costs one launch.
//
// Ordering: recorded ops are submitted (launched as one batch) before
// - any launch, copy or library call on their stream: those take the stream from
//   current_stream(), which submits (cuda/stream.h);
// - a CUDA pointer leaves through Tensor::data_ptr() (all pending ops of every stream), so a
//   kernel the user launches with it, on any stream, sees their results; or a raw stream
//   through Stream::stream();
// - Stream::query()/synchronize(), Event::record()/block(), cuda::synchronize(),
//   empty_cache(), the allocator's out-of-memory retry and uncached frees.
// The caching allocator hands a freed block to the next allocation of the same stream at
// once, as before: the batch runs in stream order, before anything launched later.
// EMBER_CUDA_BATCH=0 turns batching off; EMBER_CUDA_SYNC=1 does too.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include <ember/core/tensor.h>

namespace ember {
namespace cuda {
namespace batch {

enum class Code : uint8_t { kAdd, kSub, kMul, kDiv, kFill, kCopy, kSum, kMean };

// One recorded op on n elements (32-bit words for kFill and kCopy):
//   kAdd..kDiv: out[i] = a[i * a_step] (op) b[i * b_step], or (op) `value` when b is null
//   kFill: out[i] = the bits of `value`;  kCopy: out[i] = a[i]
//   kSum, kMean: out[0] = the sum (mean) of a[0..n), in float per thread, double across them
// Steps are 1 (contiguous) or 0 (one element broadcast).
struct Op {
  float* out;
  const float* a;
  const float* b;
  float value;
  uint32_t n;
  Code code;
  uint8_t a_step, b_step;
};

constexpr int64_t kMaxNumel = 4096;
// Ops per launch: kCapacity * sizeof(Op) stays under the classic 4 KiB of kernel parameters.
constexpr int kCapacity = 96;

struct Batch {
  Op ops[kCapacity];
  int count;
};

// cuda/batch_kernel.cu: runs the batch on `stream` (of the current device), one block.
void launch(const Batch& batch, cudaStream_t stream);

// ---- recording (cuda/batch.cpp); false: not eligible, the caller launches as usual ----
// On the current stream of out's device (which need not be current); try_fill, which sees
// only an address, on the current device.
bool try_binary(Code code, const Tensor& out, const Tensor& a, const Tensor& b);
bool try_scalar(Code code, const Tensor& out, const Tensor& a, float s);
// elem_size-byte pattern `bits` into n contiguous elements at data.
bool try_fill(void* data, int64_t n, int elem_size, uint64_t bits);
bool try_copy(const Tensor& dst, const Tensor& src);              // same dtype, both contiguous
bool try_reduce(Code code, const Tensor& out, const Tensor& in);  // kSum/kMean of all of in

// ---- submitting ----
// Launches what is recorded for `stream` of `device` (-1: the current device); cheap when
// nothing is.
void submit(int device, cudaStream_t stream);
// Everything recorded for `device` (-1: every device).
void submit_all(int device = -1);

// The raw address of t's data, without submitting (Tensor::data_ptr() would).
inline void* address(const Tensor& t) { return t.unsafeGetTensorImpl()->data(); }

}  // namespace batch
}  // namespace cuda
}  // namespace ember
