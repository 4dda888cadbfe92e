// The code of docs/losses.md, compiled and run by ctest (docs.losses_guide) so that every
// example in the guide builds and does what the guide says. Sections match the guide's.
#include <ember/ember.h>
#include <ember/nn/functional_loss.h>
#include <ember/nn/loss.h>

#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("losses guide: expected ") + what);
}

// ---- Functional losses ----
void functional_losses() {
  using namespace ember;
  namespace F = ember::nn::functional;
  Tensor logits = randn({8, 5}, requires_grad());
  Tensor target = randint(0, 5, {8});
  Tensor loss = F::cross_entropy(logits, target);  // mean over the batch
  loss.backward();
  expect(loss.dim() == 0 && logits.grad().sizes() == logits.sizes(), "scalar loss, full grad");

  // Options as LibTorch's: class weights, ignored targets, label smoothing, the reduction
  Tensor w = tensor({1.0f, 2.0f, 1.0f, 0.5f, 1.0f});
  Tensor per_sample = F::cross_entropy(
      logits, target,
      F::CrossEntropyFuncOptions().weight(w).ignore_index(3).label_smoothing(0.1).reduction(kNone));
  expect(per_sample.sizes() == IntArrayRef({8}), "one loss per sample");

  // Same value as log_softmax + nll_loss, the composite PyTorch describes
  Tensor a = F::cross_entropy(logits, target, F::CrossEntropyFuncOptions().weight(w));
  Tensor b = F::nll_loss(logits.log_softmax(1), target, F::NLLLossFuncOptions().weight(w));
  expect(allclose(a, b, 1e-5, 1e-6), "cross_entropy == nll_loss(log_softmax)");

  // Regression and binary losses
  Tensor x = randn({4, 3}), y = randn({4, 3});
  expect(allclose(F::mse_loss(x, y, kSum), ((x - y) * (x - y)).sum()), "mse_loss sum");
  Tensor labels = rand({4, 3}).gt(0.5).to(kFloat32);
  Tensor with_logits = F::binary_cross_entropy_with_logits(x, labels);
  Tensor with_probs = F::binary_cross_entropy(x.sigmoid(), labels);
  expect(allclose(with_logits, with_probs, 1e-5, 1e-6), "bce with logits == bce of sigmoid");
}

// ---- Loss modules ----
void modules() {
  using namespace ember;
  nn::CrossEntropyLoss criterion(nn::CrossEntropyLossOptions().label_smoothing(0.05));
  Tensor logits = randn({16, 10}, requires_grad());
  Tensor target = randint(0, 10, {16});
  Tensor loss = criterion(logits, target);  // criterion->forward(logits, target)
  loss.backward();
  std::cout << criterion << "\n";  // CrossEntropyLoss(label_smoothing=0.05)
  expect(loss.grad_fn()->name() == "CrossEntropyLossBackward0", "the fused node");

  nn::KLDivLoss kl{nn::KLDivLossOptions(kBatchMean)};
  Tensor p = softmax(randn({4, 6}), 1);
  expect(kl(p.log(), p).abs().item<float>() < 1e-5f, "KL(p || p) == 0");
}

// ---- Targets: class indices or probabilities ----
void targets() {
  using namespace ember;
  namespace F = ember::nn::functional;
  Tensor logits = randn({2, 3, 4, 4});       // [N, C, H, W]: a class per pixel
  Tensor pixels = randint(0, 3, {2, 4, 4});  // [N, H, W]
  Tensor loss = F::cross_entropy(logits, pixels);
  Tensor soft = softmax(randn({2, 3, 4, 4}), 1);  // class probabilities, the input's shape
  Tensor soft_loss = F::cross_entropy(logits, soft);
  expect(loss.dim() == 0 && soft_loss.dim() == 0, "scalar losses");
  // one-hot probabilities give the class-index loss
  Tensor one_hot_p = one_hot(pixels, 3).permute({0, 3, 1, 2}).to(kFloat32);
  expect(allclose(F::cross_entropy(logits, one_hot_p), loss, 1e-5, 1e-6), "one-hot == indices");
}

// ---- Errors ----
void errors() {
  using namespace ember;
  namespace F = ember::nn::functional;
  try {
    F::cross_entropy(randn({4, 5}), tensor({1, 0, 9, 3}).to(kInt64));
    expect(false, "an error");
  } catch (const Error& e) {
    // "cross_entropy: target 9 is out of bounds for 5 classes (ignore_index is -100)"
    expect(std::string(e.what()).find("out of bounds") != std::string::npos, "bounds message");
  }
}

}  // namespace

int main() {
  ember::manual_seed(0);
  functional_losses();
  modules();
  targets();
  errors();
  std::cout << "losses guide: all examples ran\n";
  return 0;
}
