// Optimizer and scheduler state dicts: PyTorch's key layout, and exact resumes (train, take the
// state dict or save it to a file, load it into a fresh optimizer over fresh parameters, train
// on: the parameters match an uninterrupted run bit for bit); errors change nothing.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "error_of.h"
#include "serialize_helpers.h"

namespace {

using namespace ember;
using namespace ember::optim;
using ::testing::HasSubstr;

// ---- a small least-squares problem with two parameters ----

struct Problem {
  Tensor x, y, w0, b0;
};

Problem problem() {
  manual_seed(7);
  Problem p;
  p.x = randn({8, 3});
  p.y = randn({8, 4});
  p.w0 = randn({3, 4});
  p.b0 = randn({4});
  return p;
}

struct Params {
  Tensor w, b;
  std::vector<Tensor> list() const { return {w, b}; }
};

Tensor leaf(const Tensor& values) { return values.detach().clone().requires_grad_(); }

Params fresh(const Problem& p) { return {leaf(p.w0), leaf(p.b0)}; }

void train_step(Optimizer& opt, const Params& ps, const Problem& p) {
  opt.step([&] {
    opt.zero_grad();
    Tensor loss = (p.x.matmul(ps.w) + ps.b - p.y).pow(2).mean();
    loss.backward();
    return loss;
  });
}

using MakeOpt = std::function<std::unique_ptr<Optimizer>(const Params&)>;
using MakeSched = std::function<std::unique_ptr<LRScheduler>(Optimizer&)>;
enum class Via { dict, file };

// Trains `before + after` steps straight, and `before` steps, a restart from the state (a new
// optimizer and scheduler over new parameters holding the values reached), `after` steps.
void expect_exact_resume(const MakeOpt& make, const MakeSched& make_sched, int before, int after,
                         Via via) {
  const Problem p = problem();
  Params a = fresh(p);
  auto opt_a = make(a);
  auto sched_a = make_sched ? make_sched(*opt_a) : nullptr;
  for (int i = 0; i < before + after; ++i) {
    train_step(*opt_a, a, p);
    if (sched_a) sched_a->step();
  }

  Params b = fresh(p);
  auto opt_b = make(b);
  auto sched_b = make_sched ? make_sched(*opt_b) : nullptr;
  for (int i = 0; i < before; ++i) {
    train_step(*opt_b, b, p);
    if (sched_b) sched_b->step();
  }
  Params c{leaf(b.w), leaf(b.b)};
  auto opt_c = make(c);
  auto sched_c = make_sched ? make_sched(*opt_c) : nullptr;
  if (via == Via::dict) {
    opt_c->load_state_dict(opt_b->state_dict());
    if (sched_c) sched_c->load_state_dict(sched_b->state_dict());
  } else {
    serialize_test::ScratchDir dir;
    ember::save(*opt_b, dir.file("optimizer.safetensors"));
    ember::load(*opt_c, dir.file("optimizer.safetensors"));
    if (sched_c) {
      ember::save(sched_b->state_dict(), dir.file("scheduler.safetensors"));
      sched_c->load_state_dict(load_tensors(dir.file("scheduler.safetensors")));
    }
  }
  opt_b.reset();  // the restarted run owns nothing of the first one
  sched_b.reset();
  for (int i = 0; i < after; ++i) {
    train_step(*opt_c, c, p);
    if (sched_c) sched_c->step();
  }
  EXPECT_TRUE(c.w.equal(a.w)) << "w differs after the resume";
  EXPECT_TRUE(c.b.equal(a.b)) << "b differs after the resume";
  EXPECT_FALSE(c.w.equal(b.w)) << "the resumed run did not train";
  for (size_t g = 0; g < opt_a->param_groups().size(); ++g)
    EXPECT_EQ(opt_c->param_groups()[g].options().get_lr(),
              opt_a->param_groups()[g].options().get_lr());
  if (sched_a) {
    EXPECT_EQ(sched_c->last_epoch(), sched_a->last_epoch());
    EXPECT_EQ(sched_c->get_last_lr(), sched_a->get_last_lr());
  }
}

void expect_exact_resume(const MakeOpt& make, const MakeSched& make_sched = nullptr) {
  {
    SCOPED_TRACE("through state_dict/load_state_dict");
    expect_exact_resume(make, make_sched, 3, 4, Via::dict);
  }
  {
    SCOPED_TRACE("through ember::save/ember::load files");
    expect_exact_resume(make, make_sched, 3, 4, Via::file);
  }
}

std::vector<std::string> keys_of(const StateDict& dict) {
  std::vector<std::string> keys;
  for (const auto& item : dict) keys.push_back(item.key());
  return keys;
}

// ---- exact resumes ----

TEST(OptimStateResume, SGDWithMomentum) {
  expect_exact_resume([](const Params& ps) {
    return std::make_unique<SGD>(ps.list(),
                                 SGDOptions(0.05).momentum(0.9).dampening(0.1).weight_decay(1e-2));
  });
  expect_exact_resume([](const Params& ps) {
    return std::make_unique<SGD>(ps.list(), SGDOptions(0.05).momentum(0.9).nesterov(true));
  });
}

TEST(OptimStateResume, AdamAmsgradWithStepLR) {
  expect_exact_resume(
      [](const Params& ps) {
        return std::make_unique<Adam>(ps.list(),
                                      AdamOptions(0.05).amsgrad(true).weight_decay(1e-3));
      },
      [](Optimizer& opt) { return std::make_unique<StepLR>(opt, 2, 0.5); });
  expect_exact_resume(
      [](const Params& ps) { return std::make_unique<Adam>(ps.list(), AdamOptions(0.05)); },
      [](Optimizer& opt) { return std::make_unique<StepLR>(opt, 2, 0.5); });
}

TEST(OptimStateResume, AdamTwoGroups) {
  expect_exact_resume([](const Params& ps) {
    std::vector<OptimizerParamGroup> groups;
    groups.emplace_back(std::vector<Tensor>{ps.w});
    groups.emplace_back(std::vector<Tensor>{ps.b},
                        std::make_unique<AdamOptions>(AdamOptions(0.01).betas({0.8, 0.99})));
    return std::make_unique<Adam>(std::move(groups), AdamOptions(0.05));
  });
}

TEST(OptimStateResume, AdamWWithCosineAnnealing) {
  expect_exact_resume(
      [](const Params& ps) {
        return std::make_unique<AdamW>(ps.list(), AdamWOptions(0.05).weight_decay(0.1));
      },
      [](Optimizer& opt) { return std::make_unique<CosineAnnealingLR>(opt, 5, 1e-3); });
}

TEST(OptimStateResume, RMSprop) {
  expect_exact_resume(
      [](const Params& ps) { return std::make_unique<RMSprop>(ps.list(), RMSpropOptions(0.01)); });
  expect_exact_resume([](const Params& ps) {
    return std::make_unique<RMSprop>(
        ps.list(), RMSpropOptions(0.01).momentum(0.9).centered(true).weight_decay(1e-2));
  });
}

TEST(OptimStateResume, Adagrad) {
  expect_exact_resume([](const Params& ps) {
    return std::make_unique<Adagrad>(
        ps.list(), AdagradOptions(0.1).lr_decay(0.01).initial_accumulator_value(0.1));
  });
}

TEST(OptimStateResume, LBFGS) {
  expect_exact_resume([](const Params& ps) {
    return std::make_unique<LBFGS>(ps.list(), LBFGSOptions(0.5).max_iter(3).history_size(4));
  });
  expect_exact_resume([](const Params& ps) {
    return std::make_unique<LBFGS>(
        ps.list(), LBFGSOptions(1).max_iter(1).history_size(3).line_search_fn("strong_wolfe"));
  });
}

TEST(OptimStateResume, SchedulersLinearOneCycleMultiStepExponential) {
  auto sgd = [](const Params& ps) {
    return std::make_unique<SGD>(ps.list(), SGDOptions(0.05).momentum(0.9));
  };
  expect_exact_resume(sgd, [](Optimizer& opt) { return std::make_unique<LinearLR>(opt); });
  expect_exact_resume(sgd, [](Optimizer& opt) {
    return std::make_unique<OneCycleLR>(opt, 0.1, 10, OneCycleLROptions().three_phase(true));
  });
  expect_exact_resume(sgd, [](Optimizer& opt) {
    return std::make_unique<MultiStepLR>(opt, std::vector<int64_t>{2, 4, 4}, 0.5);
  });
  expect_exact_resume(sgd,
                      [](Optimizer& opt) { return std::make_unique<ExponentialLR>(opt, 0.9); });
}

TEST(OptimStateResume, ReduceLROnPlateau) {
  const std::vector<float> metrics = {5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 2};
  auto run = [&](size_t from, size_t to, ReduceLROnPlateauScheduler& s) {
    for (size_t i = from; i < to; ++i) s.step(metrics[i]);
  };
  Tensor w = randn({2}).requires_grad_();
  SGD opt_a({w}, SGDOptions(1.0));
  ReduceLROnPlateauScheduler a(opt_a, ReduceLROnPlateauScheduler::min, 0.5, 1, 1e-4,
                               ReduceLROnPlateauScheduler::rel, 1);
  run(0, metrics.size(), a);

  SGD opt_b({w}, SGDOptions(1.0));
  ReduceLROnPlateauScheduler b(opt_b, ReduceLROnPlateauScheduler::min, 0.5, 1, 1e-4,
                               ReduceLROnPlateauScheduler::rel, 1);
  run(0, 5, b);
  const StateDict state = b.state_dict();
  EXPECT_EQ(state.find("best")->item<double>(), 4.0);
  EXPECT_EQ(state.find("last_epoch")->item<int64_t>(), 5);
  SGD opt_c({w}, SGDOptions(1.0));
  opt_c.load_state_dict(opt_b.state_dict());
  ReduceLROnPlateauScheduler c(opt_c);  // settings come from the state dict
  c.load_state_dict(state);
  run(5, metrics.size(), c);
  EXPECT_EQ(c.get_last_lr(), a.get_last_lr());
  EXPECT_EQ(c.last_epoch(), a.last_epoch());
  EXPECT_LT(a.get_last_lr()[0], 0.5);  // the run did reduce (twice or more)
}

TEST(OptimStateCuda, StateSavedOnTheCpuLoadsOntoGpuParameters) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const Problem p = problem();
  Params cpu = fresh(p);
  Adam saved(cpu.list(), AdamOptions(0.05).amsgrad(true));
  for (int i = 0; i < 3; ++i) train_step(saved, cpu, p);
  const Problem gp{p.x.to(kCUDA), p.y.to(kCUDA), p.w0, p.b0};
  Params gpu{leaf(cpu.w.to(kCUDA)), leaf(cpu.b.to(kCUDA))};
  Adam resumed(gpu.list(), AdamOptions(0.05).amsgrad(true));
  resumed.load_state_dict(saved.state_dict());
  const auto& st =
      static_cast<const AdamParamState&>(*resumed.state().at(gpu.w.unsafeGetTensorImpl()));
  EXPECT_TRUE(st.exp_avg().device().is_cuda());
  EXPECT_EQ(st.step(), 3);
  for (int i = 0; i < 3; ++i) {
    train_step(saved, cpu, p);
    train_step(resumed, gpu, gp);
  }
  EXPECT_TRUE(gpu.w.to(kCPU).allclose(cpu.w, 1e-5, 1e-6));
  // and back: the GPU state saves through a file and loads onto CPU parameters
  serialize_test::ScratchDir dir;
  ember::save(resumed, dir.file("gpu.safetensors"));
  Params back{leaf(gpu.w.to(kCPU)), leaf(gpu.b.to(kCPU))};
  Adam on_cpu(back.list(), AdamOptions(0.05).amsgrad(true));
  ember::load(on_cpu, dir.file("gpu.safetensors"));
  EXPECT_TRUE(on_cpu.state_dict().find("state.0.exp_avg")->equal(st.exp_avg().to(kCPU)));
}

