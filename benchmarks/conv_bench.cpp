// Times one convolution through ember: conv2 of examples/cnn.cpp (batch 128, 32 -> 64 channels,
// 14x14, 3x3, pad 1, float32, TF32 off unless --tf32), forward alone and forward + the
// gradients of input and weight (autograd::grad); and the CNN's two training-mode batch norms
// (--bn: [128, 32, 28, 28] and [128, 64, 14, 14], forward + input, weight and bias gradients;
// PyTorch runs these through cuDNN). benchmarks/pytorch_conv_bench.py is its twin;
// tools/gpu_visit.sh runs both in one visit. One JSON line per workload on stdout.
// Usage: conv_bench [--device cuda|cpu] [--batch 128] [--iters 200] [--tf32] [--cudnn-benchmark]
#include <ember/ember.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace ember;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Holds the GPU for `cycles` clock ticks, so that the host queues a whole batch of iterations
// before the GPU reaches the first one: the events around the batch then time the GPU's work
// alone, not the host's launch rate (PyTorch's torch.cuda._sleep does the same).
constexpr const char* kSpinSource = R"(
extern "C" __global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
})";
constexpr long long kSpinCycles = 20'000'000;  // about 10 ms at the H200's 1.98 GHz
constexpr int kBatchIters = 10;                // iterations between two events

struct Timing {
  double device_us;  // median per iteration, the device's time (CUDA events)
  double wall_us;    // per iteration, back to back, host clock, synchronized at the end
};

using Clock = std::chrono::steady_clock;
double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

Timing time_it(const std::function<void()>& fn, bool on_cuda, int iters) {
  for (int i = 0; i < 20; ++i) fn();  // warm-up: cuDNN plans, workspace, allocator
  if (on_cuda) cuda::synchronize();
  Timing t{};
  std::vector<double> samples;
  if (on_cuda) {
    static const cuda::Module spin_module(kSpinSource);
    const cuda::Function spin = spin_module.function("spin");
    for (int b = 0; b < std::max(1, iters / kBatchIters); ++b) {
      cuda::Event start(/*enable_timing=*/true), stop(true);
      spin.launch({1}, {1}, kSpinCycles);
      start.record();
      for (int i = 0; i < kBatchIters; ++i) fn();
      stop.record();
      samples.push_back(1e3 * start.elapsed_time(stop) / kBatchIters);  // waits for stop
    }
    t.device_us = median(samples);
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) fn();
    cuda::synchronize();
    t.wall_us = us_since(t0) / iters;
  } else {
    for (int i = 0; i < iters; ++i) {
      const auto t0 = Clock::now();
      fn();
      samples.push_back(us_since(t0));
    }
    t.device_us = t.wall_us = median(samples);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device_name = cuda::is_available() ? "cuda" : "cpu";
  int64_t batch = 128;
  int iters = 200;
  bool tf32 = false, benchmark = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--device" && has_value) {
      device_name = argv[++i];
    } else if (a == "--batch" && has_value) {
      batch = std::atoll(argv[++i]);
    } else if (a == "--iters" && has_value) {
      iters = std::atoi(argv[++i]);
    } else if (a == "--tf32") {
      tf32 = true;
    } else if (a == "--cudnn-benchmark") {
      benchmark = true;
    } else {
      std::fprintf(stderr,
                   "usage: conv_bench [--device cuda|cpu] [--batch N] [--iters N] [--tf32] "
                   "[--cudnn-benchmark]\n");
      return 2;
    }
  }
  try {
    globalContext().setAllowTF32CuDNN(tf32);
    cudnn::set_benchmark(benchmark);
    manual_seed(0);
    const Device device(device_name);
    const bool on_cuda = device.is_cuda();
    const int64_t cin = 32, cout = 64, hw = 14, k = 3;
    const auto opts = TensorOptions().device(device);
    Tensor x = randn({batch, cin, hw, hw}, opts).requires_grad_(true);
    Tensor w = (randn({cout, cin, k, k}, opts) * 0.05).requires_grad_(true);
    Tensor g = randn({batch, cout, hw, hw}, opts);
    const double flops = 2.0 * batch * cout * hw * hw * cin * k * k;  // one pass
    // The batch norms of examples/cnn --bn: after conv1 and after conv2.
    Tensor bx1 = randn({batch, 32, 28, 28}, opts).requires_grad_(true);
    Tensor bx2 = randn({batch, 64, 14, 14}, opts).requires_grad_(true);
    Tensor bg1 = randn({batch, 32, 28, 28}, opts), bg2 = randn({batch, 64, 14, 14}, opts);
    nn::BatchNorm2d bn1(32), bn2(64);
    bn1->to(device);
    bn2->to(device);

    struct Workload {
      const char* name;
      double passes;  // forward 1; forward + input and weight gradients 3
      std::function<void()> fn;
    };
    const std::vector<Workload> workloads = {
        {"conv2_fwd", 1,
         [&] {
           NoGradGuard no_grad;
           Tensor y = conv2d(x, w, {}, 1, 1);
         }},
        {"conv2_fwd_bwd", 3,
         [&] {
           Tensor y = conv2d(x, w, {}, 1, 1);
           autograd::tensor_list grads = autograd::grad({y}, {x, w}, {g});
         }},
        {"bn1_fwd_bwd", 0,
         [&] {
           Tensor y = bn1->forward(bx1);
           autograd::tensor_list grads = autograd::grad({y}, {bx1, bn1->weight, bn1->bias}, {bg1});
         }},
        {"bn2_fwd_bwd", 0,
         [&] {
           Tensor y = bn2->forward(bx2);
           autograd::tensor_list grads = autograd::grad({y}, {bx2, bn2->weight, bn2->bias}, {bg2});
         }},
    };
    for (const Workload& wl : workloads) {
      const Timing t = time_it(wl.fn, on_cuda, iters);
      std::printf(
          "{\"name\": \"%s\", \"framework\": \"ember\", \"device\": \"%s\", \"batch\": %lld, "
          "\"tf32\": %s, \"cudnn_benchmark\": %s, \"device_us\": %.2f, \"wall_us\": %.2f, "
          "\"tflops\": %.2f}\n",
          wl.name, device_name.c_str(), static_cast<long long>(batch), tf32 ? "true" : "false",
          benchmark ? "true" : "false", t.device_us, t.wall_us,
          wl.passes * flops / (t.device_us * 1e-6) / 1e12);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "conv_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
