// Adam::step, and the group step shared with AdamW: parameters are bucketed by step count
// (almost always one), and each bucket is one fused adam_step with host bias corrections.
#include <ember/optim/adam.h>

#include <cmath>
#include <type_traits>
#include <utility>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/cuda/graph.h>
#include <ember/optim/adamw.h>
#include <ember/optim/state_dict.h>

namespace ember {
namespace optim {

namespace detail {

void check_adam_options(const char* who, double lr, double beta1, double beta2, double eps,
                        double weight_decay) {
  EMBER_CHECK(lr >= 0, who, ": invalid learning rate: ", lr);
  EMBER_CHECK(eps >= 0, who, ": invalid epsilon value: ", eps);
  EMBER_CHECK(beta1 >= 0 && beta1 < 1, who, ": invalid beta parameter at index 0: ", beta1);
  EMBER_CHECK(beta2 >= 0 && beta2 < 1, who, ": invalid beta parameter at index 1: ", beta2);
  EMBER_CHECK(weight_decay >= 0, who, ": invalid weight_decay value: ", weight_decay);
}

namespace {

// Adam's bias-corrected step size lr / (1 - beta1^step) and sqrt(1 - beta2^step), in double
// as PyTorch computes them: for the eager step and for each replay of a captured one.
void set_bias_corrections(AdamStepArgs& args, int64_t step) {
  const double t = static_cast<double>(step);
  args.step_size = args.lr / (1 - std::pow(args.beta1, t));
  args.bias_correction2_sqrt = std::sqrt(1 - std::pow(args.beta2, t));
}

// An Adam step captured in a CUDA graph. The captured kernels read {step_size,
// bias_correction2_sqrt} from device memory, one pair per (device, step count) among the
// parameters; before each replay this advances those parameters' host step counts, as the
// eager step would, and writes the pairs the new counts give (the same doubles the eager step
// computes, so graphed and eager training round alike). The learning rate is the captured one
// (cuda::StepGraph captures again when it changes).
template <class State>
struct CapturedAdamStep {
  struct Group {                              // the parameters at one step count on one device
    Device device{kCPU};                      // their device
    int64_t step = 0;                         // the captured update's step count
    Tensor scalars;                           // float64 [2] on their device (replay_buffer)
    std::vector<void*> keys;                  // their state keys
    std::vector<const TensorImpl*> exp_avgs;  // their exp_avg at the capture
  };
  std::shared_ptr<Optimizer*> owner;
  const char* who = nullptr;
  AdamStepArgs args;  // the captured hyperparameters
  std::vector<Group> groups;

  Group& group_for(Device device, int64_t step) {
    for (Group& g : groups) {
      if (g.device == device && g.step == step) return g;
    }
    EMBER_CHECK(device.index() == cuda::current_device(), who, ": a parameter on ", device,
                " in a step captured on cuda:", cuda::current_device());
    Tensor scalars = cuda::replay_buffer({2}, kFloat64);
    Group& g = groups.emplace_back();
    g.device = device;
    g.step = step;
    g.scalars = std::move(scalars);
    return g;
  }

