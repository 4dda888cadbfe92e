// RMSprop (with weight decay, momentum and the centered variant), as LibTorch's
// torch::optim::RMSprop with PyTorch's formulas. One fused op per group (rmsprop_step).
#pragma once

#include <cstdint>

#include <ember/optim/optimizer.h>

namespace ember {
namespace optim {

struct RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2);  // NOLINT: implicit, as LibTorch's
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, alpha) = 0.99;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, momentum) = 0;
  EMBER_ARG(bool, centered) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

struct RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, square_avg);
  EMBER_ARG(Tensor, momentum_buffer);
  EMBER_ARG(Tensor, grad_avg);
};

class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});
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
