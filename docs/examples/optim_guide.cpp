// The code of docs/optim.md, compiled and run by ctest (docs.optim_guide): fits a small linear
// regression with SGD and with Adam, uses parameter groups, a scheduler and gradient clipping,
// and checks that the loss falls. Runs in well under a second.
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/cuda/api.h>
#include <ember/nn/clip_grad.h>
#include <ember/optim/optim.h>

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("optim guide: expected ") + what);
}

using namespace ember;

// y = x @ [2, -3] + 0.5 with a little noise
struct Data {
  Tensor x, y;
  Data() {
    manual_seed(0);
    x = randn({256, 2});
    y = x.matmul(tensor({2.0f, -3.0f}).view({2, 1})) + 0.5f + 0.01f * randn({256, 1});
  }
};

float mse(const Tensor& w, const Tensor& b, const Data& d) {
  NoGradGuard no_grad;
  return (d.x.matmul(w) + b - d.y).pow(2).mean().item<float>();
}

// ---- A training loop ----
float fit(optim::Optimizer& opt, const Tensor& w, const Tensor& b, const Data& d, int steps) {
  for (int i = 0; i < steps; ++i) {
    opt.zero_grad();  // drops the old gradients
    Tensor loss = (d.x.matmul(w) + b - d.y).pow(2).mean();
    loss.backward();
    nn::utils::clip_grad_norm_({w, b}, /*max_norm=*/10.0);  // optional
    opt.step();
  }
  return mse(w, b, d);
}

void sgd_and_adam() {
  Data d;
  {
    Tensor w = zeros({2, 1}, requires_grad()), b = zeros({1}, requires_grad());
    const float before = mse(w, b, d);
    optim::SGD opt({w, b}, optim::SGDOptions(0.1).momentum(0.9));
    const float after = fit(opt, w, b, d, 100);
    std::cout << "SGD: loss " << before << " -> " << after << "\n";
    expect(after < 1e-3f * before, "SGD to fit the line");
  }
  {
    Tensor w = zeros({2, 1}, requires_grad()), b = zeros({1}, requires_grad());
    const float before = mse(w, b, d);
    optim::Adam opt({w, b}, optim::AdamOptions(0.1));
    const float after = fit(opt, w, b, d, 200);
    std::cout << "Adam: loss " << before << " -> " << after << "\n";
    expect(after < 1e-3f * before, "Adam to fit the line");
  }
}

// ---- Parameter groups and schedulers ----
void groups_and_schedulers() {
  Data d;
  Tensor w = zeros({2, 1}, requires_grad()), b = zeros({1}, requires_grad());
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{w});  // takes the defaults
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<optim::AdamWOptions>(0.05));
  optim::AdamW opt(std::move(groups), optim::AdamWOptions(0.1).weight_decay(0));
  optim::CosineAnnealingLR sched(opt, /*T_max=*/50, /*eta_min=*/1e-3);
  for (int epoch = 0; epoch < 50; ++epoch) {
    fit(opt, w, b, d, 4);
    sched.step();
  }
  std::cout << "AdamW + cosine: loss " << mse(w, b, d) << ", lr now "
            << opt.param_groups()[0].options().get_lr() << "\n";
  expect(mse(w, b, d) < 1e-2f, "AdamW with a cosine schedule to fit the line");
  expect(sched.get_last_lr()[0] < 2e-3, "the lr annealed to eta_min");

  // ReduceLROnPlateau watches a metric instead of counting epochs
  optim::ReduceLROnPlateauScheduler plateau(opt, optim::ReduceLROnPlateauScheduler::min,
                                            /*factor=*/0.5, /*patience=*/1);
  for (double metric : {1.0, 1.0, 1.0}) plateau.step(metric);
  expect(plateau.get_last_lr()[1] < 0.05 * 0.6, "the plateau to halve the lr");
}

// ---- The same code on the GPU ----
void on_the_gpu() {
  if (!cuda::is_available()) return;
  Data d;
  d.x = d.x.to(kCUDA);
  d.y = d.y.to(kCUDA);
  Tensor w = zeros({2, 1}, requires_grad()), b = zeros({1}, requires_grad());
  optim::Adam opt({w, b}, optim::AdamOptions(0.1));
  {
    NoGradGuard g;  // what Module::to(kCUDA) does: the optimizer keeps working
    w.set_data(w.to(kCUDA));
    b.set_data(b.to(kCUDA));
  }
  expect(fit(opt, w, b, d, 200) < 1e-3f, "Adam on the GPU to fit the line");
}

}  // namespace

int main() {
  try {
    sgd_and_adam();
    groups_and_schedulers();
    on_the_gpu();
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::cout << "optim guide: ok\n";
  return 0;
}
