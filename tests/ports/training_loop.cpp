// A small training loop with learning-rate schedulers and gradient clipping: a classifier of
// three spirals, SGD with StepLR, then fine-tuning with Adam and ReduceLROnPlateauScheduler.
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    layers = register_module("layers",
                             torch::nn::Sequential(torch::nn::Linear(2, 32), torch::nn::Tanh(),
                                                   torch::nn::Linear(32, 32), torch::nn::ReLU(),
                                                   torch::nn::Linear(32, 3)));
  }
  torch::Tensor forward(torch::Tensor x) { return layers->forward(x); }
  torch::nn::Sequential layers{nullptr};
};
TORCH_MODULE(Net);

// Deterministic initialization (no RNG), so that runs compare across builds; computed in
// double, as float linspace may differ in the last bit between libraries.
void init_parameters(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  double k = 1;
  for (auto& p : module.parameters()) {
    const double bound = p.dim() > 1 ? 1.0 / std::sqrt(static_cast<double>(p.size(1))) : 0.1;
    auto t = torch::linspace(-1, 1, p.numel(), torch::kDouble);
    p.copy_(torch::sin(t * (3 + k)).view_as(p) * bound);
    k += 1;
  }
}

double current_lr(torch::optim::Optimizer& optimizer) {
  return optimizer.param_groups()[0].options().get_lr();
}

int main() {
  // Three interleaved spirals, 60 points each.
  const int64_t n = 180;
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < n; ++i) labels.push_back(i % 3);
  auto label = torch::tensor(labels);
  auto radius = torch::linspace(0.1, 1.0, n);
  auto angle = radius * 4.0 + label.to(torch::kFloat) * (2 * M_PI / 3);
  auto inputs = torch::stack({radius * torch::cos(angle), radius * torch::sin(angle)}, 1);

  Net net;
  init_parameters(*net);
  torch::nn::CrossEntropyLoss criterion;

  auto run_epoch = [&](torch::optim::Optimizer& optimizer, double max_norm) {
    double total = 0, norm = 0;
    for (int64_t start = 0; start < n; start += 45) {
      auto x = inputs.slice(0, start, start + 45);
      auto y = label.slice(0, start, start + 45);
      optimizer.zero_grad();
      auto loss = criterion(net->forward(x), y);
      loss.backward();
      norm = torch::nn::utils::clip_grad_norm_(net->parameters(), max_norm);
      optimizer.step();
      total += loss.item<double>();
    }
    return std::make_pair(total / 4, norm);
  };
  auto accuracy = [&] {
    torch::NoGradGuard no_grad;
    auto predicted = net->forward(inputs).argmax(1);
    return predicted.eq(label).sum().item<int64_t>();
  };

  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.2).momentum(0.9));
  torch::optim::StepLR step_lr(sgd, /*step_size=*/4, /*gamma=*/0.5);
  for (int epoch = 1; epoch <= 12; ++epoch) {
    auto [loss, norm] = run_epoch(sgd, /*max_norm=*/1.0);
    std::printf("sgd  epoch %2d  lr %.5f  loss %.5f  last grad norm %.5f\n", epoch, current_lr(sgd),
                loss, norm);
    step_lr.step();
  }
  std::cout << "correct after SGD: " << accuracy() << " / " << n << std::endl;

  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(0.05));
  torch::optim::ReduceLROnPlateauScheduler plateau(
      adam, torch::optim::ReduceLROnPlateauScheduler::SchedulerMode::min, /*factor=*/0.5,
      /*patience=*/1, /*threshold=*/0.05);
  for (int epoch = 1; epoch <= 20; ++epoch) {
    auto [loss, norm] = run_epoch(adam, /*max_norm=*/0.5);
    double validation;
    {
      torch::NoGradGuard no_grad;
      validation = criterion(net->forward(inputs), label).item<double>();
    }
    plateau.step(validation);
    std::printf("adam epoch %2d  loss %.5f  validation %.5f  norm %.5f  lr now %.6f\n", epoch, loss,
                validation, norm, current_lr(adam));
  }
  std::cout << "correct after Adam: " << accuracy() << " / " << n << std::endl;
  auto& first = net->layers[0]->as<torch::nn::Linear>()->weight;
  std::cout << "first layer weight norm: " << first.norm().item<float>() << std::endl;
}