// ---- the layout: PyTorch's keys ----

TEST(OptimStateLayout, SGDKeysArePyTorchs) {
  const Problem p = problem();
  Params ps = fresh(p);
  SGD opt(ps.list(), SGDOptions(0.1).momentum(0.9));
  train_step(opt, ps, p);
  const StateDict dict = opt.state_dict();
  EXPECT_THAT(keys_of(dict),
              ::testing::ElementsAre("state.0.momentum_buffer", "state.1.momentum_buffer",
                                     "param_groups.0.lr", "param_groups.0.momentum",
                                     "param_groups.0.dampening", "param_groups.0.weight_decay",
                                     "param_groups.0.nesterov", "param_groups.0.maximize",
                                     "param_groups.0.params"));
  EXPECT_EQ(dict.find("param_groups.0.lr")->dim(), 0);
  EXPECT_EQ(dict.find("param_groups.0.lr")->dtype(), kFloat64);
  EXPECT_EQ(dict.find("param_groups.0.nesterov")->dtype(), kBool);
  EXPECT_TRUE(dict.find("param_groups.0.params")->equal(tensor({int64_t{0}, int64_t{1}})));
  // the live buffers, as PyTorch's state_dict()
  const auto& st = static_cast<const SGDParamState&>(*opt.state().at(ps.w.unsafeGetTensorImpl()));
  EXPECT_TRUE(dict.find("state.0.momentum_buffer")->is_same(st.momentum_buffer()));
  // without momentum there is no state at all (as PyTorch's)
  SGD plain(ps.list(), SGDOptions(0.1));
  train_step(plain, ps, p);
  EXPECT_EQ(plain.state_dict().find("state.0.momentum_buffer"), nullptr);
}

