// Adam::step, and the group step shared with AdamW: parameters are bucketed by step count
// (almost always one), and each bucket is one fused adam_step with host bias corrections.
#include <ember/optim/adam.h>

#include <cmath>
#include <type_traits>

#include <ember/core/error.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
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

template <class State>
void adam_group_step(const char* who, OptimizerParamGroup& group, Optimizer::StateMap& state,
                     const AdamHyper& h, FusedBatch& batch) {
  refuse_capture(who);
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
    st.step(st.step() + 1);
    batch.add(st.step(),
              {p, g, st.exp_avg(), st.exp_avg_sq(), h.amsgrad ? st.max_exp_avg_sq() : Tensor()});
  }
  AdamStepArgs args;
  args.lr = h.lr;
  args.beta1 = h.beta1;
  args.beta2 = h.beta2;
  args.eps = h.eps;
  args.weight_decay = h.weight_decay;
  args.amsgrad = h.amsgrad;
  args.decoupled_weight_decay = h.decoupled_weight_decay;
  for (const auto& b : batch.buckets()) {
    const double step = static_cast<double>(b.tag);
    args.step_size = h.lr / (1 - std::pow(h.beta1, step));
    args.bias_correction2_sqrt = std::sqrt(1 - std::pow(h.beta2, step));
    native::adam_step_(b.list(0), b.list(1), b.list(2), b.list(3), b.list(4), args);
  }
  batch.finish();
}

template void adam_group_step<AdamParamState>(const char*, OptimizerParamGroup&,
                                              Optimizer::StateMap&, const AdamHyper&, FusedBatch&);
template void adam_group_step<AdamWParamState>(const char*, OptimizerParamGroup&,
                                               Optimizer::StateMap&, const AdamHyper&, FusedBatch&);

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
        "Adam", group, state_,
        {o.lr(), beta1, beta2, o.eps(), o.weight_decay(), o.amsgrad(), false}, batch_);
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
