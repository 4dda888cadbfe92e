// Backward rules of the reductions (sum, mean, prod, max/min, amax/amin, var, norm),
// written with ember's own ops.
#include <ember/autograd/recorders.h>

#include <cmath>

#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>

namespace ember::autograd::recorded {

namespace {

// The reduced dims, wrapped and sorted; all dims for an empty list; none for a 0-dim input.
DimVector reduced_dims(const char* op, IntArrayRef dim, int64_t ndim) {
  return reduction_dims(op, dim, ndim);
}

// A result (or its gradient) of a reduction over the sorted `dims`, with the reduced dims
// put back as size 1 so that it broadcasts against the input.
Tensor unsqueeze_reduced(const Tensor& g, const DimVector& dims, bool keepdim) {
  if (keepdim) return g;
  Tensor r = g;
  for (int64_t d : dims) r = r.unsqueeze(d);
  return r;
}

// The number of elements each result element reduces.
int64_t reduced_count(IntArrayRef sizes, const DimVector& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes[d];
  return n;
}

// sum over `dims` with keepdim (the full sum of a 0-dim tensor when there are none).
Tensor sum_keep(const Tensor& t, const DimVector& dims) {
  return dims.empty() ? t.sum() : t.sum(dims, /*keepdim=*/true);
}

// sign(x) as a constant of x's dtype: piecewise constant, so it needs no history.
Tensor sign_of(const Tensor& x) { return x.gt(0).to(x.dtype()) - x.lt(0).to(x.dtype()); }

// The mask of the elements equal to the (broadcast) extremum `value`, NaN matching NaN,
// as x's dtype.
Tensor extremum_mask(const Tensor& x, const Tensor& value) {
  Tensor mask = x.eq(value).logical_or(x.ne(x).logical_and(value.ne(value)));
  return mask.to(x.dtype());
}

// Along the last dim of x [..., n]: the product of the other elements of each slice,
// computed without division (exact with zeros): prod_j m[..., i, j], where m[..., i, j]
// is x[..., j] off the diagonal and 1 on it. Differentiable to any order.
Tensor prod_of_others_last(const Tensor& x) {
  const int64_t n = x.size(-1);
  Tensor idx = arange(n, TensorOptions().dtype(kInt64).device(x.device()));
  Tensor diag = idx.unsqueeze(1).eq(idx.unsqueeze(0));  // [n, n]
  DimVector sizes(x.sizes());
  sizes.insert(sizes.size() - 1, n);  // [..., n, n]
  return x.unsqueeze(-2).expand(sizes).masked_fill(diag, 1).prod(-1);
}

// d prod / d x: result / x without zeros (the fast path, as PyTorch); with zeros, the
// exact product of the other elements of each slice (one zero: only it gets a gradient;
// several zeros: none does).
Tensor prod_backward(const Tensor& g, const Tensor& x, const Tensor& result,
                     std::optional<int64_t> dim, bool keepdim) {
  if (x.dim() == 0) return g;
  if (x.numel() == 0) return zeros_like(x, g.options());
  DimVector dims;
  if (dim) dims.push_back(*dim < 0 ? *dim + x.dim() : *dim);
  const Tensor gu = dim ? unsqueeze_reduced(g, dims, keepdim) : g;
  const bool has_zero = x.eq(0).any().item<bool>();
  if (!has_zero) {
    const Tensor ru = dim ? unsqueeze_reduced(result, dims, keepdim) : result;
    return gu * ru / x;
  }
  Tensor others;
  if (!dim) {
    const int64_t flat = -1;
    others = prod_of_others_last(x.reshape(IntArrayRef(flat))).reshape(x.sizes());
  } else if (dims[0] == x.dim() - 1) {
    others = prod_of_others_last(x);
  } else {
    others = prod_of_others_last(x.transpose(dims[0], -1)).transpose(dims[0], -1);
  }
  return gu * others;
}

// d ||x||_p / d x, as PyTorch's norm_backward; 0 (not NaN) where the norm is 0.
Tensor norm_backward(const Tensor& gu, const Tensor& x, const Tensor& nu, double p,
                     const DimVector& dims) {
  if (p == 0) return zeros_like(x, gu.options());
  if (p == 1) return sign_of(x) * gu;
  if (std::isinf(p)) {
    Tensor mask = extremum_mask(x.abs(), nu);
    return sign_of(x) * mask * (gu / sum_keep(mask, dims));
  }
  const Tensor zero_norm = nu.eq(0);
  const Tensor safe_norm = nu.masked_fill(zero_norm, 1);
  if (p == 2) return x * (gu / safe_norm).masked_fill(zero_norm, 0);
  if (p < 1) {
    Tensor scaled = sign_of(x) * x.abs().pow(p - 1).masked_fill(x.eq(0), 0);
    return scaled * (gu * nu.pow(1 - p));
  }
  Tensor scaled = p < 2 ? sign_of(x) * x.abs().pow(p - 1) : x * x.abs().pow(p - 2);
  return scaled * (gu / safe_norm.pow(p - 1)).masked_fill(zero_norm, 0);
}

}  // namespace

// sum(dim = {}) is the full sum.
Tensor sum(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const bool full = dim.empty() && !keepdim;
  Tensor out = untracked([&] { return full ? t.sum(dtype) : t.sum(dim, keepdim, dtype); });
  if (full) {  // the hot case (a loss): no dims to put back, the 0-dim gradient expands
    return record("SumBackward0", "sum", {t}, out, {},
                  [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                    return {g[0].expand(n.input_sizes(0))};
                  });
  }
  DimVector sizes(t.sizes()), dims = reduced_dims("sum", dim, t.dim());
  return record("SumBackward1", "sum", {t}, out, {},
                [sizes, dims, keepdim](FunctionNode&, const tensor_list& g) -> tensor_list {
                  return {unsqueeze_reduced(g[0], dims, keepdim).expand(sizes)};
                });
}

Tensor mean(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const bool full = dim.empty() && !keepdim;
  Tensor out = untracked([&] { return full ? t.mean(dtype) : t.mean(dim, keepdim, dtype); });
  DimVector sizes(t.sizes()), dims = reduced_dims("mean", dim, t.dim());
  const int64_t n = reduced_count(t.sizes(), dims);
  return record(full ? "MeanBackward0" : "MeanBackward1", "mean", {t}, out, {},
                [sizes, dims, keepdim, n](FunctionNode&, const tensor_list& g) -> tensor_list {
                  return {unsqueeze_reduced(g[0], dims, keepdim).expand(sizes) / double(n)};
                });
}

Tensor prod(const Tensor& t, std::optional<int64_t> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  Tensor out = untracked([&] { return dim ? t.prod(*dim, keepdim, dtype) : t.prod(dtype); });
  return record(dim ? "ProdBackward1" : "ProdBackward0", "prod", {t}, out, {t, out},
                [dim, keepdim](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {prod_backward(g[0], n.saved(0), n.saved(1), dim, keepdim)};
                });
}

Tensor max_all(const Tensor& t, bool is_max) {
  Tensor out = untracked([&] { return is_max ? t.max() : t.min(); });
  return record(is_max ? "MaxBackward1" : "MinBackward1", is_max ? "max" : "min", {t}, out,
                {t, out}, [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor mask = extremum_mask(n.saved(0), n.saved(1));
                  return {mask * (g[0] / mask.sum())};
                });
}

std::tuple<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max) {
  auto [values, indices] =
      untracked([&] { return is_max ? t.max(dim, keepdim) : t.min(dim, keepdim); });
  const int64_t d = t.dim() == 0 ? 0 : (dim < 0 ? dim + t.dim() : dim);
  DimVector sizes(t.sizes());
  record_node(is_max ? "MaxBackward0" : "MinBackward0", is_max ? "max" : "min", {t},
              {values, indices}, {indices},
              [d, keepdim, sizes](FunctionNode& n, const tensor_list& g) -> tensor_list {
                if (sizes.empty()) return {g[0]};
                Tensor idx = n.saved(0);
                Tensor gu = keepdim ? g[0] : g[0].unsqueeze(d);
                if (!keepdim) idx = idx.unsqueeze(d);
                return {zeros(sizes, gu.options()).scatter_add(d, idx, gu)};
              });
  return std::make_tuple(values, indices);
}

