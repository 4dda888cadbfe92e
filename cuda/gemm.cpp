// CUDA GEMM (addmm, baddbmm, addmm_bias, linear_weight_bias_grad) through cuBLAS, cuBLASLt for
// the fused bias epilogues: row-major products computed as column-major C^T = B^T A^T,
// transposed views passed as transpose flags (never copied), TF32 on request.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include <ember/common/gemm_operand.h>
#include <ember/core/context.h>
#include <ember/core/dispatch.h>
#include <ember/core/error.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/capture.h>
#include <ember/cuda/gemm_lt.h>
#include <ember/cuda/gemm_small.h>
#include <ember/cuda/handle_pool.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

// ---- cuBLAS handles: one per (thread, device), pooled (cuda/handle_pool.h) ----
// Each handle gets a workspace per stream it runs on (as PyTorch does), 32 MiB by default
// (EMBER_CUBLAS_WORKSPACE_MB): without one cuBLAS picks from fewer algorithms, which costs
// up to 15% on large TF32 products on Hopper. A workspace is never shared by two streams, so
// products on different streams can't race on it. They stay allocated as long as the handle.
struct Handle {
  cublasHandle_t h = nullptr;
  BoundStream<cudaStream_t> stream;  // the stream set last (cuda/handle_pool.h)
  std::vector<std::pair<cudaStream_t, void*>> workspaces;
};

size_t workspace_bytes() {
  static const size_t bytes = [] {
    const char* env = std::getenv("EMBER_CUBLAS_WORKSPACE_MB");
    const long mb = env ? std::strtol(env, nullptr, 10) : 32;
    return static_cast<size_t>(std::max(0L, mb)) << 20;
  }();
  return bytes;
}

// The handle's workspace for `stream`, allocated on first use.
void* workspace_for(Handle& handle, cudaStream_t stream, size_t bytes) {
  for (auto& [s, w] : handle.workspaces) {
    if (s == stream) return w;
  }
  void* ws = nullptr;
  EMBER_CUDA_CHECK(cudaMalloc(&ws, bytes));
  handle.workspaces.emplace_back(stream, ws);
  return ws;
}

// Points the handle at `stream` and that stream's workspace (cublasSetStream resets the
// workspace to cuBLAS's default, so both are set together, only when the stream changes).
void bind_stream(Handle& handle, cudaStream_t stream) {
  handle.stream.bind_to(stream, [&] {
    EMBER_CUBLAS_CHECK(cublasSetStream(handle.h, stream));
    const size_t bytes = workspace_bytes();
    if (bytes == 0) return;
    EMBER_CUBLAS_CHECK(cublasSetWorkspace(handle.h, workspace_for(handle, stream, bytes), bytes));
  });
}

// The calling thread's handle for `device` (already current), set to the current stream.
Handle& bound_handle(int device) {
  Handle& handle = ThreadHandles<Handle>::get(device, [device](Handle& fresh) {
    // Graph::capture_begin makes the capturing thread's handle first (prepare_blas_for_capture)
    check_stream_not_capturing("matmul: creating a cuBLAS handle", device,
                               peek_current_stream(device));
    EMBER_CUBLAS_CHECK(cublasCreate(&fresh.h));
  });
  // Every call: the current stream may have changed since the last product.
  bind_stream(handle, current_stream());
  return handle;
}
cublasHandle_t handle_for(int device) { return bound_handle(device).h; }

}  // namespace

void prepare_blas_for_capture(int device) {
  DeviceGuard guard(device);
  (void)handle_for(device);
  prepare_lt_for_capture(device);
}

