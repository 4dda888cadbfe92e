// ember's CPU micro-benchmarks (Google Benchmark): per-op host cost on a tiny tensor, memory
// bandwidth of add and sum over 16M floats, and matmul throughput. libtorch_micro_bench.cpp
// runs the same workloads under the same names, so tools/bench_cpu.sh can pair them.
#include <ember/ember.h>

#include <benchmark/benchmark.h>

namespace {

using ember::Tensor;

constexpr int64_t kBig = int64_t(1) << 24;  // 16M floats, 64 MiB per tensor

// `s = s + 1` on 8 floats: the whole per-op host path (dispatch, checks, allocation).
void tiny_add_8(benchmark::State& state) {
  Tensor s = ember::ones({8});
  for (auto _ : state) {
    s = s + 1;
    benchmark::DoNotOptimize(s.data_ptr());
  }
}
BENCHMARK(tiny_add_8);

// `(w * x).sum().backward()` on 8 floats: recording two nodes and running the backward
// (the host cost of autograd; the gradient accumulates into w.grad() in place).
void backward_8(benchmark::State& state) {
  Tensor w = ember::randn({8}).requires_grad_();
  Tensor x = ember::randn({8});
  for (auto _ : state) {
    (w * x).sum().backward();
  }
  benchmark::DoNotOptimize(w.grad().data_ptr());
}
BENCHMARK(backward_8);

// c = a + b: reads 2 and writes 1 tensor of 16M floats (bytes/s counts all three).
void add_16M(benchmark::State& state) {
  Tensor a = ember::randn({kBig}), b = ember::randn({kBig});
  for (auto _ : state) {
    Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * 3 * kBig * int64_t(sizeof(float)));
}
BENCHMARK(add_16M)->UseRealTime()->Unit(benchmark::kMillisecond);

void sum_16M(benchmark::State& state) {
  Tensor a = ember::randn({kBig});
  for (auto _ : state) {
    Tensor s = a.sum();
    benchmark::DoNotOptimize(s.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * kBig * int64_t(sizeof(float)));
}
BENCHMARK(sum_16M)->UseRealTime()->Unit(benchmark::kMillisecond);

// C[m, n] = A[m, k] B[k, n]; FLOPS counts 2mnk per product.
void matmul_mnk(benchmark::State& state, int64_t m, int64_t k, int64_t n) {
  Tensor a = ember::randn({m, k}), b = ember::randn({k, n});
  for (auto _ : state) {
    Tensor c = ember::matmul(a, b);
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

}  // namespace

BENCHMARK_MAIN();
