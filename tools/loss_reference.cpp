// Writes tests/data/nn_loss_reference.txt: PyTorch's (LibTorch 1.13's) values and input
// gradients of every loss case of tests/test_nn_loss.cpp, which rebuilds the same inputs
// from the same wave() formula. One line per case: name;values;gradient (%.17g).
// Build: g++ -std=c++17 -O1 tools/loss_reference.cpp -I/usr/include/torch/csrc/api/include
//          -ltorch -ltorch_cpu -lc10 -o /tmp/loss_reference && /tmp/loss_reference > FILE
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace F = torch::nn::functional;
using torch::Tensor;

// scale * sin(0.37 i + phase) over a tensor of `shape` (float64), i the flat index.
Tensor wave(std::vector<int64_t> shape, double phase, double scale) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37 * i + phase);
  return torch::tensor(v, torch::kFloat64).reshape(shape);
}

Tensor longs(std::vector<int64_t> v, std::vector<int64_t> shape) {
  return torch::tensor(v, torch::kInt64).reshape(shape);
}

void print(const std::string& name, const std::function<Tensor(const Tensor&)>& loss_fn,
           Tensor input, bool with_grad = true) {
  input = input.detach().clone().requires_grad_(true);
  Tensor loss = loss_fn(input);
  std::printf("%s;", name.c_str());
  Tensor flat = loss.detach().reshape(-1);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf("%s%.17g", i ? " " : "", flat[i].item<double>());
  std::printf(";");
  if (with_grad) {
    Tensor coef = (torch::arange(loss.numel(), torch::kFloat64) * 0.1 + 1.5).reshape(loss.sizes());
    loss.backward(coef);
    Tensor g = input.grad().reshape(-1);
    for (int64_t i = 0; i < g.numel(); ++i)
      std::printf("%s%.17g", i ? " " : "", g[i].item<double>());
  }
  std::printf("\n");
}

