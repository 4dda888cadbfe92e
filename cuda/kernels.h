// The CUDA backend's internal entry points: one register_* per kernel family file and the
// launchers that .cu files export to host code. Plain types only: no CUDA headers here.
#pragma once

#include <cstdint>

namespace ember {
namespace cuda {

void register_copy_kernels();  // cuda/copy.cpp (copy between any devices, fill)

// Geometry of a strided operand for kernels that index by a flat element number.
constexpr int kMaxLaunchDims = 8;
struct StridedLayout {
  int ndim = 0;
  int64_t sizes[kMaxLaunchDims];
  int64_t strides[kMaxLaunchDims];  // in elements
};

// cuda/fill.cu: writes the elem_size-byte pattern `bits` into n elements on the current device.
void launch_fill(void* data, int64_t n, int elem_size, uint64_t bits);
void launch_fill_strided(void* data, int64_t n, const StridedLayout& layout, int elem_size,
                         uint64_t bits);

}  // namespace cuda
}  // namespace ember
