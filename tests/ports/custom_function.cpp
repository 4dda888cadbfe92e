// A custom autograd Function with a defaulted argument: ScaledTanh(x, scale = 2) computes
// scale * tanh(x); its backward returns an undefined gradient for `scale`.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

struct ScaledTanh : public torch::autograd::Function<ScaledTanh> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, double scale = 2.0) {
    auto y = torch::tanh(x);
    ctx->save_for_backward({y});
    ctx->saved_data["scale"] = scale;
    return y * scale;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    auto y = ctx->get_saved_variables()[0];
    const double scale = ctx->saved_data["scale"].toDouble();
    return {grad_outputs[0] * scale * (1 - y * y), torch::Tensor()};
  }
};

// A Linear layer whose weight is passed through the custom function.
struct SoftLinearImpl : torch::nn::Module {
  SoftLinearImpl(int64_t in, int64_t out) {
    weight = register_parameter("weight", torch::zeros({out, in}));
    bias = register_parameter("bias", torch::zeros({out}));
  }
  torch::Tensor forward(torch::Tensor x) {
    return torch::nn::functional::linear(x, ScaledTanh::apply(weight, 0.5), bias);
  }
  torch::Tensor weight, bias;
};
TORCH_MODULE(SoftLinear);

int main() {
  std::cout.setf(std::ios::fixed);
  std::cout.precision(6);

  // Gradients with the default and with an explicit scale, against autograd's own.
  auto x = torch::linspace(-2, 2, 5).requires_grad_();
  auto y = ScaledTanh::apply(x);
  y.sum().backward();
  std::cout << "y (scale 2):";
  for (int i = 0; i < 5; ++i) std::cout << " " << y[i].item<float>();
  std::cout << "\ngrad (scale 2):";
  for (int i = 0; i < 5; ++i) std::cout << " " << x.grad()[i].item<float>();
  std::cout << "\n";

  auto x2 = x.detach().clone().requires_grad_(true);
  (ScaledTanh::apply(x2, 3.0) * torch::arange(5)).sum().backward();
  auto x3 = x.detach().clone().requires_grad_(true);
  (3.0 * torch::tanh(x3) * torch::arange(5)).sum().backward();
  std::cout << "grad (scale 3):";
  for (int i = 0; i < 5; ++i) std::cout << " " << x2.grad()[i].item<float>();
  std::cout << "\nmax difference to autograd: " << (x2.grad() - x3.grad()).abs().max().item<float>()
            << "\n";
  std::cout << "requires_grad " << y.requires_grad() << ", grad_fn set " << (y.grad_fn() != nullptr)
            << "\n";
  {
    torch::NoGradGuard no_grad;
    std::cout << "under NoGradGuard requires_grad " << ScaledTanh::apply(x).requires_grad() << "\n";
  }

  // A small fit through the custom function: y = 2 tanh(soft_linear(x)).
  SoftLinear layer(3, 2);
  {
    torch::NoGradGuard no_grad;
    layer->weight.copy_(torch::linspace(-0.3, 0.3, 6).view({2, 3}));
  }
  auto inputs = torch::stack(
      {torch::linspace(-1, 1, 8), torch::linspace(0, 1, 8).pow(2), torch::linspace(1, -1, 8).sin()},
      1);
  auto targets = torch::stack(
      {0.8 * inputs.select(1, 0) - 0.5 * inputs.select(1, 2), 0.3 * inputs.select(1, 1) + 0.2}, 1);
  torch::optim::Adam optimizer(layer->parameters(), torch::optim::AdamOptions(0.05));
  for (int step = 1; step <= 40; ++step) {
    optimizer.zero_grad();
    auto out = ScaledTanh::apply(layer->forward(inputs));
    auto loss = torch::mse_loss(out, targets);
    loss.backward();
    optimizer.step();
    if (step % 5 == 0) std::printf("step %2d  loss %.6f\n", step, loss.item<float>());
  }
  auto effective = ScaledTanh::apply(layer->weight, 0.5).detach();
  auto w = effective.accessor<float, 2>();
  std::cout << "effective weight:";
  for (int64_t i = 0; i < w.size(0); ++i) {
    for (int64_t j = 0; j < w.size(1); ++j) std::cout << " " << w[i][j];
  }
  std::cout << "\nbias: " << layer->bias[0].item<float>() << " " << layer->bias[1].item<float>()
            << "\n";
}
