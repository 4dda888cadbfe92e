// Probe (not part of the build): TF32 GEMM throughput by every cuBLAS/cuBLASLt route at
// n=8192 on the H200, batch by batch, and the host cost of one kernel launch by <<<>>>,
// cudaLaunchKernel and cuLaunchKernel. The figures in docs/gpu.md (Results) come from it.
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/probe tools/probes/cublas_tf32_and_launch.cu \
//     -lcublasLt -lcublas -lcuda && /tmp/probe
#include <cuda.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

using clk = std::chrono::steady_clock;

static bool ck(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) {
    printf("  CUDA ERROR %s at line %d: %s (%s)\n", what, line, cudaGetErrorString(e),
           cudaGetErrorName(e));
    cudaGetLastError();
    return false;
  }
  return true;
}
static bool ck(cublasStatus_t s, const char* what, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    printf("  CUBLAS ERROR %s at line %d: %s (%d)\n", what, line, cublasGetStatusString(s), (int)s);
    return false;
  }
  return true;
}
static bool ck(CUresult r, const char* what, int line) {
  if (r != CUDA_SUCCESS) {
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    printf("  CU ERROR %s at line %d: %s (%d)\n", what, line, s ? s : "?", (int)r);
    return false;
  }
  return true;
}
#define CK(x) ck((x), #x, __LINE__)

__global__ void init_kernel(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned x = (unsigned)i * 2654435761u ^ seed;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    p[i] = (float)(x & 0xFFFFFF) / 16777216.0f * 2.0f - 1.0f;  // uniform in [-1,1)
  }
}

static cudaStream_t g_stream;

