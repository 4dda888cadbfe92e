// CUDA GEMM (addmm, baddbmm) through cuBLAS: row-major products computed as column-major
// C^T = B^T A^T, transposed views passed as transpose flags (never copied), TF32 on request.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include <ember/common/gemm_operand.h>
#include <ember/core/dispatch.h>
#include <ember/core/error.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/capture.h>
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
cublasHandle_t handle_for(int device) {
  Handle& handle = ThreadHandles<Handle>::get(device, [device](Handle& fresh) {
    // Graph::capture_begin makes the capturing thread's handle first (prepare_blas_for_capture)
    check_stream_not_capturing("matmul: creating a cuBLAS handle", device,
                               peek_current_stream(device));
    EMBER_CUBLAS_CHECK(cublasCreate(&fresh.h));
  });
  // Every call: the current stream may have changed since the last product.
  bind_stream(handle, current_stream());
  return handle.h;
}

}  // namespace

void prepare_blas_for_capture(int device) {
  DeviceGuard guard(device);
  (void)handle_for(device);
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

// addmm and baddbmm share one kernel: the batch, if any, is dim 0 of all three tensors.
// Core never passes k == 0 or an empty out (it fills or scales those itself).
void gemm_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta,
                 const Scalar& alpha) {
  if (out.numel() == 0) return;
  EMBER_CHECK(out.is_contiguous(), "addmm: the CUDA kernel expects a contiguous output");
  DeviceGuard guard(out.device().index());  // no-op for an index of -1 (the current device)
  // Small float32 products: one launch of our own kernel instead of cuBLAS (see gemm_small.h),
  // which saves cuBLAS's host time; a CUDA graph doesn't pay that, and cuBLAS's kernels are
  // faster on the GPU, so captures use cuBLAS.
  if (out.dtype() == kFloat32 && out.dim() == 2 && !capture_underway()) {
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

}  // namespace

void register_gemm_kernels() {
  register_kernel<Op::addmm>(kCUDA, gemm_kernel);
  register_kernel<Op::baddbmm>(kCUDA, gemm_kernel);
}

}  // namespace cuda
}  // namespace ember
