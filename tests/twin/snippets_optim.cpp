// Twin snippets: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS) over 3 steps of a fixed
// quadratic, option getters, StepLR, ReduceLROnPlateauScheduler and gradient clipping.
#include "twin.h"

// sum(w * (p - 0.5)^2), w = 1, 2, 3, ... : a fixed quadratic with distinct curvatures.
static torch::Tensor quad_loss(const torch::Tensor& p) {
  auto w = torch::arange(1, p.numel() + 1).to(p.scalar_type()).reshape(p.sizes());
  return (w * (p - 0.5) * (p - 0.5)).sum();
}
// n steps of zero_grad, backward, step; returns the parameter.
template <class Opt>
static torch::Tensor run_steps(Opt& opt, const torch::Tensor& p, int n = 3) {
  for (int i = 0; i < n; ++i) {
    opt.zero_grad();
    quad_loss(p).backward();
    opt.step();
  }
  return p;
}

TWIN(op_sgd_plain) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1));
  return run_steps(opt, p);
}
TWIN(op_sgd_double_lr_arg) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, 0.1);
  return run_steps(opt, p);
}
TWIN(op_sgd_momentum) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1).momentum(0.9));
  return run_steps(opt, p);
}
TWIN(op_sgd_nesterov) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
  return run_steps(opt, p);
}
TWIN(op_sgd_weight_decay) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1).weight_decay(0.1));
  return run_steps(opt, p);
}
TWIN(op_sgd_dampening) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1).momentum(0.9).dampening(0.5));
  return run_steps(opt, p);
}
TWIN(op_sgd_float64_param) {
  auto p = torch::linspace(-1, 1, 4, torch::kFloat64).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.05).momentum(0.5));
  return run_steps(opt, p, 4);
}
TWIN(op_sgd_matrix_param) {
  auto p = torch::linspace(-1, 1, 6).reshape({2, 3}).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.05).momentum(0.9).weight_decay(0.01));
  return run_steps(opt, p);
}
TWIN(op_sgd_nesterov_error) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1).nesterov(true));
  return run_steps(opt, p);
}
TWIN(op_sgd_negative_lr_error) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(-0.1));
  return run_steps(opt, p);
}
TWIN(op_sgd_step_without_grad) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1));
  opt.step();
  return p;
}
TWIN(op_adam_default) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adam opt({p}, torch::optim::AdamOptions(0.1));
  return run_steps(opt, p);
}
TWIN(op_adam_betas_eps) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adam opt({p}, torch::optim::AdamOptions(0.1).betas(std::make_tuple(0.8, 0.9)).eps(1e-3));
  return run_steps(opt, p);
}
TWIN(op_adam_weight_decay) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adam opt({p}, torch::optim::AdamOptions(0.1).weight_decay(0.5));
  return run_steps(opt, p);
}
TWIN(op_adam_amsgrad) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adam opt({p}, torch::optim::AdamOptions(0.3).amsgrad(true));
  return run_steps(opt, p, 5);
}
TWIN(op_adam_default_options_lr) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adam opt({p});
  return run_steps(opt, p);
}
TWIN(op_adam_state_step) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adam opt({p}, torch::optim::AdamOptions(0.1));
  run_steps(opt, p);
  auto& st = static_cast<torch::optim::AdamParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  return std::make_tuple(torch::tensor(st.step()), st.exp_avg(), st.exp_avg_sq());
}
TWIN(op_adamw_default) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::AdamW opt({p}, torch::optim::AdamWOptions(0.1));
  return run_steps(opt, p);
}
TWIN(op_adamw_weight_decay) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::AdamW opt({p}, torch::optim::AdamWOptions(0.1).weight_decay(0.5));
  return run_steps(opt, p);
}
TWIN(op_adamw_amsgrad) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::AdamW opt({p}, torch::optim::AdamWOptions(0.3).amsgrad(true).betas(std::make_tuple(0.5, 0.9)));
  return run_steps(opt, p, 5);
}
TWIN(op_rmsprop_default) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::RMSprop opt({p}, torch::optim::RMSpropOptions(0.01));
  return run_steps(opt, p);
}
TWIN(op_rmsprop_momentum) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::RMSprop opt({p}, torch::optim::RMSpropOptions(0.01).momentum(0.9).alpha(0.9));
  return run_steps(opt, p);
}
TWIN(op_rmsprop_centered) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::RMSprop opt({p}, torch::optim::RMSpropOptions(0.01).centered(true));
  return run_steps(opt, p);
}
TWIN(op_rmsprop_weight_decay_eps) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::RMSprop opt({p}, torch::optim::RMSpropOptions(0.01).weight_decay(0.1).eps(1e-2));
  return run_steps(opt, p);
}
TWIN(op_adagrad_default) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adagrad opt({p}, torch::optim::AdagradOptions(0.1));
  return run_steps(opt, p);
}
TWIN(op_adagrad_lr_decay) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adagrad opt({p}, torch::optim::AdagradOptions(0.1).lr_decay(0.5));
  return run_steps(opt, p);
}
TWIN(op_adagrad_initial_acc_wd) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adagrad opt(
      {p}, torch::optim::AdagradOptions(0.1).initial_accumulator_value(0.5).weight_decay(0.1));
  return run_steps(opt, p);
}
TWIN(op_lbfgs_step) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::LBFGS opt({p}, torch::optim::LBFGSOptions(0.5).max_iter(3));
  opt.step([&] {
    opt.zero_grad();
    auto loss = quad_loss(p);
    loss.backward();
    return loss;
  });
  return p;
}
TWIN(op_step_closure_returns_loss) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1));
  auto loss = opt.step([&] {
    opt.zero_grad();
    auto l = quad_loss(p);
    l.backward();
    return l;
  });
  return std::make_tuple(loss, p);
}
TWIN(op_sgd_options_getter) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1).momentum(0.9));
  auto& o = static_cast<torch::optim::SGDOptions&>(opt.param_groups()[0].options());
  return torch::tensor({o.lr(), o.momentum(), o.dampening(), o.weight_decay(), (double)o.nesterov()},
                       torch::kFloat64);
}
TWIN(op_adam_options_defaults) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::Adam opt({p});
  auto& o = static_cast<torch::optim::AdamOptions&>(opt.param_groups()[0].options());
  return torch::tensor({o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(),
                        o.weight_decay(), (double)o.amsgrad()}, torch::kFloat64);
}
TWIN(op_options_defaults) {
  torch::optim::AdamWOptions w;
  torch::optim::RMSpropOptions r;
  torch::optim::AdagradOptions a;
  return torch::tensor({w.lr(), w.eps(), w.weight_decay(), r.lr(), r.alpha(), r.eps(), r.momentum(),
                        a.lr(), a.lr_decay(), a.eps(), a.initial_accumulator_value()}, torch::kFloat64);
}
TWIN(op_change_lr_between_steps) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1));
  run_steps(opt, p, 1);
  for (auto& group : opt.param_groups()) group.options().set_lr(0.01);
  return run_steps(opt, p, 1);
}
TWIN(op_zero_grad_none) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1));
  run_steps(opt, p, 1);
  opt.zero_grad();
  return p.grad();
}
TWIN(op_zero_grad_keep) {
  auto p = torch::linspace(-1, 1, 4).requires_grad_();
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.1));
  run_steps(opt, p, 1);
  opt.zero_grad(false);
  return p.grad();
}
TWIN(op_param_groups_lr) {
  auto a = torch::ones({2}, torch::requires_grad());
  auto b = torch::ones({2}, torch::requires_grad());
  torch::optim::SGD opt({a}, torch::optim::SGDOptions(0.1));
  opt.add_param_group(torch::optim::OptimizerParamGroup({b}, std::make_unique<torch::optim::SGDOptions>(0.5)));
  (a.sum() + b.sum()).backward();
  opt.step();
  return std::make_tuple(a, b, torch::tensor((int64_t)opt.param_groups().size()));
}
TWIN(op_add_param_group_defaults) {
  auto a = torch::ones({2}, torch::requires_grad());
  auto b = torch::ones({3}, torch::requires_grad());
  torch::optim::SGD opt({a}, torch::optim::SGDOptions(0.25));
  opt.add_param_group(torch::optim::OptimizerParamGroup({b}));
  return std::vector<int64_t>{(int64_t)opt.size(), (int64_t)opt.param_groups().size(),
                              opt.param_groups()[1].options().get_lr() == 0.25};
}
TWIN(op_module_parameters_sgd) {
  torch::nn::Linear lin(2, 1);
  {
    torch::NoGradGuard g;
    lin->weight.fill_(1);
    lin->bias.fill_(0);
  }
  torch::optim::SGD opt(lin->parameters(), torch::optim::SGDOptions(0.1));
  lin(torch::tensor({{1., 2.}})).sum().backward();
  opt.step();
  return std::make_tuple(lin->weight, lin->bias);
}
TWIN(op_steplr_sequence) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::StepLR sched(opt, 2, 0.5);
  std::vector<double> lrs;
  for (int i = 0; i < 5; ++i) {
    sched.step();
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  return torch::tensor(lrs, torch::kFloat64);
}
TWIN(op_steplr_default_gamma) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::Adam opt({p}, torch::optim::AdamOptions(1.0));
  torch::optim::StepLR sched(opt, 1);
  std::vector<double> lrs;
  for (int i = 0; i < 4; ++i) {
    sched.step();
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  return torch::tensor(lrs, torch::kFloat64);
}
TWIN(op_steplr_lr_at_construction) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(0.3));
  torch::optim::StepLR sched(opt, 1, 0.5);
  return opt.param_groups()[0].options().get_lr();
}
TWIN(op_plateau_default_ctor) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(opt);
  for (int i = 0; i < 13; ++i) sched.step(1.0);
  return opt.param_groups()[0].options().get_lr();
}
TWIN(op_plateau_default_factor) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(opt, torch::optim::ReduceLROnPlateauScheduler::min);
  for (int i = 0; i < 12; ++i) sched.step(1.0f);
  return torch::tensor({opt.param_groups()[0].options().get_lr()}, torch::kFloat64);
}
TWIN(op_plateau_min_patience1) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(
      opt, torch::optim::ReduceLROnPlateauScheduler::min, 0.5, 1, 1e-4,
      torch::optim::ReduceLROnPlateauScheduler::rel, 0, {0.0});
  std::vector<double> lrs;
  for (float m : {1.0f, 0.9f, 0.95f, 0.95f, 0.95f, 0.8f, 0.85f, 0.85f, 0.85f, 0.85f}) {
    sched.step(m);
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  return torch::tensor(lrs, torch::kFloat64);
}
TWIN(op_plateau_max_mode) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(
      opt, torch::optim::ReduceLROnPlateauScheduler::max, 0.5, 0, 1e-4,
      torch::optim::ReduceLROnPlateauScheduler::rel, 0, {0.0});
  std::vector<double> lrs;
  for (float m : {0.1f, 0.2f, 0.2f, 0.3f, 0.25f, 0.1f}) {
    sched.step(m);
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  return torch::tensor(lrs, torch::kFloat64);
}
TWIN(op_plateau_abs_threshold) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(
      opt, torch::optim::ReduceLROnPlateauScheduler::min, 0.5, 1, 0.1,
      torch::optim::ReduceLROnPlateauScheduler::abs, 0, {0.0});
  std::vector<double> lrs;
  for (float m : {5.0f, 4.95f, 4.92f, 4.8f, 4.75f, 4.7f, 4.0f}) {
    sched.step(m);
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  return torch::tensor(lrs, torch::kFloat64);
}
TWIN(op_plateau_rel_threshold) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(
      opt, torch::optim::ReduceLROnPlateauScheduler::min, 0.5, 0, 0.1,
      torch::optim::ReduceLROnPlateauScheduler::rel, 0, {0.0});
  std::vector<double> lrs;
  for (float m : {10.0f, 9.5f, 8.0f, 7.5f, 6.0f}) {
    sched.step(m);
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  return torch::tensor(lrs, torch::kFloat64);
}
TWIN(op_plateau_cooldown) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(
      opt, torch::optim::ReduceLROnPlateauScheduler::min, 0.5, 0, 1e-4,
      torch::optim::ReduceLROnPlateauScheduler::rel, 2, {0.0});
  std::vector<double> lrs;
  for (int i = 0; i < 8; ++i) {
    sched.step(1.0f);
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  return torch::tensor(lrs, torch::kFloat64);
}
TWIN(op_plateau_min_lr) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(
      opt, torch::optim::ReduceLROnPlateauScheduler::min, 0.5, 0, 1e-4,
      torch::optim::ReduceLROnPlateauScheduler::rel, 0, {0.3});
  std::vector<double> lrs;
  for (int i = 0; i < 5; ++i) {
    sched.step(2.0f);
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  return torch::tensor(lrs, torch::kFloat64);
}
TWIN(op_plateau_factor_error) {
  auto p = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({p}, torch::optim::SGDOptions(1.0));
  torch::optim::ReduceLROnPlateauScheduler sched(
      opt, torch::optim::ReduceLROnPlateauScheduler::min, 1.5, 0, 1e-4,
      torch::optim::ReduceLROnPlateauScheduler::rel, 0, {0.0});
  sched.step(1.0f);
  return opt.param_groups()[0].options().get_lr();
}
TWIN(op_plateau_min_lr_count_error) {
  auto a = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt({a}, torch::optim::SGDOptions(1.0));
  opt.add_param_group(torch::optim::OptimizerParamGroup({torch::ones({1}, torch::requires_grad())}));
  opt.add_param_group(torch::optim::OptimizerParamGroup({torch::ones({1}, torch::requires_grad())}));
  torch::optim::ReduceLROnPlateauScheduler sched(
      opt, torch::optim::ReduceLROnPlateauScheduler::min, 0.5, 0, 1e-4,
      torch::optim::ReduceLROnPlateauScheduler::rel, 0, {0.1, 0.2});
  sched.step(1.0f);
  return opt.param_groups()[0].options().get_lr();
}
TWIN(op_clip_grad_norm) {
  auto p = torch::tensor({3., 4.}, torch::requires_grad());
  (p * p / 2).sum().backward();
  double norm = torch::nn::utils::clip_grad_norm_({p}, 1.0);
  return std::make_tuple(torch::tensor(norm, torch::kFloat64), p.grad());
}
TWIN(op_clip_grad_norm_two_params) {
  auto a = torch::tensor({3.}, torch::requires_grad());
  auto b = torch::tensor({4.}, torch::requires_grad());
  (a * a / 2 + b * b / 2).sum().backward();
  double norm = torch::nn::utils::clip_grad_norm_(std::vector<torch::Tensor>{a, b}, 2.5);
  return std::make_tuple(torch::tensor(norm, torch::kFloat64), a.grad(), b.grad());
}
TWIN(op_clip_grad_norm_inf) {
  auto p = torch::tensor({3., -4., 1.}, torch::requires_grad());
  (p * p / 2).sum().backward();
  double norm = torch::nn::utils::clip_grad_norm_(p, 2.0, std::numeric_limits<double>::infinity());
  return std::make_tuple(torch::tensor(norm, torch::kFloat64), p.grad());
}
TWIN(op_clip_grad_norm_l1_noclip) {
  auto p = torch::tensor({3., -4., 1.}, torch::requires_grad());
  (p * p / 2).sum().backward();
  double norm = torch::nn::utils::clip_grad_norm_(p, 100.0, 1.0);
  return std::make_tuple(torch::tensor(norm, torch::kFloat64), p.grad());
}
TWIN(op_clip_grad_value) {
  auto p = torch::tensor({3., -4., 0.5}, torch::requires_grad());
  (p * p / 2).sum().backward();
  torch::nn::utils::clip_grad_value_({p}, 1.0);
  return p.grad();
}
