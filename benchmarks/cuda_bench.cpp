// ember's GPU benchmarks (Google Benchmark): bandwidth of add/relu/sum over 2^28 floats,
// SGEMM 4096^3 and TF32 8192^3, and the host cost of a tiny op and of a tiny backward.
// libtorch_cuda_bench.cpp and pytorch_cuda_bench.py run the same workloads under the same
// names; tools/gpu_visit.sh runs all three and prints ratios.
//
// Every benchmark reports the time of ONE call (manual time): a batch of calls runs between
// two device synchronizations and the elapsed host time is divided by the batch size, so
// the synchronization is spread over the batch and asynchronous work is fully counted.
#include <ember/ember.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>

namespace {

using ember::Tensor;

constexpr int64_t kBig = int64_t(1) << 28;  // 1 GiB of float32 per tensor
constexpr int64_t kFloat = sizeof(float);

// Warms up (allocator cache, kernel loading, cuBLAS handle), then times batches of `batch`
// calls; reports seconds per call.
template <class F>
void per_call(benchmark::State& state, int batch, F&& body) {
  body();
  ember::cuda::synchronize();
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) body();
    ember::cuda::synchronize();
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    state.SetIterationTime(dt.count() / batch);
  }
}

// c = a + b: reads two and writes one tensor (bytes/s counts all three).
void add_2p28(benchmark::State& state) {
  Tensor a = ember::randn({kBig}, ember::kCUDA), b = ember::randn({kBig}, ember::kCUDA);
  per_call(state, 20, [&] { benchmark::DoNotOptimize((a + b).data_ptr()); });
  state.SetBytesProcessed(state.iterations() * 3 * kBig * kFloat);
}
BENCHMARK(add_2p28)
    ->Name("add_2^28")
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

void relu_2p28(benchmark::State& state) {
  Tensor a = ember::randn({kBig}, ember::kCUDA);
  per_call(state, 20, [&] { benchmark::DoNotOptimize(a.relu().data_ptr()); });
  state.SetBytesProcessed(state.iterations() * 2 * kBig * kFloat);
}
BENCHMARK(relu_2p28)
    ->Name("relu_2^28")
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

void sum_2p28(benchmark::State& state) {
  Tensor a = ember::randn({kBig}, ember::kCUDA);
  per_call(state, 20, [&] { benchmark::DoNotOptimize(a.sum().data_ptr()); });
  state.SetBytesProcessed(state.iterations() * kBig * kFloat);
}
BENCHMARK(sum_2p28)
    ->Name("sum_2^28")
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

// C = A B with n x n float32 matrices; FLOPS counts 2 n^3 per product.
void gemm(benchmark::State& state, int64_t n, const char* precision) {
  ember::set_float32_matmul_precision(precision);
  Tensor a = ember::randn({n, n}, ember::kCUDA), b = ember::randn({n, n}, ember::kCUDA);
  per_call(state, 10, [&] { benchmark::DoNotOptimize(ember::matmul(a, b).data_ptr()); });
  ember::set_float32_matmul_precision("highest");
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

// `s = s + 1` on 8 floats on the GPU, 100k times, then synchronize: the host cost per op
// (dispatch, checks, allocation, launch) once the GPU keeps up.
void tiny_add_8(benchmark::State& state) {
  Tensor s = ember::ones({8}, ember::kCUDA);
  per_call(state, 100000, [&] { s = s + 1; });
  benchmark::DoNotOptimize(s.data_ptr());
}
BENCHMARK(tiny_add_8)->UseManualTime()->Iterations(3)->Unit(benchmark::kMicrosecond);

// `(w * x).sum().backward()` on 8 floats on the GPU: recording two nodes and running the
// backward (the gradient accumulates into w.grad() in place).
void backward_8(benchmark::State& state) {
  Tensor w = ember::randn({8}, ember::kCUDA).requires_grad_();
  Tensor x = ember::randn({8}, ember::kCUDA);
  per_call(state, 10000, [&] { (w * x).sum().backward(); });
  benchmark::DoNotOptimize(w.grad().data_ptr());
}
BENCHMARK(backward_8)->UseManualTime()->Iterations(3)->Unit(benchmark::kMicrosecond);

// sort and topk(k = 10) of 1M random floats on the GPU (values and int64 indices).
void sort_1M(benchmark::State& state) {
  Tensor a = ember::randn({int64_t(1) << 20}, ember::kCUDA);
  per_call(state, 50, [&] { benchmark::DoNotOptimize(std::get<0>(ember::sort(a)).data_ptr()); });
}
BENCHMARK(sort_1M)->UseManualTime()->Iterations(5)->Unit(benchmark::kMicrosecond);

void topk10_1M(benchmark::State& state) {
  Tensor a = ember::randn({int64_t(1) << 20}, ember::kCUDA);
  per_call(state, 50,
           [&] { benchmark::DoNotOptimize(std::get<0>(ember::topk(a, 10)).data_ptr()); });
}
BENCHMARK(topk10_1M)->UseManualTime()->Iterations(5)->Unit(benchmark::kMicrosecond);

// x.index({idx}): advanced indexing of 1M floats by 1M random int64 indices (x[idx]).
void index_1M(benchmark::State& state) {
  const int64_t n = int64_t(1) << 20;
  Tensor x = ember::randn({n}, ember::kCUDA);
  Tensor idx = ember::randint(0, n, {n}, ember::TensorOptions(ember::kInt64).device(ember::kCUDA));
  per_call(state, 50, [&] { benchmark::DoNotOptimize(x.index({idx}).data_ptr()); });
}
BENCHMARK(index_1M)->UseManualTime()->Iterations(5)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  if (!ember::cuda::is_available()) {
    std::fprintf(stderr, "cuda_bench: no CUDA device, nothing to time\n");
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
