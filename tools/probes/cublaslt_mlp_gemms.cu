// Probe (not part of the build): GPU time of each GEMM of the MLP's training step (batch 128,
// 784-512-256-10, fp32, TF32 off) by cublasGemmEx and by cuBLASLt (heuristic's first choice
// and the best of its 16), plain and with the epilogues issue 16 names; and the cost of one
// empty kernel node in a graph. Times are per call, from 200 calls captured in one CUDA graph.
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/lt tools/probes/cublaslt_mlp_gemms.cu \
//     -lcublasLt -lcublas && /tmp/lt
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#define CK(x)                                                             \
  do {                                                                    \
    auto _s = (x);                                                        \
    if ((int)_s != 0) {                                                   \
      printf("ERROR %d at %s:%d: %s\n", (int)_s, __FILE__, __LINE__, #x); \
      return -1.0f;                                                       \
    }                                                                     \
  } while (0)

static cudaStream_t g_stream;
constexpr int kCalls = 200;

__global__ void empty_kernel() {}

// GPU time of one call of `f`, from kCalls of them captured in one graph (median of 5).
static float time_graph(const std::function<bool()>& f) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
  bool ok = true;
  for (int i = 0; i < kCalls && ok; ++i) ok = f();
  CK(cudaStreamEndCapture(g_stream, &graph));
  if (!ok) return -1.0f;
  CK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int r = 0; r < 6; ++r) {
    cudaEventRecord(a, g_stream);
    CK(cudaGraphLaunch(exec, g_stream));
    cudaEventRecord(b, g_stream);
    CK(cudaEventSynchronize(b));
    float t;
    cudaEventElapsedTime(&t, a, b);
    if (r > 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return ms[ms.size() / 2] * 1000.0f / kCalls;
}

struct Shape {
  const char* name;
  cublasOperation_t ta, tb;
  int m, n, k;  // column-major D[m x n] = op(A)[m x k] op(B)[k x n]
  cublasLtEpilogue_t epilogue;
  const char* epilogue_name;
};

int main() {
  cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking);
  cublasHandle_t blas;
  cublasLtHandle_t lt;
  cublasCreate(&blas);
  cublasSetStream(blas, g_stream);
  cublasLtCreate(&lt);
  const size_t ws_bytes = 32u << 20;
  void* ws;
  cudaMalloc(&ws, ws_bytes);
  cublasSetWorkspace(blas, ws, ws_bytes);
  float *A, *B, *C, *bias;
  void* aux;
  cudaMalloc(&A, 4 << 20);
  cudaMalloc(&B, 4 << 20);
  cudaMalloc(&C, 4 << 20);
  cudaMalloc(&bias, 1 << 16);
  cudaMalloc(&aux, 1 << 20);
  cudaMemset(A, 0, 4 << 20);
  cudaMemset(B, 0, 4 << 20);
  cudaMemset(bias, 0, 1 << 16);
  cudaMemset(aux, 0, 1 << 20);

  printf("empty kernel node in a graph: %.2f us\n", time_graph([] {
           empty_kernel<<<1, 32, 0, g_stream>>>();
           return true;
         }));

  const cublasLtEpilogue_t NONE = CUBLASLT_EPILOGUE_DEFAULT;
  // Row-major layer y = x W^T + b as ember calls it: D = y^T [n_out x 128].
  const Shape shapes[] = {
      {"fwd1 128x784->512", CUBLAS_OP_T, CUBLAS_OP_N, 512, 128, 784, NONE, "-"},
      {"fwd1 128x784->512", CUBLAS_OP_T, CUBLAS_OP_N, 512, 128, 784, CUBLASLT_EPILOGUE_BIAS,
       "BIAS"},
      {"fwd1 128x784->512", CUBLAS_OP_T, CUBLAS_OP_N, 512, 128, 784,
       CUBLASLT_EPILOGUE_RELU_AUX_BIAS, "RELU_AUX_BIAS"},
      {"fwd2 128x512->256", CUBLAS_OP_T, CUBLAS_OP_N, 256, 128, 512, NONE, "-"},
      {"fwd2 128x512->256", CUBLAS_OP_T, CUBLAS_OP_N, 256, 128, 512,
       CUBLASLT_EPILOGUE_RELU_AUX_BIAS, "RELU_AUX_BIAS"},
      {"fwd3 128x256->10", CUBLAS_OP_T, CUBLAS_OP_N, 10, 128, 256, NONE, "-"},
      {"fwd3 128x256->10", CUBLAS_OP_T, CUBLAS_OP_N, 10, 128, 256, CUBLASLT_EPILOGUE_BIAS, "BIAS"},
      // dX = G W: D = dX^T [k x 128] = W^T-view (N) x G^T-view (N)
      {"dx3 128x10->256", CUBLAS_OP_N, CUBLAS_OP_N, 256, 128, 10, NONE, "-"},
      {"dx3 128x10->256", CUBLAS_OP_N, CUBLAS_OP_N, 256, 128, 10, CUBLASLT_EPILOGUE_DRELU_BGRAD,
       "DRELU_BGRAD"},
      {"dx2 128x256->512", CUBLAS_OP_N, CUBLAS_OP_N, 512, 128, 256, NONE, "-"},
      {"dx2 128x256->512", CUBLAS_OP_N, CUBLAS_OP_N, 512, 128, 256, CUBLASLT_EPILOGUE_DRELU_BGRAD,
       "DRELU_BGRAD"},
      // dW = G^T X: D = dW^T [k x n_out] = X^T-view (N) x G-view (T), K = 128
      {"dw3 10x256", CUBLAS_OP_N, CUBLAS_OP_T, 256, 10, 128, NONE, "-"},
      {"dw3 10x256", CUBLAS_OP_N, CUBLAS_OP_T, 256, 10, 128, CUBLASLT_EPILOGUE_BGRADB, "BGRADB"},
      {"dw2 256x512", CUBLAS_OP_N, CUBLAS_OP_T, 512, 256, 128, NONE, "-"},
      {"dw1 512x784", CUBLAS_OP_N, CUBLAS_OP_T, 784, 512, 128, NONE, "-"},
      {"dw1 512x784", CUBLAS_OP_N, CUBLAS_OP_T, 784, 512, 128, CUBLASLT_EPILOGUE_BGRADB, "BGRADB"},
      // ember's own convention for the b1024 case, for scale
      {"fwd1 1024x784->512", CUBLAS_OP_T, CUBLAS_OP_N, 512, 1024, 784, NONE, "-"},
  };
  const float one = 1.0f, zero = 0.0f;
  printf("%-20s %-14s %10s %10s %10s %s\n", "gemm", "epilogue", "GemmEx", "Lt first", "Lt best",
         "(algos)");
  for (const Shape& s : shapes) {
    const int lda = s.ta == CUBLAS_OP_N ? s.m : s.k;
    const int ldb = s.tb == CUBLAS_OP_N ? s.k : s.n;
    float t_ex = -1;
    if (s.epilogue == NONE) {
      t_ex = time_graph([&] {
        return cublasGemmEx(blas, s.ta, s.tb, s.m, s.n, s.k, &one, A, CUDA_R_32F, lda, B,
                            CUDA_R_32F, ldb, &zero, C, CUDA_R_32F, s.m, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
      });
    }
    cublasLtMatmulDesc_t op;
    cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &s.ta, sizeof(s.ta));
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &s.tb, sizeof(s.tb));
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &s.epilogue,
                                   sizeof(s.epilogue));
    if (s.epilogue != NONE) {
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
    }
    if (s.epilogue == CUBLASLT_EPILOGUE_RELU_AUX_BIAS ||
        s.epilogue == CUBLASLT_EPILOGUE_DRELU_BGRAD) {
      const int64_t ld_aux = ((s.m + 127) / 128) * 128;
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux,
                                     sizeof(aux));
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld_aux,
                                     sizeof(ld_aux));
    }
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, s.ta == CUBLAS_OP_N ? s.m : s.k,
                               s.ta == CUBLAS_OP_N ? s.k : s.m, lda);
    cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, s.tb == CUBLAS_OP_N ? s.k : s.n,
                               s.tb == CUBLAS_OP_N ? s.n : s.k, ldb);
    cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, s.m, s.n, s.m);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                         sizeof(ws_bytes));
    cublasLtMatmulHeuristicResult_t res[16];
    int found = 0;
    cublasStatus_t hs =
        cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 16, res, &found);
    float first = -1, best = 1e9;
    int best_i = -1;
    for (int i = 0; hs == CUBLAS_STATUS_SUCCESS && i < found; ++i) {
      const float t = time_graph([&] {
        return cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, C, lc, C, lc, &res[i].algo, ws,
                              ws_bytes, g_stream) == CUBLAS_STATUS_SUCCESS;
      });
      if (i == 0) first = t;
      if (t > 0 && t < best) {
        best = t;
        best_i = i;
      }
    }
    printf("%-20s %-14s %10.2f %10.2f %10.2f (%d found, best #%d, heuristic status %d)\n", s.name,
           s.epilogue_name, t_ex, first, best_i >= 0 ? best : -1.0f, found, best_i, (int)hs);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
  }
  return 0;
}
