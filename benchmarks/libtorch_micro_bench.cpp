// The LibTorch twin of micro_bench.cpp: the same workloads under the same names, so that
// tools/bench_cpu.sh can run both in one session and print ember/LibTorch ratios. It uses
// ATen (LibTorch's tensor library) directly: torch::'s ops and dispatcher, half the compile.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/TensorIndexing.h>
#include <c10/core/GradMode.h>

#include <cstdlib>
#include <vector>

#include <benchmark/benchmark.h>

namespace {

using at::Tensor;

constexpr int64_t kBig = int64_t(1) << 24;  // 16M floats, 64 MiB per tensor

// `s = s + 1` on 8 floats: the whole per-op host path (dispatch, checks, allocation).
void tiny_add_8(benchmark::State& state) {
  Tensor s = at::ones({8});
  for (auto _ : state) {
    s = s + 1;
    benchmark::DoNotOptimize(s.data_ptr());
  }
}
BENCHMARK(tiny_add_8);

// `(w * x).sum().backward()` on 8 floats: recording two nodes and running the backward
// (the host cost of autograd; the gradient accumulates into w.grad() in place).
void backward_8(benchmark::State& state) {
  Tensor w = at::randn({8}).requires_grad_();
  Tensor x = at::randn({8});
  for (auto _ : state) {
    (w * x).sum().backward();
  }
  benchmark::DoNotOptimize(w.grad().data_ptr());
}
BENCHMARK(backward_8);

// t.index({Slice(), 0}) on a [64, 64] tensor: the host cost of basic indexing (one view).
void index_slice_int(benchmark::State& state) {
  Tensor t = at::randn({64, 64});
  for (auto _ : state) {
    Tensor v = t.index({at::indexing::Slice(), 0});
    benchmark::DoNotOptimize(v.data_ptr());
  }
}
BENCHMARK(index_slice_int);

// c = a + b: reads 2 and writes 1 tensor of 16M floats (bytes/s counts all three).
void add_16M(benchmark::State& state) {
  Tensor a = at::randn({kBig}), b = at::randn({kBig});
  for (auto _ : state) {
    Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * 3 * kBig * int64_t(sizeof(float)));
}
BENCHMARK(add_16M)->UseRealTime()->Unit(benchmark::kMillisecond);

void sum_16M(benchmark::State& state) {
  Tensor a = at::randn({kBig});
  for (auto _ : state) {
    Tensor s = a.sum();
    benchmark::DoNotOptimize(s.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * kBig * int64_t(sizeof(float)));
}
BENCHMARK(sum_16M)->UseRealTime()->Unit(benchmark::kMillisecond);

// sort and topk(k = 10) of 1M random floats (values and int64 indices).
constexpr int64_t kMillion = int64_t(1) << 20;

void sort_1M(benchmark::State& state) {
  Tensor a = at::randn({kMillion});
  for (auto _ : state) {
    auto r = at::sort(a);
    benchmark::DoNotOptimize(std::get<0>(r).data_ptr());
  }
}
BENCHMARK(sort_1M)->UseRealTime()->Unit(benchmark::kMillisecond);

void topk10_1M(benchmark::State& state) {
  Tensor a = at::randn({kMillion});
  for (auto _ : state) {
    auto r = at::topk(a, 10);
    benchmark::DoNotOptimize(std::get<0>(r).data_ptr());
  }
}
BENCHMARK(topk10_1M)->UseRealTime()->Unit(benchmark::kMillisecond);

// C[m, n] = A[m, k] B[k, n]; FLOPS counts 2mnk per product.
void matmul_mnk(benchmark::State& state, int64_t m, int64_t k, int64_t n) {
  Tensor a = at::randn({m, k}), b = at::randn({k, n});
  for (auto _ : state) {
    Tensor c = at::matmul(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["FLOPS"] =
      benchmark::Counter(double(2 * m * n * k) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(matmul_mnk, sgemm_1024, 1024, 1024, 1024)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(matmul_mnk, mlp_128x784x512, 128, 784, 512)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// The products of one training step of the MLP 784-512-256-10 (PERF.md), as autograd issues
// them: nn::Linear keeps weight [out, in], so the forward is addmm(bias, x, W.t()) (B
// transposed, bias broadcast over rows), the input gradient dY @ W (no transposes) and the
// weight gradient a product with A transposed. Both orientations of the weight gradient
// are here: dY^T @ X ([out, B] @ [B, in], what PyTorch runs) and X^T @ dY ([in, B] @ [B, out]).
enum class Gemm { kAddmmNT, kNN, kTN };

void mlp_gemm(benchmark::State& state, Gemm kind, int64_t m, int64_t k, int64_t n) {
  Tensor out;
  if (kind == Gemm::kAddmmNT) {  // x [m, k] @ W [n, k]^T + bias [n]
    Tensor x = at::randn({m, k}), w = at::randn({n, k}), bias = at::randn({n});
    for (auto _ : state) {
      out = at::addmm(bias, x, w.t());
      benchmark::DoNotOptimize(out.data_ptr());
    }
  } else if (kind == Gemm::kNN) {  // dY [m, k] @ W [k, n]
    Tensor a = at::randn({m, k}), b = at::randn({k, n});
    for (auto _ : state) {
      out = at::mm(a, b);
      benchmark::DoNotOptimize(out.data_ptr());
    }
  } else {  // [k, m]^T @ [k, n]: both stored with the batch (k) as rows
    Tensor a = at::randn({k, m}), b = at::randn({k, n});
    for (auto _ : state) {
      out = at::mm(a.t(), b);
      benchmark::DoNotOptimize(out.data_ptr());
    }
  }
  state.counters["FLOPS"] =
      benchmark::Counter(double(2 * m * n * k) * state.iterations(), benchmark::Counter::kIsRate);
}

#define MLP_GEMM(name, kind, m, k, n)                    \
  BENCHMARK_CAPTURE(mlp_gemm, name, Gemm::kind, m, k, n) \
      ->UseRealTime()                                    \
      ->Unit(benchmark::kMicrosecond)
#define MLP_GEMMS(B)                          \
  MLP_GEMM(fwd1_b##B, kAddmmNT, B, 784, 512); \
  MLP_GEMM(fwd2_b##B, kAddmmNT, B, 512, 256); \
  MLP_GEMM(fwd3_b##B, kAddmmNT, B, 256, 10);  \
  MLP_GEMM(dx2_b##B, kNN, B, 256, 512);       \
  MLP_GEMM(dx3_b##B, kNN, B, 10, 256);        \
  MLP_GEMM(dw1_b##B, kTN, 512, B, 784);       \
  MLP_GEMM(dw2_b##B, kTN, 256, B, 512);       \
  MLP_GEMM(dw3_b##B, kTN, 10, B, 256);        \
  MLP_GEMM(dw1t_b##B, kTN, 784, B, 512);      \
  MLP_GEMM(dw2t_b##B, kTN, 512, B, 256);      \
  MLP_GEMM(dw3t_b##B, kTN, 256, B, 10)
MLP_GEMMS(128);
MLP_GEMMS(1024);

// One whole training step of the MLP: forward, a cross-entropy written as
// -log_softmax(logits).gather(labels).mean(), backward, and SGD with momentum 0.9 under
// no-grad (what optim::SGD does), gradients zeroed in place for the next step.
void mlp_step(benchmark::State& state, int64_t batch) {
  const int64_t sizes[4] = {784, 512, 256, 10};
  std::vector<Tensor> params, bufs;
  for (int l = 0; l < 3; ++l) {
    params.push_back((at::randn({sizes[l + 1], sizes[l]}) * 0.05).requires_grad_());
    params.push_back(at::zeros({sizes[l + 1]}).requires_grad_());
  }
  for (const Tensor& p : params) bufs.push_back(at::zeros_like(p));
  Tensor x = at::rand({batch, 784});
  Tensor labels = at::randint(0, 10, {batch, 1}, at::kLong);
  for (auto _ : state) {
    Tensor h = at::relu(at::linear(x, params[0], params[1]));
    h = at::relu(at::linear(h, params[2], params[3]));
    Tensor logits = at::linear(h, params[4], params[5]);
    Tensor loss = -at::log_softmax(logits, 1).gather(1, labels).mean();
    loss.backward();
    c10::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      bufs[i].mul_(0.9).add_(params[i].grad());
      params[i].sub_(bufs[i], 0.05);
      params[i].mutable_grad().zero_();
    }
  }
  state.counters["samples"] =
      benchmark::Counter(double(batch) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(mlp_step, b128, 128)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(mlp_step, b1024, 1024)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

// BENCH_THREADS=n runs everything on n threads (default: the library's own default).
int main(int argc, char** argv) {
  if (const char* t = std::getenv("BENCH_THREADS")) at::set_num_threads(std::atoi(t));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
