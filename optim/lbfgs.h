// L-BFGS, as LibTorch's torch::optim::LBFGS (PyTorch's algorithm): one step runs up to max_iter
// quasi-Newton iterations through the closure, with an optional strong-Wolfe line search.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <ember/optim/optimizer.h>

namespace ember {
namespace optim {

struct LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1);  // NOLINT: implicit, as LibTorch's
  EMBER_ARG(double, lr) = 1;
  EMBER_ARG(int64_t, max_iter) = 20;
  // Function evaluations per step; LBFGS sets it to max_iter * 5 / 4 when left unset.
  EMBER_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  EMBER_ARG(double, tolerance_grad) = 1e-7;
  EMBER_ARG(double, tolerance_change) = 1e-9;
  EMBER_ARG(int64_t, history_size) = 100;
  // std::nullopt (fixed steps of lr) or "strong_wolfe".
  EMBER_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
};

// The optimizer's whole state, kept as the first parameter's (as LibTorch's).
struct LBFGSParamState : public OptimizerCloneableParamState<LBFGSParamState> {
  EMBER_ARG(int64_t, func_evals) = 0;
  EMBER_ARG(int64_t, n_iter) = 0;
  EMBER_ARG(double, t) = 0;
  EMBER_ARG(double, prev_loss) = 0;
  EMBER_ARG(Tensor, d);
  EMBER_ARG(Tensor, H_diag);
  EMBER_ARG(Tensor, prev_flat_grad);
  EMBER_ARG(std::deque<Tensor>, old_dirs);
  EMBER_ARG(std::deque<Tensor>, old_stps);
  EMBER_ARG(std::deque<Tensor>, ro);
  EMBER_ARG(std::optional<std::vector<Tensor>>, al) = std::nullopt;
};

class LBFGS : public Optimizer {
 public:
  // One parameter group only, as LibTorch's.
  LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});
  // Needs the closure (it re-evaluates the loss); returns the loss of its first evaluation.
  Tensor step(LossClosure closure) override;

 protected:
  void write_options(const OptimizerOptions& options, detail::StateWriter& out) const override;
  void read_options(detail::StateReader& in, OptimizerOptions& options) const override;
  void write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const override;
  std::unique_ptr<OptimizerParamState> read_param_state(detail::StateReader& in,
                                                        const Tensor& param) const override;

 private:
  void init_max_eval(const LBFGSOptions& defaults);
  Tensor gather_flat_grad();
  int64_t numel();
  void add_grad(double step_size, const Tensor& update);
  std::vector<Tensor> clone_param();
  void set_param(const std::vector<Tensor>& params_data);
  std::tuple<double, Tensor> directional_evaluate(const LossClosure& closure,
                                                  const std::vector<Tensor>& x, double t,
                                                  const Tensor& d);

  std::optional<int64_t> numel_cache_;
};

}  // namespace optim
}  // namespace ember
