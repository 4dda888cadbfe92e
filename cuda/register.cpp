// cuda::register_backend(): fills core's device hooks, and installs the CUDA allocator and
// kernels only when a GPU is present; otherwise CUDA ops fail with "no kernel/allocator for cuda".
#include <ember/cuda/register.h>

#include <ember/core/device_hooks.h>
#include <ember/core/storage.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/api.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/kernels.h>

namespace ember {
namespace cuda {

void register_backend() {
  // With or without a GPU: without one, these throw "no GPU" errors (is_pinned is false).
  set_device_hooks({&current_device, &detail::pin_memory, &detail::is_pinned});
  if (!is_available()) return;
  set_allocator(kCUDA, cuda_allocator());
  ::ember::detail::g_submit_cuda_ops = [] { batch::submit_all(); };
  register_copy_kernels();
  register_elementwise_kernels();
  register_gemm_kernels();
  register_index_kernels();
  register_scatter_kernels();
  register_random_kernels();
  register_reduce_kernels();
  register_softmax_kernels();
  register_cross_entropy_kernels();
  register_optim_kernels();
  register_conv_kernels();
  register_pool_kernels();
  register_batch_norm_kernels();
  register_sort_kernels();
  register_scan_kernels();
}

}  // namespace cuda
}  // namespace ember
