// The CUDA services core needs (current device, pinned memory), as a table of function
// pointers that cuda::register_backend() fills, so that core includes nothing from cuda/.
#pragma once

namespace ember {

class Tensor;

// As PyTorch's CUDAHooksInterface: the defaults are a build without CUDA's answers (each
// throws ember::Error saying so; is_pinned is false). A CUDA build installs its own while
// init_backends() holds its lock, GPU or not: without one, they throw "no GPU" errors.
// The hot path's hook lives apart: detail::g_submit_cuda_ops (core/tensor.h), which data_ptr()
// calls to launch the small ops batched on a CUDA stream, is set by the same registration.
struct DeviceHooks {
  int (*current_device)();                         // cuda::current_device()
  Tensor (*pin_memory)(const Tensor& cpu_tensor);  // a contiguous page-locked copy
  bool (*is_pinned)(const void* ptr);              // ptr is in page-locked host memory
};

// The table, after init_backends() (called here, so the backends are registered first).
const DeviceHooks& device_hooks();
// For the CUDA backend's registration only.
void set_device_hooks(const DeviceHooks& hooks);

}  // namespace ember
