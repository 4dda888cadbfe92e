// Backward rules of softmax/log_softmax, index_select, gather, scatter_add (and scatter_add_)
// and cat, written with ember's own ops. stack is a composite (unsqueeze + cat) and one_hot
// has an int64 result, so neither has a rule of its own.
#include <ember/autograd/recorders.h>

#include <vector>

#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>
#include <ember/core/native.h>

namespace ember::autograd::recorded {

namespace {

// The dtype argument of softmax/log_softmax as a recorded cast, so that the gradient
// flows back through it (and is cast back to the input's dtype).
Tensor cast_input(const Tensor& t, std::optional<ScalarType> dtype) {
  return dtype && *dtype != t.dtype() ? t.to(*dtype) : t;
}

// Sum of g over softmax's dim, kept as a size-1 dim (0-dim: nothing to sum).
Tensor sum_dim(const Tensor& g, int64_t dim) { return g.dim() == 0 ? g : g.sum(dim, true); }

// index (1-D or 0-D, of `n` values) laid along dim `d` of a tensor of `sizes`, expanded to
// it: the index of scatter_add/gather that does what index_select does along d.
Tensor index_along(const Tensor& index, int64_t d, IntArrayRef sizes) {
  DimVector shape(sizes.size(), 1);
  shape[d] = index.numel();
  return index.reshape(shape).expand(sizes);
}

}  // namespace

// ---- softmax ----

Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  const Tensor in = cast_input(t, dtype);
  Tensor out = untracked([&] { return ember::softmax(in, dim); });
  const int64_t d = wrap_dim("softmax", dim, in.dim());
  return record("SoftmaxBackward0", "softmax", {in}, out, {out},
                [d](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  const Tensor y = n.saved(0);
                  return {y * (g[0] - sum_dim(g[0] * y, d))};
                });
}

Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  const Tensor in = cast_input(t, dtype);
  Tensor out = untracked([&] { return ember::log_softmax(in, dim); });
  const int64_t d = wrap_dim("log_softmax", dim, in.dim());
  return record("LogSoftmaxBackward0", "log_softmax", {in}, out, {out},
                [d](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  const Tensor y = n.saved(0);
                  return {g[0] - y.exp() * sum_dim(g[0], d)};
                });
}

// ---- indexing ----

// grad_in = zeros.index_add(dim, index, grad), as a scatter_add along the expanded index.
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  Tensor out = untracked([&] { return ember::index_select(t, dim, index); });
  const int64_t d = wrap_dim("index_select", dim, t.dim());
  DimVector sizes(t.sizes());
  return record("IndexSelectBackward0", "index_select", {t}, out, {index},
                [d, sizes](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  if (sizes.empty()) return {g[0]};  // 0-dim: the one value was selected
                  const Tensor idx = index_along(n.saved(0), d, g[0].sizes());
                  return {zeros(sizes, g[0].options()).scatter_add(d, idx, g[0])};
                });
}

// x.index({i}) (core/native.h): as index_select along dim 0 with negatives counted from the end.
Tensor index_rows(const Tensor& t, const Tensor& index) {
  Tensor out = untracked([&] { return native::index_rows(t, index); });
  DimVector sizes(t.sizes());
  return record("IndexBackward0", "index", {t}, out, {index},
                [sizes](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  const Tensor i = n.saved(0);
                  const Tensor idx =
                      index_along(ember::where(i < 0, i + sizes[0], i), 0, g[0].sizes());
                  return {zeros(sizes, g[0].options()).scatter_add(0, idx, g[0])};
                });
}

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  Tensor out = untracked([&] { return ember::gather(t, dim, index); });
  const int64_t d = wrap_dim("gather", dim, t.dim());
  DimVector sizes(t.sizes());
  return record("GatherBackward0", "gather", {t}, out, {index},
                [d, sizes](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  return {zeros(sizes, g[0].options()).scatter_add(d, n.saved(0), g[0])};
                });
}

// src's gradient is g.gather(dim, index), padded with zeros where index is smaller than
// src (those elements of src are not used).
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = untracked([&] { return ember::scatter_add(t, dim, index, src); });
  const int64_t d = wrap_dim("scatter_add", dim, t.dim());
  DimVector src_sizes(src.sizes());
  return record(
      "ScatterAddBackward0", "scatter_add", {t, src}, out, {needs_grad(src) ? index : Tensor()},
      [d, src_sizes](FunctionNode& n, const tensor_list& g) -> tensor_list {
        Tensor gsrc;
        if (n.should_compute_output(1)) {
          gsrc = g[0].gather(d, n.saved(0));
          for (size_t i = 0; i < src_sizes.size(); ++i) {
            const int64_t have = gsrc.sizes()[i];
            if (have == src_sizes[i]) continue;
            DimVector pad(gsrc.sizes());
            pad[i] = src_sizes[i] - have;
            gsrc = ember::cat({gsrc, zeros(pad, gsrc.options())}, static_cast<int64_t>(i));
          }
        }
        return {n.should_compute_output(0) ? g[0] : Tensor(), gsrc};
      });
}

void scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  record_inplace("scatter_add_", self, /*saves_self=*/false,
                 [&](const Tensor& old) { return ember::scatter_add(old, dim, index, src); });
}

// ---- joining ----

// One node with an edge per input; input i gets g.narrow(dim, offset_i, size_i). Inputs of
// shape [0], which cat skips, get no gradient.
Tensor cat(TensorList tensors, int64_t dim) {
  Tensor out = untracked([&] { return ember::cat(tensors, dim); });
  auto skipped = [](const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; };
  int64_t ndim = 1;
  for (const Tensor& t : tensors) {
    if (!skipped(t)) {
      ndim = t.dim();
      break;
    }
  }
  const int64_t d = wrap_dim("cat", dim, ndim);
  std::vector<int64_t> offsets, lengths;  // length -1: skipped
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    offsets.push_back(offset);
    lengths.push_back(skipped(t) ? -1 : t.sizes()[d]);
    if (!skipped(t)) offset += t.sizes()[d];
  }
  record_node("CatBackward0", "cat", tensors, {out}, {},
              [d, offsets, lengths](FunctionNode& n, const tensor_list& g) -> tensor_list {
                tensor_list grads(lengths.size());
                for (size_t i = 0; i < lengths.size(); ++i) {
                  if (lengths[i] < 0 || !n.should_compute_output(i)) continue;
                  grads[i] = g[0].narrow(d, offsets[i], lengths[i]);
                }
                return grads;
              });
  return out;
}

}  // namespace ember::autograd::recorded
