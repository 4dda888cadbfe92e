// Learning-rate schedulers, as LibTorch 2.x's torch::optim::LRScheduler family with PyTorch's
// (chainable) formulas: StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR,
// OneCycleLR, and ReduceLROnPlateauScheduler (step(metric)). Each writes the groups' lr, and
// saves and restores its counters with state_dict()/load_state_dict() (scheduler_state.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <ember/optim/optimizer.h>

namespace ember {
namespace optim {

// Construction applies epoch 0 (as PyTorch's constructors do: LinearLR scales the lr at once);
// each step() advances one epoch and sets every group's lr.
class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  void step();
  // The learning rates set by the last step (or by construction), one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }

  // PyTorch's scheduler.state_dict(), flat: "last_epoch", "_step_count" (0-dim int64),
  // "base_lrs", "_last_lr" (1-D float64, one per group) and the scheduler's own settings
  // ("step_size", "gamma", ...). The groups' lrs themselves are the optimizer's state.
  StateDict state_dict() const;
  // Restores all of them (settings included, as PyTorch's). The group count must match; a
  // missing or unexpected key throws ember::Error naming it, and then nothing changes.
  void load_state_dict(const StateDict& state_dict);
  void load_state_dict(const std::map<std::string, Tensor>& state_dict);

 protected:
  // The scheduler's own entries. read_state reads them all and returns what assigns them (run
  // once every key was checked); the defaults have none.
  virtual void write_state(detail::StateWriter& out) const;
  virtual std::function<void()> read_state(detail::StateReader& in);
  // The learning rates for epoch last_epoch_ (PyTorch's get_lr).
  virtual std::vector<double> get_lrs() = 0;
  std::vector<double> get_current_lrs() const;
  // Derived constructors call this last: applies epoch 0.
  void initial_step();

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;  // each group's lr when the scheduler was made
  int64_t last_epoch_ = -1;
  unsigned step_count_ = 0;

 private:
  void apply(const std::vector<double>& lrs);
  std::vector<double> last_lr_;
};

// lr *= gamma every step_size epochs, as LibTorch's C++ StepLR: the (step_size + 1)-th step()
// decays first (Python's StepLR decays one step earlier, at the step_size-th).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 private:
  void write_state(detail::StateWriter& out) const override;
  std::function<void()> read_state(detail::StateReader& in) override;
  std::vector<double> get_lrs() override;
  unsigned step_size_;
  double gamma_;
};

// lr *= gamma at each milestone (repeated milestones multiply again).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 private:
  void write_state(detail::StateWriter& out) const override;
  std::function<void()> read_state(detail::StateReader& in) override;
  std::vector<double> get_lrs() override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

// lr *= gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 private:
  void write_state(detail::StateWriter& out) const override;
  std::function<void()> read_state(detail::StateReader& in) override;
  std::vector<double> get_lrs() override;
  double gamma_;
};

// Cosine from base lr down to eta_min over T_max epochs (then back up), PyTorch's
// recursive form.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 private:
  void write_state(detail::StateWriter& out) const override;
  std::function<void()> read_state(detail::StateReader& in) override;
  std::vector<double> get_lrs() override;
  int64_t T_max_;
  double eta_min_;
};

// lr scaled by a factor going linearly from start_factor to end_factor over total_iters.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 private:
  void write_state(detail::StateWriter& out) const override;
  std::function<void()> read_state(detail::StateReader& in) override;
  std::vector<double> get_lrs() override;
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

struct OneCycleLROptions {
  enum AnnealStrategy { cos, linear };
  EMBER_ARG(double, pct_start) = 0.3;
  EMBER_ARG(AnnealStrategy, anneal_strategy) = cos;
  // Cycles the groups' momentum (SGD's momentum, Adam/AdamW's beta1, RMSprop's momentum)
  // inversely to the lr; the optimizer must have one.
  EMBER_ARG(bool, cycle_momentum) = true;
  EMBER_ARG(double, base_momentum) = 0.85;
  EMBER_ARG(double, max_momentum) = 0.95;
  EMBER_ARG(double, div_factor) = 25;
  EMBER_ARG(double, final_div_factor) = 1e4;
  EMBER_ARG(bool, three_phase) = false;
};

// The 1cycle policy (PyTorch's OneCycleLR): warm up from max_lr / div_factor to max_lr, then
// anneal to initial_lr / final_div_factor over total_steps steps. Sets the groups' lr at
// construction; stepping past total_steps throws.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, double max_lr, int64_t total_steps,
             OneCycleLROptions options = {});
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, int64_t total_steps,
             OneCycleLROptions options = {});

 private:
  void write_state(detail::StateWriter& out) const override;
  std::function<void()> read_state(detail::StateReader& in) override;
  struct Phase {
    double end_step;
    // factors selecting the group's initial/max/min lr, and the momentum ends
    int start_lr, end_lr;  // 0 initial, 1 max, 2 min
    bool start_momentum_max, end_momentum_max;
  };
  static std::vector<Phase> make_phases(int64_t total_steps, const OneCycleLROptions& options);
  std::vector<double> get_lrs() override;
  double anneal(double start, double end, double pct) const;
  void set_momentum(size_t group, double momentum);

  int64_t total_steps_;
  OneCycleLROptions options_;
  std::vector<Phase> phases_;
  std::vector<double> initial_lrs_, max_lrs_, min_lrs_;
};

// Reduces the lr by `factor` when a metric stopped improving for `patience` epochs
// (LibTorch's ReduceLROnPlateauScheduler, PyTorch's ReduceLROnPlateau). Never prints.
class ReduceLROnPlateauScheduler {
 public:
  enum SchedulerMode { min, max };
  enum ThresholdMode { rel, abs };
  // factor, min_lr, the metric and the best metric are float, as LibTorch's (whose learning
  // rates carry their float rounding: 0.1 becomes 0.10000000149011612).
  ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode = min, float factor = 0.1,
                             int patience = 10, double threshold = 1e-4,
                             ThresholdMode threshold_mode = rel, int cooldown = 0,
                             const std::vector<float>& min_lr = {}, double eps = 1e-8,
                             bool verbose = false);
  virtual ~ReduceLROnPlateauScheduler() = default;

  void step(float metric);
  std::vector<double> get_last_lr() const;
  int64_t last_epoch() const { return last_epoch_; }

  // PyTorch's keys: "best", "num_bad_epochs", "cooldown_counter", "last_epoch", and the
  // settings "factor", "patience", "cooldown", "threshold", "eps", "min_lrs", "mode" and
  // "threshold_mode" (the last two as the strings' bytes, uint8). load_state_dict restores
  // them all; a missing or unexpected key, or a min_lrs count that isn't the group count,
  // throws ember::Error and then nothing changes.
  StateDict state_dict() const;
  void load_state_dict(const StateDict& state_dict);
  void load_state_dict(const std::map<std::string, Tensor>& state_dict);

 private:
  bool is_better(float a) const;

  Optimizer& optimizer_;
  SchedulerMode mode_;
  float factor_;
  int patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int cooldown_;
  std::vector<float> min_lrs_;
  double eps_;
  float best_;
  int num_bad_epochs_ = 0;
  int cooldown_counter_ = 0;
  int64_t last_epoch_ = 0;
};
using ReduceLROnPlateau = ReduceLROnPlateauScheduler;

}  // namespace optim
}  // namespace ember
