// Softmax, joining and indexing front-ends: softmax log_softmax cat stack index_select
// index_rows gather scatter_add one_hot. Index values are range-checked here (on the host), so
// kernels trust them.
#include <memory>
#include <vector>

#include <ember/core/recording.h>
#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/core/tensor.h>

namespace ember {
namespace {

template <Op op>
Tensor softmax_impl(const char* name, const Tensor& t, int64_t dim,
                    std::optional<ScalarType> dtype) {
  const Tensor in = dtype && *dtype != t.dtype() ? t.to(*dtype) : t;
  EMBER_CHECK(in.dtype() == kFloat32 || in.dtype() == kFloat64, name,
              ": expected a floating point dtype (float32 or float64), got ", in.dtype());
  const int64_t d = wrap_dim(name, dim, in.dim());
  Tensor out = empty_on(in.sizes(), in.dtype(), in.device());
  if (out.numel() != 0) {
    kernel<op>(in.device().type())(as_1d(out), as_1d(in), d);
  }
  return out;
}

// Index tensors reach kernels as contiguous int64 on self's device.
Tensor prepare_index(const char* name, const Tensor& self, const Tensor& index) {
  check_same_device(name, self, index);
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, name,
              ": expected an int64 or int32 index, got ", index.dtype());
  const Tensor idx = index.dtype() == kInt64 ? index : index.to(kInt64);
  return idx.contiguous();
}

// Bounds of index values, checked on the host for CPU tensors. CUDA kernels guard their
// own reads: checking here would cost a device-to-host copy and a sync on every call.
void check_index_values(const char* name, const Tensor& index, int64_t dim, int64_t size) {
  if (!index.is_cpu()) return;
  const int64_t* p = index.data_ptr<int64_t>();
  const int64_t n = index.numel();
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(p[i] >= 0 && p[i] < size, name, ": index ", p[i], " is out of range for dim ", dim,
                " of size ", size);
  }
}

// gather/scatter_add: index may be smaller than other in every dim (than self except along dim).
void check_index_fits(const char* name, const Tensor& index, const Tensor& other, int64_t skip,
                      const char* what) {
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (d == skip) continue;
    EMBER_CHECK(index.sizes()[d] <= other.sizes()[d], name, ": index of shape ", index.sizes(),
                " is larger than ", what, " of shape ", other.sizes(), " at dim ", d);
  }
}

// Everything scatter_add and scatter_add_ check; returns the wrapped dim and the index.
int64_t check_scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          Tensor* idx) {
  const char* name = "scatter_add";
  const int64_t d = wrap_dim(name, dim, self.dim());
  EMBER_CHECK(index.dim() == self.dim() && src.dim() == self.dim(), name, ": index ", index.sizes(),
              " and src ", src.sizes(), " must have the same number of dims as self ",
              self.sizes());
  check_same_device(name, self, src);
  EMBER_CHECK(src.dtype() == self.dtype(), name, ": expected src to have dtype ", self.dtype(),
              " (as self), got ", src.dtype());
  *idx = prepare_index(name, self, index);
  check_index_fits(name, index, self, d, "self");
  check_index_fits(name, index, src, -1, "src");
  check_index_values(name, *idx, d, self.dim() == 0 ? 1 : self.sizes()[d]);
  return d;
}

}  // namespace

// ---- softmax ----
Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  check_defined("softmax", t);
  if (autograd::should_record(t)) return detail::recorded::softmax(t, dim, dtype);
  return softmax_impl<Op::softmax>("softmax", t, dim, dtype);
}
Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  check_defined("log_softmax", t);
  if (autograd::should_record(t)) return detail::recorded::log_softmax(t, dim, dtype);
  return softmax_impl<Op::log_softmax>("log_softmax", t, dim, dtype);
}

// ---- joining ----
// stack is a composite of public ops (unsqueeze + cat), so autograd records it through them.
// Inputs of shape [0] are skipped, as PyTorch still does for legacy code.
Tensor cat(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "cat: expected a non-empty list of tensors");
  if (autograd::should_record_list(tensors)) return detail::recorded::cat(tensors, dim);
  const Tensor& first = tensors[0];
  EMBER_CHECK(first.defined(), "cat: tensor at entry 0 is undefined");
  ScalarType dtype = first.dtype();
  int64_t ref = -1;  // the first tensor that takes part; its shape rules the others
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), "cat: tensor at entry ", i, " is undefined");
    EMBER_CHECK(t.dim() != 0, "cat: zero-dimensional tensor (at entry ", i,
                ") cannot be concatenated");
    check_same_device("cat", first, t);
    dtype = promote_types(dtype, t.dtype());
    if (ref < 0 && !(t.dim() == 1 && t.sizes()[0] == 0)) ref = static_cast<int64_t>(i);
  }
  if (ref < 0) {  // only [0]-shaped inputs
    wrap_dim("cat", dim, 1);
    const int64_t zero = 0;
    return empty_on(IntArrayRef(zero), dtype, first.device());
  }
  const Tensor& r = tensors[ref];
  const int64_t d = wrap_dim("cat", dim, r.dim());
  DimVector shape(r.sizes());
  shape[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() == 1 && t.sizes()[0] == 0) continue;
    bool same = t.dim() == r.dim();
    for (int64_t j = 0; same && j < t.dim(); ++j) same = j == d || t.sizes()[j] == r.sizes()[j];
    EMBER_CHECK(same, "cat: sizes of tensors must match except in dim ", d, ", got ", r.sizes(),
                " at entry ", ref, " and ", t.sizes(), " at entry ", i);
    shape[d] += t.sizes()[d];
  }
  Tensor out = empty_on(shape, dtype, first.device());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (t.dim() == 1 && t.sizes()[0] == 0) continue;
    const int64_t n = t.sizes()[d];
    if (n != 0 && out.numel() != 0) out.narrow(d, offset, n).copy_(t);
    offset += n;
  }
  return out;
}

