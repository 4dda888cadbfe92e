// The dispatcher: a table of kernel pointers indexed by (device type, op), filled
// by each backend's explicit register call at start-up. Backend-facing, not public.
#pragma once

#include <cstdint>

#include <ember/core/tensor.h>

namespace ember {

// Kernel signatures, output first. Kernels may assume validated, allocated outputs.
using UnaryKernel = void (*)(const Tensor& out, const Tensor& in);
using UnaryScalarKernel = void (*)(const Tensor& out, const Tensor& in, const Scalar& a,
                                   const Scalar& b);
using BinaryKernel = void (*)(const Tensor& out, const Tensor& a, const Tensor& b);
using BinaryScalarKernel = void (*)(const Tensor& out, const Tensor& a, const Scalar& b);
using TernaryKernel = void (*)(const Tensor& out, const Tensor& cond, const Tensor& a,
                               const Tensor& b);
using MaskedFillKernel = void (*)(const Tensor& self, const Tensor& mask, const Scalar& value);
using CopyKernel = void (*)(const Tensor& dst, const Tensor& src, bool non_blocking);
using FillKernel = void (*)(const Tensor& out, const Scalar& value);
using RandomKernel = void (*)(const Tensor& out, uint64_t seed, uint64_t offset, const Scalar& a,
                              const Scalar& b);
using MultinomialKernel = void (*)(const Tensor& out, const Tensor& probs, uint64_t seed,
                                   uint64_t offset, bool replacement);
using ReduceKernel = void (*)(const Tensor& out, const Tensor& in, IntArrayRef dims,
                              const Scalar& param);
using ArgReduceKernel = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in,
                                 int64_t dim);
// Sorting and selection (ops.def's sort ... median): in [R, N] contiguous, N >= 1.
using SortKernel = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in,
                            bool descending);
using TopkKernel = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in,
                            int64_t k, bool largest);
using KthvalueKernel = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in,
                                int64_t k);
using MedianKernel = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in,
                              bool ignore_nan);
// Scans along dim of a contiguous input (ops.def's cumsum ... cummin).
using ScanKernel = void (*)(const Tensor& out, const Tensor& in, int64_t dim);
using ScanArgKernel = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in,
                               int64_t dim);
using GemmKernel = void (*)(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta,
                            const Scalar& alpha);
// out [m, n] = bias [n] (every row) + alpha * a @ b (ops.def's addmm_bias).
using GemmBiasKernel = void (*)(const Tensor& out, const Tensor& a, const Tensor& b,
                                const Tensor& bias, const Scalar& alpha);
// grad_w [n, k] = g^T @ x and grad_b [n] = g's column sums (ops.def's linear_weight_bias_grad).
using GemmBiasGradKernel = void (*)(const Tensor& grad_w, const Tensor& grad_b, const Tensor& g,
                                    const Tensor& x);
using SoftmaxKernel = void (*)(const Tensor& out, const Tensor& in, int64_t dim);
using IndexKernel = void (*)(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
// Options of the fused cross entropy; reduction as PyTorch's at::Reduction (0 none, 1 mean,
// 2 sum). Rows whose target equals ignore_index count for nothing.
struct CrossEntropyArgs {
  int64_t reduction = 1;
  int64_t ignore_index = -100;
  double label_smoothing = 0;
};
using CrossEntropyKernel = void (*)(const Tensor& out, const Tensor& lse, const Tensor& aux,
                                    const Tensor& input, const Tensor& target, const Tensor& weight,
                                    const CrossEntropyArgs& args);
using CrossEntropyBackwardKernel = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                            const Tensor& input, const Tensor& target,
                                            const Tensor& weight, const Tensor& lse,
                                            const Tensor& aux, const CrossEntropyArgs& args);

// Convolution geometry (ops.def's conv2d family), [0] for H and [1] for W.
struct ConvArgs {
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
};
using ConvKernel = void (*)(const Tensor& out, const Tensor& input, const Tensor& weight,
                            const Tensor& bias, const ConvArgs& args);
using ConvBackwardInputKernel = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                         const Tensor& weight, const ConvArgs& args);
using ConvBackwardWeightKernel = void (*)(const Tensor& grad_weight, const Tensor& grad_out,
                                          const Tensor& input, const ConvArgs& args);
