// The CUDA backend's internal entry points: one register_* per kernel family file and the
// launchers that .cu files export to host code. Plain types only: no CUDA headers here.
#pragma once

#include <cstdint>

namespace ember {
class Tensor;
namespace cuda {

void register_copy_kernels();     // cuda/copy.cpp (copy between any devices, fill)
void register_gemm_kernels();     // cuda/gemm.cpp (addmm, baddbmm through cuBLAS)
void register_index_kernels();    // cuda/index.cu (index_select, gather, scatter_add)
void register_scatter_kernels();  // cuda/scatter.cu (scatter, scatter_mul/amax/amin)
void register_random_kernels();   // cuda/random.cu (uniform, normal, randint)
// Elementwise families over cuda/loops.cuh; register_elementwise_kernels() (cuda/binary.cu)
// calls the three.
void register_elementwise_kernels();
void register_unary_kernels();    // cuda/unary.cu (neg ... gelu, logical_not)
void register_binary_kernels();   // cuda/binary.cu (tensor-tensor and tensor-scalar ops)
void register_ternary_kernels();  // cuda/ternary.cu (where, masked_fill, clamp)
// Reductions over the engine of cuda/reduce.cuh; register_reduce_kernels() (cuda/reduce.cu)
// also calls register_arg_reduce_kernels().
void register_reduce_kernels();         // cuda/reduce.cu (sum prod mean amax amin var norm all any)
void register_arg_reduce_kernels();     // cuda/arg_reduce.cu (max_dim, min_dim)
void register_softmax_kernels();        // cuda/softmax.cu (softmax, log_softmax)
void register_cross_entropy_kernels();  // cuda/cross_entropy.cu (fused forward, backward)
void register_optim_kernels();          // cuda/optim.cu (fused multi-tensor optimizer steps)
// cuda/cudnn_conv.cpp (conv2d and its backward kernels through cuDNN), or cuda/no_cudnn.cpp in
// builds without cuDNN (kernels that throw, naming the op)
void register_conv_kernels();
void register_pool_kernels();        // cuda/pool.cu (max/avg pooling and their backward)
void register_batch_norm_kernels();  // cuda/batch_norm.cu (statistics, normalization, backward)
void register_sort_kernels();        // cuda/sort.cu (sort, topk, kthvalue, median; CUB)
void register_scan_kernels();        // cuda/scan.cu (cumsum, cumprod, cummax, cummin)
// cuda/copy_kernel.cu: dst = src converted to dst's dtype; both CUDA on one device, same
// shape, any dtypes and strides. Runs on the current stream of the current device.
void copy_on_device(const Tensor& dst, const Tensor& src);

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
