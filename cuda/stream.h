// Internal: the current CUDA stream of each device (per thread), which every kernel launch,
// copy and cuBLAS call of the backend uses. The public Stream/Event API is in cuda/api.h.
#pragma once

#include <cuda_runtime.h>

namespace ember {
namespace cuda {

// For launching work: small ops recorded for the stream (cuda/batch.h) are submitted first,
// so that the caller's work runs after them.
cudaStream_t current_stream();            // of the current device
cudaStream_t current_stream(int device);  // nullptr is the legacy default stream
// The same stream without submitting anything: for bookkeeping (which stream an allocation
// belongs to, which queue a small op joins).
cudaStream_t peek_current_stream(int device);
void set_current_stream(int device, cudaStream_t stream);

}  // namespace cuda
}  // namespace ember
