// copy_on_device: dst = src on one GPU, any dtypes and strides, over cuda/loops.cuh. Dense
// same-dtype copies are one cudaMemcpyAsync (tiny ones join the small-op batch, batch.h);
// other same-dtype copies move bits by size.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include <ember/core/dispatch.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/loops.cuh>

namespace ember {
namespace cuda {
namespace {

using loops::gpu_kernel;

struct Identity {
  template <class T>
  __device__ T operator()(T x) const {
    return x;
  }
};

// static_cast<D>, as the CPU copy: x != 0 for bool (NaN is true), truncation toward zero
// for float -> integer. Float -> uint8 goes through int64 (as PyTorch does) so that negative
// values wrap mod 256 like the CPU's conversion instead of saturating to 0 as a direct
// float -> unsigned conversion does on the GPU.
template <class D>
struct Convert {
  template <class S>
  __device__ D operator()(S x) const {
    if constexpr (std::is_same<D, uint8_t>::value && std::is_floating_point<S>::value)
      return static_cast<D>(static_cast<int64_t>(x));
    else
      return static_cast<D>(x);
  }
};

// Same dtype: the element's bits, moved as an unsigned integer of its size.
void copy_bits(const Tensor& dst, const Tensor& src) {
  switch (dst.element_size()) {
    case 1:
      return gpu_kernel<uint8_t, uint8_t>("copy", Identity(), dst, src);
    case 2:
      return gpu_kernel<uint16_t, uint16_t>("copy", Identity(), dst, src);
    case 4:
      return gpu_kernel<uint32_t, uint32_t>("copy", Identity(), dst, src);
    case 8:
      return gpu_kernel<uint64_t, uint64_t>("copy", Identity(), dst, src);
    default:
      EMBER_THROW("copy: dtype ", dst.dtype(), " is not supported on CUDA");
  }
}

}  // namespace

void copy_on_device(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  DeviceGuard guard(dst.device().index());
  if (dst.dtype() == src.dtype()) {
    if (dst.is_contiguous() && src.is_contiguous()) {
      if (batch::address(dst) == batch::address(src) || batch::try_copy(dst, src)) return;
      EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(),
                                       cudaMemcpyDeviceToDevice, current_stream()));
      return;
    }
    return copy_bits(dst, src);
  }
  EMBER_DISPATCH_ALL_TYPES(dst.dtype(), "copy", [&] {
    using D = scalar_t;
    EMBER_DISPATCH_ALL_TYPES(src.dtype(), "copy", [&] {
      if constexpr (!std::is_same<D, scalar_t>::value)  // same dtype is handled above
        gpu_kernel<D, scalar_t>("copy", Convert<D>(), dst, src);
    });
  });
}

}  // namespace cuda
}  // namespace ember
