// AdamW: Adam with decoupled weight decay (the parameter shrinks by lr * weight_decay before
// the Adam update), as LibTorch's torch::optim::AdamW. Same fused op as Adam (adam_step).
#pragma once

#include <cstdint>
#include <tuple>

#include <ember/optim/optimizer.h>

namespace ember {
namespace optim {

struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3);  // NOLINT: implicit, as LibTorch's
  EMBER_ARG(double, lr) = 1e-3;
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 1e-2;
  EMBER_ARG(bool, amsgrad) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

struct AdamWParamState : public OptimizerCloneableParamState<AdamWParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);
  EMBER_ARG(Tensor, max_exp_avg_sq);
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void write_options(const OptimizerOptions& options, detail::StateWriter& out) const override;
  void read_options(detail::StateReader& in, OptimizerOptions& options) const override;
  void write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const override;
  std::unique_ptr<OptimizerParamState> read_param_state(detail::StateReader& in,
                                                        const Tensor& param) const override;

 private:
  detail::FusedBatch batch_;
};

}  // namespace optim
}  // namespace ember
