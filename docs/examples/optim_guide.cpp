// The code of docs/optim.md, compiled and run by ctest (docs.optim_guide): fits a small linear
// regression with SGD and with Adam, uses parameter groups, a scheduler and gradient clipping,
// checks that the loss falls, and that a run saved and resumed matches one that never stopped.
// Runs in well under a second.
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/cuda/api.h>
#include <ember/nn/clip_grad.h>
#include <ember/optim/optim.h>
#include <ember/serialize/serialize.h>

#include <filesystem>
#include <iostream>
#include <map>
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

// ---- Saving and resuming ----
// One "epoch": four Adam steps on a random quarter of the data, then a scheduler step.
void epoch(optim::Optimizer& opt, optim::LRScheduler& sched, const Tensor& w, const Tensor& b,
           const Data& d) {
  for (int i = 0; i < 4; ++i) {
    const Tensor rows = randperm(256).slice(0, 0, 64);  // draws from the global generator
    Data part;
    part.x = d.x.index_select(0, rows);
    part.y = d.y.index_select(0, rows);
    fit(opt, w, b, part, 1);
  }
  sched.step();
}

void save_and_resume() {
  Data d;
  const std::string dir = (std::filesystem::temp_directory_path() / "ember_optim_guide").string();
  std::filesystem::create_directories(dir);
  // the uninterrupted run: 6 epochs
  manual_seed(1);
  Tensor w = zeros({2, 1}, requires_grad()), b = zeros({1}, requires_grad());
  optim::Adam opt({w, b}, optim::AdamOptions(0.1).amsgrad(true));
  optim::StepLR sched(opt, /*step_size=*/2, /*gamma=*/0.5);
  for (int e = 0; e < 6; ++e) epoch(opt, sched, w, b, d);

  // 3 epochs, then save everything
  {
    manual_seed(1);
    Tensor w1 = zeros({2, 1}, requires_grad()), b1 = zeros({1}, requires_grad());
    optim::Adam opt1({w1, b1}, optim::AdamOptions(0.1).amsgrad(true));
    optim::StepLR sched1(opt1, 2, 0.5);
    for (int e = 0; e < 3; ++e) epoch(opt1, sched1, w1, b1, d);
    save(std::map<std::string, Tensor>{{"w", w1}, {"b", b1}}, dir + "/guide_model.safetensors");
    save(opt1, dir + "/guide_optimizer.safetensors");  // LibTorch's torch::save(optimizer, path)
    save(sched1.state_dict(), dir + "/guide_scheduler.safetensors");
    save(std::map<std::string, Tensor>{{"cpu", get_rng_state()}}, dir + "/guide_rng.safetensors");
  }
  // a new process would start here (with another generator state): build the same objects,
  // load their states, train on
  manual_seed(12345);
  auto model = load_tensors(dir + "/guide_model.safetensors");
  Tensor w2 = model.at("w").requires_grad_(), b2 = model.at("b").requires_grad_();
  optim::Adam opt2({w2, b2}, optim::AdamOptions(0.1).amsgrad(true));
  optim::StepLR sched2(opt2, 2, 0.5);
  load(opt2, dir + "/guide_optimizer.safetensors");
  sched2.load_state_dict(load_tensors(dir + "/guide_scheduler.safetensors"));
  set_rng_state(load_tensors(dir + "/guide_rng.safetensors").at("cpu"));
  for (int e = 3; e < 6; ++e) epoch(opt2, sched2, w2, b2, d);

  std::filesystem::remove_all(dir);
  std::cout << "resumed Adam + StepLR: loss " << mse(w2, b2, d) << ", lr "
            << sched2.get_last_lr()[0] << "\n";
  expect(w2.equal(w) && b2.equal(b), "the resumed run to match the uninterrupted one bit for bit");
  expect(sched2.get_last_lr() == sched.get_last_lr(), "the resumed schedule to match");
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
    save_and_resume();
    on_the_gpu();
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::cout << "optim guide: ok\n";
  return 0;
}
