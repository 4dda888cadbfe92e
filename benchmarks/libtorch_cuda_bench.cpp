// The LibTorch twin of cuda_bench.cpp: the same GPU workloads under the same names and the
// same timing (batches of calls between two synchronizations, manual time per call), so
// tools/gpu_visit.sh can print ember/LibTorch ratios. Built only against a CUDA LibTorch.
#include <ATen/ATen.h>
#include <torch/cuda.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>

namespace {

using at::Tensor;

constexpr int64_t kBig = int64_t(1) << 28;  // 1 GiB of float32 per tensor
constexpr int64_t kFloat = sizeof(float);

at::TensorOptions gpu() { return at::TensorOptions().device(at::kCUDA); }

template <class F>
void per_call(benchmark::State& state, int batch, F&& body) {
  body();
  torch::cuda::synchronize();
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) body();
    torch::cuda::synchronize();
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    state.SetIterationTime(dt.count() / batch);
  }
}

void add_2p28(benchmark::State& state) {
  Tensor a = at::randn({kBig}, gpu()), b = at::randn({kBig}, gpu());
  per_call(state, 20, [&] { benchmark::DoNotOptimize((a + b).data_ptr()); });
  state.SetBytesProcessed(state.iterations() * 3 * kBig * kFloat);
}
BENCHMARK(add_2p28)
    ->Name("add_2^28")
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

void relu_2p28(benchmark::State& state) {
  Tensor a = at::randn({kBig}, gpu());
  per_call(state, 20, [&] { benchmark::DoNotOptimize(a.relu().data_ptr()); });
  state.SetBytesProcessed(state.iterations() * 2 * kBig * kFloat);
}
BENCHMARK(relu_2p28)
    ->Name("relu_2^28")
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

void sum_2p28(benchmark::State& state) {
  Tensor a = at::randn({kBig}, gpu());
  per_call(state, 20, [&] { benchmark::DoNotOptimize(a.sum().data_ptr()); });
  state.SetBytesProcessed(state.iterations() * kBig * kFloat);
}
BENCHMARK(sum_2p28)
    ->Name("sum_2^28")
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

void gemm(benchmark::State& state, int64_t n, const char* precision) {
  at::globalContext().setFloat32MatmulPrecision(precision);
  Tensor a = at::randn({n, n}, gpu()), b = at::randn({n, n}, gpu());
  per_call(state, 10, [&] { benchmark::DoNotOptimize(at::matmul(a, b).data_ptr()); });
  at::globalContext().setFloat32MatmulPrecision("highest");
  state.counters["FLOPS"] =
      benchmark::Counter(2.0 * n * n * n * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(gemm, sgemm_4096, 4096, "highest")
    ->Name("sgemm_4096")
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gemm, tf32_8192, 8192, "high")
    ->Name("tf32_8192")
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

void tiny_add_8(benchmark::State& state) {
  Tensor s = at::ones({8}, gpu());
  per_call(state, 100000, [&] { s = s + 1; });
  benchmark::DoNotOptimize(s.data_ptr());
}
BENCHMARK(tiny_add_8)->UseManualTime()->Iterations(3)->Unit(benchmark::kMicrosecond);

void backward_8(benchmark::State& state) {
  Tensor w = at::randn({8}, gpu()).requires_grad_();
  Tensor x = at::randn({8}, gpu());
  per_call(state, 10000, [&] { (w * x).sum().backward(); });
  benchmark::DoNotOptimize(w.grad().data_ptr());
}
BENCHMARK(backward_8)->UseManualTime()->Iterations(3)->Unit(benchmark::kMicrosecond);

void sort_1M(benchmark::State& state) {
  Tensor a = at::randn({int64_t(1) << 20}, gpu());
  per_call(state, 50, [&] { benchmark::DoNotOptimize(std::get<0>(at::sort(a)).data_ptr()); });
}
BENCHMARK(sort_1M)->UseManualTime()->Iterations(5)->Unit(benchmark::kMicrosecond);

void topk10_1M(benchmark::State& state) {
  Tensor a = at::randn({int64_t(1) << 20}, gpu());
  per_call(state, 50, [&] { benchmark::DoNotOptimize(std::get<0>(at::topk(a, 10)).data_ptr()); });
}
BENCHMARK(topk10_1M)->UseManualTime()->Iterations(5)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "libtorch_cuda_bench: no CUDA device, nothing to time\n");
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