TEST(OptimStateLayout, AdamStepIsA0DimFloat32AndGroupsNumberParamsInOrder) {
  const Problem p = problem();
  Params ps = fresh(p);
  Tensor frozen = leaf(randn({5}));  // never gets a gradient: no state
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{ps.w, frozen});
  groups.emplace_back(std::vector<Tensor>{ps.b}, std::make_unique<AdamOptions>(0.01));
  Adam opt(std::move(groups), AdamOptions(0.1).amsgrad(true));
  train_step(opt, ps, p);
  train_step(opt, ps, p);
  const StateDict dict = opt.state_dict();  // the second group has no amsgrad
  EXPECT_THAT(keys_of(dict),
              ::testing::ElementsAre(
                  "state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq", "state.0.max_exp_avg_sq",
                  "state.2.step", "state.2.exp_avg", "state.2.exp_avg_sq", "param_groups.0.lr",
                  "param_groups.0.betas", "param_groups.0.eps", "param_groups.0.weight_decay",
                  "param_groups.0.amsgrad", "param_groups.0.maximize", "param_groups.0.params",
                  "param_groups.1.lr", "param_groups.1.betas", "param_groups.1.eps",
                  "param_groups.1.weight_decay", "param_groups.1.amsgrad",
                  "param_groups.1.maximize", "param_groups.1.params"));
  const Tensor& step = *dict.find("state.0.step");
  EXPECT_EQ(step.dim(), 0);
  EXPECT_EQ(step.dtype(), kFloat32);
  EXPECT_EQ(step.item<float>(), 2.0f);
  EXPECT_TRUE(dict.find("param_groups.0.betas")->equal(tensor({0.9, 0.999}, kFloat64)));
  EXPECT_TRUE(dict.find("param_groups.0.params")->equal(tensor({int64_t{0}, int64_t{1}})));
  EXPECT_TRUE(dict.find("param_groups.1.params")->equal(tensor({int64_t{2}})));
  EXPECT_EQ(dict.find("param_groups.1.lr")->item<double>(), 0.01);
}

