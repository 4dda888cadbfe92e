// The learning-rate schedulers of schedulers.h, with PyTorch's get_lr formulas (the recursive,
// chainable forms, so that the lr sequences match PyTorch's to the last bits).
#include <ember/optim/schedulers.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <ember/core/error.h>
#include <ember/optim/adam.h>
#include <ember/optim/adamw.h>
#include <ember/optim/rmsprop.h>
#include <ember/optim/sgd.h>

namespace ember {
namespace optim {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

// ---- LRScheduler ----

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  base_lrs_ = get_current_lrs();
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  lrs.reserve(optimizer_.param_groups().size());
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::apply(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK(lrs.size() == groups.size(), "LRScheduler: ", lrs.size(), " learning rates for ",
              groups.size(), " parameter groups");
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  last_lr_ = lrs;
}

void LRScheduler::initial_step() { step(); }

void LRScheduler::step() {
  ++step_count_;
  ++last_epoch_;
  apply(get_lrs());
}

// ---- StepLR, MultiStepLR, ExponentialLR ----

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, "StepLR: step_size must be positive");
  initial_step();
}

// As LibTorch's C++ StepLR (which decays when its step count before the step is a positive
// multiple of step_size): the k-th step() decays when k - 1 is, one step later than Python's.
std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  const int64_t count = last_epoch_ - 1;  // steps taken before this one
  if (count <= 0 || count % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  initial_step();
}

std::vector<double> MultiStepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  const auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (count == 0) return lrs;
  const double factor = std::pow(gamma_, static_cast<double>(count));
  for (double& lr : lrs) lr *= factor;
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

// ---- CosineAnnealingLR, LinearLR ----

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ == 0) return lrs;
  const double T = static_cast<double>(T_max_), e = static_cast<double>(last_epoch_);
  // Python's % is a floor modulo; (last_epoch - 1 - T_max) may be negative.
  const int64_t period = 2 * T_max_;
  const int64_t r = ((last_epoch_ - 1 - T_max_) % period + period) % period;
  for (size_t i = 0; i < lrs.size(); ++i) {
    if (r == 0) {
      lrs[i] = lrs[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(kPi / T)) / 2;
    } else {
      lrs[i] =
          (1 + std::cos(kPi * e / T)) / (1 + std::cos(kPi * (e - 1) / T)) * (lrs[i] - eta_min_) +
          eta_min_;
    }
  }
  return lrs;
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK(start_factor > 0 && start_factor <= 1,
              "LinearLR: start_factor must be in (0, 1], got ", start_factor);
  EMBER_CHECK(end_factor >= 0 && end_factor <= 1, "LinearLR: end_factor must be in [0, 1], got ",
              end_factor);
  initial_step();
}

std::vector<double> LinearLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (last_epoch_ > total_iters_) return lrs;
  const double d = end_factor_ - start_factor_;
  const double f = 1. + d / (static_cast<double>(total_iters_) * start_factor_ +
                             static_cast<double>(last_epoch_ - 1) * d);
  for (double& lr : lrs) lr *= f;
  return lrs;
}

// ---- OneCycleLR ----

OneCycleLR::OneCycleLR(Optimizer& optimizer, double max_lr, int64_t total_steps,
                       OneCycleLROptions options)
    : OneCycleLR(optimizer, std::vector<double>(optimizer.param_groups().size(), max_lr),
                 total_steps, options) {}

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, int64_t total_steps,
                       OneCycleLROptions options)
    : LRScheduler(optimizer), total_steps_(total_steps), options_(options) {
  const size_t groups = optimizer.param_groups().size();
  EMBER_CHECK(total_steps > 0, "OneCycleLR: total_steps must be positive, got ", total_steps);
  EMBER_CHECK(max_lrs.size() == groups, "OneCycleLR: ", max_lrs.size(), " max_lr values for ",
              groups, " parameter groups");
  const double pct = options.pct_start();
  EMBER_CHECK(pct >= 0 && pct <= 1, "OneCycleLR: pct_start must be in [0, 1], got ", pct);
  phases_ = make_phases(total_steps, options);
  max_lrs_ = max_lrs;
  for (size_t i = 0; i < groups; ++i) {
    initial_lrs_.push_back(max_lrs[i] / options.div_factor());
    min_lrs_.push_back(initial_lrs_[i] / options.final_div_factor());
    optimizer.param_groups()[i].options().set_lr(initial_lrs_[i]);
    if (options.cycle_momentum()) set_momentum(i, options.max_momentum());
  }
  base_lrs_ = initial_lrs_;
  initial_step();
}

