// Backward rules of sorting, selection and scans: selected values send their gradient back to
// the positions they came from; cumsum's is a reverse cumsum, cumprod's PyTorch's formula.
#include <ember/autograd/recorders.h>

#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>

namespace ember::autograd::recorded {

namespace {

// sum_{j >= i} g_j along d (a reverse cumsum), with public ops: total - cumsum + g.
Tensor reverse_cumsum(const Tensor& g, int64_t d) { return g.sum(d, true) - g.cumsum(d) + g; }

// d out_j / d x_k = prod_{i <= j, i != k} x_i for j >= k. Without zeros along d the gradient is
// reverse_cumsum(g * out) / x; with zeros it is computed exactly over an [.., n, n] expansion:
// row k holds x with x_k set to 1, whose cumprod gives every prod_{i <= j, i != k} x_i.
Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& out, int64_t d) {
  if (x.numel() == 0) return g;
  if (!x.eq(0).any().item<bool>()) return reverse_cumsum(g * out, d) / x;
  const int64_t last = x.dim() - 1;
  Tensor xm = x.transpose(d, last), gm = g.transpose(d, last);  // d moved last
  const int64_t n = xm.size(-1);
  Tensor idx = arange(n, TensorOptions().dtype(kInt64).device(x.device()));
  Tensor diag = idx.unsqueeze(1).eq(idx.unsqueeze(0));  // [n (k), n (i)]
  DimVector sizes(xm.sizes());
  sizes.insert(sizes.size() - 1, n);  // [..., n (k), n (i)]
  Tensor others = xm.unsqueeze(-2).expand(sizes).masked_fill(diag, 1).cumprod(-1);
  Tensor after = idx.unsqueeze(0).ge(idx.unsqueeze(1));  // [k, j]: j >= k
  Tensor grad = (others * gm.unsqueeze(-2)).masked_fill(after.logical_not(), 0).sum(-1);
  return grad.transpose(d, last);
}

}  // namespace

Tensor select_values(const char* name, const char* op, const Tensor& t, const Tensor& values,
                     const Tensor& indices, int64_t dim, bool keepdim) {
  DimVector sizes(t.sizes());
  record_node(name, op, {t}, {values, indices}, {indices},
              [dim, keepdim, sizes](FunctionNode& n, const tensor_list& g) -> tensor_list {
                if (sizes.empty()) return {g[0].reshape({})};
                Tensor idx = n.saved(0);
                Tensor gu = keepdim ? g[0] : g[0].unsqueeze(dim);
                if (!keepdim) idx = idx.unsqueeze(dim);
                return {zeros(sizes, gu.options()).scatter_add(dim, idx, gu)};
              });
  return values;
}

Tensor cumsum(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor out = untracked([&] { return t.cumsum(dim, dtype); });
  const int64_t d = t.dim() == 0 ? 0 : wrap_dim("cumsum", dim, t.dim());
  const ScalarType in_dtype = t.dtype();
  return record("CumsumBackward0", "cumsum", {t}, out, {},
                [d, in_dtype](FunctionNode&, const tensor_list& g) -> tensor_list {
                  Tensor r = g[0].dim() == 0 ? g[0] : reverse_cumsum(g[0], d);
                  return {r.dtype() == in_dtype ? r : r.to(in_dtype)};
                });
}

Tensor cumprod(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor out = untracked([&] { return t.cumprod(dim, dtype); });
  const int64_t d = t.dim() == 0 ? 0 : wrap_dim("cumprod", dim, t.dim());
  return record("CumprodBackward0", "cumprod", {t}, out, {t, out},
                [d](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor x = n.saved(0), out = n.saved(1);
                  if (x.dim() == 0) return {g[0].to(x.dtype())};
                  Tensor gx = g[0].dtype() == x.dtype() ? g[0] : g[0].to(x.dtype());
                  Tensor o = out.dtype() == x.dtype() ? out : out.to(x.dtype());
                  return {cumprod_backward(gx, x, o, d)};
                });
}

}  // namespace ember::autograd::recorded