Tensor amax(const Tensor& t, IntArrayRef dim, bool keepdim, bool is_max) {
  Tensor out = untracked([&] { return is_max ? t.amax(dim, keepdim) : t.amin(dim, keepdim); });
  DimVector dims = reduced_dims(is_max ? "amax" : "amin", dim, t.dim());
  return record(is_max ? "AmaxBackward0" : "AminBackward0", is_max ? "amax" : "amin", {t}, out,
                {t, out}, [dims, keepdim](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor mask =
                      extremum_mask(n.saved(0), unsqueeze_reduced(n.saved(1), dims, keepdim));
                  return {mask * (unsqueeze_reduced(g[0], dims, keepdim) / sum_keep(mask, dims))};
                });
}

// d var / d x = 2 (x - mean) / (N - correction).
Tensor var(const Tensor& t, IntArrayRef dim, bool unbiased, bool keepdim) {
  Tensor out = untracked([&] { return t.var(dim, unbiased, keepdim); });
  DimVector dims = reduced_dims("var", dim, t.dim());
  const double scale = 2.0 / double(reduced_count(t.sizes(), dims) - (unbiased ? 1 : 0));
  return record("VarBackward0", "var", {t}, out, {t},
                [dims, keepdim, scale](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  Tensor x = n.saved(0);
                  Tensor centered = x - (dims.empty() ? x.mean() : x.mean(dims, true));
                  return {unsqueeze_reduced(g[0], dims, keepdim) * scale * centered};
                });
}

Tensor norm(const Tensor& t, const Scalar& p, IntArrayRef dim, bool keepdim, bool full) {
  Tensor out = untracked([&] { return full ? t.norm(p) : t.norm(p, dim, keepdim); });
  DimVector dims = reduced_dims("norm", dim, t.dim());
  const double pd = p.toDouble();
  return record(full ? "NormBackward0" : "NormBackward1", "norm", {t}, out, {t, out},
                [dims, keepdim, pd](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {norm_backward(unsqueeze_reduced(g[0], dims, keepdim), n.saved(0),
                                        unsqueeze_reduced(n.saved(1), dims, keepdim), pd, dims)};
                });
}

}  // namespace ember::autograd::recorded
