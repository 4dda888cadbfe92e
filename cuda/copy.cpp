// CUDA copies (the CUDA table's copy kernel, used whenever one side is on the GPU) and fill.
// Work goes on the current stream of the CUDA side; the host waits only after a copy to the
// host or one from pageable memory, never for a non_blocking copy with pinned host memory.
#include <cuda_runtime.h>

#include <cstring>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/capture.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

bool dense_same_dtype(const Tensor& dst, const Tensor& src) {
  return dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous();
}

// A contiguous CPU copy of t (the CPU kernel directly: no autograd recording in a kernel).
Tensor dense_on_host(const Tensor& t, ScalarType dtype) {
  Tensor out = empty_on(t.sizes(), dtype, kCPU);
  kernel<Op::copy>(kCPU)(out, t, false);
  return out;
}

// The end of a host<->device transfer queued on `stream`. With non_blocking and pinned
// host memory the caller synchronizes later; the pinned cache records the copy so that the
// block is not handed out again before the copy is done. Otherwise the host waits here: the
// data must be there on return, and pageable memory must not change under a pending copy.
void finish_transfer(const void* host, bool non_blocking, cudaStream_t stream, int device) {
  if (non_blocking && is_pinned_pointer(host)) {
    record_pinned_use(host, stream, device);
    return;
  }
  batch::submit(device, stream);  // a copy_on_device since `stream` was taken may be recorded
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// CPU -> CUDA: the host side dense in its own dtype, one transfer, then strides and dtype
// conversion on the device.
void copy_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const int device = dst.device().index();
  check_stream_not_capturing("a copy from the CPU to CUDA (Tensor::cuda(), to(kCUDA), copy_)",
                             device, peek_current_stream(device));
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device);
  const Tensor host = src.is_contiguous() ? src : dense_on_host(src, src.dtype());
  const bool direct = dense_same_dtype(dst, host);
  // A temporary freed at the end returns to this stream's pool: later work on the stream
  // runs after copy_on_device has read it.
  const Tensor staged = direct ? dst : empty_on(src.sizes(), src.dtype(), dst.device());
  EMBER_CUDA_CHECK(cudaMemcpyAsync(staged.data_ptr(), host.data_ptr(), host.nbytes(),
                                   cudaMemcpyHostToDevice, stream));
  if (!direct) copy_on_device(dst, staged);
  finish_transfer(host.data_ptr(), non_blocking, stream, device);
}

// CUDA -> CPU: strides and dtype conversion on the device into a dense buffer of dst's
// dtype, one transfer, and for a strided destination a last CPU copy.
void copy_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const int device = src.device().index();
  check_stream_not_capturing("a copy from CUDA to the CPU (Tensor::item(), cpu(), to(kCPU))",
                             device, peek_current_stream(device));
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device);
  Tensor dense = src;
  if (!src.is_contiguous() || src.dtype() != dst.dtype()) {
    dense = empty_on(src.sizes(), dst.dtype(), src.device());
    copy_on_device(dense, src);
  }
  if (dst.is_contiguous()) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), dense.data_ptr(), dst.nbytes(),
                                     cudaMemcpyDeviceToHost, stream));
    finish_transfer(dst.data_ptr(), non_blocking, stream, device);
    return;
  }
  Tensor host = empty_on(dst.sizes(), dst.dtype(), kCPU);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(host.data_ptr(), dense.data_ptr(), host.nbytes(),
                                   cudaMemcpyDeviceToHost, stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));  // the CPU reads it next
  kernel<Op::copy>(kCPU)(dst, host, false);
}

// `waiter` (a stream of waiter_device) waits, on the device, for the work queued so far on
// `signaler` (of signaler_device). The event may be destroyed while pending.
void stream_wait(cudaStream_t waiter, int waiter_device, cudaStream_t signaler,
                 int signaler_device) {
  DeviceGuard on_signaler(signaler_device);  // an event and its stream share a device
  batch::submit(signaler_device, signaler);  // the event must follow recorded small ops
  cudaEvent_t event = nullptr;
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  cudaError_t err = cudaEventRecord(event, signaler);
  if (err == cudaSuccess) {
    DeviceGuard on_waiter(waiter_device);  // a null stream means the current device's
    err = cudaStreamWaitEvent(waiter, event, 0);
  }
  cudaEventDestroy(event);
  EMBER_CUDA_CHECK(err);
}

// cuda:i -> cuda:j: the source made dense on its device, a peer copy on the destination's
// current stream, and the destination's strides/dtype on its device. The two streams are
// ordered both ways with events, as in PyTorch: the peer copy reads the source only after
// the source's stream wrote it, and the source's stream reuses the source's memory (once
// freed) only after the peer copy read it.
void copy_across_devices(const Tensor& dst, const Tensor& src) {
  const int dst_device = dst.device().index();
  const int src_device = src.device().index();
  const cudaStream_t dst_stream = current_stream(dst_device);
  const cudaStream_t src_stream = current_stream(src_device);
  Tensor src_dense = src;
  if (!src.is_contiguous()) {
    DeviceGuard guard(src_device);
    src_dense = empty_on(src.sizes(), src.dtype(), src.device());
    copy_on_device(src_dense, src);
  }
  stream_wait(dst_stream, dst_device, src_stream, src_device);
  {
    DeviceGuard guard(dst_device);
    const bool direct = dense_same_dtype(dst, src_dense);
    const Tensor landing = direct ? dst : empty_on(src.sizes(), src.dtype(), dst.device());
    EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(landing.data_ptr(), dst_device, src_dense.data_ptr(),
                                         src_device, src_dense.nbytes(), dst_stream));
    if (!direct) copy_on_device(dst, landing);
  }
  stream_wait(src_stream, src_device, dst_stream, dst_device);
}

void copy_kernel(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.numel() == 0) return;
  if (dst.is_cpu() && src.is_cpu()) return kernel<Op::copy>(kCPU)(dst, src, non_blocking);
  if (src.is_cpu()) return copy_to_device(dst, src, non_blocking);
  if (dst.is_cpu()) return copy_to_host(dst, src, non_blocking);
  if (dst.device().index() != src.device().index()) return copy_across_devices(dst, src);
  copy_on_device(dst, src);  // one memcpy when dense (recorded when tiny); never waits
}

void fill_kernel(const Tensor& out, const Scalar& value) {
  if (out.numel() == 0) return;
  DeviceGuard guard(out.device().index());
  uint64_t bits = 0;
  EMBER_DISPATCH_ALL_TYPES(out.dtype(), "fill", [&] {
    const scalar_t v = value.to<scalar_t>();
    std::memcpy(&bits, &v, sizeof(v));
  });
  const int elem_size = static_cast<int>(out.element_size());
  // The raw address: data_ptr() would submit the small ops this fill may join (batch.h).
  if (out.is_contiguous()) return launch_fill(batch::address(out), out.numel(), elem_size, bits);

  const IntArrayRef strides[1] = {out.strides()};
  const StridedGeometry g = collapse_dims(out.sizes(), strides, 1);
  if (static_cast<int>(g.sizes.size()) > kMaxLaunchDims) {
    // Rare (more than 8 dims after merging): fill a dense tensor and copy it in.
    Tensor dense = empty_on(out.sizes(), out.dtype(), out.device());
    launch_fill(dense.data_ptr(), dense.numel(), elem_size, bits);
    copy_on_device(out, dense);
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
