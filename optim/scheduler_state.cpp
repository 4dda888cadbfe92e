// The schedulers' state_dict()/load_state_dict(): PyTorch's attribute names (last_epoch,
// base_lrs, _step_count, _last_lr, best, num_bad_epochs...) as flat entries of 0-dim and 1-D
// tensors. Loading reads every entry first and assigns only when all of them are good.
#include <ember/optim/schedulers.h>

#include <ember/core/error.h>
#include <ember/optim/state_dict.h>

namespace ember {
namespace optim {

namespace {

// Reads a per-group list and checks its length against the optimizer's group count.
std::vector<double> read_group_values(detail::StateReader& in, const char* name, size_t groups) {
  std::vector<double> v = in.reals(name);
  EMBER_CHECK(v.size() == groups, "'", in.key(name), "' has ", v.size(),
              " values; the optimizer has ", groups, " parameter groups");
  return v;
}

int64_t read_positive(detail::StateReader& in, const char* name) {
  const int64_t v = in.integer(name);
  EMBER_CHECK(v > 0, "'", in.key(name), "' must be positive, got ", v);
  return v;
}

// PyTorch's scheduler attributes that ember's schedulers don't have (read and ignored).
constexpr std::initializer_list<const char*> kPyTorchOnly = {
    "verbose", "_get_lr_called_within_step", "_is_initial", "mode_worse", "default_min_lr"};

}  // namespace

// ---- LRScheduler ----

StateDict LRScheduler::state_dict() const {
  StateDict dict("State dict key");
  detail::StateWriter out(dict, "");
  out.reals("base_lrs", base_lrs_);
  out.integer("last_epoch", last_epoch_);
  out.integer("_step_count", step_count_);
  out.reals("_last_lr", last_lr_);
  write_state(out);
  return dict;
}

void LRScheduler::load_state_dict(const StateDict& state_dict) {
  load_state_dict(detail::to_map(state_dict));
}

void LRScheduler::load_state_dict(const std::map<std::string, Tensor>& dict) {
  detail::prefix_errors("load_state_dict", [&] {
    std::set<std::string> used;
    detail::StateReader in(dict, "", used);
    const size_t groups = optimizer_.param_groups().size();
    std::vector<double> base_lrs = read_group_values(in, "base_lrs", groups);
    std::vector<double> last_lr = read_group_values(in, "_last_lr", groups);
    const int64_t last_epoch = in.integer("last_epoch");
    const int64_t step_count = in.step("_step_count");
    in.ignore(kPyTorchOnly);
    std::function<void()> assign = read_state(in);
    detail::check_no_unexpected("load_state_dict", dict, used);
    base_lrs_ = std::move(base_lrs);
    last_lr_ = std::move(last_lr);
    last_epoch_ = last_epoch;
    step_count_ = static_cast<unsigned>(step_count);
    if (assign) assign();
  });
}

void LRScheduler::write_state(detail::StateWriter&) const {}

std::function<void()> LRScheduler::read_state(detail::StateReader&) { return {}; }

// ---- each scheduler's settings ----

void StepLR::write_state(detail::StateWriter& out) const {
  out.integer("step_size", step_size_);
  out.real("gamma", gamma_);
}

std::function<void()> StepLR::read_state(detail::StateReader& in) {
  const int64_t step_size = read_positive(in, "step_size");
  const double gamma = in.real("gamma");
  return [=] {
    step_size_ = static_cast<unsigned>(step_size);
    gamma_ = gamma;
  };
}

void MultiStepLR::write_state(detail::StateWriter& out) const {
  out.integers("milestones", milestones_);
  out.real("gamma", gamma_);
}

std::function<void()> MultiStepLR::read_state(detail::StateReader& in) {
  std::vector<int64_t> milestones = in.integers("milestones");
  const double gamma = in.real("gamma");
  return [this, milestones = std::move(milestones), gamma] {
    milestones_ = milestones;
    gamma_ = gamma;
  };
}

void ExponentialLR::write_state(detail::StateWriter& out) const { out.real("gamma", gamma_); }

std::function<void()> ExponentialLR::read_state(detail::StateReader& in) {
  const double gamma = in.real("gamma");
  return [=] { gamma_ = gamma; };
}

void CosineAnnealingLR::write_state(detail::StateWriter& out) const {
  out.integer("T_max", T_max_);
  out.real("eta_min", eta_min_);
}

std::function<void()> CosineAnnealingLR::read_state(detail::StateReader& in) {
  const int64_t T_max = read_positive(in, "T_max");
  const double eta_min = in.real("eta_min");
  return [=] {
    T_max_ = T_max;
    eta_min_ = eta_min;
  };
}

void LinearLR::write_state(detail::StateWriter& out) const {
  out.real("start_factor", start_factor_);
  out.real("end_factor", end_factor_);
  out.integer("total_iters", total_iters_);
}

std::function<void()> LinearLR::read_state(detail::StateReader& in) {
  const double start_factor = in.real("start_factor");
  const double end_factor = in.real("end_factor");
  const int64_t total_iters = in.integer("total_iters");
  return [=] {
    start_factor_ = start_factor;
    end_factor_ = end_factor;
    total_iters_ = total_iters;
  };
}

// PyTorch keeps initial_lr, max_lr and min_lr in the param groups; ember keeps them here, as
// "initial_lrs", "max_lrs" and "min_lrs". The options are stored too (anneal_strategy as the
// bytes of "cos" or "linear").
void OneCycleLR::write_state(detail::StateWriter& out) const {
  out.integer("total_steps", total_steps_);
  out.reals("initial_lrs", initial_lrs_);
  out.reals("max_lrs", max_lrs_);
  out.reals("min_lrs", min_lrs_);
  out.real("pct_start", options_.pct_start());
  out.text("anneal_strategy",
           options_.anneal_strategy() == OneCycleLROptions::cos ? "cos" : "linear");
  out.flag("cycle_momentum", options_.cycle_momentum());
  out.real("base_momentum", options_.base_momentum());
  out.real("max_momentum", options_.max_momentum());
  out.real("div_factor", options_.div_factor());
  out.real("final_div_factor", options_.final_div_factor());
  out.flag("three_phase", options_.three_phase());
}

std::function<void()> OneCycleLR::read_state(detail::StateReader& in) {
  const size_t groups = optimizer_.param_groups().size();
  const int64_t total_steps = read_positive(in, "total_steps");
  std::vector<double> initial = read_group_values(in, "initial_lrs", groups);
  std::vector<double> max = read_group_values(in, "max_lrs", groups);
  std::vector<double> min = read_group_values(in, "min_lrs", groups);
  OneCycleLROptions o;
  o.pct_start(in.real("pct_start"));
  const std::string anneal = in.text("anneal_strategy");
  EMBER_CHECK(anneal == "cos" || anneal == "linear", "'", in.key("anneal_strategy"), "' is '",
              anneal, "', expected 'cos' or 'linear'");
  o.anneal_strategy(anneal == "cos" ? OneCycleLROptions::cos : OneCycleLROptions::linear);
  o.cycle_momentum(in.flag("cycle_momentum"));
  o.base_momentum(in.real("base_momentum"));
  o.max_momentum(in.real("max_momentum"));
  o.div_factor(in.real("div_factor"));
  o.final_div_factor(in.real("final_div_factor"));
  o.three_phase(in.flag("three_phase"));
  return [this, total_steps, initial, max, min, o] {
    total_steps_ = total_steps;
    initial_lrs_ = initial;
    max_lrs_ = max;
    min_lrs_ = min;
    options_ = o;
    phases_ = make_phases(total_steps, o);
  };
}

// ---- ReduceLROnPlateauScheduler ----

StateDict ReduceLROnPlateauScheduler::state_dict() const {
  StateDict dict("State dict key");
  detail::StateWriter out(dict, "");
  out.real("factor", factor_);
  std::vector<double> min_lrs(min_lrs_.begin(), min_lrs_.end());
  out.reals("min_lrs", min_lrs);
  out.integer("patience", patience_);
  out.integer("cooldown", cooldown_);
  out.integer("cooldown_counter", cooldown_counter_);
  out.text("mode", mode_ == min ? "min" : "max");
  out.real("threshold", threshold_);
  out.text("threshold_mode", threshold_mode_ == rel ? "rel" : "abs");
  out.real("best", best_);
  out.integer("num_bad_epochs", num_bad_epochs_);
  out.real("eps", eps_);
  out.integer("last_epoch", last_epoch_);
  out.reals("_last_lr", get_last_lr());
  return dict;
}

void ReduceLROnPlateauScheduler::load_state_dict(const StateDict& state_dict) {
  load_state_dict(detail::to_map(state_dict));
}

void ReduceLROnPlateauScheduler::load_state_dict(const std::map<std::string, Tensor>& dict) {
  detail::prefix_errors("load_state_dict", [&] {
    std::set<std::string> used;
    detail::StateReader in(dict, "", used);
    const double factor = in.real("factor");
    EMBER_CHECK(factor < 1.0, "'factor' should be < 1.0, got ", factor);
    const std::vector<double> min_lrs =
        read_group_values(in, "min_lrs", optimizer_.param_groups().size());
    const int64_t patience = in.integer("patience");
    const int64_t cooldown = in.integer("cooldown");
    const int64_t cooldown_counter = in.integer("cooldown_counter");
    const std::string mode = in.text("mode"), threshold_mode = in.text("threshold_mode");
    EMBER_CHECK(mode == "min" || mode == "max", "'mode' is '", mode, "', expected min or max");
    EMBER_CHECK(threshold_mode == "rel" || threshold_mode == "abs", "'threshold_mode' is '",
                threshold_mode, "', expected rel or abs");
    const double threshold = in.real("threshold");
    const double best = in.real("best");
    const int64_t num_bad_epochs = in.integer("num_bad_epochs");
    const double eps = in.real("eps");
    const int64_t last_epoch = in.integer("last_epoch");
    in.ignore(kPyTorchOnly);
    in.ignore({"_last_lr"});  // the groups' lrs, which are the optimizer's state
    detail::check_no_unexpected("load_state_dict", dict, used);
    factor_ = static_cast<float>(factor);
    min_lrs_.assign(min_lrs.begin(), min_lrs.end());
    patience_ = static_cast<int>(patience);
    cooldown_ = static_cast<int>(cooldown);
    cooldown_counter_ = static_cast<int>(cooldown_counter);
    mode_ = mode == "min" ? min : max;
    threshold_ = threshold;
    threshold_mode_ = threshold_mode == "rel" ? rel : abs;
    best_ = static_cast<float>(best);
    num_bad_epochs_ = static_cast<int>(num_bad_epochs);
    eps_ = eps;
    last_epoch_ = last_epoch;
  });
}

}  // namespace optim
}  // namespace ember
