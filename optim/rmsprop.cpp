// RMSprop::step: state made lazily (zeros), then one fused rmsprop_step per (device, dtype).
#include <ember/optim/rmsprop.h>

#include <ember/core/error.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/optim/state_dict.h>

namespace ember {
namespace optim {

namespace {
void check_options(const RMSpropOptions& o) {
  EMBER_CHECK(o.lr() >= 0, "RMSprop: invalid learning rate: ", o.lr());
  EMBER_CHECK(o.eps() >= 0, "RMSprop: invalid epsilon value: ", o.eps());
  EMBER_CHECK(o.momentum() >= 0, "RMSprop: invalid momentum value: ", o.momentum());
  EMBER_CHECK(o.weight_decay() >= 0, "RMSprop: invalid weight_decay value: ", o.weight_decay());
  EMBER_CHECK(o.alpha() >= 0, "RMSprop: invalid alpha value: ", o.alpha());
}
}  // namespace

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {
  check_options(defaults);
}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              std::move(defaults)) {}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    check_options(o);
    const bool momentum = o.momentum() > 0;
    batch_.reset(5);
    for (const Tensor& p : group.params()) {
      const Tensor& g = p.grad();
      if (!g.defined()) continue;
      detail::check_grad("RMSprop", p, g);
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) {
        auto st = std::make_unique<RMSpropParamState>();
        st->square_avg(detail::zeros_state(p));
        slot = std::move(st);
      }
      auto& st = static_cast<RMSpropParamState&>(*slot);
      detail::match_param(st.square_avg(), p);
      if (momentum) {
        if (!st.momentum_buffer().defined()) st.momentum_buffer(detail::zeros_state(p));
        detail::match_param(st.momentum_buffer(), p);
      }
      if (o.centered()) {
        if (!st.grad_avg().defined()) st.grad_avg(detail::zeros_state(p));
        detail::match_param(st.grad_avg(), p);
      }
      st.step(st.step() + 1);
      batch_.add(0, {p, g, st.square_avg(), o.centered() ? st.grad_avg() : Tensor(),
                     momentum ? st.momentum_buffer() : Tensor()});
    }
    RmspropStepArgs args;
    args.lr = o.lr();
    args.alpha = o.alpha();
    args.eps = o.eps();
    args.weight_decay = o.weight_decay();
    args.momentum = o.momentum();
    args.centered = o.centered();
    for (const auto& b : batch_.buckets()) {
      native::rmsprop_step_(b.list(0), b.list(1), b.list(2), b.list(3), b.list(4), args);
    }
    batch_.finish();
  }
  return loss;
}

// ---- state dict: PyTorch's RMSprop keys ----

void RMSprop::write_options(const OptimizerOptions& options, detail::StateWriter& out) const {
  const auto& o = static_cast<const RMSpropOptions&>(options);
  out.real("lr", o.lr());
  out.real("momentum", o.momentum());
  out.real("alpha", o.alpha());
  out.real("eps", o.eps());
  out.flag("centered", o.centered());
  out.real("weight_decay", o.weight_decay());
  out.flag("maximize", false);
}

void RMSprop::read_options(detail::StateReader& in, OptimizerOptions& options) const {
  auto& o = static_cast<RMSpropOptions&>(options);
  o.lr(in.real("lr"));
  o.momentum(in.real("momentum"));
  o.alpha(in.real("alpha"));
  o.eps(in.real("eps"));
  o.centered(in.flag("centered"));
  o.weight_decay(in.real("weight_decay"));
  in.pytorch_flags();
  check_options(o);
}

void RMSprop::write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const {
  const auto& st = static_cast<const RMSpropParamState&>(state);
  out.step("step", st.step());
  out.tensor("square_avg", st.square_avg());
  out.tensor("momentum_buffer", st.momentum_buffer());
  out.tensor("grad_avg", st.grad_avg());
}

std::unique_ptr<OptimizerParamState> RMSprop::read_param_state(detail::StateReader& in,
                                                               const Tensor& param) const {
  auto st = std::make_unique<RMSpropParamState>();
  st->step(in.step("step"));
  st->square_avg(in.tensor("square_avg", param));
  // momentum_buffer and grad_avg only with momentum / centered; a later step starts them at 0
  if (in.has("momentum_buffer")) st->momentum_buffer(in.tensor("momentum_buffer", param));
  if (in.has("grad_avg")) st->grad_avg(in.tensor("grad_avg", param));
  return st;
}

}  // namespace optim
}  // namespace ember
