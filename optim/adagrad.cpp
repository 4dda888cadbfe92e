// Adagrad::step: one fused adagrad_step per (device, dtype, step count), with the decayed
// learning rate lr / (1 + (step - 1) * lr_decay) computed on the host.
#include <ember/optim/adagrad.h>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/optim/state_dict.h>

namespace ember {
namespace optim {

namespace {
void check_options(const AdagradOptions& o) {
  EMBER_CHECK(o.lr() >= 0, "Adagrad: invalid learning rate: ", o.lr());
  EMBER_CHECK(o.lr_decay() >= 0, "Adagrad: invalid lr_decay value: ", o.lr_decay());
  EMBER_CHECK(o.weight_decay() >= 0, "Adagrad: invalid weight_decay value: ", o.weight_decay());
  EMBER_CHECK(o.initial_accumulator_value() >= 0,
              "Adagrad: invalid initial_accumulator_value value: ", o.initial_accumulator_value());
  EMBER_CHECK(o.eps() >= 0, "Adagrad: invalid epsilon value: ", o.eps());
}

std::unique_ptr<AdagradParamState> new_state(const Tensor& p, double init) {
  auto st = std::make_unique<AdagradParamState>();
  NoGradGuard no_grad;
  st->sum(full(p.sizes(), init, p.options()));
  return st;
}
}  // namespace

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  check_options(defaults);
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (const Tensor& p : group.params())
      state_[p.unsafeGetTensorImpl()] = new_state(p, o.initial_accumulator_value());
  }
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  detail::refuse_capture("Adagrad");
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    check_options(o);
    batch_.reset(3);
    for (const Tensor& p : group.params()) {
      const Tensor& g = p.grad();
      if (!g.defined()) continue;
      detail::check_grad("Adagrad", p, g);
      auto& slot = state_[p.unsafeGetTensorImpl()];
      // parameters added after construction (add_param_group) get their state here
      if (!slot) slot = new_state(p, o.initial_accumulator_value());
      auto& st = static_cast<AdagradParamState&>(*slot);
      detail::match_param(st.sum(), p);
      st.step(st.step() + 1);
      batch_.add(st.step(), {p, g, st.sum()});
    }
    AdagradStepArgs args;
    args.weight_decay = o.weight_decay();
    args.eps = o.eps();
    for (const auto& b : batch_.buckets()) {
      args.clr = o.lr() / (1 + static_cast<double>(b.tag - 1) * o.lr_decay());
      native::adagrad_step_(b.list(0), b.list(1), b.list(2), args);
    }
    batch_.finish();
  }
  return loss;
}

// ---- state dict: PyTorch's Adagrad keys ----

void Adagrad::write_options(const OptimizerOptions& options, detail::StateWriter& out) const {
  const auto& o = static_cast<const AdagradOptions&>(options);
  out.real("lr", o.lr());
  out.real("lr_decay", o.lr_decay());
  out.real("eps", o.eps());
  out.real("weight_decay", o.weight_decay());
  out.real("initial_accumulator_value", o.initial_accumulator_value());
  out.flag("maximize", false);
}

void Adagrad::read_options(detail::StateReader& in, OptimizerOptions& options) const {
  auto& o = static_cast<AdagradOptions&>(options);
  o.lr(in.real("lr"));
  o.lr_decay(in.real("lr_decay"));
  o.eps(in.real("eps"));
  o.weight_decay(in.real("weight_decay"));
  o.initial_accumulator_value(in.real("initial_accumulator_value"));
  in.pytorch_flags();
  check_options(o);
}

void Adagrad::write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const {
  const auto& st = static_cast<const AdagradParamState&>(state);
  out.step("step", st.step());
  out.tensor("sum", st.sum());
}

std::unique_ptr<OptimizerParamState> Adagrad::read_param_state(detail::StateReader& in,
                                                               const Tensor& param) const {
  auto st = std::make_unique<AdagradParamState>();
  st->step(in.step("step"));
  st->sum(in.tensor("sum", param));
  return st;
}

}  // namespace optim
}  // namespace ember
