// TF32 8192^3 through ember, batch by batch from an idle GPU: the first batches run at the
// GPU's boost clock, later ones at the rate its power limit allows (the H200 caps at 700 W).
// benchmarks/pytorch_tf32_from_idle.py is its twin; tools/gpu_visit.sh runs both with
// nvidia-smi logging clocks and power (docs/gpu.md, Results).
#include <ember/ember.h>

#include <chrono>
#include <cstdio>
#include <thread>

int main() {
  if (!ember::cuda::is_available()) {
    std::fprintf(stderr, "tf32_from_idle: no CUDA device, nothing to time\n");
    return 0;
  }
  ember::set_float32_matmul_precision("high");
  const int64_t n = 8192;
  ember::Tensor a = ember::randn({n, n}, ember::kCUDA), b = ember::randn({n, n}, ember::kCUDA);
  ember::Tensor c = ember::matmul(a, b);  // warm-up: cuBLAS handle, heuristics, workspace
  ember::cuda::synchronize();
  std::this_thread::sleep_for(std::chrono::seconds(5));  // idle: clocks back to boost
  for (int batch = 0; batch < 12; ++batch) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 10; ++i) c = ember::matmul(a, b);
    ember::cuda::synchronize();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("ember   batch %2d: %6.1f TFLOP/s\n", batch, 10 * 2.0 * n * n * n / dt / 1e12);
  }
  return 0;
}
