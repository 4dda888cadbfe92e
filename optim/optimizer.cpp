// The optimizer base: parameter groups, the state map, zero_grad, and the FusedBatch that
// gathers each step's operands into per-(device, dtype) lists for the fused kernels.
#include <ember/optim/optimizer.h>

#include <unordered_set>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/cuda/graph.h>

namespace ember {
namespace optim {

// ---- options, state ----

std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  return std::make_unique<OptimizerOptions>(*this);
}

double OptimizerOptions::get_lr() const {
  EMBER_THROW("OptimizerOptions::get_lr: these options have no learning rate");
}

void OptimizerOptions::set_lr(double) {
  EMBER_THROW("OptimizerOptions::set_lr: these options have no learning rate");
}

std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  return std::make_unique<OptimizerParamState>(*this);
}

// ---- param groups ----

OptimizerParamGroup::OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}

OptimizerParamGroup::OptimizerParamGroup(std::vector<Tensor> params,
                                         std::unique_ptr<OptimizerOptions> options)
    : params_(std::move(params)), options_(std::move(options)) {}

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.has_options() ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(has_options(), "OptimizerParamGroup::options: the group has no options");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  EMBER_CHECK(has_options(), "OptimizerParamGroup::options: the group has no options");
  return *options_;
}

// ---- Optimizer ----

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  EMBER_CHECK(defaults_ != nullptr, "Optimizer: the default options are null");
  for (const auto& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))},
                std::move(defaults)) {}

Optimizer::Optimizer(Optimizer&& other) noexcept
    : param_groups_(std::move(other.param_groups_)),
      state_(std::move(other.state_)),
      defaults_(std::move(other.defaults_)),
      handle_(std::move(other.handle_)) {
  if (handle_) *handle_ = this;
}

Optimizer& Optimizer::operator=(Optimizer&& other) noexcept {
  if (this == &other) return *this;
  if (handle_) *handle_ = nullptr;  // graphs that captured this optimizer's old state
  param_groups_ = std::move(other.param_groups_);
  state_ = std::move(other.state_);
  defaults_ = std::move(other.defaults_);
  handle_ = std::move(other.handle_);
  if (handle_) *handle_ = this;
  return *this;
}

Optimizer::~Optimizer() {
  if (handle_) *handle_ = nullptr;
}

const std::shared_ptr<Optimizer*>& Optimizer::handle() {
  if (!handle_) handle_ = std::make_shared<Optimizer*>(this);
  return handle_;
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& group : param_groups_)
    for (const auto& p : group.params()) seen.insert(p.unsafeGetTensorImpl());
  for (size_t i = 0; i < param_group.params().size(); ++i) {
    const Tensor& p = param_group.params()[i];
    EMBER_CHECK(p.defined(), "add_param_group: parameter ", i, " is an undefined tensor");
    EMBER_CHECK(p.is_leaf(), "add_param_group: parameter ", i,
                " is not a leaf tensor (can't optimize a non-leaf Tensor)");
    EMBER_CHECK(seen.insert(p.unsafeGetTensorImpl()).second, "add_param_group: parameter ", i,
                " appears more than once (some parameters appear in more than one parameter "
                "group)");
  }
  OptimizerParamGroup group(param_group.params(), param_group.has_options()
                                                      ? param_group.options().clone()
                                                      : defaults_->clone());
  param_groups_.push_back(std::move(group));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!param_groups_.empty(), "add_parameters: the optimizer has no parameter group");
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& group : param_groups_)
    for (const auto& p : group.params()) seen.insert(p.unsafeGetTensorImpl());
  for (const Tensor& p : parameters) {
    EMBER_CHECK(p.defined() && seen.insert(p.unsafeGetTensorImpl()).second,
                "add_parameters: a parameter is undefined or already in the optimizer");
  }
  auto& params = param_groups_[0].params();
  params.insert(params.end(), parameters.begin(), parameters.end());
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& group : param_groups_) {
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;  // grad() creates no autograd metadata
      Tensor& g = p.mutable_grad();
      if (set_to_none) {
        g = Tensor();
      } else {
        g.detach_();
        g.zero_();
      }
    }
  }
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept {
  static const std::vector<Tensor> none;
  return param_groups_.empty() ? none : param_groups_[0].params();
}

std::vector<Tensor>& Optimizer::parameters() noexcept {
  static std::vector<Tensor> none;
  return param_groups_.empty() ? none : param_groups_[0].params();
}

size_t Optimizer::size() const noexcept {
  size_t n = 0;
  for (const auto& group : param_groups_) n += group.params().size();
  return n;
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return Tensor();
  EnableGradGuard enable;
  return closure();
}

// ---- fused batches ----

namespace detail {

void FusedBatch::reset(int num_lists) {
  EMBER_CHECK(num_lists >= 2 && num_lists <= kMaxLists, "FusedBatch: ", num_lists, " lists");
  num_lists_ = num_lists;
  for (size_t b = 0; b < used_; ++b)
    for (auto& list : buckets_[b].lists) list.clear();
  used_ = 0;
  write_back_.clear();
}

void FusedBatch::add(int64_t tag, std::initializer_list<Tensor> ops) {
  const Tensor& param = *ops.begin();
  Bucket* bucket = nullptr;
  for (size_t b = 0; b < used_; ++b) {
    Bucket& c = buckets_[b];
    if (c.tag == tag && c.dtype == param.dtype() && c.device == param.device()) {
      bucket = &c;
      break;
    }
  }
  if (bucket == nullptr) {
    if (used_ == buckets_.size()) buckets_.emplace_back();
    bucket = &buckets_[used_++];
    bucket->tag = tag;
    bucket->dtype = param.dtype();
    bucket->device = param.device();
  }
  int k = 0;
  for (const Tensor& t : ops) {
    if (k >= num_lists_) break;
    if (!t.defined()) {  // a state list this option does not use
      ++k;
      continue;
    }
    if (__builtin_expect(t.is_contiguous(), 1)) {
      bucket->lists[k].push_back(t);
    } else if (k == 1) {  // the gradient is only read
      bucket->lists[k].push_back(t.contiguous());
    } else {
      Tensor copy = t.contiguous();
      write_back_.emplace_back(t, copy);
      bucket->lists[k].push_back(std::move(copy));
    }
    ++k;
  }
}

void FusedBatch::finish() {
  for (auto& [original, copy] : write_back_) original.copy_(copy);
  write_back_.clear();
}

void refuse_capture(const char* who) {
  EMBER_CHECK(!cuda::is_current_stream_capturing(), who,
              ".step: cannot be captured in a CUDA graph: its update depends on the step count, "
              "which a replay would not advance (SGD, RMSprop, Adam and AdamW can be captured)");
}

void check_grad(const char* who, const Tensor& param, const Tensor& grad) {
  EMBER_CHECK(param.is_floating_point() && (param.dtype() == kFloat32 || param.dtype() == kFloat64),
              who, ": parameters must be float32 or float64, got ", param.dtype());
  EMBER_CHECK(grad.sizes().equals(param.sizes()) && grad.dtype() == param.dtype() &&
                  grad.device() == param.device(),
              who, ": a parameter of shape ", param.sizes(), " (", param.dtype(), ", ",
              param.device(), ") has a gradient of shape ", grad.sizes(), " (", grad.dtype(), ", ",
              grad.device(), ")");
}

Tensor zeros_state(const Tensor& param) { return zeros(param.sizes(), param.options()); }

}  // namespace detail

}  // namespace optim
}  // namespace ember
