// The optimizer base, as LibTorch's torch::optim::Optimizer: parameter groups with their own
// options, per-parameter state keyed by the parameter's TensorImpl, step(closure), zero_grad,
// and state_dict()/load_state_dict() in PyTorch's layout (state_dict.cpp). Concrete optimizers
// (sgd.h, adam.h, adamw.h, rmsprop.h, adagrad.h, lbfgs.h) derive from it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/arg.h>
#include <ember/nn/ordered_dict.h>

namespace ember {
namespace optim {

// An optimizer's or scheduler's state as a flat map of tensors, PyTorch's nested state_dict()
// with the levels joined by dots (docs/optim.md, "Saving and resuming"):
// "state.<param index>.<buffer>" and "param_groups.<group>.<option>". ember::save writes it as
// a safetensors file.
using StateDict = OrderedDict<std::string, Tensor>;

namespace detail {
class StateWriter;  // state_dict.h
class StateReader;
}  // namespace detail

// Options of a parameter group; each optimizer's options (SGDOptions...) derive from it.
class OptimizerOptions {
 public:
  OptimizerOptions() = default;
  OptimizerOptions(const OptimizerOptions&) = default;
  OptimizerOptions& operator=(const OptimizerOptions&) = default;
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  virtual double get_lr() const;
  virtual void set_lr(double lr);
  // Plain reads and writes of the learning rate through the base (schedulers use these).
  double lr() const { return get_lr(); }
  void lr(double new_lr) { set_lr(new_lr); }
};

// CRTP helper: clone() for an options struct that is copyable.
template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// Per-parameter state (momentum buffers, moments...); each optimizer derives its own.
class OptimizerParamState {
 public:
  OptimizerParamState() = default;
  OptimizerParamState(const OptimizerParamState&) = default;
  OptimizerParamState& operator=(const OptimizerParamState&) = default;
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const;
};

template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// Parameters that share options. Without options of its own, a group takes the optimizer's
// defaults when it is added.
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params);  // NOLINT: implicit, as LibTorch's
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options);
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;
  using StateMap = std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>;

  Optimizer(std::vector<OptimizerParamGroup> param_groups,
            std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&& other) noexcept;
  Optimizer& operator=(Optimizer&& other) noexcept;
  virtual ~Optimizer();

  // One update of every parameter that has a gradient. The closure, when given, is called
  // first with grad mode on (it re-evaluates the loss); its result is returned.
  virtual Tensor step(LossClosure closure = nullptr) = 0;

  // Adds a group; one without options gets a copy of the defaults. A parameter may be in
  // one group only.
  void add_param_group(const OptimizerParamGroup& param_group);
  // Appends parameters to the first group.
  void add_parameters(const std::vector<Tensor>& parameters);
  // set_to_none (the default, as in PyTorch 2): drops the gradients; otherwise zeroes them.
  void zero_grad(bool set_to_none = true);

  // The first group's parameters, as LibTorch's.
  const std::vector<Tensor>& parameters() const noexcept;
  std::vector<Tensor>& parameters() noexcept;
  size_t size() const noexcept;  // parameters in all groups

  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  // State by p.unsafeGetTensorImpl(); filled lazily by step().
  StateMap& state() noexcept { return state_; }
  const StateMap& state() const noexcept { return state_; }

  // PyTorch's optimizer.state_dict(), flattened: "state.<i>.<name>" for parameter i's buffers
  // and step count (parameters numbered across the groups in order), and
  // "param_groups.<g>.<option>" (0-dim tensors; betas a 1-D tensor of two) with
  // "param_groups.<g>.params" the group's parameter indices. The state tensors are the live
  // ones (not copies), as PyTorch's.
  StateDict state_dict() const;
  // Replaces the groups' options and the state with copies of the dict's (moved to each
  // parameter's device and dtype). Throws ember::Error naming what differs (group count, a
  // group's parameter count, a buffer's shape, a missing or unexpected key) and then changes
  // nothing.
  void load_state_dict(const StateDict& state_dict);
  void load_state_dict(const std::map<std::string, Tensor>& state_dict);

  // A cell that holds this optimizer's address while it lives (a move updates it, destruction
  // clears it): a CUDA graph that captured the optimizer's step holds it to reach the
  // optimizer at each replay (optim/adam.cpp).
  const std::shared_ptr<Optimizer*>& handle();

 protected:
  // state_dict support, per optimizer (the defaults throw: the optimizer has none). The
  // writers get the group's options or a parameter's state; read_options fills a copy of the
  // group's options, read_param_state makes a parameter's state (shapes checked against it).
  virtual void write_options(const OptimizerOptions& options, detail::StateWriter& out) const;
  virtual void read_options(detail::StateReader& in, OptimizerOptions& options) const;
  virtual void write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const;
  virtual std::unique_ptr<OptimizerParamState> read_param_state(detail::StateReader& in,
                                                                const Tensor& param) const;

  // Runs the closure (if any) with grad mode on.
  static Tensor run_closure(const LossClosure& closure);

  std::vector<OptimizerParamGroup> param_groups_;
  StateMap state_;
  std::unique_ptr<OptimizerOptions> defaults_;

 private:
  std::shared_ptr<Optimizer*> handle_;  // made by handle() on first use
};

namespace detail {

// Operands of one fused optimizer op (core/ops.def's *_step), bucketed so that every kernel
// call gets tensors of one device and dtype and one `tag` (e.g. Adam's step count, SGD's
// first step). Non-contiguous operands are replaced by contiguous copies that finish() writes
// back; gradients (read only) just become contiguous. Reused across steps: no reallocation.
class FusedBatch {
 public:
  static constexpr int kMaxLists = 5;
  struct Bucket {
    Device device{kCPU};
    ScalarType dtype = kFloat32;
    int64_t tag = 0;
    std::vector<Tensor> lists[kMaxLists];
    TensorList list(int k) const { return lists[k]; }
  };

  // Starts a new step for an op with `num_lists` lists (param, grad, state...).
  void reset(int num_lists);
  // `ops` = param, grad, then the state tensors; unused state lists pass undefined tensors.
  void add(int64_t tag, std::initializer_list<Tensor> ops);
  // The buckets of this step (earlier steps' spare buckets are kept for reuse).
  ArrayRef<Bucket> buckets() const { return ArrayRef<Bucket>(buckets_.data(), used_); }
  // Writes the contiguous copies back into the non-contiguous originals.
  void finish();

 private:
  int num_lists_ = 0;
  size_t used_ = 0;  // buckets_[0, used_) are live this step
  std::vector<Bucket> buckets_;
  std::vector<std::pair<Tensor, Tensor>> write_back_;  // (original, contiguous copy)
};

// Checks that a parameter's gradient can update it (same shape, dtype and device, floating
// point); `who` names the optimizer in the error.
void check_grad(const char* who, const Tensor& param, const Tensor& grad);
// Refuses a step inside a CUDA graph capture for optimizers whose update depends on a host-side
// step count that a graph would freeze (Adagrad's lr decay; Adam's is rewritten per replay).
void refuse_capture(const char* who);
// Moves a state tensor to the parameter's device and dtype when it is not there already
// (after Module::to moved the parameters under the optimizer).
inline void match_param(Tensor& state, const Tensor& param) {
  if (state.defined() && (state.device() != param.device() || state.dtype() != param.dtype())) {
    state = state.to(param.device(), param.dtype());
  }
}
// A zero-filled contiguous tensor like the parameter (state tensors are always contiguous).
Tensor zeros_state(const Tensor& param);

}  // namespace detail

}  // namespace optim
}  // namespace ember