namespace {

// ---- operands ----
using Operand = common::GemmOperand;  // common/gemm_operand.h: an operand as cuBLAS sees it

int as_int(int64_t v, const char* what) {
  EMBER_CHECK(v >= 0 && v <= INT_MAX, "addmm: ", what, " ", v,
              " exceeds the 32-bit range of cuBLAS on CUDA");
  return static_cast<int>(v);
}

// The column-major call: C^T [n x m] = op(B^T) [n x k] * op(A^T) [k x m], ldc = n.
// A row-major operand read column-major is already its transpose: no flag. A column-major
// one needs the transpose flag.
struct GemmCall {
  cublasOperation_t trans_first, trans_second;  // for B, then A
  int n, m, k, ldb, lda, ldc, batch;
  long long stride_b, stride_a, stride_c;
};

GemmCall plan(const Tensor& out, const Tensor& a, const Tensor& b) {
  const Operand oa = common::describe_operand(a), ob = common::describe_operand(b);
  GemmCall c;
  c.m = as_int(oa.rows, "m");
  c.k = as_int(oa.cols, "k");
  c.n = as_int(ob.cols, "n");
  c.trans_first = ob.row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  c.trans_second = oa.row_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  c.ldb = as_int(ob.ld, "leading dimension");
  c.lda = as_int(oa.ld, "leading dimension");
  c.ldc = std::max(c.n, 1);
  c.batch = as_int(a.dim() == 3 ? a.sizes()[0] : 1, "batch");
  c.stride_a = oa.batch_stride;  // 0 for a broadcast batch: cuBLAS reads the same matrix
  c.stride_b = ob.batch_stride;
  c.stride_c = static_cast<long long>(out.sizes()[out.dim() - 2]) * out.sizes()[out.dim() - 1];
  return c;
}

void gemm_float(cublasHandle_t h, const GemmCall& c, float* out, const float* a, const float* b,
                float beta, float alpha) {
  // GemmEx with an explicit compute type: full fp32 by default, TF32 tensor cores when the
  // user allowed it (set_float32_matmul_precision("high")).
  const cublasComputeType_t compute =
      float32_matmul_allows_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  if (c.batch == 1) {
    EMBER_CUBLAS_CHECK(cublasGemmEx(h, c.trans_first, c.trans_second, c.n, c.m, c.k, &alpha, b,
                                    CUDA_R_32F, c.ldb, a, CUDA_R_32F, c.lda, &beta, out, CUDA_R_32F,
                                    c.ldc, compute, CUBLAS_GEMM_DEFAULT));
  } else {
    EMBER_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        h, c.trans_first, c.trans_second, c.n, c.m, c.k, &alpha, b, CUDA_R_32F, c.ldb, c.stride_b,
        a, CUDA_R_32F, c.lda, c.stride_a, &beta, out, CUDA_R_32F, c.ldc, c.stride_c, c.batch,
        compute, CUBLAS_GEMM_DEFAULT));
  }
}

void gemm_double(cublasHandle_t h, const GemmCall& c, double* out, const double* a, const double* b,
                 double beta, double alpha) {
  if (c.batch == 1) {
    EMBER_CUBLAS_CHECK(cublasDgemm(h, c.trans_first, c.trans_second, c.n, c.m, c.k, &alpha, b,
                                   c.ldb, a, c.lda, &beta, out, c.ldc));
  } else {
    EMBER_CUBLAS_CHECK(cublasDgemmStridedBatched(h, c.trans_first, c.trans_second, c.n, c.m, c.k,
                                                 &alpha, b, c.ldb, c.stride_b, a, c.lda, c.stride_a,
                                                 &beta, out, c.ldc, c.stride_c, c.batch));
  }
}

// cuBLASLt's problem for `call` (batch 1) with an epilogue: the same column-major product.
LtProblem lt_problem(const GemmCall& c, cublasLtEpilogue_t epilogue) {
  return {c.trans_first, c.trans_second, c.n,   c.m,      c.k,
          c.ldb,         c.lda,          c.ldc, epilogue, float32_matmul_allows_tf32()};
}

std::pair<void*, size_t> workspace_of(int device) {
  Handle& handle = bound_handle(device);
  const size_t bytes = workspace_bytes();
  if (bytes == 0) return {nullptr, 0};
  return {workspace_for(handle, current_stream(), bytes), bytes};
}

// addmm and baddbmm share one kernel: the batch, if any, is dim 0 of all three tensors.
// Core never passes k == 0 or an empty out (it fills or scales those itself).
void gemm_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta,
                 const Scalar& alpha) {
  if (out.numel() == 0) return;
  EMBER_CHECK(out.is_contiguous(), "addmm: the CUDA kernel expects a contiguous output");
  DeviceGuard guard(out.device().index());  // no-op for an index of -1 (the current device)
  // Small float32 products: one launch of our own kernel instead of cuBLAS (see gemm_small.h),
  // which saves cuBLAS's host time; a CUDA graph doesn't pay that, and cuBLAS's kernels are
  // faster on the GPU, so captures use cuBLAS, and so does tuning (cuda::tunable).
  const bool float_2d = out.dtype() == kFloat32 && out.dim() == 2;
  const bool tuning = float_2d && tunable::is_enabled();
  if (float_2d && !capture_underway() && !tuning) {
    const int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
    if (small_gemm_applies(m, n, k)) {
      small_sgemm(m, n, k, a.data_ptr<float>(), a.strides()[0], a.strides()[1], b.data_ptr<float>(),
                  b.strides()[0], b.strides()[1], out.data_ptr<float>(), alpha.to<float>(),
                  beta.to<float>());
      return;
    }
  }
  int device = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&device));
  const GemmCall call = plan(out, a, b);
  EMBER_CHECK(call.k > 0, "addmm: the CUDA kernel expects k > 0");
  if (tuning && beta.to<float>() == 0.0f) {  // the tuned algorithm of cuBLASLt
    const auto [ws, ws_bytes] = workspace_of(device);
    if (lt_matmul(device, lt_problem(call, CUBLASLT_EPILOGUE_DEFAULT), b.data_ptr<float>(),
                  a.data_ptr<float>(), out.data_ptr<float>(), nullptr, alpha.to<float>(), ws,
                  ws_bytes)) {
      return;
    }
  }
  cublasHandle_t h = handle_for(device);
  if (out.dtype() == kFloat32) {
    gemm_float(h, call, out.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(),
               beta.to<float>(), alpha.to<float>());
  } else if (out.dtype() == kFloat64) {
    gemm_double(h, call, out.data_ptr<double>(), a.data_ptr<double>(), b.data_ptr<double>(),
                beta.to<double>(), alpha.to<double>());
  } else {
    EMBER_THROW("addmm: dtype ", out.dtype(), " is not supported (needs float32 or float64)");
  }
}

