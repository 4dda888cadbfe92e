// Backward rules of mm, bmm and addmm, and matmul / linear as compositions of public ops
// (so that every 1-D..N-D case, broadcast batch dims included, records its graph).
#include <ember/autograd/grad_linalg.h>

#include <algorithm>

#include <ember/autograd/function_node.h>

namespace ember::autograd::recorded {

namespace {
inline Tensor if_needed(const Tensor& keep, const Tensor& other) {
  return needs_grad(other) ? keep : Tensor();
}
inline bool is_one(const Scalar& s) { return s.toDouble() == 1.0; }
}  // namespace

// d(a @ b) = g @ b^T, a^T @ g
Tensor mm(const Tensor& a, const Tensor& b) {
  Tensor out = untracked([&] { return ember::mm(a, b); });
  return record("MmBackward0", "mm", {a, b}, out, {if_needed(a, b), if_needed(b, a)},
                [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {n.should_compute_output(0) ? g[0].mm(n.saved(1).t()) : Tensor(),
                          n.should_compute_output(1) ? n.saved(0).t().mm(g[0]) : Tensor()};
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
  return record("AddmmBackward0", "addmm", {self, mat1, mat2}, out,
                {if_needed(mat1, mat2), if_needed(mat2, mat1)},
                [beta, alpha](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  tensor_list r(3);
                  if (n.should_compute_output(0)) r[0] = is_one(beta) ? g[0] : g[0] * beta;
                  if (n.should_compute_output(1)) {
                    r[1] = g[0].mm(n.saved(1).t());
                    if (!is_one(alpha)) r[1] = r[1] * alpha;
                  }
                  if (n.should_compute_output(2)) {
                    r[2] = n.saved(0).t().mm(g[0]);
                    if (!is_one(alpha)) r[2] = r[2] * alpha;
                  }
                  return r;
                });
}

// core's matmul, written with public ops only (it records as mm / bmm and views).
Tensor matmul(const Tensor& a, const Tensor& b) {
  const int64_t da = a.dim(), db = b.dim();
  if (da <= 2 && db <= 2) {
    Tensor a2 = da == 1 ? a.unsqueeze(0) : a;  // [1, k]
    Tensor b2 = db == 1 ? b.unsqueeze(1) : b;  // [k, 1]
    Tensor out = a2.mm(b2);
    if (da == 2 && db == 2) return out;
    DimVector shape;
    if (da == 2) shape.push_back(a.size(0));
    if (db == 2) shape.push_back(b.size(1));
    return out.reshape(shape);  // dot: 0-dim
  }
  if (da >= 3 && db <= 2) {  // a's batch folds into its rows: one mm
    const int64_t k = a.size(-1);
    int64_t rows = 1;  // no -1: k may be 0
    for (int64_t d = 0; d + 1 < da; ++d) rows *= a.size(d);
    const int64_t flat2[2] = {rows, k};
    Tensor b2 = db == 1 ? b.unsqueeze(1) : b;
    Tensor out = a.reshape(IntArrayRef(flat2, 2)).mm(b2);
    DimVector shape(a.sizes());
    shape.resize(da - 1);
    if (db == 2) shape.push_back(b.size(1));
    return out.reshape(shape);
  }
  Tensor a3 = da == 1 ? a.unsqueeze(0) : a;
  Tensor b3 = db == 1 ? b.unsqueeze(1) : b;
  const int64_t na = a3.dim(), nb = b3.dim();
  const int64_t m = a3.size(-2), k = a3.size(-1), n = b3.size(-1);
  const int64_t nbatch = std::max(na, nb) - 2;
  DimVector batch(nbatch, 1);
  int64_t B = 1;
  for (int64_t i = 0; i < nbatch; ++i) {
    const int64_t ia = i - (nbatch - (na - 2)), ib = i - (nbatch - (nb - 2));
    const int64_t sa = ia >= 0 ? a3.size(ia) : 1, sb = ib >= 0 ? b3.size(ib) : 1;
    batch[i] = sa == 1 ? sb : sa;  // broadcast checked by the caller
    B *= batch[i];
  }
  DimVector ea(batch), eb(batch);
  ea.push_back(m);
  ea.push_back(k);
  eb.push_back(k);
  eb.push_back(n);
  const int64_t sa3[3] = {B, m, k}, sb3[3] = {B, k, n};
  Tensor out =
      a3.expand(ea).reshape(IntArrayRef(sa3, 3)).bmm(b3.expand(eb).reshape(IntArrayRef(sb3, 3)));
  DimVector shape(batch);
  if (da > 1) shape.push_back(m);
  if (db > 1) shape.push_back(n);
  return out.reshape(shape);
}

// As PyTorch's graph: AddmmBackward0 (or MmBackward0 without bias) over TBackward0, with
// reshapes around it for N-D input and matmul for 1-D input.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (input.dim() == 1) {
    Tensor out = ember::matmul(input, weight.t());
    return bias.defined() ? out + bias : out;
  }
  const int64_t in_features = input.size(-1);
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < input.dim(); ++d) rows *= input.size(d);
  const int64_t flat[2] = {rows, in_features};
  Tensor x = input.dim() == 2 ? input : input.reshape(IntArrayRef(flat, 2));
  Tensor out = bias.defined() ? ember::addmm(bias, x, weight.t()) : x.mm(weight.t());
  if (input.dim() == 2) return out;
  DimVector shape(input.sizes());
  shape.back() = weight.size(0);
  return out.reshape(shape);
}

}  // namespace ember::autograd::recorded
