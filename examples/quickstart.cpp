// Quickstart: the article that ember grew from, in ember. The GPU and its grid/block/thread
// limits; an `add` kernel written as a string and launched with 32 blocks of 32 threads
// (PyCUDA's SourceModule); `x + x` and `x @ x` on the GPU (PyTorch's and CuPy's first steps);
// an ElementwiseKernel; a runtime kernel that joins autograd in a tiny training loop.
// Without a GPU it says so and runs the tensor parts on the CPU (exit code 0).
#include <ember/ember.h>

#include <chrono>
#include <cstdio>

using namespace ember;

namespace {

// Seconds per call of f (after one warm-up call), the device synchronized around the timing.
template <class F>
double seconds_per_call(F&& f, int calls) {
  f();
  cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  cuda::synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

// FP32 lanes per SM by compute capability (CUDA's programming guide), for the peak figure.
int fp32_lanes_per_sm(int major, int minor) {
  if (major == 8 && minor == 0) return 64;
  if (major >= 8) return 128;
  return major == 7 ? 64 : 128;
}

// swish(x) = x * sigmoid(x), forward and backward as runtime kernels: a custom fused op that
// autograd differentiates like any other (gradcheck below).
struct Swish : autograd::Function<Swish> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    static const cuda::ElementwiseKernel kernel("T x", "T y", "y = x / (1 + exp(-x))",
                                                "swish_forward");
    ctx->save_for_backward({x});
    return kernel(x);
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx,
                                        autograd::tensor_list grads) {
    static const cuda::ElementwiseKernel kernel(
        "T x, T g", "T dx", "T s = 1 / (1 + exp(-x)); dx = g * s * (1 + x * (1 - s))",
        "swish_backward");
    const Tensor x = ctx->get_saved_variables()[0];
    return {kernel(x, grads[0])};
  }
};

void gpu_part() {
  const cuda::DeviceProperties p = cuda::get_device_properties();
  std::printf("GPU: %s, compute capability %d.%d, %.1f GiB, %d SMs\n", p.name.c_str(), p.major,
              p.minor, p.total_memory / double(1 << 30), p.multi_processor_count);
  std::printf(
      "  warp %d threads; a block: at most %d threads (x %d, y %d, z %d), %zu KiB of "
      "shared memory (%zu with opt-in)\n",
      p.warp_size, p.max_threads_per_block, p.max_block_dim[0], p.max_block_dim[1],
      p.max_block_dim[2], p.shared_memory_per_block >> 10, p.shared_memory_per_block_optin >> 10);
  std::printf("  a grid: at most (%d, %d, %d) blocks; an SM runs up to %d threads at once\n",
              p.max_grid_dim[0], p.max_grid_dim[1], p.max_grid_dim[2],
              p.max_threads_per_multi_processor);

  // The article's first kernel: 32 blocks of 32 threads add 1024 floats.
  cuda::Module module(R"(
extern "C" __global__ void add(const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];
})");
  const Tensor a = randn({1024}), b = randn({1024});
  Tensor c = empty({1024}, kCUDA);
  module.function("add").launch(/*grid=*/{32}, /*block=*/{32}, a.cuda(), b.cuda(), c);
  std::printf("add kernel, 32 blocks x 32 threads: %s the CPU's a + b\n",
              equal(c.cpu(), a + b) ? "equals" : "DIFFERS FROM");

  // PyTorch's x + x and CuPy's dot on the GPU.
  const Tensor x = randn({1000, 1000}).to(kCUDA);
  const Tensor y = x + x;
  std::printf("x + x on %s: y[0][0] = %.4f (2 * %.4f)\n", y.device().str().c_str(),
              y[0][0].item<float>(), x[0][0].item<float>());
  const double s = seconds_per_call([&] { (void)matmul(x, x); }, 20);
  const double peak = 2.0 * p.multi_processor_count * fp32_lanes_per_sm(p.major, p.minor) *
                      p.clock_rate_khz * 1e3 / 1e12;
  std::printf("matmul(x, x), 1000 x 1000 float32: %.1f us, %.2f TFLOP/s (FP32 peak %.1f)\n",
              s * 1e6, 2e9 / s / 1e12, peak);

  // CuPy's ElementwiseKernel.
  cuda::ElementwiseKernel squared_diff("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff");
  const Tensor d = squared_diff(x, y);
  std::printf("ElementwiseKernel squared_diff(x, y): %s (x - y)^2\n",
              allclose(d, (x - y) * (x - y)) ? "equals" : "DIFFERS FROM");

  // A runtime kernel in autograd: gradcheck in float64, then a tiny regression.
  const Tensor probe = randn({8}, TensorOptions(kFloat64).device(kCUDA)).requires_grad_();
  const bool ok = autograd::gradcheck(
      [](const autograd::tensor_list& in) { return Swish::apply(in[0]); }, {probe});
  std::printf("swish as runtime kernels: gradcheck %s\n", ok ? "passes" : "FAILS");
  manual_seed(0);
  nn::Linear fc(16, 1);
  fc->to(kCUDA);
  optim::SGD opt(fc->parameters(), optim::SGDOptions(0.1));
  const Tensor inputs = randn({256, 16}).cuda(), targets = inputs.sum(1, true).cuda();
  for (int step = 0; step <= 100; ++step) {
    opt.zero_grad();
    Tensor loss = (fc->forward(Swish::apply(inputs)) - targets).square().mean();
    loss.backward();
    opt.step();
    if (step % 50 == 0) std::printf("  step %3d: loss %.4f\n", step, loss.item<float>());
  }
}

void cpu_part() {
  std::printf(
      "No CUDA GPU here (or ember was built without CUDA): the kernels are skipped, the "
      "tensor parts run on the CPU.\n");
  const Tensor x = randn({1000, 1000});
  const Tensor y = x + x;
  std::printf("x + x on %s: y[0][0] = %.4f (2 * %.4f)\n", y.device().str().c_str(),
              y[0][0].item<float>(), x[0][0].item<float>());
  const double s = seconds_per_call([&] { (void)matmul(x, x); }, 3);
  std::printf("matmul(x, x), 1000 x 1000 float32: %.2f ms, %.1f GFLOP/s\n", s * 1e3, 2e9 / s / 1e9);
}

}  // namespace

int main() {
  try {
    if (cuda::is_available()) {
      gpu_part();
    } else {
      cpu_part();
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "quickstart: %s\n", e.what());
    return 1;
  }
  return 0;
}
