// Runtime kernels against built-in ones (issue 17's figures): an ElementwiseKernel computing
// z = x * y + z over 2^28 floats against the built-in add's GB/s; the host cost of launching a
// cached runtime kernel against a built-in op (run with EMBER_CUDA_BATCH=0, or tiny built-ins
// are batched); NVRTC compile time of PyCUDA's `add` kernel cold and from the disk cache.
// Prints one JSON object per line. Usage: runtime_kernel_bench [CACHE_DIR]
#include <ember/ember.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace ember;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Best seconds per call over `rounds` rounds of `calls` calls, the device synchronized
// around each round (asynchronous work fully counted).
template <class F>
double device_seconds_per_call(F&& f, int calls, int rounds) {
  f();
  cuda::synchronize();
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) f();
    cuda::synchronize();
    best = std::min(best, seconds_since(t0) / calls);
  }
  return best;
}

// Best host seconds per call: `calls` calls are enqueued (few enough that the launch queue
// never fills, so the host never waits for the GPU), timed without the synchronization.
template <class F>
double host_seconds_per_call(F&& f, int calls, int rounds) {
  for (int i = 0; i < calls; ++i) f();
  cuda::synchronize();
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) f();
    best = std::min(best, seconds_since(t0) / calls);
    cuda::synchronize();
  }
  return best;
}

const char* kAddSource = R"(
extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
})";

void bandwidth() {
  const int64_t n = int64_t(1) << 28;
  const double gib = double(n) * sizeof(float);
  Tensor x = randn({n}, kCUDA), y = randn({n}, kCUDA), z = randn({n}, kCUDA);
  const cuda::ElementwiseKernel fma("float32 x, float32 y", "float32 z", "z = x * y + z",
                                    "fma_inplace");
  // The built-in add reads two tensors and writes one; the kernel reads three and writes one.
  const double add_s = device_seconds_per_call([&] { (void)(x + y); }, 20, 3);
  const double fma_s = device_seconds_per_call([&] { fma(x, y, z); }, 20, 3);
  const double add_gbs = 3 * gib / add_s / 1e9, fma_gbs = 4 * gib / fma_s / 1e9;
  std::printf(
      "{\"bench\": \"bandwidth_2^28\", \"builtin_add_gbs\": %.0f, \"elementwise_kernel_gbs\": "
      "%.0f, \"ratio\": %.3f}\n",
      add_gbs, fma_gbs, fma_gbs / add_gbs);
}

void host_cost() {
  const int n = 8;
  Tensor a = ones({n}, kCUDA), b = ones({n}, kCUDA), c = empty({n}, kCUDA);
  const cuda::Function add = cuda::Module(kAddSource).function("add");
  const cuda::ElementwiseKernel add_kernel("float32 a, float32 b", "float32 c", "c = a + b",
                                           "add_kernel");
  const int calls = 500, rounds = 50;
  const double builtin = host_seconds_per_call([&] { c = a + b; }, calls, rounds);
  const double raw =
      host_seconds_per_call([&] { add.launch({1}, {32}, a, b, c, n); }, calls, rounds);
  const double elementwise = host_seconds_per_call([&] { c = add_kernel(a, b); }, calls, rounds);
  const double elementwise_out = host_seconds_per_call([&] { add_kernel(a, b, c); }, calls, rounds);
  const char* batch = std::getenv("EMBER_CUDA_BATCH");
  std::printf(
      "{\"bench\": \"launch_host_cost_8\", \"EMBER_CUDA_BATCH\": \"%s\", \"builtin_add_us\": "
      "%.2f, \"module_launch_us\": %.2f, \"elementwise_kernel_us\": %.2f, "
      "\"elementwise_kernel_out_us\": %.2f, \"module_launch_vs_add\": %.2f, "
      "\"elementwise_kernel_vs_add\": %.2f}\n",
      batch ? batch : "unset", builtin * 1e6, raw * 1e6, elementwise * 1e6, elementwise_out * 1e6,
      raw / builtin, elementwise / builtin);
}

void compile_time(const std::string& dir) {
  // A fresh cache folder: the first Module compiles with NVRTC, the second loads the cubin.
  // The CUDA context exists before (the first tensor made it), as in a program that compiles
  // a kernel after its first op.
  setenv("EMBER_KERNEL_CACHE", dir.c_str(), 1);
  cuda::synchronize();
  const int64_t before = cuda::detail::nvrtc_compilations();
  auto t0 = Clock::now();
  cuda::Module cold(kAddSource);
  const double cold_s = seconds_since(t0);
  const int64_t after_cold = cuda::detail::nvrtc_compilations();
  t0 = Clock::now();
  cuda::Module warm(kAddSource);
  const double warm_s = seconds_since(t0);
  std::printf(
      "{\"bench\": \"compile_add\", \"cold_ms\": %.2f, \"warm_ms\": %.3f, "
      "\"nvrtc_calls_cold\": %lld, \"nvrtc_calls_warm\": %lld}\n",
      cold_s * 1e3, warm_s * 1e3, static_cast<long long>(after_cold - before),
      static_cast<long long>(cuda::detail::nvrtc_compilations() - after_cold));
}

}  // namespace

int main(int argc, char** argv) {
  if (!cuda::is_available()) {
    std::printf("runtime_kernel_bench: no CUDA device, nothing to time\n");
    return 0;
  }
  const std::string dir = argc > 1 ? argv[1] : "/tmp/ember_runtime_kernel_bench_cache";
  std::system(("rm -rf '" + dir + "'").c_str());
  compile_time(dir);  // first: before anything else set up NVRTC
  host_cost();
  bandwidth();
  return 0;
}