TEST(OptimStateLayout, RMSpropAdagradLBFGSAndSchedulerKeys) {
  const Problem p = problem();
  Params ps = fresh(p);
  RMSprop rms(ps.list(), RMSpropOptions(0.01).momentum(0.5).centered(true));
  train_step(rms, ps, p);
  EXPECT_THAT(keys_of(rms.state_dict()),
              ::testing::IsSupersetOf({"state.0.step", "state.0.square_avg",
                                       "state.0.momentum_buffer", "state.0.grad_avg",
                                       "param_groups.0.alpha", "param_groups.0.centered"}));
  Adagrad ada(ps.list(), AdagradOptions(0.1));  // state from construction, as PyTorch's
  EXPECT_THAT(keys_of(ada.state_dict()),
              ::testing::IsSupersetOf({"state.0.step", "state.0.sum", "state.1.sum",
                                       "param_groups.0.lr_decay",
                                       "param_groups.0.initial_accumulator_value"}));
  LBFGS lbfgs(ps.list(), LBFGSOptions(1).max_iter(3).line_search_fn("strong_wolfe"));
  train_step(lbfgs, ps, p);
  train_step(lbfgs, ps, p);  // the first step's iterations stop at max_eval before any history
  const StateDict l = lbfgs.state_dict();
  EXPECT_THAT(keys_of(l), ::testing::IsSupersetOf({"state.0.func_evals", "state.0.n_iter",
                                                   "state.0.d", "state.0.t", "state.0.old_dirs",
                                                   "state.0.ro", "param_groups.0.max_eval",
                                                   "param_groups.0.line_search_fn"}));
  EXPECT_EQ(l.find("state.0.d")->sizes(), IntArrayRef({16}));
  EXPECT_EQ(l.find("state.1.d"), nullptr);  // LBFGS's state is the first parameter's
  StepLR sched(rms, 3);
  sched.step();
  EXPECT_THAT(keys_of(sched.state_dict()),
              ::testing::ElementsAre("base_lrs", "last_epoch", "_step_count", "_last_lr",
                                     "step_size", "gamma"));
  EXPECT_EQ(sched.state_dict().find("last_epoch")->item<int64_t>(), 1);
}

