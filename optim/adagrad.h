// Adagrad (with learning-rate decay, weight decay and an initial accumulator value), as
// LibTorch's torch::optim::Adagrad with PyTorch's formulas. One fused op per group
// (adagrad_step); parameters are bucketed by step count for the decayed learning rate.
#pragma once

#include <cstdint>

#include <ember/optim/optimizer.h>

namespace ember {
namespace optim {

struct AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2);  // NOLINT: implicit, as LibTorch's
  EMBER_ARG(double, lr) = 1e-2;
  EMBER_ARG(double, lr_decay) = 0;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(double, initial_accumulator_value) = 0;
  EMBER_ARG(double, eps) = 1e-10;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

struct AdagradParamState : public OptimizerCloneableParamState<AdagradParamState> {
  EMBER_ARG(Tensor, sum);
  EMBER_ARG(int64_t, step) = 0;
};

class Adagrad : public Optimizer {
 public:
  // As LibTorch, the state (sum = initial_accumulator_value) is made here for every parameter.
  Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});
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