  void operator()() const {
    Optimizer* opt = *owner;
    EMBER_CHECK(opt != nullptr, "cuda::Graph::replay: the ", who,
                " optimizer whose step the graph captured no longer exists");
    for (const Group& g : groups) {
      int64_t step = -1;
      for (size_t k = 0; k < g.keys.size(); ++k) {
        auto it = opt->state().find(g.keys[k]);
        auto* st = it == opt->state().end() ? nullptr : static_cast<State*>(it->second.get());
        EMBER_CHECK(st != nullptr && st->exp_avg().unsafeGetTensorImpl() == g.exp_avgs[k] &&
                        (step < 0 || st->step() + 1 == step),
                    "cuda::Graph::replay: the ", who,
                    " state changed since the capture (load_state_dict, a parameter moved, or "
                    "an eager step of some parameters): capture the step again");
        st->step(st->step() + 1);
        step = st->step();
      }
      AdamStepArgs now = args;
      set_bias_corrections(now, step);
      Tensor host = empty({2}, kFloat64);
      double* v = host.template data_ptr<double>();
      v[0] = now.step_size;
      v[1] = now.bias_correction2_sqrt;
      g.scalars.copy_(host);  // on the replay's stream, before the launch
    }
  }
};

}  // namespace

template <class State>
void adam_group_step(const char* who, OptimizerParamGroup& group, Optimizer& opt,
                     const AdamHyper& h, FusedBatch& batch) {
  Optimizer::StateMap& state = opt.state();
  AdamStepArgs args;
  args.lr = h.lr;
  args.beta1 = h.beta1;
  args.beta2 = h.beta2;
  args.eps = h.eps;
  args.weight_decay = h.weight_decay;
  args.amsgrad = h.amsgrad;
  args.decoupled_weight_decay = h.decoupled_weight_decay;
  // Inside a capture the update is recorded, not run: the host step counts advance at each
  // replay instead (CapturedAdamStep), and the kernels read their bias corrections from
  // device memory.
  std::shared_ptr<CapturedAdamStep<State>> replay;
  if (cuda::is_current_stream_capturing()) {
    replay = std::make_shared<CapturedAdamStep<State>>();
    replay->owner = opt.handle();
    replay->who = who;
    replay->args = args;
  }
  batch.reset(5);
  for (const Tensor& p : group.params()) {
    const Tensor& g = p.grad();
    if (!g.defined()) continue;
    check_grad(who, p, g);
    auto& slot = state[p.unsafeGetTensorImpl()];
    if (!slot) {
      auto st = std::make_unique<State>();
      st->exp_avg(zeros_state(p));
      st->exp_avg_sq(zeros_state(p));
      if (h.amsgrad) st->max_exp_avg_sq(zeros_state(p));
      slot = std::move(st);
    }
    auto& st = static_cast<State&>(*slot);
    match_param(st.exp_avg(), p);
    match_param(st.exp_avg_sq(), p);
    if (h.amsgrad) {
      if (!st.max_exp_avg_sq().defined()) st.max_exp_avg_sq(zeros_state(p));
      match_param(st.max_exp_avg_sq(), p);
    }
    const int64_t step = st.step() + 1;
    if (replay) {
      auto& captured = replay->group_for(p.device(), step);
      captured.keys.push_back(p.unsafeGetTensorImpl());
      captured.exp_avgs.push_back(st.exp_avg().unsafeGetTensorImpl());
    } else {
      st.step(step);
    }
    batch.add(step,
              {p, g, st.exp_avg(), st.exp_avg_sq(), h.amsgrad ? st.max_exp_avg_sq() : Tensor()});
  }
  for (const auto& b : batch.buckets()) {
    set_bias_corrections(args, b.tag);
    if (replay) {  // one pair per (device, step), shared by the dtypes' buckets
      args.step_scalars = replay->group_for(b.device, b.tag).scalars.template data_ptr<double>();
    }
    native::adam_step_(b.list(0), b.list(1), b.list(2), b.list(3), b.list(4), args);
  }
  batch.finish();
  if (replay && !replay->groups.empty()) cuda::on_each_replay([replay] { (*replay)(); });
}

template void adam_group_step<AdamParamState>(const char*, OptimizerParamGroup&, Optimizer&,
                                              const AdamHyper&, FusedBatch&);
template void adam_group_step<AdamWParamState>(const char*, OptimizerParamGroup&, Optimizer&,
                                               const AdamHyper&, FusedBatch&);

template <class Options>
void write_adam_options(const Options& o, StateWriter& out) {
  out.real("lr", o.lr());
  out.pair("betas", std::get<0>(o.betas()), std::get<1>(o.betas()));
  out.real("eps", o.eps());
  out.real("weight_decay", o.weight_decay());
  out.flag("amsgrad", o.amsgrad());
  out.flag("maximize", false);
}

template <class Options>
void read_adam_options(const char* who, StateReader& in, Options& o) {
  o.lr(in.real("lr"));
  const auto [beta1, beta2] = in.pair("betas");
  o.betas(std::make_tuple(beta1, beta2));
  o.eps(in.real("eps"));
  o.weight_decay(in.real("weight_decay"));
  o.amsgrad(in.flag("amsgrad"));
  // PyTorch 2.6's Adam has decoupled_weight_decay (AdamW is Adam with it set)
  const bool decoupled = std::is_same_v<Options, AdamWOptions>;
  if (in.has("decoupled_weight_decay"))
    EMBER_CHECK(in.flag("decoupled_weight_decay") == decoupled, "'",
                in.key("decoupled_weight_decay"), "' is ", !decoupled, ": load it into ",
                decoupled ? "Adam" : "AdamW");
  in.pytorch_flags();
  check_adam_options(who, o.lr(), beta1, beta2, o.eps(), o.weight_decay());
}

template <class State>
void write_adam_state(const State& st, StateWriter& out) {
  out.step("step", st.step());
  out.tensor("exp_avg", st.exp_avg());
  out.tensor("exp_avg_sq", st.exp_avg_sq());
  out.tensor("max_exp_avg_sq", st.max_exp_avg_sq());
}

template <class State>
std::unique_ptr<State> read_adam_state(StateReader& in, const Tensor& param) {
  auto st = std::make_unique<State>();
  st->step(in.step("step"));
  st->exp_avg(in.tensor("exp_avg", param));
  st->exp_avg_sq(in.tensor("exp_avg_sq", param));
  // absent without amsgrad; a later step with amsgrad starts it at zero
  if (in.has("max_exp_avg_sq")) st->max_exp_avg_sq(in.tensor("max_exp_avg_sq", param));
  return st;
}

template void write_adam_options<AdamOptions>(const AdamOptions&, StateWriter&);
template void write_adam_options<AdamWOptions>(const AdamWOptions&, StateWriter&);
template void read_adam_options<AdamOptions>(const char*, StateReader&, AdamOptions&);
template void read_adam_options<AdamWOptions>(const char*, StateReader&, AdamWOptions&);
template void write_adam_state<AdamParamState>(const AdamParamState&, StateWriter&);
template void write_adam_state<AdamWParamState>(const AdamWParamState&, StateWriter&);
template std::unique_ptr<AdamParamState> read_adam_state<AdamParamState>(StateReader&,
                                                                         const Tensor&);
template std::unique_ptr<AdamWParamState> read_adam_state<AdamWParamState>(StateReader&,
                                                                           const Tensor&);

}  // namespace detail

AdamOptions::AdamOptions(double lr) : lr_(lr) {}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  detail::check_adam_options("Adam", defaults.lr(), std::get<0>(defaults.betas()),
                             std::get<1>(defaults.betas()), defaults.eps(),
                             defaults.weight_decay());
}

Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
           std::move(defaults)) {}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamOptions&>(group.options());
    const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
    detail::check_adam_options("Adam", o.lr(), beta1, beta2, o.eps(), o.weight_decay());
    detail::adam_group_step<AdamParamState>(
        "Adam", group, *this, {o.lr(), beta1, beta2, o.eps(), o.weight_decay(), o.amsgrad(), false},
        batch_);
  }
  return loss;
}

void Adam::write_options(const OptimizerOptions& options, detail::StateWriter& out) const {
  detail::write_adam_options(static_cast<const AdamOptions&>(options), out);
}

void Adam::read_options(detail::StateReader& in, OptimizerOptions& options) const {
  detail::read_adam_options("Adam", in, static_cast<AdamOptions&>(options));
}

void Adam::write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const {
  detail::write_adam_state(static_cast<const AdamParamState&>(state), out);
}

std::unique_ptr<OptimizerParamState> Adam::read_param_state(detail::StateReader& in,
                                                            const Tensor& param) const {
  return detail::read_adam_state<AdamParamState>(in, param);
}

}  // namespace optim
}  // namespace ember
