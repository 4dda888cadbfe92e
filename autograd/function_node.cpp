// FunctionNode (a named backward rule over saved tensors), the record helpers every
// op family uses, sum_to, and the in-place recording that rebases a tensor's history.
#include <ember/autograd/function_node.h>

#include <ember/core/checks.h>

namespace ember::autograd {

tensor_list FunctionNode::apply(tensor_list&& grads) { return rule_(*this, grads); }

void FunctionNode::release_variables() {
  for (SavedVariable& s : saved_) s.reset();
}

namespace {

// An op that returned one of its inputs unchanged still needs an output of its own.
Tensor fresh_output(const Tensor& out, TensorList inputs) {
  for (const Tensor& in : inputs) {
    if (in.defined() && out.is_same(in)) return shallow_alias(out);
  }
  return out;
}

}  // namespace

Tensor record(const char* name, const char* op, std::initializer_list<Tensor> inputs,
              const Tensor& out, std::initializer_list<Tensor> saves, FunctionNode::Rule rule,
              uint8_t flags) {
  TensorList in(inputs.begin(), inputs.size());
  Tensor result = fresh_output(out, in);
  auto node = std::make_shared<FunctionNode>(name, op, std::move(rule), flags);
  node->mutable_next_edges().reserve(inputs.size());
  for (const Tensor& t : inputs) node->add_edge(t);
  set_history(result, node);
  node->reserve_saved(saves.size());
  for (const Tensor& s : saves) node->save(s, s.is_same(result));
  return result;
}

std::shared_ptr<FunctionNode> record_node(const char* name, const char* op, TensorList inputs,
                                          TensorList outputs, TensorList saves,
                                          FunctionNode::Rule rule, uint8_t flags) {
  auto node = std::make_shared<FunctionNode>(name, op, std::move(rule), flags);
  node->mutable_next_edges().reserve(inputs.size());
  for (const Tensor& t : inputs) node->add_edge(t);
  for (const Tensor& o : outputs) {
    if (o.defined() && o.is_floating_point()) set_history(o, node);
  }
  for (const Tensor& s : saves) {
    bool is_output = false;
    for (const Tensor& o : outputs) is_output = is_output || (o.defined() && s.is_same(o));
    node->save(s, is_output);
  }
  return node;
}

Tensor sum_to(const Tensor& grad, IntArrayRef shape) {
  if (grad.sizes().equals(shape)) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  DimVector dims;
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1 && grad.sizes()[lead + i] != 1) dims.push_back(lead + i);
  }
  Tensor r = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  return lead > 0 ? r.view(shape) : r;
}

// ---- in place ----

void check_inplace(const char* op, const Tensor& self) {
  if (!GradMode::is_enabled()) return;
  AutogradMeta* m = meta_or_null(self);
  const bool leaf = !m || !m->grad_fn;
  EMBER_CHECK(!(leaf && self.requires_grad()), op,
              ": a leaf Variable that requires grad is being used in an in-place operation "
              "(wrap the update in a NoGradGuard, as optimizers do)");
  // PyTorch rebases the base's history too (CopySlices); ember does not, so a recorded
  // in-place op on a view would leave the base with a wrong gradient: refuse it.
  const bool view = self.unsafeGetTensorImpl()->is_view() || (!leaf && m->grad_fn->is_view());
  EMBER_CHECK(!view, op, ": in-place ops that autograd must record are not supported on a view ",
              "(the result of view, slice, select, transpose...) in ember; write the op out of "
              "place (cat, where, index ops) or clone() the view first");
}

Tensor& record_inplace(const char* op, Tensor& self, bool saves_self,
                       const std::function<Tensor(const Tensor& old)>& compute) {
  check_inplace(op, self);
  Tensor old = self;
  if (saves_self) {
    // A copy of the current value that keeps self's history: what backward will read.
    old = untracked([&] { return self.clone(); });
    if (AutogradMeta* m = meta_or_null(self); m && m->grad_fn) {
      AutogradMeta& om = get_meta(old);
      om.grad_fn = m->grad_fn;
      om.output_nr = m->output_nr;
      old.unsafeGetTensorImpl()->set_requires_grad(true);
    }
  }
  Tensor result = compute(old);
  EMBER_CHECK(result.sizes().equals(self.sizes()), op, ": output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", result.sizes());
  EMBER_CHECK(is_floating_point(self.dtype()) || !is_floating_point(result.dtype()), op,
              ": result type ", dtype_name(result.dtype()),
              " can't be cast to the desired output type ", dtype_name(self.dtype()));
  {
    NoGradGuard no_grad;
    self.copy_(result);
  }
  if (AutogradMeta* rm = meta_or_null(result); rm && rm->grad_fn) {
    AutogradMeta& m = get_meta(self);
    m.grad_fn = rm->grad_fn;
    m.output_nr = rm->output_nr;
    self.unsafeGetTensorImpl()->set_requires_grad(true);
  }
  return self;
}

}  // namespace ember::autograd