// addmm_bias: float32 small products (outside a capture) in our own kernel with the bias in
// its store; other float32 ones in one cuBLASLt call with the BIAS epilogue (D = y^T, whose
// rows are the output features); float64, or a shape cuBLASLt declines, as the bias copied
// to every row and then the product with beta 1.
void gemm_bias_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
                      const Scalar& alpha) {
  if (out.numel() == 0) return;
  EMBER_CHECK(out.is_contiguous() && bias.is_contiguous(),
              "addmm: the CUDA kernel expects a contiguous output and bias");
  DeviceGuard guard(out.device().index());
  const int64_t m = out.sizes()[0], n = out.sizes()[1];
  if (out.dtype() == kFloat32) {
    const int64_t k = a.sizes()[1];
    if (!capture_underway() && !tunable::is_enabled() && small_gemm_applies(m, n, k)) {
      small_sgemm(m, n, k, a.data_ptr<float>(), a.strides()[0], a.strides()[1], b.data_ptr<float>(),
                  b.strides()[0], b.strides()[1], out.data_ptr<float>(), alpha.to<float>(), 0.0f,
                  bias.data_ptr<float>());
      return;
    }
    int device = 0;
    EMBER_CUDA_CHECK(cudaGetDevice(&device));
    const GemmCall call = plan(out, a, b);
    const auto [ws, ws_bytes] = workspace_of(device);
    if (lt_matmul(device, lt_problem(call, CUBLASLT_EPILOGUE_BIAS), b.data_ptr<float>(),
                  a.data_ptr<float>(), out.data_ptr<float>(), bias.data_ptr<float>(),
                  alpha.to<float>(), ws, ws_bytes)) {
      return;
    }
  } else if (out.dtype() != kFloat64) {
    EMBER_THROW("addmm: dtype ", out.dtype(), " is not supported (needs float32 or float64)");
  }
  kernel<Op::copy>(kCUDA)(out, bias.expand(out.sizes()), false);
  gemm_kernel(out, a, b, 1.0, alpha);
}

// linear_weight_bias_grad: float32 in one cuBLASLt call, D = grad_w^T [k x n] = x^T-view (N)
// @ g-view (T) over the batch, with BGRADB summing g over the batch into grad_b; otherwise
// the product and then sum's kernel over the rows.
void gemm_bias_grad_kernel(const Tensor& grad_w, const Tensor& grad_b, const Tensor& g,
                           const Tensor& x) {
  if (grad_w.numel() == 0) return;
  DeviceGuard guard(g.device().index());
  const int64_t m = g.sizes()[0], n = g.sizes()[1], k = x.sizes()[1];  // g [m, n], x [m, k]
  if (g.dtype() == kFloat32) {
    int device = 0;
    EMBER_CUDA_CHECK(cudaGetDevice(&device));
    const LtProblem p{CUBLAS_OP_N,
                      CUBLAS_OP_T,
                      as_int(k, "k"),
                      as_int(n, "n"),
                      as_int(m, "m"),
                      as_int(k, "leading dimension"),
                      as_int(n, "leading dimension"),
                      as_int(k, "leading dimension"),
                      CUBLASLT_EPILOGUE_BGRADB,
                      float32_matmul_allows_tf32()};
    const auto [ws, ws_bytes] = workspace_of(device);
    if (lt_matmul(device, p, x.data_ptr<float>(), g.data_ptr<float>(), grad_w.data_ptr<float>(),
                  grad_b.data_ptr<float>(), 1.0f, ws, ws_bytes)) {
      return;
    }
  } else if (g.dtype() != kFloat64) {
    EMBER_THROW("linear_weight_bias_grad: dtype ", g.dtype(),
                " is not supported (needs float32 or float64)");
  }
  gemm_kernel(grad_w, g.t(), x, 0.0, 1.0);
  const int64_t rows = 0;
  kernel<Op::sum>(kCUDA)(grad_b.view({1, n}), g, IntArrayRef(&rows, 1), Scalar(0));
}

}  // namespace

void register_gemm_kernels() {
  register_kernel<Op::addmm>(kCUDA, gemm_kernel);
  register_kernel<Op::baddbmm>(kCUDA, gemm_kernel);
  register_kernel<Op::addmm_bias>(kCUDA, gemm_bias_kernel);
  register_kernel<Op::linear_weight_bias_grad>(kCUDA, gemm_bias_grad_kernel);
}

}  // namespace cuda
}  // namespace ember