Tensor stack(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack: expected a non-empty list of tensors");
  for (const Tensor& t : tensors) check_defined("stack", t);
  const Tensor& first = tensors[0];
  for (size_t i = 1; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == first.sizes(),
                "stack: expects each tensor to be equal size, but got ", first.sizes(),
                " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  const int64_t d = wrap_dim("stack", dim, first.dim() + 1);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
  return cat(parts, d);
}

// ---- indexing ----
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index) {
  check_defined("index_select", t, index);
  if (autograd::should_record(t)) return detail::recorded::index_select(t, dim, index);
  const char* name = "index_select";
  const int64_t d = wrap_dim(name, dim, t.dim());
  EMBER_CHECK(index.dim() <= 1, name, ": index must be 1-D or 0-D, got ", index.sizes());
  Tensor idx = prepare_index(name, t, index);
  EMBER_CHECK(t.dim() != 0 || idx.numel() == 1, name,
              ": a 0-dim input takes an index of one value, got ", index.sizes());
  const Tensor in = as_1d(t);
  const int64_t size = in.sizes()[d];
  check_index_values(name, idx, d, size);
  DimVector shape(in.sizes());
  shape[d] = idx.numel();
  Tensor out = empty_on(shape, t.dtype(), t.device());
  if (out.numel() != 0) {
    kernel<Op::index_select>(t.device().type())(out, in, d, as_1d(idx));
  }
  if (t.dim() == 0) return restride(out, {}, {});  // a 0-dim input gives a 0-dim result
  return out;
}

Tensor native::index_rows(const Tensor& t, const Tensor& index) {
  const char* name = "index";
  check_same_device(name, t, index);
  EMBER_CHECK(t.dim() >= 1 && index.dim() == 1 && index.dtype() == kInt64, name,
              ": index_rows takes a tensor of at least one dim and a 1-D int64 index, got ",
              t.sizes(), " and ", index.sizes(), " ", index.dtype());
  DimVector shape(t.sizes());
  shape[0] = index.numel();
  Tensor out = empty_on(shape, t.dtype(), t.device());
  if (out.numel() != 0) kernel<Op::index_rows>(t.device().type())(out, t, 0, index);
  return out;
}

Tensor gather(const Tensor& t, int64_t dim, const Tensor& index) {
  check_defined("gather", t, index);
  if (autograd::should_record(t)) return detail::recorded::gather(t, dim, index);
  const char* name = "gather";
  const int64_t d = wrap_dim(name, dim, t.dim());
  EMBER_CHECK(index.dim() == t.dim(), name, ": index ", index.sizes(),
              " must have the same number of dims as input ", t.sizes());
  Tensor idx = prepare_index(name, t, index);
  check_index_fits(name, idx, t, d, "input");
  check_index_values(name, idx, d, t.dim() == 0 ? 1 : t.sizes()[d]);
  Tensor out = empty_on(idx.sizes(), t.dtype(), t.device());
  if (out.numel() != 0) {
    kernel<Op::gather>(t.device().type())(as_1d(out), as_1d(t), d, as_1d(idx));
  }
  return out;
}

Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
  check_defined("scatter_add", t, index, src);
  if (autograd::should_record(t, src)) return detail::recorded::scatter_add(t, dim, index, src);
  Tensor idx;
  const int64_t d = check_scatter_add(t, dim, index, src, &idx);
  Tensor out = t.clone();
  if (idx.numel() != 0) {
    kernel<Op::scatter_add>(t.device().type())(as_1d(out), as_1d(src), d, as_1d(idx));
  }
  return out;
}

// Not differentiable: the result is int64 (and indices can't require grad).
Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  check_defined("one_hot", indices);
  EMBER_CHECK(indices.dtype() == kInt64, "one_hot: expected an int64 index tensor, got ",
              indices.dtype());
  EMBER_CHECK(num_classes >= -1, "one_hot: num_classes must be -1 or non-negative, got ",
              num_classes);
  if (indices.numel() == 0) {
    EMBER_CHECK(num_classes != -1,
                "one_hot: cannot infer the number of classes from an empty tensor");
  } else {
    const int64_t lo = indices.min().item<int64_t>();
    const int64_t hi = indices.max().item<int64_t>();
    EMBER_CHECK(lo >= 0, "one_hot: class values must be non-negative, got ", lo);
    if (num_classes == -1) num_classes = hi + 1;
    EMBER_CHECK(hi < num_classes, "one_hot: class value ", hi, " is out of range for ", num_classes,
                " classes");
  }
  const Tensor classes =
      arange(num_classes, TensorOptions().dtype(kInt64).device(indices.device()));
  return eq(indices.unsqueeze(-1), classes).to(kInt64);
}

// ---- Tensor methods ----
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return ember::gather(*this, dim, index);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  check_defined("scatter_add_", *this, index, src);
  if (autograd::should_record(*this, src)) {
    detail::recorded::scatter_add_(self_(), dim, index, src);
    return self_();
  }
  Tensor idx;
  const int64_t d = check_scatter_add(*this, dim, index, src, &idx);
  if (idx.numel() != 0) {
    kernel<Op::scatter_add>(device().type())(as_1d(*this), as_1d(src), d, as_1d(idx));
  }
  impl_->storage()->bump_version();
  return self_();
}

}  // namespace ember
