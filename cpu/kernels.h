// The CPU backend's registration entry points, one per kernel family file.
// register_backend() installs the CPU allocator and calls every register_* below.
#pragma once

namespace ember {
namespace cpu {

void register_backend();
// cpu/isa.cpp: whether this CPU runs the instructions the library was built for, and a check
// that throws ember::Error naming them when it does not (register_backends calls it first).
bool cpu_runs_this_build();
void check_cpu();

void register_unary_kernels();          // cpu/unary.cpp (neg ... gelu, logical_not)
void register_binary_kernels();         // cpu/binary.cpp (tensor-tensor, tensor-scalar)
void register_ternary_kernels();        // cpu/ternary.cpp (where, masked_fill, clamp)
void register_copy_kernels();           // cpu/copy.cpp (copy, fill)
void register_random_kernels();         // cpu/random.cpp
void register_reduce_kernels();         // cpu/reduce.cpp; it also calls:
void register_arg_reduce_kernels();     // cpu/arg_reduce.cpp (max_dim, min_dim)
void register_gemm_kernels();           // cpu/gemm.cpp
void register_softmax_kernels();        // cpu/softmax.cpp
void register_index_kernels();          // cpu/index.cpp
void register_scatter_kernels();        // cpu/scatter.cpp (scatter, scatter_mul/amax/amin)
void register_cross_entropy_kernels();  // cpu/cross_entropy.cpp (fused forward, backward)
void register_optim_kernels();          // cpu/optim.cpp (fused optimizer steps)
void register_conv_kernels();           // cpu/conv.cpp (conv2d and its two backward kernels)
void register_pool_kernels();           // cpu/pool.cpp (max/avg pooling and their backward)
void register_batch_norm_kernels();     // cpu/batch_norm.cpp (statistics, normalization, backward)
void register_sort_kernels();           // cpu/sort.cpp (sort, topk, kthvalue, median)
void register_scan_kernels();           // cpu/scan.cpp (cumsum, cumprod, cummax, cummin)

}  // namespace cpu
}  // namespace ember