// Pooling windows (ops.def's pool family), [0] for H and [1] for W. With `adaptive` only the
// output size (out's sizes) matters; otherwise windows start at i * stride - padding and take
// kernel taps dilation apart (avg pools: dilation 1). divisor_override 0 means none.
struct PoolArgs {
  int64_t kernel[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  bool adaptive = false;
  bool count_include_pad = true;  // avg: padded taps count in the divisor (windows clipped at
                                  // H + padding, as PyTorch)
  int64_t divisor_override = 0;
};
using PoolKernel = void (*)(const Tensor& out, const Tensor& indices, const Tensor& in,
                            const PoolArgs& args);
using PoolBackwardKernel = void (*)(const Tensor& grad_in, const Tensor& grad_out,
                                    const Tensor& indices, const PoolArgs& args);

// Batch norm (ops.def's batch_norm family) over a contiguous [N, C, S] input; every
// per-channel tensor is [C], contiguous, of the input's dtype (weight, bias: or undefined).
using BatchNormStatsKernel = void (*)(const Tensor& mean, const Tensor& var, const Tensor& invstd,
                                      const Tensor& in, double eps);
using BatchNormApplyKernel = void (*)(const Tensor& out, const Tensor& in, const Tensor& mean,
                                      const Tensor& invstd, const Tensor& weight,
                                      const Tensor& bias);
using BatchNormBackwardReduceKernel = void (*)(const Tensor& sum_dy, const Tensor& sum_dy_xmu,
                                               const Tensor& grad_out, const Tensor& in,
                                               const Tensor& mean);
using BatchNormBackwardApplyKernel = void (*)(const Tensor& grad_in, const Tensor& grad_out,
                                              const Tensor& in, const Tensor& mean,
                                              const Tensor& invstd, const Tensor& weight,
                                              const Tensor& sum_dy, const Tensor& sum_dy_xmu);

// Fused optimizer steps (ops.def's *_step): host-side hyperparameters, passed by value to the
// kernels so that nothing is read back from the device. PyTorch's formulas (optim/*.cpp).
struct SgdStepArgs {
  double lr = 0, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false;
  bool first_step = false;  // the momentum buffers are new: they take the gradient as it is
};
struct AdamStepArgs {
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  double step_size = 0;              // lr / (1 - beta1^step)
  double bias_correction2_sqrt = 1;  // sqrt(1 - beta2^step)
  // When set: {step_size, bias_correction2_sqrt} read from this memory on the parameters'
  // device instead (a step captured in a CUDA graph, whose replays rewrite them).
  const double* step_scalars = nullptr;
  bool amsgrad = false;
  bool decoupled_weight_decay = false;  // AdamW: param *= 1 - lr * weight_decay first
};
struct RmspropStepArgs {
  double lr = 0, alpha = 0, eps = 0, weight_decay = 0, momentum = 0;
  bool centered = false;
};
struct AdagradStepArgs {
  double clr = 0;  // lr / (1 + (step - 1) * lr_decay)
  double weight_decay = 0, eps = 0;
};
using SgdStepKernel = void (*)(TensorList params, TensorList grads, TensorList momentum_buffers,
                               const SgdStepArgs& args);
using AdamStepKernel = void (*)(TensorList params, TensorList grads, TensorList exp_avgs,
                                TensorList exp_avg_sqs, TensorList max_exp_avg_sqs,
                                const AdamStepArgs& args);
using RmspropStepKernel = void (*)(TensorList params, TensorList grads, TensorList square_avgs,
                                   TensorList grad_avgs, TensorList momentum_buffers,
                                   const RmspropStepArgs& args);
using AdagradStepKernel = void (*)(TensorList params, TensorList grads, TensorList state_sums,
                                   const AdagradStepArgs& args);

enum class Op : uint16_t {
#define EMBER_OP(name, sig, grad) name,
#include <ember/core/ops.def>
#undef EMBER_OP
  kNumOps
};
constexpr int kNumOps = static_cast<int>(Op::kNumOps);

const char* op_name(Op op);

template <Op op>
struct OpSignature;
#define EMBER_OP(name, sig, grad) \
  template <>                     \
  struct OpSignature<Op::name> {  \
    using type = sig;             \
  };
#include <ember/core/ops.def>
#undef EMBER_OP

namespace detail {
extern void* g_kernels[kNumDeviceTypes][kNumOps];
[[noreturn]] void missing_kernel(Op op, DeviceType device);
}  // namespace detail

// register_kernel<Op::add>(kCPU, &cpu_add): the signature is checked at compile time.
template <Op op>
void register_kernel(DeviceType device, typename OpSignature<op>::type fn) {
  detail::g_kernels[static_cast<int>(device)][static_cast<int>(op)] = reinterpret_cast<void*>(fn);
}

// kernel<Op::add>(kCPU) returns the typed pointer, or throws naming op and device.
template <Op op>
inline typename OpSignature<op>::type kernel(DeviceType device) {
  void* fn = detail::g_kernels[static_cast<int>(device)][static_cast<int>(op)];
  if (__builtin_expect(fn == nullptr, 0)) detail::missing_kernel(op, device);
  return reinterpret_cast<typename OpSignature<op>::type>(fn);
}

bool has_kernel(Op op, DeviceType device);

// Registers the backends compiled in (CPU always, CUDA when built); idempotent and
// called lazily by the first allocation, so users never need to call it.
void init_backends();
// The registration itself, defined by backends/backends.cpp, above core: core calls it only
// from init_backends(), once, under its lock (no static initializers register anything).
void register_backends();

// Whether float32 GEMM kernels may use TF32 (set_float32_matmul_precision "high" or
// "medium"); read by the CUDA GEMM on every call (a relaxed atomic load).
bool float32_matmul_allows_tf32();

}  // namespace ember