TEST(OptimStateLayout, PyTorchsExtraEntriesAreAccepted) {
  const Problem p = problem();
  Params ps = fresh(p);
  Adam adam(ps.list(), AdamOptions(0.1));
  train_step(adam, ps, p);
  StateDict dict = adam.state_dict();  // what a flattened PyTorch 2.6 Adam state dict adds
  dict.insert("param_groups.0.capturable", tensor(false));
  dict.insert("param_groups.0.differentiable", tensor(false));
  dict.insert("param_groups.0.fused", tensor(false));
  dict.insert("param_groups.0.decoupled_weight_decay", tensor(false));
  Adam other(ps.list(), AdamOptions(0.5));
  other.load_state_dict(dict);
  EXPECT_EQ(other.param_groups()[0].options().get_lr(), 0.1);
  AdamW adamw(ps.list(), AdamWOptions(0.5));
  EXPECT_THAT(error_of([&] { adamw.load_state_dict(dict); }), HasSubstr("load it into Adam"));

  StepLR sched(adam, 2);
  StateDict s = sched.state_dict();
  s.insert("verbose", tensor(false));
  s.insert("_get_lr_called_within_step", tensor(false));
  StepLR other_sched(other, 5);
  other_sched.load_state_dict(s);
  EXPECT_EQ(other_sched.state_dict().find("step_size")->item<int64_t>(), 2);
}

// ---- errors: ember::Error naming what differs, and nothing changed ----

