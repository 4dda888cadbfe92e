// Internal: the current CUDA stream of each device (per thread), which every kernel launch,
// copy and cuBLAS call of the backend uses. The public Stream/Event API is in cuda/api.h.
#pragma once

#include <cuda_runtime.h>

namespace ember {
namespace cuda {

cudaStream_t current_stream();            // of the current device
cudaStream_t current_stream(int device);  // nullptr is the legacy default stream
void set_current_stream(int device, cudaStream_t stream);

}  // namespace cuda
}  // namespace ember
