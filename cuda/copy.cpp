// CUDA memory kernels: copy between any pair of devices (registered in the CUDA table, which
// core consults whenever one side is on the GPU) and fill. Dense same-dtype copies are one
// cudaMemcpy; anything else goes through the host and reuses the CPU copy kernel for
// strides and dtype conversion (a device-side strided copy arrives with the CUDA backend).
#include <cuda_runtime.h>

#include <cstring>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>

namespace ember {
namespace cuda {
namespace {

int device_index(const Tensor& t) { return t.is_cuda() ? t.device().index() : -1; }

// Elements between the first and one past the last element a view touches (strides >= 0).
int64_t storage_extent(const Tensor& t) {
  if (t.numel() == 0) return 0;
  int64_t extent = 1;
  for (int64_t d = 0; d < t.dim(); ++d) extent += (t.sizes()[d] - 1) * t.strides()[d];
  return extent;
}

// A host copy of the storage span that a CUDA view touches, and a CPU view into it with the
// view's own strides: lets the CPU kernels read or write any strided GPU view.
struct HostMirror {
  Tensor base;  // [extent] on the CPU
  Tensor view;  // the CUDA view's sizes and strides over base
};

HostMirror mirror_to_host(const Tensor& t) {
  const int64_t extent = storage_extent(t);
  HostMirror m;
  m.base = empty_on({extent}, t.dtype(), kCPU);
  if (extent > 0) {
    EMBER_CUDA_CHECK(cudaMemcpy(m.base.data_ptr(), t.data_ptr(), extent * t.element_size(),
                                cudaMemcpyDeviceToHost));
  }
  m.view = m.base.as_strided(t.sizes(), t.strides(), 0);
  return m;
}

void copy_kernel(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.numel() == 0) return;
  if (dst.is_cpu() && src.is_cpu()) return kernel<Op::copy>(kCPU)(dst, src, non_blocking);
  DeviceGuard guard(dst.is_cuda() ? device_index(dst) : device_index(src));

  // Dense and same dtype: one memcpy. Host<->device copies from pageable memory are
  // synchronous whatever non_blocking says; device-to-device stays asynchronous.
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.is_cuda() && src.is_cuda()) {
      EMBER_CUDA_CHECK(
          cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(), cudaMemcpyDefault, 0));
    } else {
      EMBER_CUDA_CHECK(cudaMemcpy(dst.data_ptr(), src.data_ptr(), dst.nbytes(),
                                  dst.is_cuda() ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
    }
    return;
  }

  // Otherwise through the host: read the source (if on the GPU), convert/stride on the CPU.
  HostMirror src_mirror;
  const Tensor& src_host = src.is_cuda() ? (src_mirror = mirror_to_host(src)).view : src;
  const auto cpu_copy = kernel<Op::copy>(kCPU);
  if (dst.is_cpu()) return cpu_copy(dst, src_host, false);
  if (dst.is_contiguous()) {
    Tensor staged = empty_on(dst.sizes(), dst.dtype(), kCPU);
    cpu_copy(staged, src_host, false);
    EMBER_CUDA_CHECK(
        cudaMemcpy(dst.data_ptr(), staged.data_ptr(), dst.nbytes(), cudaMemcpyHostToDevice));
    return;
  }
  // A strided destination: read its span, write the elements, put the span back (the
  // elements in between that are not part of dst go back unchanged).
  HostMirror dst_mirror = mirror_to_host(dst);
  cpu_copy(dst_mirror.view, src_host, false);
  EMBER_CUDA_CHECK(cudaMemcpy(dst.data_ptr(), dst_mirror.base.data_ptr(), dst_mirror.base.nbytes(),
                              cudaMemcpyHostToDevice));
}

void fill_kernel(const Tensor& out, const Scalar& value) {
  if (out.numel() == 0) return;
  DeviceGuard guard(device_index(out));
  uint64_t bits = 0;
  EMBER_DISPATCH_ALL_TYPES(out.dtype(), "fill", [&] {
    const scalar_t v = value.to<scalar_t>();
    std::memcpy(&bits, &v, sizeof(v));
  });
  const int elem_size = static_cast<int>(out.element_size());
  if (out.is_contiguous()) return launch_fill(out.data_ptr(), out.numel(), elem_size, bits);

  const IntArrayRef strides[1] = {out.strides()};
  const StridedGeometry g = collapse_dims(out.sizes(), strides, 1);
  if (static_cast<int>(g.sizes.size()) > kMaxLaunchDims) {  // rare: fill through the host
    HostMirror m = mirror_to_host(out);
    kernel<Op::fill>(kCPU)(m.view, value);
    EMBER_CUDA_CHECK(
        cudaMemcpy(out.data_ptr(), m.base.data_ptr(), m.base.nbytes(), cudaMemcpyHostToDevice));
    return;
  }
  StridedLayout layout;
  layout.ndim = static_cast<int>(g.sizes.size());
  for (int d = 0; d < layout.ndim; ++d) {
    layout.sizes[d] = g.sizes[d];
    layout.strides[d] = g.strides[0][d];
  }
  launch_fill_strided(out.data_ptr(), out.numel(), layout, elem_size, bits);
}

}  // namespace

void register_copy_kernels() {
  register_kernel<Op::copy>(kCUDA, &copy_kernel);
  register_kernel<Op::fill>(kCUDA, &fill_kernel);
}

}  // namespace cuda
}  // namespace ember