int main() {
  const Tensor X = wave({4, 5}, 0.3, 3.0);
  const Tensor T = longs({1, 0, 4, 3}, {4});
  const Tensor T_ign = longs({1, 3, 4, 3}, {4});
  const Tensor W = torch::tensor({0.5, 1.0, 2.0, 1.5, 0.25}, torch::kFloat64);
  const Tensor X3 = wave({2, 3, 4}, 1.1, 2.5);
  const Tensor T3 = longs({0, 2, -100, 1, 1, 1, 0, 2}, {2, 4});
  const Tensor W3 = torch::tensor({0.7, 1.3, 2.0}, torch::kFloat64);
  const Tensor X1 = wave({6}, 0.5, 2.0);
  const Tensor T1 = longs({4}, {});
  const Tensor P = torch::softmax(wave({4, 5}, 2.0, 1.5), 1);
  using CE = F::CrossEntropyFuncOptions;
  print(
      "ce_mean", [&](const Tensor& x) { return F::cross_entropy(x, T); }, X);
  print(
      "ce_sum",
      [&](const Tensor& x) { return F::cross_entropy(x, T, CE().reduction(torch::kSum)); }, X);
  print(
      "ce_none",
      [&](const Tensor& x) { return F::cross_entropy(x, T, CE().reduction(torch::kNone)); }, X);
  print(
      "ce_weight", [&](const Tensor& x) { return F::cross_entropy(x, T, CE().weight(W)); }, X);
  print(
      "ce_ignore_weight",
      [&](const Tensor& x) { return F::cross_entropy(x, T_ign, CE().weight(W).ignore_index(3)); },
      X);
  print(
      "ce_smooth",
      [&](const Tensor& x) { return F::cross_entropy(x, T, CE().label_smoothing(0.1)); }, X);
  print(
      "ce_smooth_weight_ignore",
      [&](const Tensor& x) {
        return F::cross_entropy(x, T_ign, CE().weight(W).ignore_index(3).label_smoothing(0.2));
      },
      X);
  print(
      "ce_smooth_weight_none",
      [&](const Tensor& x) {
        return F::cross_entropy(
            x, T_ign, CE().weight(W).ignore_index(3).label_smoothing(0.2).reduction(torch::kNone));
      },
      X);
  print(
      "ce_smooth_weight_sum",
      [&](const Tensor& x) {
        return F::cross_entropy(
            x, T_ign, CE().weight(W).ignore_index(3).label_smoothing(0.2).reduction(torch::kSum));
      },
      X);
  print(
      "ce_3d_mean",
      [&](const Tensor& x) {
        return F::cross_entropy(x, T3, CE().weight(W3).label_smoothing(0.15));
      },
      X3);
  print(
      "ce_3d_none",
      [&](const Tensor& x) { return F::cross_entropy(x, T3, CE().reduction(torch::kNone)); }, X3);
  print(
      "ce_1d", [&](const Tensor& x) { return F::cross_entropy(x, T1); }, X1);
  print(
      "ce_prob_mean", [&](const Tensor& x) { return F::cross_entropy(x, P); }, X);
  print(
      "ce_prob_weight_smooth",
      [&](const Tensor& x) { return F::cross_entropy(x, P, CE().weight(W).label_smoothing(0.1)); },
      X);
  print(
      "ce_prob_none",
      [&](const Tensor& x) { return F::cross_entropy(x, P, CE().reduction(torch::kNone)); }, X);

  using NLL = F::NLLLossFuncOptions;
  print(
      "nll_mean",
      [&](const Tensor& x) { return F::nll_loss(x, T_ign, NLL().weight(W).ignore_index(3)); }, X);
  print(
      "nll_sum", [&](const Tensor& x) { return F::nll_loss(x, T, NLL().reduction(torch::kSum)); },
      X);
  print(
      "nll_none",
      [&](const Tensor& x) {
        return F::nll_loss(x, T_ign, NLL().ignore_index(3).reduction(torch::kNone));
      },
      X);
  print(
      "nll_3d", [&](const Tensor& x) { return F::nll_loss(x, T3, NLL().weight(W3)); }, X3);

  const Tensor A = wave({3, 4}, 0.2, 2.0), B = wave({3, 4}, 1.7, 1.5);
  print(
      "mse_mean", [&](const Tensor& x) { return F::mse_loss(x, B); }, A);
  print(
      "mse_sum",
      [&](const Tensor& x) { return F::mse_loss(x, B, F::MSELossFuncOptions(torch::kSum)); }, A);
  print(
      "mse_none",
      [&](const Tensor& x) { return F::mse_loss(x, B, F::MSELossFuncOptions(torch::kNone)); }, A);
  print(
      "l1_mean", [&](const Tensor& x) { return F::l1_loss(x, B); }, A);
  print(
      "l1_none",
      [&](const Tensor& x) { return F::l1_loss(x, B, F::L1LossFuncOptions(torch::kNone)); }, A);
  print(
      "sl1_mean",
      [&](const Tensor& x) { return torch::smooth_l1_loss(x, B, at::Reduction::Mean, 1.0); }, A);
  print(
      "sl1_beta05_sum",
      [&](const Tensor& x) { return torch::smooth_l1_loss(x, B, at::Reduction::Sum, 0.5); }, A);
  print(
      "sl1_beta0",
      [&](const Tensor& x) { return torch::smooth_l1_loss(x, B, at::Reduction::Mean, 0.0); }, A);
  print(
      "sl1_none_beta2",
      [&](const Tensor& x) { return torch::smooth_l1_loss(x, B, at::Reduction::None, 2.0); }, A);

  const Tensor Q = torch::sigmoid(wave({3, 4}, 0.4, 3.0));
  const Tensor Y = (wave({3, 4}, 0.9, 1.0) > 0).to(torch::kFloat64);
  const Tensor soft = torch::sigmoid(wave({3, 4}, 2.2, 1.0));
  const Tensor BW = wave({4}, 0.0, 0.5) + 1;
  using BCE = F::BinaryCrossEntropyFuncOptions;
  print(
      "bce_mean", [&](const Tensor& x) { return F::binary_cross_entropy(x, Y); }, Q);
  print(
      "bce_weight_sum",
      [&](const Tensor& x) {
        return F::binary_cross_entropy(x, Y, BCE().weight(BW).reduction(torch::kSum));
      },
      Q);
  print(
      "bce_none_soft",
      [&](const Tensor& x) {
        return F::binary_cross_entropy(x, soft, BCE().reduction(torch::kNone));
      },
      Q);
  const Tensor Qe = torch::tensor({0.0, 1.0, 0.5, 1e-50}, torch::kFloat64);
  const Tensor Ye = torch::tensor({1.0, 0.0, 1.0, 1.0}, torch::kFloat64);
  print(
      "bce_edges",
      [&](const Tensor& x) {
        return F::binary_cross_entropy(x, Ye, BCE().reduction(torch::kNone));
      },
      Qe, false);

  const Tensor Z = wave({3, 4}, 0.6, 4.0);
  const Tensor PW = torch::tensor({0.5, 2.0, 3.0, 1.0}, torch::kFloat64);
  using BCEL = F::BinaryCrossEntropyWithLogitsFuncOptions;
  print(
      "bcel_mean", [&](const Tensor& x) { return F::binary_cross_entropy_with_logits(x, Y); }, Z);
  print(
      "bcel_pos_weight",
      [&](const Tensor& x) {
        return F::binary_cross_entropy_with_logits(x, Y, BCEL().pos_weight(PW).weight(BW));
      },
      Z);
  print(
      "bcel_big_none",
      [&](const Tensor& x) {
        return F::binary_cross_entropy_with_logits(x, Y, BCEL().reduction(torch::kNone));
      },
      Z * 20);
  print(
      "bcel_soft_sum",
      [&](const Tensor& x) {
        return F::binary_cross_entropy_with_logits(x, soft, BCEL().reduction(torch::kSum));
      },
      Z);

  const Tensor L = torch::log_softmax(wave({3, 4}, 0.8, 2.0), 1);
  Tensor Pk = torch::softmax(wave({3, 4}, 1.9, 1.0), 1);
  Pk[0][1] = 0.0;
  const Tensor LogPk = torch::log_softmax(wave({3, 4}, 1.9, 1.0), 1);
  using KL = F::KLDivFuncOptions;
  print(
      "kl_mean", [&](const Tensor& x) { return F::kl_div(x, Pk, KL().reduction(torch::kMean)); },
      L);
  print(
      "kl_batchmean",
      [&](const Tensor& x) { return F::kl_div(x, Pk, KL().reduction(torch::kBatchMean)); }, L);
  print(
      "kl_sum", [&](const Tensor& x) { return F::kl_div(x, Pk, KL().reduction(torch::kSum)); }, L);
  print(
      "kl_none", [&](const Tensor& x) { return F::kl_div(x, Pk, KL().reduction(torch::kNone)); },
      L);
  print(
      "kl_log_target",
      [&](const Tensor& x) {
        return F::kl_div(x, LogPk, KL().reduction(torch::kBatchMean).log_target(true));
      },
      L);
  return 0;
}
