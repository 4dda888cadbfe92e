// AccumulateGrad: leaf hooks, then .grad() = new gradient (stolen when nobody else holds
// it, else cloned) or .grad() += gradient (in place unless building a graph).
#include <ember/autograd/accumulate_grad.h>

#include <ember/core/grad_mode.h>

namespace ember::autograd {

AccumulateGrad::AccumulateGrad(const Tensor& variable) : variable_(variable.impl()) {
  add_input_meta(variable);
}

tensor_list AccumulateGrad::apply(tensor_list&& grads) {
  Tensor g = std::move(grads[0]);
  const Tensor variable(variable_.lock());
  if (!g.defined() || !variable.defined()) return {};
  AutogradMeta& m = get_meta(variable);
  for (auto& hook : m.leaf_hooks) {
    Tensor r = hook.second(g);
    if (!r.defined()) continue;
    EMBER_CHECK(r.sizes().equals(g.sizes()), "register_hook: a hook on a leaf of shape ",
                variable.sizes(), " returned a gradient of shape ", r.sizes(), " for one of shape ",
                g.sizes());
    g = r;
  }
  if (!m.grad.defined()) {
    if (GradMode::is_enabled()) {
      m.grad = g;  // create_graph: keep the gradient's own history
    } else {
      // Steal a dense gradient that nothing else refers to; copy anything else (views,
      // broadcast gradients, tensors a hook or the user still holds).
      const bool stealable = g.use_count() == 1 && g.impl()->storage().use_count() == 1 &&
                             g.is_contiguous() && g.sizes().equals(variable.sizes()) &&
                             !g.requires_grad();
      m.grad = stealable ? g : g.detach().clone();
    }
  } else if (GradMode::is_enabled()) {
    m.grad = m.grad + g;
  } else {
    m.grad.add_(g);
  }
  return {};
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& m = get_meta(leaf);
  if (!m.grad_accumulator) m.grad_accumulator = std::make_shared<AccumulateGrad>(leaf);
  return m.grad_accumulator;
}

}  // namespace ember::autograd
