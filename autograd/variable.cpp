// Tensor's autograd methods: requires_grad_, grad, grad_fn, is_leaf, retain_grad,
// register_hook/remove_hook, output_nr and _version.
#include <ember/autograd/accumulate_grad.h>
#include <ember/autograd/node.h>
#include <ember/core/checks.h>

namespace ember {

using autograd::AutogradMeta;
using autograd::meta_or_null;

Tensor& Tensor::requires_grad_(bool r) const {
  EMBER_CHECK(defined(), "requires_grad_: the tensor is undefined");
  EMBER_CHECK(!r || is_floating_point(),
              "requires_grad_: only floating-point tensors can require gradients, got dtype ",
              dtype());
  if (!is_leaf()) {
    EMBER_CHECK(r,
                "requires_grad_: you can only change requires_grad flags of leaf variables; "
                "to use a computed tensor in a subgraph that doesn't require differentiation, "
                "use detach()");
    return self_();
  }
  impl_->set_requires_grad(r);
  return self_();
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  EMBER_CHECK(defined(), "grad: the tensor is undefined");
  AutogradMeta* m = meta_or_null(*this);
  return m ? m->grad : undefined;
}

Tensor& Tensor::mutable_grad() const {
  EMBER_CHECK(defined(), "mutable_grad: the tensor is undefined");
  return autograd::get_meta(*this).grad;
}

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
  static const std::shared_ptr<autograd::Node> none;
  AutogradMeta* m = meta_or_null(*this);
  return m ? m->grad_fn : none;
}

bool Tensor::is_leaf() const {
  AutogradMeta* m = meta_or_null(*this);
  return !m || !m->grad_fn;
}

uint32_t Tensor::output_nr() const {
  AutogradMeta* m = meta_or_null(*this);
  return m ? m->output_nr : 0;
}

int64_t Tensor::_version() const {
  EMBER_CHECK(defined(), "_version: the tensor is undefined");
  return impl_->storage()->version();
}

void Tensor::retain_grad() const {
  EMBER_CHECK(defined() && requires_grad(),
              "retain_grad: can't retain_grad on a Tensor that has requires_grad=false");
  if (is_leaf()) return;  // leaves keep their grad anyway
  AutogradMeta& m = autograd::get_meta(*this);
  m.retains_grad = true;
  m.grad_fn->add_retained_grad(m.output_nr, impl_);
}

bool Tensor::retains_grad() const {
  AutogradMeta* m = meta_or_null(*this);
  return m && m->retains_grad;
}

unsigned Tensor::register_hook_impl(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(defined() && requires_grad(),
              "register_hook: cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = autograd::get_meta(*this);
  if (m.grad_fn) return m.grad_fn->add_tensor_pre_hook(m.output_nr, std::move(hook));
  const unsigned id = autograd::next_hook_id();
  m.leaf_hooks.emplace_back(id, std::move(hook));
  return id;
}

void Tensor::remove_hook(unsigned handle) const {
  AutogradMeta* m = meta_or_null(*this);
  EMBER_CHECK(m, "remove_hook: this tensor has no hooks");
  if (m->grad_fn && m->grad_fn->remove_tensor_pre_hook(handle)) return;
  for (auto it = m->leaf_hooks.begin(); it != m->leaf_hooks.end(); ++it) {
    if (it->first == handle) {
      m->leaf_hooks.erase(it);
      return;
    }
  }
  EMBER_THROW("remove_hook: no hook with handle ", handle, " on this tensor");
}

void Tensor::set_data(const Tensor& new_data) const {
  EMBER_CHECK(defined() && new_data.defined(), "set_data: both tensors must be defined");
  EMBER_CHECK(!requires_grad() || new_data.is_floating_point(),
              "set_data: a tensor that requires grad can't take data of dtype ", new_data.dtype());
  impl_->set_data(*new_data.impl_);
  // The leaf's AccumulateGrad caches its shape, dtype and device: rebuild it on next use.
  if (AutogradMeta* m = meta_or_null(*this)) m->grad_accumulator.reset();
}

}  // namespace ember
