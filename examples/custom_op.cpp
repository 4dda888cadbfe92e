// A custom fused op from runtime kernels: bias + GELU (tanh form) as one forward and one
// backward ElementwiseKernel inside an autograd::Function, checked with gradcheck (float64),
// used to train a small MLP, and timed against the same op composed from ember's built-in ops.
// Without a GPU it says so and exits with 0 (docs/custom-kernels.md).
#include <ember/ember.h>

#include <chrono>
#include <cstdio>

using namespace ember;

namespace {

// gelu(x + bias) with the tanh approximation; bias broadcasts over the rows.
struct BiasGelu : autograd::Function<BiasGelu> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, const Tensor& bias) {
    static const cuda::ElementwiseKernel kernel(
        "T x, T bias", "T y",
        "T v = x + bias; y = (T)0.5 * v * ((T)1 + tanh((T)0.7978845608028654 * (v + "
        "(T)0.044715 * v * v * v)))",
        "bias_gelu_forward");
    ctx->save_for_backward({x, bias});
    return kernel(x, bias);
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx,
                                        autograd::tensor_list grads) {
    static const cuda::ElementwiseKernel kernel(
        "T x, T bias, T g", "T dv",
        "T v = x + bias; T u = (T)0.7978845608028654 * (v + (T)0.044715 * v * v * v); "
        "T t = tanh(u); "
        "T du = (T)0.7978845608028654 * ((T)1 + (T)0.134145 * v * v); "
        "dv = g * ((T)0.5 * ((T)1 + t) + (T)0.5 * v * ((T)1 - t * t) * du)",
        "bias_gelu_backward");
    const auto saved = ctx->get_saved_variables();
    const Tensor dv = kernel(saved[0], saved[1], grads[0]);
    // The bias was broadcast over the rows: its gradient sums them.
    return {dv, dv.sum(0)};
  }
};

Tensor composed(const Tensor& x, const Tensor& bias) {
  const Tensor v = x + bias;
  return 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
}

template <class F>
double microseconds_per_call(F&& f, int calls) {
  f();
  cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  cuda::synchronize();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
             .count() /
         calls;
}

int run() {
  // 1. The same values as the composed op, and gradcheck in float64.
  const auto f64 = TensorOptions(kFloat64).device(kCUDA);
  const Tensor x = randn({16, 8}, f64).requires_grad_(), b = randn({8}, f64).requires_grad_();
  const double diff = (BiasGelu::apply(x, b) - composed(x, b)).abs().max().item<double>();
  const bool ok = autograd::gradcheck(
      [](const autograd::tensor_list& in) { return BiasGelu::apply(in[0], in[1]); }, {x, b});
  std::printf("bias_gelu: max |fused - composed| = %.3g, gradcheck %s\n", diff,
              ok ? "passes" : "FAILS");

  // 2. A small MLP whose hidden layer uses the fused op, trained on a synthetic target.
  manual_seed(0);
  nn::Linear fc1(nn::LinearOptions(32, 64).bias(false)), fc2(64, 1);
  Tensor bias = zeros({64}, kCUDA).requires_grad_();
  fc1->to(kCUDA);
  fc2->to(kCUDA);
  auto params = fc1->parameters();
  for (const Tensor& p : fc2->parameters()) params.push_back(p);
  params.push_back(bias);
  optim::Adam opt(params, optim::AdamOptions(1e-2));
  const Tensor inputs = randn({512, 32}).cuda();
  const Tensor targets = inputs.narrow(1, 0, 4).square().sum(1, true);
  for (int step = 0; step <= 200; ++step) {
    opt.zero_grad();
    Tensor loss =
        (fc2->forward(BiasGelu::apply(fc1->forward(inputs), bias)) - targets).square().mean();
    loss.backward();
    opt.step();
    if (step % 100 == 0) std::printf("  step %3d: loss %.4f\n", step, loss.item<float>());
  }

  // 3. Forward + backward, fused against composed, on [4096, 1024] float32.
  const Tensor big = randn({4096, 1024}).cuda().requires_grad_();
  const Tensor big_b = randn({1024}).cuda().requires_grad_();
  const double fused_us =
      microseconds_per_call([&] { BiasGelu::apply(big, big_b).sum().backward(); }, 20);
  const double composed_us =
      microseconds_per_call([&] { composed(big, big_b).sum().backward(); }, 20);
  std::printf("forward + backward, [4096, 1024] float32: fused %.1f us, composed %.1f us (%.2fx)\n",
              fused_us, composed_us, composed_us / fused_us);
  return ok && diff < 1e-10 ? 0 : 1;
}

}  // namespace

int main() {
  if (!cuda::is_available()) {
    std::printf(
        "No CUDA GPU here (or ember was built without CUDA): the runtime kernels need one.\n");
    return 0;
  }
  try {
    return run();
  } catch (const Error& e) {
    std::fprintf(stderr, "custom_op: %s\n", e.what());
    return 1;
  }
}