TEST(OptimStateErrors, WrongParameterCountGroupCountAndShape) {
  const Problem p = problem();
  Params ps = fresh(p);
  Adam saved(ps.list(), AdamOptions(0.1));
  train_step(saved, ps, p);
  const StateDict dict = saved.state_dict();

  Tensor w = leaf(p.w0);
  Adam one({w}, AdamOptions(0.5));
  EXPECT_THAT(
      error_of([&] { one.load_state_dict(dict); }),
      HasSubstr("parameter group 0 has 2 parameters in the state dict, 1 in the optimizer"));

  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{leaf(p.w0)});
  groups.emplace_back(std::vector<Tensor>{leaf(p.b0)});
  Adam two(std::move(groups), AdamOptions(0.5));
  EXPECT_THAT(error_of([&] { two.load_state_dict(dict); }),
              HasSubstr("the state dict has 1 parameter group, the optimizer has 2"));

  // a shape mismatch in the second parameter's state: the first group's options stay
  Params other{leaf(p.w0), leaf(randn({5}))};
  Adam shaped(other.list(), AdamOptions(0.5));
  const std::string msg = error_of([&] { shaped.load_state_dict(dict); });
  EXPECT_THAT(msg, HasSubstr("load_state_dict"));
  EXPECT_THAT(msg, HasSubstr("'state.1.exp_avg' has shape [4]"));
  EXPECT_THAT(msg, HasSubstr("[5]"));
  EXPECT_EQ(shaped.param_groups()[0].options().get_lr(), 0.5);
  EXPECT_TRUE(shaped.state().empty());
}

TEST(OptimStateErrors, WrongOptimizerMissingAndUnexpectedKeys) {
  const Problem p = problem();
  Params ps = fresh(p);
  Adam adam(ps.list(), AdamOptions(0.1));
  train_step(adam, ps, p);
  SGD sgd(ps.list(), SGDOptions(0.5).momentum(0.9));
  EXPECT_THAT(error_of([&] { sgd.load_state_dict(adam.state_dict()); }),
              HasSubstr("missing key 'param_groups.0.momentum'"));
  EXPECT_EQ(sgd.param_groups()[0].options().get_lr(), 0.5);

  StateDict dict = adam.state_dict();
  dict.insert("state.0.surprise", tensor(1.0));
  Adam fresh_adam(ps.list(), AdamOptions(0.5));
  EXPECT_THAT(error_of([&] { fresh_adam.load_state_dict(dict); }),
              HasSubstr("1 unexpected key in the state dict: 'state.0.surprise'"));
  EXPECT_TRUE(fresh_adam.state().empty());

  StateDict maximize = adam.state_dict();
  maximize["param_groups.0.maximize"] = tensor(true);
  EXPECT_THAT(error_of([&] { fresh_adam.load_state_dict(maximize); }), HasSubstr("don't maximize"));

  StateDict extra = adam.state_dict();
  extra.insert("state.7.step", tensor(1.0f));
  EXPECT_THAT(error_of([&] { fresh_adam.load_state_dict(extra); }),
              HasSubstr("state for parameter 7"));

  StepLR sched(sgd, 2);
  StateDict s = sched.state_dict();
  s["base_lrs"] = tensor({0.1, 0.2});
  EXPECT_THAT(error_of([&] { sched.load_state_dict(s); }),
              HasSubstr("'base_lrs' has 2 values; the optimizer has 1 parameter groups"));
  EXPECT_EQ(sched.last_epoch(), 0);
}

TEST(OptimStateErrors, LoadFromFileNamesTheFile) {
  const Problem p = problem();
  Params ps = fresh(p);
  SGD sgd(ps.list(), SGDOptions(0.1).momentum(0.9));
  train_step(sgd, ps, p);
  serialize_test::ScratchDir dir;
  const std::string path = dir.file("sgd.safetensors");
  ember::save(sgd, path);
  Tensor w = leaf(p.w0);
  SGD one({w}, SGDOptions(0.3).momentum(0.9));
  const std::string msg = error_of([&] { ember::load(one, path); });
  EXPECT_THAT(msg, HasSubstr(path));
  EXPECT_THAT(msg, HasSubstr("parameter group 0 has 2 parameters"));
  EXPECT_EQ(one.param_groups()[0].options().get_lr(), 0.3);
  EXPECT_THAT(error_of([&] { ember::load(one, dir.file("missing.safetensors")); }),
              HasSubstr("missing.safetensors"));
  // the file is a plain safetensors map with PyTorch's keys
  const auto tensors = load_tensors(path);
  EXPECT_EQ(tensors.count("state.1.momentum_buffer"), 1u);
  EXPECT_EQ(tensors.at("param_groups.0.momentum").item<double>(), 0.9);
}

}  // namespace
