// Custom functions: IValue conversions, AutogradContext, and the node that runs a user's
// static backward (argument bookkeeping, output history, dirty and non-differentiable outputs).
#include <ember/autograd/function.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>

namespace ember::autograd {

// ---- IValue ----

const char* IValue::kind() const {
  static const char* names[] = {"None", "bool", "int", "double", "string", "int list", "Tensor"};
  return names[v_.index()];
}

#define EMBER_IVALUE_GET(T, what)                  \
  if (const T* p = std::get_if<T>(&v_)) return *p; \
  EMBER_THROW("IValue: expected " what " but the saved value is ", kind())

bool IValue::toBool() const { EMBER_IVALUE_GET(bool, "a bool"); }
int64_t IValue::toInt() const { EMBER_IVALUE_GET(int64_t, "an int"); }
double IValue::toDouble() const {
  if (const int64_t* p = std::get_if<int64_t>(&v_)) return static_cast<double>(*p);
  EMBER_IVALUE_GET(double, "a double");
}
const std::string& IValue::toStringRef() const { EMBER_IVALUE_GET(std::string, "a string"); }
std::vector<int64_t> IValue::toIntVector() const {
  EMBER_IVALUE_GET(std::vector<int64_t>, "an int list");
}
Tensor IValue::toTensor() const { EMBER_IVALUE_GET(Tensor, "a Tensor"); }
#undef EMBER_IVALUE_GET

// ---- AutogradContext ----

void AutogradContext::save_for_backward(tensor_list to_save) { to_save_ = std::move(to_save); }

tensor_list AutogradContext::get_saved_variables() const {
  EMBER_CHECK(node_, "get_saved_variables: the context has no node");
  tensor_list out;
  out.reserve(saved_.size());
  for (const SavedVariable& s : saved_) out.push_back(s.unpack(node_));
  return out;
}

void AutogradContext::mark_dirty(const tensor_list& inputs) {
  for (const Tensor& t : inputs) dirty_.push_back(t.impl());
}

void AutogradContext::mark_non_differentiable(const tensor_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.push_back(t.impl());
}

bool AutogradContext::needs_input_grad(size_t index) const {
  EMBER_CHECK(node_, "needs_input_grad: the context has no node");
  const auto& is_tensor = node_->is_tensor_arg_;
  EMBER_CHECK(index < is_tensor.size(), "needs_input_grad: index ", index, " out of range for ",
              is_tensor.size(), " arguments");
  if (!is_tensor[index]) return false;
  size_t edge = static_cast<size_t>(std::count(is_tensor.begin(), is_tensor.begin() + index, true));
  return node_->should_compute_output(edge);
}

// ---- CustomFunctionNode ----

namespace {
std::string demangle(const char* name) {
  int status = 0;
  char* s = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && s ? s : name;
  std::free(s);
  return out;
}

bool contains(const std::vector<std::shared_ptr<TensorImpl>>& v, const Tensor& t) {
  return std::find(v.begin(), v.end(), t.impl()) != v.end();
}
}  // namespace

CustomFunctionNode::CustomFunctionNode(const std::type_info& type) : name_(demangle(type.name())) {
  ctx.node_ = this;
}

void CustomFunctionNode::begin(const tensor_list& tensor_args, std::vector<bool> is_tensor) {
  is_tensor_arg_ = std::move(is_tensor);
  next_edges_.reserve(tensor_args.size());
  for (const Tensor& t : tensor_args) next_edges_.push_back(gradient_edge(t));
}

void CustomFunctionNode::finish(const tensor_list& tensor_args, tensor_list& outputs, bool record) {
  // The marks are only needed here. Kept in the context, a dirty input (whose grad_fn
  // becomes this node) would hold the node that holds it: a reference cycle.
  const auto dirty_marks = std::move(ctx.dirty_);
  const auto non_differentiable = std::move(ctx.non_differentiable_);
  ctx.dirty_.clear();
  ctx.non_differentiable_.clear();
  for (Tensor& out : outputs) {
    if (!out.defined()) continue;
    const bool is_input = std::any_of(tensor_args.begin(), tensor_args.end(),
                                      [&](const Tensor& in) { return in.is_same(out); });
    const bool dirty = contains(dirty_marks, out);
    if (dirty) {
      check_inplace(name_.c_str(), out);
    } else if (is_input) {
      out = shallow_alias(out);  // returned unchanged: an output of its own
    }
    if (!record) continue;
    if (contains(non_differentiable, out) || !out.is_floating_point()) {
      add_input_meta(out);  // keeps slot numbers aligned with outputs
      continue;
    }
    set_history(out, shared_from_this());
  }
  for (const Tensor& s : ctx.to_save_) {
    const bool is_output = std::any_of(outputs.begin(), outputs.end(), [&](const Tensor& o) {
      return o.defined() && o.is_same(s);
    });
    ctx.saved_.emplace_back(s, is_output && record);
  }
  ctx.to_save_.clear();
  if (!record) next_edges_.clear();
}

tensor_list CustomFunctionNode::apply(tensor_list&& grads) {
  tensor_list result = call_backward(std::move(grads));
  const size_t nargs = is_tensor_arg_.size();
  // More gradients than arguments are fine when the extra ones are undefined (those of
  // defaulted arguments the call left out): they are dropped, as LibTorch does.
  if (result.size() > nargs &&
      std::none_of(result.begin() + static_cast<std::ptrdiff_t>(nargs), result.end(),
                   [](const Tensor& g) { return g.defined(); })) {
    result.resize(nargs);
  }
  EMBER_CHECK(result.size() >= num_outputs(), name_,
              ": function backward returned an incorrect number of gradients (expected ", nargs,
              ", got ", result.size(), ")");
  if (result.size() == num_outputs()) return result;
  EMBER_CHECK(result.size() == nargs, name_,
              ": function backward returned an incorrect number of gradients (expected ", nargs,
              ", got ", result.size(), ")");
  tensor_list per_tensor;
  for (size_t i = 0; i < nargs; ++i) {
    if (is_tensor_arg_[i]) {
      per_tensor.push_back(std::move(result[i]));
    } else {
      EMBER_CHECK(!result[i].defined(), name_, ": function backward returned a gradient for ",
                  "argument ", i, ", which is not a Tensor; return an undefined Tensor() there");
    }
  }
  return per_tensor;
}

void CustomFunctionNode::release_variables() {
  for (SavedVariable& s : ctx.saved_) s.reset();
}

}  // namespace ember::autograd
