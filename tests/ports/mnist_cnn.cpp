// The MNIST CNN of LibTorch's examples, cut short: 30 batches of 64 on the CPU, then the
// accuracy on the first 1000 test images. argv[1]: the folder of the MNIST (or Fashion-MNIST)
// files; without them the program says so and exits 77 (a skipped test).
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

struct Net : torch::nn::Module {
  Net()
      : conv1(torch::nn::Conv2dOptions(1, 8, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(8, 16, /*kernel_size=*/5)),
        fc1(256, 64),
        fc2(64, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("pool", pool);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(pool(conv2->forward(x)));
    x = x.view({-1, 256});
    x = torch::relu(fc1->forward(x));
    return torch::log_softmax(fc2->forward(x), /*dim=*/1);
  }
  torch::nn::Conv2d conv1, conv2;
  torch::nn::Linear fc1, fc2;
  torch::nn::MaxPool2d pool{torch::nn::MaxPool2dOptions(2)};
};

// Deterministic initialization (no RNG), so that runs compare across builds; computed in
// double, as float linspace may differ in the last bit between libraries.
void init_parameters(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  double k = 1;
  for (auto& p : module.parameters()) {
    const double fan_in = static_cast<double>(p.numel() / p.size(0));
    const double bound = p.dim() > 1 ? 1.0 / std::sqrt(fan_in) : 0.05;
    auto t = torch::linspace(-1, 1, p.numel(), torch::kDouble);
    p.copy_(torch::sin(t * (100 + 3 * k) + k).view_as(p) * bound);
    k += 1;
  }
}

int main(int argc, char* argv[]) {
  const std::string root = argc > 1 ? argv[1] : "data/mnist";
  using MNIST = torch::data::datasets::MNIST;
  torch::optional<MNIST> train_set, test_set;
  try {
    train_set.emplace(root, MNIST::Mode::kTrain);
    test_set.emplace(root, MNIST::Mode::kTest);
  } catch (const std::exception&) {
    std::cout << "MNIST data not found in " << root << ", skipping\n";
    return 77;
  }
  std::cout << "train images: " << train_set->size().value()
            << ", test images: " << test_set->size().value() << "\n";

  auto train_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(*train_set)
          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
          .map(torch::data::transforms::Stack<>()),
      /*batch_size=*/64);

  Net model;
  init_parameters(model);
  torch::optim::SGD optimizer(model.parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));

  model.train();
  int batch_index = 0;
  for (auto& batch : *train_loader) {
    optimizer.zero_grad();
    auto output = model.forward(batch.data);
    auto loss = torch::nll_loss(output, batch.target);
    loss.backward();
    optimizer.step();
    if (++batch_index % 10 == 0) {
      std::printf("batch %3d  loss %.4f\n", batch_index, loss.item<float>());
    }
    if (batch_index == 30) break;
  }

  torch::NoGradGuard no_grad;
  model.eval();
  auto test_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(*test_set)
          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
          .map(torch::data::transforms::Stack<>()),
      /*batch_size=*/1000);
  for (const auto& batch : *test_loader) {
    auto output = model.forward(batch.data);
    auto test_loss = torch::nll_loss(output, batch.target, {}, torch::Reduction::Sum);
    auto correct = output.argmax(1).eq(batch.target).sum().item<int64_t>();
    std::printf("test (first %ld images): average loss %.4f, accuracy %ld / %ld\n",
                static_cast<long>(batch.data.size(0)), test_loss.item<double>() / 1000,
                static_cast<long>(correct), static_cast<long>(batch.data.size(0)));
    break;
  }
}
