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
using ReduceKernel = void (*)(const Tensor& out, const Tensor& in, IntArrayRef dims,
                              const Scalar& param);
using ArgReduceKernel = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in,
                                 int64_t dim);
using GemmKernel = void (*)(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta,
                            const Scalar& alpha);
using SoftmaxKernel = void (*)(const Tensor& out, const Tensor& in, int64_t dim);
using IndexKernel = void (*)(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);

enum class Op : uint16_t {
#define EMBER_OP(name, sig) name,
#include <ember/core/ops.def>
#undef EMBER_OP
  kNumOps
};
constexpr int kNumOps = static_cast<int>(Op::kNumOps);

const char* op_name(Op op);

template <Op op>
struct OpSignature;
#define EMBER_OP(name, sig)      \
  template <>                    \
  struct OpSignature<Op::name> { \
    using type = sig;            \
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

// Whether float32 GEMM kernels may use TF32 (set_float32_matmul_precision "high" or
// "medium"); read by the CUDA GEMM on every call (a relaxed atomic load).
bool float32_matmul_allows_tf32();

}  // namespace ember
