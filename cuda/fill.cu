// Fill kernels: write one value into every element of a CUDA tensor (fill_, zero_, full).
// The value arrives as its bit pattern, so one kernel per element size serves every dtype.
// Everything runs on the current stream of the current device.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include <ember/cuda/batch.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kBlock = 256;
// Enough blocks to fill every SM of an H200 several times over; grid-stride covers the rest.
constexpr int64_t kMaxBlocks = 4096;

// out [n], contiguous
template <class T>
__global__ void fill_contiguous(T* out, int64_t n, T value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(blockDim.x) * gridDim.x) {
    out[i] = value;
  }
}

// out: layout.sizes, layout.strides (elements); i is the row-major element number
template <class T>
__global__ void fill_strided(T* out, int64_t n, StridedLayout layout, T value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(blockDim.x) * gridDim.x) {
    int64_t rest = i, offset = 0;
    for (int d = layout.ndim - 1; d >= 0; --d) {
      offset += (rest % layout.sizes[d]) * layout.strides[d];
      rest /= layout.sizes[d];
    }
    out[offset] = value;
  }
}

// The pattern of one element repeated over 16 bytes, for vectorized stores.
uint4 replicate(uint64_t bits, int elem_size) {
  unsigned char bytes[16];
  for (int i = 0; i < 16; i += elem_size) std::memcpy(bytes + i, &bits, elem_size);
  uint4 v;
  std::memcpy(&v, bytes, 16);
  return v;
}

template <class T>
void fill_typed(void* data, int64_t n, uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  fill_contiguous<T><<<grid_blocks(n, kBlock, kMaxBlocks), kBlock, 0, current_stream()>>>(
      static_cast<T*>(data), n, value);
  EMBER_CUDA_KERNEL_CHECK("fill");
}

template <class T>
void fill_strided_typed(void* data, int64_t n, const StridedLayout& layout, uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  fill_strided<T><<<grid_blocks(n, kBlock, kMaxBlocks), kBlock, 0, current_stream()>>>(
      static_cast<T*>(data), n, layout, value);
  EMBER_CUDA_KERNEL_CHECK("fill");
}

void fill_by_size(void* data, int64_t n, int elem_size, uint64_t bits) {
  switch (elem_size) {
    case 1:
      return fill_typed<uint8_t>(data, n, bits);
    case 2:
      return fill_typed<uint16_t>(data, n, bits);
    case 4:
      return fill_typed<uint32_t>(data, n, bits);
    case 8:
      return fill_typed<uint64_t>(data, n, bits);
    default:
      EMBER_THROW("fill: unsupported element size ", elem_size, " on CUDA");
  }
}

}  // namespace

void launch_fill(void* data, int64_t n, int elem_size, uint64_t bits) {
  if (n <= 0 || batch::try_fill(data, n, elem_size, bits)) return;
  const size_t nbytes = static_cast<size_t>(n) * elem_size;
  const uint64_t mask = elem_size == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * elem_size)) - 1;
  if ((bits & mask) == 0) {  // zeros (the common case: zeros, zero_) are a memset
    EMBER_CUDA_CHECK(cudaMemsetAsync(data, 0, nbytes, current_stream()));
    return;
  }
  // 16-byte stores for the aligned bulk, element stores for the tail.
  if (reinterpret_cast<uintptr_t>(data) % 16 == 0 && nbytes >= 16) {
    const int64_t nvec = static_cast<int64_t>(nbytes / 16);
    fill_contiguous<uint4><<<grid_blocks(nvec, kBlock, kMaxBlocks), kBlock, 0, current_stream()>>>(
        static_cast<uint4*>(data), nvec, replicate(bits, elem_size));
    EMBER_CUDA_KERNEL_CHECK("fill");
    const int64_t done = nvec * 16 / elem_size;
    if (done < n)
      fill_by_size(static_cast<char*>(data) + done * elem_size, n - done, elem_size, bits);
    return;
  }
  fill_by_size(data, n, elem_size, bits);
}

void launch_fill_strided(void* data, int64_t n, const StridedLayout& layout, int elem_size,
                         uint64_t bits) {
  if (n <= 0) return;
  switch (elem_size) {
    case 1:
      return fill_strided_typed<uint8_t>(data, n, layout, bits);
    case 2:
      return fill_strided_typed<uint16_t>(data, n, layout, bits);
    case 4:
      return fill_strided_typed<uint32_t>(data, n, layout, bits);
    case 8:
      return fill_strided_typed<uint64_t>(data, n, layout, bits);
    default:
      EMBER_THROW("fill: unsupported element size ", elem_size, " on CUDA");
  }
}

}  // namespace cuda
}  // namespace ember
