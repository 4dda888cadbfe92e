// SGD::step: gathers the parameters that have gradients into fused sgd_step calls, one per
// (device, dtype) and for new versus existing momentum buffers.
#include <ember/optim/sgd.h>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/optim/state_dict.h>

namespace ember {
namespace optim {

namespace {
void check_options(const SGDOptions& o) {
  EMBER_CHECK(o.lr() >= 0, "SGD: invalid learning rate: ", o.lr());
  EMBER_CHECK(o.momentum() >= 0, "SGD: invalid momentum value: ", o.momentum());
  EMBER_CHECK(o.weight_decay() >= 0, "SGD: invalid weight_decay value: ", o.weight_decay());
  EMBER_CHECK(!o.nesterov() || (o.momentum() > 0 && o.dampening() == 0),
              "SGD: nesterov momentum requires a momentum and zero dampening");
}
}  // namespace

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  check_options(defaults);
}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : Optimizer(std::move(params), std::make_unique<SGDOptions>(defaults)) {
  check_options(defaults);
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    check_options(o);
    const bool momentum = o.momentum() != 0;
    batch_.reset(3);
    for (const Tensor& p : group.params()) {
      const Tensor& g = p.grad();
      if (!g.defined()) continue;
      detail::check_grad("SGD", p, g);
      if (!momentum) {
        batch_.add(0, {p, g});
        continue;
      }
      auto& slot = state_[p.unsafeGetTensorImpl()];
      if (!slot) {
        auto st = std::make_unique<SGDParamState>();
        // sgd_step's first step writes the buffer without reading it
        st->momentum_buffer(empty(p.sizes(), p.options()));
        batch_.add(1, {p, g, st->momentum_buffer()});
        slot = std::move(st);
        continue;
      }
      auto& st = static_cast<SGDParamState&>(*slot);
      if (!st.momentum_buffer().defined()) {
        st.momentum_buffer(empty(p.sizes(), p.options()));
        batch_.add(1, {p, g, st.momentum_buffer()});
        continue;
      }
      detail::match_param(st.momentum_buffer(), p);
      batch_.add(0, {p, g, st.momentum_buffer()});
    }
    SgdStepArgs args;
    args.lr = o.lr();
    args.momentum = o.momentum();
    args.dampening = o.dampening();
    args.weight_decay = o.weight_decay();
    args.nesterov = o.nesterov();
    for (const auto& b : batch_.buckets()) {
      args.first_step = b.tag == 1;
      native::sgd_step_(b.list(0), b.list(1), b.list(2), args);
    }
    batch_.finish();
  }
  return loss;
}

// ---- state dict: PyTorch's SGD keys ----

void SGD::write_options(const OptimizerOptions& options, detail::StateWriter& out) const {
  const auto& o = static_cast<const SGDOptions&>(options);
  out.real("lr", o.lr());
  out.real("momentum", o.momentum());
  out.real("dampening", o.dampening());
  out.real("weight_decay", o.weight_decay());
  out.flag("nesterov", o.nesterov());
  out.flag("maximize", false);
}

void SGD::read_options(detail::StateReader& in, OptimizerOptions& options) const {
  auto& o = static_cast<SGDOptions&>(options);
  o.lr(in.real("lr"));
  o.momentum(in.real("momentum"));
  o.dampening(in.real("dampening"));
  o.weight_decay(in.real("weight_decay"));
  o.nesterov(in.flag("nesterov"));
  in.pytorch_flags();
  check_options(o);
}

void SGD::write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const {
  out.tensor("momentum_buffer", static_cast<const SGDParamState&>(state).momentum_buffer());
}

std::unique_ptr<OptimizerParamState> SGD::read_param_state(detail::StateReader& in,
                                                           const Tensor& param) const {
  auto st = std::make_unique<SGDParamState>();
  // no buffer: the next step starts it from the gradient, as the first step does
  if (in.has("momentum_buffer")) st->momentum_buffer(in.tensor("momentum_buffer", param));
  return st;
}

}  // namespace optim
}  // namespace ember
