// AccumulateGrad: leaf hooks, then .grad() = new gradient (stolen when nobody else holds
// it, else cloned) or .grad() += gradient (in place unless building a graph).
#include <ember/autograd/accumulate_grad.h>

#include <ember/autograd/grad_mode.h>

namespace ember::autograd {

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  add_input_meta(variable_);
}

tensor_list AccumulateGrad::apply(tensor_list&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  AutogradMeta& m = get_meta(variable_);
  for (auto& hook : m.leaf_hooks) {
    Tensor r = hook.second(g);
    if (r.defined()) g = r;
  }
  if (!m.grad.defined()) {
    if (GradMode::is_enabled()) {
      m.grad = g;  // create_graph: keep the gradient's own history
    } else {
      // Steal a dense gradient that nothing else refers to; copy anything else (views,
      // broadcast gradients, tensors a hook or the user still holds).
      const bool stealable = g.use_count() == 1 && g.impl()->storage().use_count() == 1 &&
                             g.is_contiguous() && g.sizes().equals(variable_.sizes()) &&
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
  if (std::shared_ptr<Node> acc = m.grad_accumulator.lock()) return acc;
  // The accumulator holds an alias of the leaf: same impl, so .grad() lands on it.
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  m.grad_accumulator = acc;
  return acc;
}

}  // namespace ember::autograd
