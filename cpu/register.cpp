// The CPU backend's single entry point: installs the allocator and registers every
// kernel family. Called once by register_backends(); explicit, so no linker can drop it.
#include <ember/core/dispatch.h>
#include <ember/core/storage.h>
#include <ember/cpu/kernels.h>

namespace ember {
namespace cpu {

Allocator* cpu_allocator();  // cpu/allocator.cpp

void register_backend() {
  set_allocator(kCPU, cpu_allocator());
  register_unary_kernels();
  register_binary_kernels();
  register_ternary_kernels();
  register_copy_kernels();
  register_random_kernels();
  register_reduce_kernels();
  register_gemm_kernels();
  register_softmax_kernels();
  register_index_kernels();
  register_scatter_kernels();
  register_cross_entropy_kernels();
  register_optim_kernels();
  register_conv_kernels();
  register_pool_kernels();
  register_batch_norm_kernels();
  register_sort_kernels();
  register_scan_kernels();
}

}  // namespace cpu
}  // namespace ember
