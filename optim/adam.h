// Adam (with optional L2 weight decay and AMSGrad), as LibTorch's torch::optim::Adam with
// PyTorch's formulas. Every parameter of a group updates in one fused op (core/ops.def
// adam_step); the step count and bias corrections stay on the host.
#pragma once

#include <cstdint>
#include <tuple>

#include <ember/optim/optimizer.h>

namespace ember {
namespace optim {

struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3);  // NOLINT: implicit, as LibTorch's
  EMBER_ARG(double, lr) = 1e-3;
  using betas_t = std::tuple<double, double>;
  EMBER_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(double, weight_decay) = 0;
  EMBER_ARG(bool, amsgrad) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

struct AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  EMBER_ARG(int64_t, step) = 0;
  EMBER_ARG(Tensor, exp_avg);
  EMBER_ARG(Tensor, exp_avg_sq);
  EMBER_ARG(Tensor, max_exp_avg_sq);
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  Adam(std::vector<Tensor> params, AdamOptions defaults = {});
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

namespace detail {
// One Adam/AdamW step of a group (adam.cpp; State is AdamParamState or AdamWParamState).
struct AdamHyper {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, decoupled_weight_decay;
};
template <class State>
void adam_group_step(const char* who, OptimizerParamGroup& group, Optimizer& opt,
                     const AdamHyper& h, FusedBatch& batch);
void check_adam_options(const char* who, double lr, double beta1, double beta2, double eps,
                        double weight_decay);
// Adam's and AdamW's state dict entries (PyTorch's keys; Options is AdamOptions or
// AdamWOptions, State AdamParamState or AdamWParamState).
template <class Options>
void write_adam_options(const Options& o, StateWriter& out);
template <class Options>
void read_adam_options(const char* who, StateReader& in, Options& o);
template <class State>
void write_adam_state(const State& st, StateWriter& out);
template <class State>
std::unique_ptr<State> read_adam_state(StateReader& in, const Tensor& param);
}  // namespace detail

}  // namespace optim
}  // namespace ember
