// AdamW::step: Adam's group step (adam.cpp) with decoupled weight decay.
#include <ember/optim/adamw.h>

#include <ember/core/grad_mode.h>
#include <ember/optim/adam.h>
#include <ember/optim/state_dict.h>

namespace ember {
namespace optim {

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  detail::check_adam_options("AdamW", defaults.lr(), std::get<0>(defaults.betas()),
                             std::get<1>(defaults.betas()), defaults.eps(),
                             defaults.weight_decay());
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
            std::move(defaults)) {}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& o = static_cast<const AdamWOptions&>(group.options());
    const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
    detail::check_adam_options("AdamW", o.lr(), beta1, beta2, o.eps(), o.weight_decay());
    detail::adam_group_step<AdamWParamState>(
        "AdamW", group, *this, {o.lr(), beta1, beta2, o.eps(), o.weight_decay(), o.amsgrad(), true},
        batch_);
  }
  return loss;
}

void AdamW::write_options(const OptimizerOptions& options, detail::StateWriter& out) const {
  detail::write_adam_options(static_cast<const AdamWOptions&>(options), out);
}

void AdamW::read_options(detail::StateReader& in, OptimizerOptions& options) const {
  detail::read_adam_options("AdamW", in, static_cast<AdamWOptions&>(options));
}

void AdamW::write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const {
  detail::write_adam_state(static_cast<const AdamWParamState&>(state), out);
}

std::unique_ptr<OptimizerParamState> AdamW::read_param_state(detail::StateReader& in,
                                                             const Tensor& param) const {
  return detail::read_adam_state<AdamWParamState>(in, param);
}

}  // namespace optim
}  // namespace ember
