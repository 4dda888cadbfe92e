// Backward rules of the elementwise ops (arithmetic, unary math, clamp, where,
// masked_fill) and their in-place forms, written with ember's own ops.
#include <ember/autograd/grad_elementwise.h>

#include <ember/autograd/function_node.h>

namespace ember::autograd::recorded {

namespace {
// Saved only when the other input needs a gradient that uses it.
inline Tensor if_needed(const Tensor& keep, const Tensor& other) {
  return needs_grad(other) ? keep : Tensor();
}
}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  Tensor out = untracked([&] { return ember::add(a, b, alpha); });
  return record("AddBackward0", "add", {a, b}, out, {},
                [alpha](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {g[0], n.should_compute_output(1) ? g[0] * alpha : Tensor()};
                });
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = untracked([&] { return ember::mul(a, b); });
  return record("MulBackward0", "mul", {a, b}, out, {if_needed(a, b), if_needed(b, a)},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {n.should_compute_output(0) ? g[0] * n.saved(1) : Tensor(),
                          n.should_compute_output(1) ? g[0] * n.saved(0) : Tensor()};
                });
}

}  // namespace ember::autograd::recorded
