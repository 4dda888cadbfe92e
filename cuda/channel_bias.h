// The convolution's bias on CUDA: out [N, C, *] += bias [C], broadcast over the batch and the
// positions, one pass with 16-byte loads (cudnn_conv.cpp calls it after the convolution).
#pragma once

#include <cuda_runtime.h>

#include <ember/core/tensor.h>

namespace ember {
namespace cuda {

// out: contiguous [N, C, ...] of float32 or float64; bias: contiguous [C] of out's dtype, on
// out's device. Runs on `stream`; `op` labels errors.
void add_channel_bias(const char* op, const Tensor& out, const Tensor& bias, cudaStream_t stream);

}  // namespace cuda
}  // namespace ember
