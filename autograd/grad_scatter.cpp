// Backward rules of scatter (and scatter_) and scatter_reduce (and scatter_reduce_), PyTorch's
// (scatter_reduce_backward, exclusive products for zeros), written with ember's public ops.
#include <ember/autograd/recorders.h>

#include <string>

#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>

namespace ember::autograd::recorded {

namespace {

// src's elements that index covers (index may be smaller than src in any dim).
Tensor covered(const Tensor& src, const Tensor& index) {
  Tensor r = src;
  for (int64_t i = 0; i < index.dim(); ++i) {
    if (r.size(i) != index.size(i)) r = r.narrow(i, 0, index.size(i));
  }
  return r;
}

// A gradient of index's shape padded with zeros to src's shape.
Tensor pad_to(Tensor g, IntArrayRef sizes) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t have = g.sizes()[i];
    if (have == sizes[i]) continue;
    DimVector pad(g.sizes());
    pad[i] = sizes[i] - have;
    g = ember::cat({g, zeros(pad, g.options())}, static_cast<int64_t>(i));
  }
  return g;
}

// The gradients (self, src) of out = self.scatter_reduce(d, index, src, reduce, include_self).
tensor_list reduce_backward(const Tensor& g, const Tensor& self, int64_t d, const Tensor& index,
                            const Tensor& src_full, const std::string& reduce, bool include_self,
                            const Tensor& result) {
  const Tensor src = covered(src_full, index);
  Tensor gs, gsrc;
  if (reduce == "sum") {
    gs = g;
    gsrc = g.gather(d, index);
  } else if (reduce == "mean") {
    Tensor n = include_self ? ones_like(g) : zeros_like(g);
    n = n.scatter_add(d, index, ones_like(src));
    n = n.masked_fill(n == 0, 1);
    gs = g / n;
    gsrc = g.gather(d, index) / n.gather(d, index);
  } else if (reduce == "prod") {
    // Exclusive products where self or src hold zeros (a division would give 0 / 0).
    const Tensor masked_self = self.masked_fill(self == 0, 1);
    const Tensor masked_self_result =
        masked_self.scatter_reduce(d, index, src, reduce, include_self);
    gs = g * masked_self_result / masked_self;
    const Tensor src_zero = src == 0;
    const Tensor src_num_zeros =
        zeros_like(self).scatter_add(d, index, src_zero.to(self.dtype())).gather(d, index);
    const Tensor src_single_zero = ember::logical_and(src_zero, src_num_zeros == 1);
    const Tensor masked_src = src.masked_fill(src_single_zero, 1);
    const Tensor masked_src_result =
        self.scatter_reduce(d, index, masked_src, reduce, include_self);
    gsrc = ember::where(src_single_zero, (g * masked_src_result).gather(d, index),
                        (g * result).gather(d, index) / src.masked_fill(src_zero, 1));
  } else {  // amax, amin: split evenly among the elements equal to the result
    const Tensor value = result.gather(d, index);
    const Tensor self_is = (self == result).to(self.dtype());
    const Tensor src_is = (src == value).to(self.dtype());
    const Tensor n = (include_self ? self_is : zeros_like(self_is)).scatter_add(d, index, src_is);
    const Tensor distributed = g / n.masked_fill(n == 0, 1);
    gs = self_is * distributed;
    gsrc = src_is * distributed.gather(d, index);
  }
  if (!include_self) gs = gs.scatter(d, index, 0);
  return {gs, pad_to(gsrc, src_full.sizes())};
}

}  // namespace

// self's gradient is g with zeros where src was written; src's is g gathered at index.
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  Tensor out = untracked([&] { return ember::scatter(t, dim, index, src); });
  const int64_t d = wrap_dim("scatter", dim, t.dim());
  DimVector src_sizes(src.sizes());
  return record("ScatterBackward0", "scatter", {t, src}, out, {index},
                [d, src_sizes](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  const Tensor idx = n.saved(0);
                  Tensor gs, gsrc;
                  if (n.should_compute_output(0)) gs = g[0].scatter(d, idx, 0);
                  if (n.should_compute_output(1)) gsrc = pad_to(g[0].gather(d, idx), src_sizes);
                  return {gs, gsrc};
                });
}

void scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  record_inplace("scatter_", self, /*saves_self=*/false,
                 [&](const Tensor& old) { return ember::scatter(old, dim, index, src); });
}

Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  Tensor out =
      untracked([&] { return ember::scatter_reduce(t, dim, index, src, reduce, include_self); });
  const int64_t d = wrap_dim("scatter_reduce", dim, t.dim());
  const std::string r(reduce);
  const Tensor idx = index.to(kInt64);
  return record("ScatterReduceBackward0", "scatter_reduce", {t, src}, out, {idx, t, src, out},
                [d, r, include_self](FunctionNode& n, const tensor_list& g) -> tensor_list {
                  tensor_list grads = reduce_backward(g[0], n.saved(1), d, n.saved(0), n.saved(2),
                                                      r, include_self, n.saved(3));
                  if (!n.should_compute_output(0)) grads[0] = Tensor();
                  if (!n.should_compute_output(1)) grads[1] = Tensor();
                  return grads;
                });
}

void scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     std::string_view reduce, bool include_self) {
  record_inplace("scatter_reduce_", self, /*saves_self=*/true, [&](const Tensor& old) {
    return ember::scatter_reduce(old, dim, index, src, reduce, include_self);
  });
}

}  // namespace ember::autograd::recorded