std::vector<OneCycleLR::Phase> OneCycleLR::make_phases(int64_t total_steps,
                                                       const OneCycleLROptions& options) {
  const double pct = options.pct_start(), T = static_cast<double>(total_steps);
  if (options.three_phase()) {
    return {{pct * T - 1, 0, 1, true, false},
            {2 * pct * T - 2, 1, 0, false, true},
            {T - 1, 0, 2, true, true}};
  }
  return {{pct * T - 1, 0, 1, true, false}, {T - 1, 1, 2, false, true}};
}

void OneCycleLR::set_momentum(size_t group, double momentum) {
  OptimizerOptions& o = optimizer_.param_groups()[group].options();
  if (auto* sgd = dynamic_cast<SGDOptions*>(&o)) {
    sgd->momentum(momentum);
  } else if (auto* adam = dynamic_cast<AdamOptions*>(&o)) {
    adam->betas(std::make_tuple(momentum, std::get<1>(adam->betas())));
  } else if (auto* adamw = dynamic_cast<AdamWOptions*>(&o)) {
    adamw->betas(std::make_tuple(momentum, std::get<1>(adamw->betas())));
  } else if (auto* rms = dynamic_cast<RMSpropOptions*>(&o)) {
    rms->momentum(momentum);
  } else {
    EMBER_THROW("OneCycleLR: optimizer does not support momentum with cycle_momentum enabled");
  }
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (options_.anneal_strategy() == OneCycleLROptions::cos)
    return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lrs() {
  EMBER_CHECK(last_epoch_ <= total_steps_, "OneCycleLR: tried to step ", last_epoch_ + 1,
              " times; the specified number of total steps is ", total_steps_);
  const double step = static_cast<double>(last_epoch_);
  std::vector<double> lrs;
  for (size_t g = 0; g < initial_lrs_.size(); ++g) {
    const double ends[3] = {initial_lrs_[g], max_lrs_[g], min_lrs_[g]};
    double start_step = 0, lr = 0, momentum = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& ph = phases_[i];
      if (step <= ph.end_step || i + 1 == phases_.size()) {
        const double pct = (step - start_step) / (ph.end_step - start_step);
        lr = anneal(ends[ph.start_lr], ends[ph.end_lr], pct);
        const double m0 =
            ph.start_momentum_max ? options_.max_momentum() : options_.base_momentum();
        const double m1 = ph.end_momentum_max ? options_.max_momentum() : options_.base_momentum();
        momentum = anneal(m0, m1, pct);
        break;
      }
      start_step = ph.end_step;
    }
    lrs.push_back(lr);
    if (options_.cycle_momentum()) set_momentum(g, momentum);
  }
  return lrs;
}

// ---- ReduceLROnPlateauScheduler ----

ReduceLROnPlateauScheduler::ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode,
                                                       float factor, int patience, double threshold,
                                                       ThresholdMode threshold_mode, int cooldown,
                                                       const std::vector<float>& min_lr, double eps,
                                                       bool /*verbose*/)
    : optimizer_(optimizer),
      mode_(mode),
      factor_(factor),
      patience_(patience),
      threshold_(threshold),
      threshold_mode_(threshold_mode),
      cooldown_(cooldown),
      eps_(eps) {
  EMBER_CHECK(factor < 1.0, "ReduceLROnPlateau: factor should be < 1.0, got ", factor);
  const size_t groups = optimizer.param_groups().size();
  if (min_lr.empty()) {
    min_lrs_.assign(groups, 0.0f);
  } else if (min_lr.size() == 1) {
    min_lrs_.assign(groups, min_lr[0]);
  } else {
    EMBER_CHECK(min_lr.size() == groups, "ReduceLROnPlateau: expected ", groups,
                " min_lr values, got ", min_lr.size());
    min_lrs_ = min_lr;
  }
  best_ = mode == min ? std::numeric_limits<float>::infinity()
                      : -std::numeric_limits<float>::infinity();
}

bool ReduceLROnPlateauScheduler::is_better(float a) const {
  if (mode_ == min && threshold_mode_ == rel) return a < best_ * (1. - threshold_);
  if (mode_ == min) return a < best_ - threshold_;
  if (threshold_mode_ == rel) return a > best_ * (threshold_ + 1.);
  return a > best_ + threshold_;
}

void ReduceLROnPlateauScheduler::step(float metric) {
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;  // bad epochs in cooldown don't count
  }
  if (num_bad_epochs_ > patience_) {
    auto& groups = optimizer_.param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].options().get_lr();
      const double new_lr = std::max(old_lr * factor_, static_cast<double>(min_lrs_[i]));
      if (old_lr - new_lr > eps_) groups[i].options().set_lr(new_lr);
    }
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
}

std::vector<double> ReduceLROnPlateauScheduler::get_last_lr() const {
  std::vector<double> lrs;
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

}  // namespace optim
}  // namespace ember
