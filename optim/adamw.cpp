// AdamW::step: Adam's group step (adam.cpp) with decoupled weight decay.
#include <ember/optim/adamw.h>

#include <ember/core/grad_mode.h>
#include <ember/optim/adam.h>

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
        "AdamW", group, state_,
        {o.lr(), beta1, beta2, o.eps(), o.weight_decay(), o.amsgrad(), true}, batch_);
  }
  return loss;
}

}  // namespace optim
}  // namespace ember
