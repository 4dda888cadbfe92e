// cuBLASLt products with epilogues (cuda/gemm_lt.h): one handle per (thread, device), each with
// a cache of matmul descriptors, layouts and the algorithm per problem: the heuristic's first,
// or with cuda::tunable enabled the fastest of its first kCandidates, timed once per problem.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/context.h>

#include <ember/cuda/capture.h>
#include <ember/cuda/check.h>
#include <ember/cuda/gemm_lt.h>
#include <ember/cuda/handle_pool.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

// Largest power of two up to 16 that divides the address: cuBLASLt's algorithms assume
// 256-byte alignment unless told less, so a view at an odd offset must say so.
uint32_t alignment_of(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  uint32_t a = 16;
  while (a > 4 && v % a != 0) a /= 2;
  return a;
}

struct Key {
  LtProblem p;
  size_t workspace_bytes;
  uint32_t align_a, align_b, align_d;
  bool operator==(const Key& o) const {
    return p.trans_a == o.p.trans_a && p.trans_b == o.p.trans_b && p.m == o.p.m && p.n == o.p.n &&
           p.k == o.p.k && p.lda == o.p.lda && p.ldb == o.p.ldb && p.ldd == o.p.ldd &&
           p.epilogue == o.p.epilogue && p.tf32 == o.p.tf32 &&
           workspace_bytes == o.workspace_bytes && align_a == o.align_a && align_b == o.align_b &&
           align_d == o.align_d;
  }
};

constexpr int kCandidates = 8;  // heuristic results timed when tuning

struct Plan {
  Key key;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasLtMatmulAlgo_t algo;
  std::vector<cublasLtMatmulAlgo_t> candidates;  // the heuristic's, best first
  bool usable = false;                           // the heuristic found an algorithm
  bool tuned = false;                            // algo is the fastest candidate, timed
};

void destroy(Plan& plan) {
  if (plan.op) cublasLtMatmulDescDestroy(plan.op);
  if (plan.la) cublasLtMatrixLayoutDestroy(plan.la);
  if (plan.lb) cublasLtMatrixLayoutDestroy(plan.lb);
  if (plan.ld) cublasLtMatrixLayoutDestroy(plan.ld);
}

struct LtHandle {
  cublasLtHandle_t h = nullptr;
  std::vector<Plan> plans;  // a model has a handful of shapes: a short list, searched linearly
};
constexpr size_t kMaxPlans = 256;

LtHandle& lt_handle_for(int device) {
  return ThreadHandles<LtHandle>::get(device, [device](LtHandle& fresh) {
    check_stream_not_capturing("matmul: creating a cuBLASLt handle", device,
                               peek_current_stream(device));
    EMBER_CUBLAS_CHECK(cublasLtCreate(&fresh.h));
  });
}

template <class T>
void set(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t attr, const T& value) {
  EMBER_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, attr, &value, sizeof(value)));
}

// Builds the descriptors of key's problem and asks the heuristic for its first algorithm.
Plan make_plan(cublasLtHandle_t h, const Key& key) {
  const LtProblem& p = key.p;
  Plan plan;
  plan.key = key;
  try {
    EMBER_CUBLAS_CHECK(cublasLtMatmulDescCreate(
        &plan.op, p.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F));
    set(plan.op, CUBLASLT_MATMUL_DESC_TRANSA, p.trans_a);
    set(plan.op, CUBLASLT_MATMUL_DESC_TRANSB, p.trans_b);
    set(plan.op, CUBLASLT_MATMUL_DESC_EPILOGUE, p.epilogue);
    const bool na = p.trans_a == CUBLAS_OP_N, nb = p.trans_b == CUBLAS_OP_N;
    EMBER_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&plan.la, CUDA_R_32F, na ? p.m : p.k, na ? p.k : p.m, p.lda));
    EMBER_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&plan.lb, CUDA_R_32F, nb ? p.k : p.n, nb ? p.n : p.k, p.ldb));
    EMBER_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.ld, CUDA_R_32F, p.m, p.n, p.ldd));
    cublasLtMatmulPreference_t pref = nullptr;
    EMBER_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    auto pref_set = [&](cublasLtMatmulPreferenceAttributes_t attr, const auto& value) {
      return cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof(value));
    };
    cublasStatus_t st = pref_set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, key.workspace_bytes);
    if (st == CUBLAS_STATUS_SUCCESS)
      st = pref_set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.align_a);
    if (st == CUBLAS_STATUS_SUCCESS)
      st = pref_set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.align_b);
    if (st == CUBLAS_STATUS_SUCCESS)
      st = pref_set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.align_d);
    if (st == CUBLAS_STATUS_SUCCESS)
      st = pref_set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.align_d);
    cublasLtMatmulHeuristicResult_t results[kCandidates];
    int found = 0;
    if (st == CUBLAS_STATUS_SUCCESS) {
      st = cublasLtMatmulAlgoGetHeuristic(h, plan.op, plan.la, plan.lb, plan.ld, plan.ld, pref,
                                          kCandidates, results, &found);
    }
    cublasLtMatmulPreferenceDestroy(pref);
    // NOT_SUPPORTED (no algorithm for this epilogue and layout) is an answer, not an error.
    if (st != CUBLAS_STATUS_NOT_SUPPORTED) EMBER_CUBLAS_CHECK(st);
    for (int i = 0; st == CUBLAS_STATUS_SUCCESS && i < found; ++i) {
      if (results[i].state == CUBLAS_STATUS_SUCCESS) plan.candidates.push_back(results[i].algo);
    }
    if (!plan.candidates.empty()) {
      plan.algo = plan.candidates.front();
      plan.usable = true;
    }
  } catch (...) {
    destroy(plan);
    throw;
  }
  return plan;
}

