// Backward rules of mm, bmm and addmm, and matmul / linear as compositions of public ops
// (so that every 1-D..N-D case, broadcast batch dims included, records its graph).
#include <ember/autograd/recorders.h>

#include <algorithm>
#include <utility>

#include <ember/autograd/function_node.h>
#include <ember/core/native.h>

namespace ember::autograd::recorded {

namespace {
inline Tensor if_needed(const Tensor& keep, const Tensor& other) {
  return needs_grad(other) ? keep : Tensor();
}

// A 2-D matrix stored column-major: a transposed contiguous tensor, such as linear's W.t().
inline bool column_major(const Tensor& t) {
  return t.dim() == 2 && t.size(0) > 1 && t.size(1) > 1 && t.stride(0) == 1 &&
         t.stride(1) == t.size(0);
}

// The gradients of a @ b laid out as the inputs are, as PyTorch's mm_mat1/mat2_backward: a
// column-major input gets a column-major gradient, so that linear's weight, used as W.t(),
// receives a contiguous gradient (AccumulateGrad then keeps it without a copy, and the
// optimizer reads it directly). The product costs the same either way.
inline Tensor grad_mat1(const Tensor& g, const Tensor& b, bool a_column_major) {
  return a_column_major ? b.mm(g.t()).t() : g.mm(b.t());
}
inline Tensor grad_mat2(const Tensor& g, const Tensor& a, bool b_column_major) {
  return b_column_major ? g.t().mm(a).t() : a.t().mm(g);
}
}  // namespace

// d(a @ b) = g @ b^T, a^T @ g
Tensor mm(const Tensor& a, const Tensor& b) {
  Tensor out = untracked([&] { return ember::mm(a, b); });
  const bool a_cm = column_major(a), b_cm = column_major(b);
  return record("MmBackward0", "mm", {a, b}, out, {if_needed(a, b), if_needed(b, a)},
                [a_cm, b_cm](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {
                      n.should_compute_output(0) ? grad_mat1(g[0], n.saved(1), a_cm) : Tensor(),
                      n.should_compute_output(1) ? grad_mat2(g[0], n.saved(0), b_cm) : Tensor()};
                });
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  Tensor out = untracked([&] { return ember::bmm(a, b); });
  return record("BmmBackward0", "bmm", {a, b}, out, {if_needed(a, b), if_needed(b, a)},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {
                      n.should_compute_output(0) ? g[0].bmm(n.saved(1).transpose(1, 2)) : Tensor(),
                      n.should_compute_output(1) ? n.saved(0).transpose(1, 2).bmm(g[0]) : Tensor()};
                });
}

// out = beta * self + alpha * mat1 @ mat2; self's gradient is summed to its shape by the
// engine.
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  Tensor out = untracked([&] { return ember::addmm(self, mat1, mat2, beta, alpha); });
  const bool a_cm = column_major(mat1), b_cm = column_major(mat2);
  // linear's layer on CUDA (a 1-D bias, W.t()): the weight and bias gradients in one kernel
  // (cuBLASLt's BGRADB) in a plain backward; under create_graph, and on the CPU, mm and the
  // engine's sum (the CPU's rounding as it always was).
  const bool linear_layer =
      beta.equal(1) && alpha.equal(1) && b_cm && self.dim() == 1 && self.device().type() == kCUDA;
  return record("AddmmBackward0", "addmm", {self, mat1, mat2}, out,
                {if_needed(mat1, mat2), if_needed(mat2, mat1)},
                [beta, alpha, a_cm, b_cm, linear_layer](FunctionNode& n,
                                                        const tensor_list& g) -> tensor_list {
                  tensor_list r(3);
                  if (linear_layer && !GradMode::is_enabled() && n.should_compute_output(0) &&
                      n.should_compute_output(2) && g[0].dim() == 2 && g[0].is_contiguous() &&
                      n.saved(0).is_contiguous() && g[0].numel() > 0 &&
                      g[0].dtype() == n.saved(0).dtype()) {
                    auto [grad_w, grad_b] = native::linear_weight_bias_grad(g[0], n.saved(0));
                    r[0] = std::move(grad_b);
                    r[2] = grad_w.t();
                    if (n.should_compute_output(1)) r[1] = grad_mat1(g[0], n.saved(1), a_cm);
                    return r;
                  }
                  if (n.should_compute_output(0)) r[0] = beta.equal(1) ? g[0] : g[0] * beta;
                  if (n.should_compute_output(1)) {
                    r[1] = grad_mat1(g[0], n.saved(1), a_cm);
                    if (!alpha.equal(1)) r[1] = r[1] * alpha;
                  }
                  if (n.should_compute_output(2)) {
                    r[2] = grad_mat2(g[0], n.saved(0), b_cm);
                    if (!alpha.equal(1)) r[2] = r[2] * alpha;
                  }
                  return r;
                });
}

}  // namespace ember::autograd::recorded
