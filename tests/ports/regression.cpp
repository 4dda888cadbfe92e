// Regression with a custom Dataset and DataLoader: a small MLP fits
// y = 1.5 x0 - 2 x1 + 0.5 x0 x1 + 0.3 on points of a Lissajous curve.
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <iostream>

class CurveDataset : public torch::data::Dataset<CurveDataset> {
 public:
  explicit CurveDataset(int64_t n) {
    auto t = torch::arange(n, torch::kFloat) * 0.37;
    auto x0 = torch::cos(t), x1 = torch::sin(t * 1.7);
    inputs_ = torch::stack({x0, x1}, /*dim=*/1);
    targets_ = (1.5 * x0 - 2 * x1 + 0.5 * x0 * x1 + 0.3).unsqueeze(1);
  }
  torch::data::Example<> get(size_t index) override { return {inputs_[index], targets_[index]}; }
  torch::optional<size_t> size() const override { return inputs_.size(0); }

 private:
  torch::Tensor inputs_, targets_;
};

struct RegressorImpl : torch::nn::Module {
  RegressorImpl(int64_t hidden)
      : fc1(register_module("fc1", torch::nn::Linear(2, hidden))),
        fc2(register_module("fc2", torch::nn::Linear(hidden, hidden))),
        out(register_module("out", torch::nn::Linear(hidden, 1))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::tanh(fc1->forward(x));
    x = torch::relu(fc2->forward(x));
    return out->forward(x);
  }
  torch::nn::Linear fc1, fc2, out;
};
TORCH_MODULE(Regressor);

// Deterministic initialization (no RNG), so that runs compare across builds; computed in
// double, as float linspace may differ in the last bit between libraries.
void init_parameters(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  double k = 1;
  for (auto& p : module.parameters()) {
    const double bound = p.dim() > 1 ? 1.0 / std::sqrt(static_cast<double>(p.size(1))) : 0.1;
    auto t = torch::linspace(-1, 1, p.numel(), torch::kDouble);
    auto values = torch::sin(t * (3 + k)) * bound;
    p.copy_(values.view_as(p));
    k += 1;
  }
}

int main() {
  Regressor model(16);
  init_parameters(*model);

  auto dataset = CurveDataset(200).map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(32));

  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(1e-4));
  for (int epoch = 1; epoch <= 15; ++epoch) {
    double total = 0;
    int64_t seen = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto prediction = model->forward(batch.data);
      auto loss = torch::mse_loss(prediction, batch.target);
      loss.backward();
      optimizer.step();
      total += loss.item<double>() * batch.data.size(0);
      seen += batch.data.size(0);
    }
    std::printf("epoch %2d  loss %.6f  (%ld examples)\n", epoch, total / seen,
                static_cast<long>(seen));
  }

  torch::NoGradGuard no_grad;
  model->eval();
  auto probe = torch::tensor({{0.5, -0.5}, {-1.0, 0.25}, {0.0, 0.0}});
  auto expected = 1.5 * probe.select(1, 0) - 2 * probe.select(1, 1) +
                  0.5 * probe.select(1, 0) * probe.select(1, 1) + 0.3;
  auto predicted = model->forward(probe).squeeze(1);
  for (int64_t i = 0; i < probe.size(0); ++i) {
    std::printf("f(%5.2f, %5.2f) = %.4f, predicted %.4f\n", probe[i][0].item<float>(),
                probe[i][1].item<float>(), expected[i].item<float>(), predicted[i].item<float>());
  }
  std::cout << "out.bias = " << model->out->bias.item<float>() << "\n";
  for (const auto& pair : model->named_parameters()) {
    std::printf("%-12s %-10s norm %.5f\n", pair.key().c_str(),
                torch::str(pair.value().sizes()).c_str(), pair.value().norm().item<double>());
  }
}