// Times every candidate of `plan` on the call's operands, writing into scratch outputs (D, and
// the bias gradient for BGRADB), and keeps the fastest as plan.algo: the best time of kReps
// runs after one warm-up run, on the current stream, which this waits for. A candidate that
// cuBLASLt refuses at run time is skipped. Outside a capture only (the caller checks).
void tune(cublasLtHandle_t h, Plan& plan, int device, const float* a, const float* b,
          const float* bias, float alpha, void* workspace, size_t workspace_bytes) {
  constexpr int kReps = 5;
  const LtProblem& p = plan.key.p;
  const Device dev(kCUDA, device);
  const Tensor d = empty_on({static_cast<int64_t>(p.ldd) * p.n}, kFloat32, dev);
  const bool writes_bias = p.epilogue == CUBLASLT_EPILOGUE_BGRADB;
  const Tensor bias_grad = writes_bias ? empty_on({p.n}, kFloat32, dev) : Tensor();
  float* dp = d.data_ptr<float>();
  const void* bp = writes_bias ? bias_grad.data_ptr<float>() : bias;
  set(plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bp);
  const cudaStream_t stream = current_stream();
  cudaEvent_t start = nullptr, stop = nullptr;
  EMBER_CUDA_CHECK(cudaEventCreate(&start));
  cudaError_t err = cudaEventCreate(&stop);
  float best = -1.0f;
  cublasLtMatmulAlgo_t best_algo = plan.algo;
  const float beta = 0.0f;
  for (const cublasLtMatmulAlgo_t& algo : plan.candidates) {
    if (err != cudaSuccess) break;
    auto run = [&] {
      return cublasLtMatmul(h, plan.op, &alpha, a, plan.la, b, plan.lb, &beta, dp, plan.ld, dp,
                            plan.ld, &algo, workspace, workspace_bytes, stream);
    };
    if (run() != CUBLAS_STATUS_SUCCESS) continue;
    err = cudaEventRecord(start, stream);
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    for (int r = 0; r < kReps && st == CUBLAS_STATUS_SUCCESS && err == cudaSuccess; ++r) st = run();
    if (err == cudaSuccess) err = cudaEventRecord(stop, stream);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float ms = 0.0f;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    if (err == cudaSuccess && st == CUBLAS_STATUS_SUCCESS && (best < 0.0f || ms < best)) {
      best = ms;
      best_algo = algo;
    }
  }
  cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  EMBER_CUDA_CHECK(err);
  plan.algo = best_algo;
  plan.tuned = true;
}

}  // namespace

bool lt_matmul(int device, const LtProblem& p, const float* a, const float* b, float* d,
               float* bias, float alpha, void* workspace, size_t workspace_bytes) {
  if (bias != nullptr && alignment_of(bias) < 16) return false;
  LtHandle& handle = lt_handle_for(device);
  const Key key{p, workspace_bytes, alignment_of(a), alignment_of(b), alignment_of(d)};
  Plan* plan = nullptr;
  for (Plan& candidate : handle.plans) {
    if (candidate.key == key) {
      plan = &candidate;
      break;
    }
  }
  if (plan == nullptr) {
    if (handle.plans.size() >= kMaxPlans) {  // a workload with ever new shapes: start over
      for (Plan& old : handle.plans) destroy(old);
      handle.plans.clear();
    }
    handle.plans.push_back(make_plan(handle.h, key));
    plan = &handle.plans.back();
  }
  if (!plan->usable) return false;
  if (!plan->tuned && plan->candidates.size() > 1 && tunable::is_enabled() && !capture_underway()) {
    tune(handle.h, *plan, device, a, b, bias, alpha, workspace, workspace_bytes);
  }
  set(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias);
  const float beta = 0.0f;
  EMBER_CUBLAS_CHECK(cublasLtMatmul(handle.h, plan->op, &alpha, a, plan->la, b, plan->lb, &beta, d,
                                    plan->ld, d, plan->ld, &plan->algo, workspace, workspace_bytes,
                                    current_stream()));
  return true;
}

void prepare_lt_for_capture(int device) { (void)lt_handle_for(device); }

}  // namespace cuda
}  // namespace ember