// Warm up 3, then 5 batches of 10 products timed by cudaEvents; prints median/best TFLOP/s.
// Returns best TFLOP/s, or -1 on failure.
static double bench(const char* name, int n, const std::function<bool()>& op) {
  const double flop = 2.0 * (double)n * n * n;
  for (int i = 0; i < 3; ++i)
    if (!op()) {
      printf("%-60s FAILED (warmup call %d)\n", name, i);
      cudaStreamSynchronize(g_stream);
      cudaGetLastError();
      return -1;
    }
  if (!CK(cudaStreamSynchronize(g_stream))) {
    printf("%-60s FAILED (warmup sync)\n", name);
    return -1;
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int b = 0; b < 5; ++b) {
    CK(cudaEventRecord(e0, g_stream));
    bool ok = true;
    for (int i = 0; i < 10 && ok; ++i) ok = op();
    CK(cudaEventRecord(e1, g_stream));
    if (!ok || !CK(cudaEventSynchronize(e1))) {
      printf("%-60s FAILED (batch %d)\n", name, b);
      cudaEventDestroy(e0);
      cudaEventDestroy(e1);
      return -1;
    }
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(flop * 10 / (ms * 1e-3) / 1e12);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  std::vector<double> s = t;
  std::sort(s.begin(), s.end());
  printf("%-60s n=%d median %7.1f TFLOP/s  best %7.1f  (batches:", name, n, s[2], s[4]);
  for (double x : t) printf(" %.1f", x);
  printf(")\n");
  fflush(stdout);
  return s[4];
}

// ---------------------------------------------------------------- launch-cost kernels
__global__ void k_empty() {}
__global__ void k_args(float* a, float* b, float* c, float* d, int n) {
  if (n < 0 && threadIdx.x == 0) a[0] = b[0] + c[0] + d[0];
}
struct P3800 {
  float v[950];
};  // 3800 bytes
struct P16K {
  float v[4096];
};  // 16384 bytes (needs CUDA 12.1+, Volta+)
__global__ void k_p3800(P3800 p, float* out) {
  if (out && threadIdx.x == 0) out[0] = p.v[949];
}
__global__ void k_p16k(P16K p, float* out) {
  if (out && threadIdx.x == 0) out[0] = p.v[4095];
}

// Time `burst` launches host-side (no sync inside the timed region); then sync and report both.
static void launch_bench(const char* name, const std::function<bool()>& launch,
                         cudaStream_t syncs) {
  for (int i = 0; i < 100; ++i)
    if (!launch()) {
      printf("%-55s FAILED (warmup)\n", name);
      cudaDeviceSynchronize();
      cudaGetLastError();
      return;
    }
  CK(cudaDeviceSynchronize());
  for (int burst : {200, 20000}) {
    auto t0 = clk::now();
    bool ok = true;
    for (int i = 0; i < burst && ok; ++i) ok = launch();
    auto t1 = clk::now();
    bool sok = CK(cudaDeviceSynchronize());
    auto t2 = clk::now();
    if (!ok || !sok) {
      printf("%-55s burst %5d FAILED\n", name, burst);
      cudaGetLastError();
      continue;
    }
    double host = std::chrono::duration<double, std::micro>(t1 - t0).count() / burst;
    double tot = std::chrono::duration<double, std::micro>(t2 - t0).count() / burst;
    printf("%-55s burst %5d: host %.3f us/launch, incl. final sync %.3f us/launch\n", name, burst,
           host, tot);
  }
  (void)syncs;
  fflush(stdout);
}

int main() {
  auto tstart = clk::now();
  int dev = 0;
  CK(cudaSetDevice(dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  int clockKHz = 0, memClockKHz = 0;
  CK(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, dev));
  CK(cudaDeviceGetAttribute(&memClockKHz, cudaDevAttrMemoryClockRate, dev));
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  printf(
      "GPU: %s  sm_%d%d  SMs=%d  SM clock attr=%d MHz  mem clock attr=%d MHz  driver=%d runtime=%d "
      "cublasLt=%zu\n",
      prop.name, prop.major, prop.minor, prop.multiProcessorCount, clockKHz / 1000,
      memClockKHz / 1000, drv, rt, cublasLtGetVersion());
  CK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));

  // ---------------------------------------------------------------- GEMM part
  const int N = 8192;
  const size_t elems = (size_t)N * N;
  float *A = nullptr, *B = nullptr, *C = nullptr;
  void *ws32 = nullptr, *ws256 = nullptr;
  const size_t WS32 = 32ull << 20, WS256 = 256ull << 20;
  bool mem_ok = CK(cudaMalloc(&A, elems * 4)) & CK(cudaMalloc(&B, elems * 4)) &
                CK(cudaMalloc(&C, elems * 4)) & CK(cudaMalloc(&ws32, WS32)) &
                CK(cudaMalloc(&ws256, WS256));
  if (mem_ok) {
    init_kernel<<<1024, 256, 0, g_stream>>>(A, elems, 1234u);
    init_kernel<<<1024, 256, 0, g_stream>>>(B, elems, 98765u);
    CK(cudaMemsetAsync(C, 0, elems * 4, g_stream));
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(g_stream));

    cublasHandle_t h = nullptr;
    if (CK(cublasCreate(&h))) {
      int cv = 0;
      cublasGetVersion(h, &cv);
      printf("cuBLAS version %d\n", cv);
      CK(cublasSetStream(h, g_stream));
      const float one = 1.f, zero = 0.f;
      auto gemmEx = [&](int n, cublasComputeType_t ct, cublasGemmAlgo_t algo) {
        return [=, &h]() {
          return CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_32F, n, A,
                                 CUDA_R_32F, n, &zero, C, CUDA_R_32F, n, ct, algo));
        };
      };
      // 1
      CK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
      CK(cublasSetWorkspace(h, ws32, WS32));
      bench("1 GemmEx FAST_TF32 GEMM_DEFAULT ws=32MiB", N,
            gemmEx(N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
      // 2
      bench("2 GemmEx FAST_TF32 GEMM_DEFAULT_TENSOR_OP ws=32MiB", N,
            gemmEx(N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT_TENSOR_OP));
      // 3
      CK(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
      bench("3 Sgemm TF32_TENSOR_OP_MATH ws=32MiB", N, [&]() {
        return CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, B, N, A, N, &zero, C, N));
      });
      CK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
      // 4
      CK(cublasSetWorkspace(h, ws256, WS256));
      bench("4b GemmEx FAST_TF32 GEMM_DEFAULT ws=256MiB", N,
            gemmEx(N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
      cublasDestroy(h);
      h = nullptr;
      // fresh handle with cuBLAS's own default workspace (no cublasSetWorkspace call)
      if (CK(cublasCreate(&h))) {
        CK(cublasSetStream(h, g_stream));
        bench("4a GemmEx FAST_TF32 GEMM_DEFAULT ws=cuBLAS default", N,
              gemmEx(N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
        // 6: full FP32 reference at 4096
        CK(cublasSetWorkspace(h, ws32, WS32));
        bench("6 GemmEx COMPUTE_32F (full FP32) GEMM_DEFAULT ws=32MiB", 4096,
              gemmEx(4096, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        bench("6' GemmEx FAST_TF32 GEMM_DEFAULT ws=32MiB (n=4096 for ref)", 4096,
              gemmEx(4096, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
        cublasDestroy(h);
      }
    }

    // 5: cublasLt
    cublasLtHandle_t lt = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    if (CK(cublasLtCreate(&lt)) &&
        CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F)) &&
        CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, N, N, N)) &&
        CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, N, N, N)) &&
        CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, N, N))) {
      cublasOperation_t tn = CUBLAS_OP_N;
      CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &tn, sizeof(tn)));
      CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tn, sizeof(tn)));
      const float one = 1.f, zero = 0.f;
      for (size_t maxws : {WS256, WS32}) {
        cublasLtMatmulPreference_t pref = nullptr;
        if (!CK(cublasLtMatmulPreferenceCreate(&pref))) continue;
        CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &maxws, sizeof(maxws)));
        const int want = (maxws == WS256) ? 32 : 1;
        std::vector<cublasLtMatmulHeuristicResult_t> res(32);
        int got = 0;
        // column-major: D = B^T-view * A^T-view, i.e. "A"=B buffer, "B"=A buffer (square, same
        // shapes).
        if (CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, want, res.data(),
                                              &got))) {
          printf("cublasLt heuristic (max ws %zu MiB): %d results\n", maxws >> 20, got);
          void* ws = (maxws == WS256) ? ws256 : ws32;
          for (int i = 0; i < got; ++i) {
            const cublasLtMatmulAlgo_t* al = &res[i].algo;
            int32_t id = -1, splitk = -1;
            uint32_t tile = 0, stages = 0, red = 0, swz = 0, cust = 0;
            uint16_t inner = 0, cluster = 0;
            size_t w = 0;
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), &w);
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                                 sizeof(tile), &w);
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                                 sizeof(stages), &w);
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk,
                                                 sizeof(splitk), &w);
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red,
                                                 sizeof(red), &w);
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swz,
                                                 sizeof(swz), &w);
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &cust,
                                                 sizeof(cust), &w);
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner,
                                                 sizeof(inner), &w);
            cublasLtMatmulAlgoConfigGetAttribute(al, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID,
                                                 &cluster, sizeof(cluster), &w);
            char name[200];
            snprintf(name, sizeof name,
                     "5 Lt[ws%zuM #%d] algo=%d tile=%u stages=%u splitk=%d red=%u swz=%u cust=%u "
                     "inner=%u cluster=%u ws=%zu wave=%.2f",
                     maxws >> 20, i, id, tile, stages, splitk, red, swz, cust, (unsigned)inner,
                     (unsigned)cluster, res[i].workspaceSize, (double)res[i].wavesCount);
            if (res[i].state != CUBLAS_STATUS_SUCCESS) {
              printf("%s  state=%d skipped\n", name, (int)res[i].state);
              continue;
            }
            size_t wsz = res[i].workspaceSize;
            bench(name, N, [&, al, ws, wsz]() {
              return CK(cublasLtMatmul(lt, op, &one, B, la, A, lb, &zero, C, lc, C, lc, al, ws, wsz,
                                       g_stream));
            });
            if (std::chrono::duration<double>(clk::now() - tstart).count() > 40) {
              printf("  (time budget: stopping Lt sweep)\n");
              break;
            }
          }
        }
        cublasLtMatmulPreferenceDestroy(pref);
      }
    }
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (op) cublasLtMatmulDescDestroy(op);
    if (lt) cublasLtDestroy(lt);
  }
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(ws32);
  cudaFree(ws256);
  cudaGetLastError();
  printf("GEMM part done at %.1f s\n", std::chrono::duration<double>(clk::now() - tstart).count());

  // ---------------------------------------------------------------- launch cost part
  float* d = nullptr;
  CK(cudaMalloc(&d, 4096));
  cudaStream_t s = g_stream, s0 = 0, spt = cudaStreamPerThread;
  int nn = 1;
  launch_bench(
      "empty  <<<>>> created stream",
      [&]() {
        k_empty<<<1, 32, 0, s>>>();
        return CK(cudaGetLastError());
      },
      s);
  launch_bench(
      "4ptr+i <<<>>> created stream",
      [&]() {
        k_args<<<1, 32, 0, s>>>(d, d, d, d, nn);
        return CK(cudaGetLastError());
      },
      s);
  launch_bench(
      "empty  cudaLaunchKernel created stream",
      [&]() {
        return CK(cudaLaunchKernel((const void*)k_empty, dim3(1), dim3(32), nullptr, 0, s));
      },
      s);
  {
    void* args[] = {&d, &d, &d, &d, &nn};
    launch_bench(
        "4ptr+i cudaLaunchKernel created stream",
        [&]() { return CK(cudaLaunchKernel((const void*)k_args, dim3(1), dim3(32), args, 0, s)); },
        s);
    cudaFunction_t fe = nullptr, fa = nullptr;
    if (CK(cudaGetFuncBySymbol(&fe, (const void*)k_empty)) &&
        CK(cudaGetFuncBySymbol(&fa, (const void*)k_args))) {
      CUfunction cfe = (CUfunction)fe, cfa = (CUfunction)fa;
      launch_bench(
          "empty  cuLaunchKernel created stream",
          [&]() {
            return CK(cuLaunchKernel(cfe, 1, 1, 1, 32, 1, 1, 0, (CUstream)s, nullptr, nullptr));
          },
          s);
      launch_bench(
          "4ptr+i cuLaunchKernel created stream",
          [&]() {
            return CK(cuLaunchKernel(cfa, 1, 1, 1, 32, 1, 1, 0, (CUstream)s, args, nullptr));
          },
          s);
      launch_bench(
          "4ptr+i cuLaunchKernel legacy stream 0",
          [&]() {
            return CK(cuLaunchKernel(cfa, 1, 1, 1, 32, 1, 1, 0, (CUstream)0, args, nullptr));
          },
          s);
    }
  }
  launch_bench(
      "empty  <<<>>> legacy stream 0",
      [&]() {
        k_empty<<<1, 32, 0, s0>>>();
        return CK(cudaGetLastError());
      },
      s0);
  launch_bench(
      "4ptr+i <<<>>> legacy stream 0",
      [&]() {
        k_args<<<1, 32, 0, s0>>>(d, d, d, d, nn);
        return CK(cudaGetLastError());
      },
      s0);
  launch_bench(
      "empty  <<<>>> cudaStreamPerThread",
      [&]() {
        k_empty<<<1, 32, 0, spt>>>();
        return CK(cudaGetLastError());
      },
      spt);
  launch_bench(
      "4ptr+i <<<>>> cudaStreamPerThread",
      [&]() {
        k_args<<<1, 32, 0, spt>>>(d, d, d, d, nn);
        return CK(cudaGetLastError());
      },
      spt);
  {
    static P3800 p1;
    static P16K p2;
    for (int i = 0; i < 950; ++i) p1.v[i] = (float)i;
    for (int i = 0; i < 4096; ++i) p2.v[i] = (float)i;
    float* nul = nullptr;
    launch_bench(
        "3800B struct param <<<>>> created stream",
        [&]() {
          k_p3800<<<1, 32, 0, s>>>(p1, nul);
          return CK(cudaGetLastError());
        },
        s);
    launch_bench(
        "16KiB struct param <<<>>> created stream",
        [&]() {
          k_p16k<<<1, 32, 0, s>>>(p2, nul);
          return CK(cudaGetLastError());
        },
        s);
  }
  cudaFree(d);
  cudaStreamDestroy(g_stream);
  printf("total %.1f s\n", std::chrono::duration<double>(clk::now() - tstart).count());
  return 0;
}
