// The scatter family's front-ends: scatter (src, value, reduce), scatter_reduce, and the
// composites over them and scatter_add: index_add, index_fill, index_copy, bincount.
#include <limits>
#include <string>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/recording.h>
#include <ember/core/tensor.h>

namespace ember {
namespace {

// Checks of scatter and scatter_reduce; returns the wrapped dim and a contiguous int64 index.
int64_t check_scatter(const char* name, const Tensor& self, int64_t dim, const Tensor& index,
                      const Tensor& src, Tensor* idx) {
  check_defined(name, self, index, src);
  const int64_t d = wrap_dim(name, dim, self.dim());
  check_same_device(name, self, index);
  check_same_device(name, self, src);
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, name,
              ": expected an int64 index, got ", index.dtype());
  EMBER_CHECK(src.dtype() == self.dtype(), name, ": expected src to have dtype ", self.dtype(),
              " (as self), got ", src.dtype());
  const bool empty = index.numel() == 0;
  EMBER_CHECK(empty || (index.dim() == self.dim() && src.dim() == self.dim()), name, ": index ",
              index.sizes(), " and src ", src.sizes(),
              " must have the same number of dims as self ", self.sizes());
  *idx = (index.dtype() == kInt64 ? index : index.to(kInt64)).contiguous();
  if (empty) return d;
  for (int64_t i = 0; i < index.dim(); ++i) {
    EMBER_CHECK(index.size(i) <= src.size(i), name, ": index of shape ", index.sizes(),
                " is larger than src of shape ", src.sizes(), " at dim ", i);
    EMBER_CHECK(i == d || index.size(i) <= self.size(i), name, ": index of shape ", index.sizes(),
                " is larger than self of shape ", self.sizes(), " at dim ", i);
  }
  if (idx->is_cpu()) {  // CUDA kernels check their own reads (a host check would sync)
    const int64_t size = self.dim() == 0 ? 1 : self.size(d);
    const int64_t* p = idx->data_ptr<int64_t>();
    for (int64_t i = 0; i < idx->numel(); ++i) {
      EMBER_CHECK(p[i] >= 0 && p[i] < size, name, ": index ", p[i], " is out of bounds for dim ", d,
                  " with size ", size);
    }
  }
  return d;
}

// src for the value forms: value in self's dtype, expanded to index's shape (no copy).
Tensor value_src(const Tensor& self, const Tensor& index, const Scalar& value) {
  return full({}, value, self.options()).expand(index.sizes());
}

// out[index] = src (out already holds self's values).
void scatter_into(const Tensor& out, int64_t d, const Tensor& idx, const Tensor& src) {
  if (idx.numel() != 0)
    kernel<Op::scatter>(out.device().type())(as_1d(out), as_1d(src), d, as_1d(idx));
}

enum class Reduce { kSum, kProd, kMean, kAmax, kAmin };

Reduce parse_reduce(std::string_view reduce) {
  if (reduce == "sum") return Reduce::kSum;
  if (reduce == "prod") return Reduce::kProd;
  if (reduce == "mean") return Reduce::kMean;
  if (reduce == "amax") return Reduce::kAmax;
  if (reduce == "amin") return Reduce::kAmin;
  EMBER_THROW("scatter_reduce: reduce argument must be either sum, prod, mean, amax or amin, got ",
              std::string(reduce));
}

// The value that leaves the reduction unchanged (what include_self=false starts from).
Scalar identity(Reduce r, ScalarType dtype) {
  const bool fp = is_floating_point(dtype);
  switch (r) {
    case Reduce::kProd:
      return Scalar(int64_t(1));
    case Reduce::kAmax:
      if (fp) return Scalar(-std::numeric_limits<double>::infinity());
      if (dtype == kUInt8) return Scalar(int64_t(0));
      return Scalar(dtype == kInt32 ? int64_t(std::numeric_limits<int32_t>::min())
                                    : std::numeric_limits<int64_t>::min());
    case Reduce::kAmin:
      if (fp) return Scalar(std::numeric_limits<double>::infinity());
      if (dtype == kUInt8) return Scalar(int64_t(255));
      return Scalar(dtype == kInt32 ? int64_t(std::numeric_limits<int32_t>::max())
                                    : std::numeric_limits<int64_t>::max());
    default:
      return Scalar(int64_t(0));
  }
}

// out (a copy of self) reduced in place; no recording.
void scatter_reduce_into(const Tensor& out, int64_t d, const Tensor& idx, const Tensor& src,
                         Reduce r, bool include_self) {
  if (idx.numel() == 0) return;
  const DeviceType dev = out.device().type();
  EMBER_CHECK(out.dtype() != kBool, "scatter_reduce: bool tensors are not supported");
  if (!include_self) scatter_into(out, d, idx, value_src(out, idx, identity(r, out.dtype())));
  const Tensor o = as_1d(out), s = as_1d(src), i = as_1d(idx);
  switch (r) {
    case Reduce::kSum:
      kernel<Op::scatter_add>(dev)(o, s, d, i);
      return;
    case Reduce::kProd:
      kernel<Op::scatter_mul>(dev)(o, s, d, i);
      return;
    case Reduce::kAmax:
      kernel<Op::scatter_amax>(dev)(o, s, d, i);
      return;
    case Reduce::kAmin:
      kernel<Op::scatter_amin>(dev)(o, s, d, i);
      return;
    case Reduce::kMean: {
      kernel<Op::scatter_add>(dev)(o, s, d, i);
      // count: 1 for self (if included) plus the elements scattered to each position
      Tensor count = include_self ? ones_like(out) : zeros_like(out);
      const Tensor one = full({}, 1, out.options()).expand(idx.sizes());
      kernel<Op::scatter_add>(dev)(as_1d(count), as_1d(one), d, i);
      count.masked_fill_(count == 0, 1);
      if (is_floating_point(out.dtype())) {
        out.div_(count);
      } else {  // integers: floor division, as LibTorch's
        const Tensor q = out.to(kFloat64) / count.to(kFloat64);
        const Tensor t = q.to(kInt64);
        out.copy_(where(q < t, t - 1, t));
      }
      return;
    }
  }
}

// index (1-D or 0-dim) laid along dim d of a tensor of `sizes`, expanded to it.
Tensor index_along(const Tensor& index, int64_t d, IntArrayRef sizes) {
  DimVector shape(sizes.size(), 1);
  shape[d] = index.numel();
  return index.reshape(shape).expand(sizes);
}

// Checks of index_add / index_copy: source has self's shape but along dim, where it has as
// many entries as index. Returns the wrapped dim.
int64_t check_index_source(const char* name, const Tensor& self, int64_t dim, const Tensor& index,
                           const Tensor& source) {
  check_defined(name, self, index, source);
  const int64_t d = wrap_dim(name, dim, self.dim());
  EMBER_CHECK(index.dim() <= 1, name, ": index should have dim <= 1, got ", index.sizes());
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, name,
              ": expected an int64 or int32 index, got ", index.dtype());
  EMBER_CHECK(source.dtype() == self.dtype(), name, ": self (", self.dtype(), ") and source (",
              source.dtype(), ") must have the same scalar type");
  EMBER_CHECK(self.dim() == source.dim() || (self.dim() <= 1 && source.dim() <= 1), name,
              ": source ", source.sizes(), " and self ", self.sizes(),
              " must have the same number of dims");
  const Tensor s = as_1d(source), t = as_1d(self);
  EMBER_CHECK(s.size(d) == index.numel(), name, ": number of indices (", index.numel(),
              ") should be equal to source.size(dim) (", s.size(d), ")");
  for (int64_t i = 0; i < t.dim(); ++i) {
    EMBER_CHECK(i == d || t.size(i) == s.size(i), name, ": source ", source.sizes(),
                " must match self ", self.sizes(), " in every dim but ", d);
  }
  return d;
}

}  // namespace

// ---- scatter ----
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  if (autograd::should_record(self, src)) return detail::recorded::scatter(self, dim, index, src);
  Tensor idx;
  const int64_t d = check_scatter("scatter", self, dim, index, src, &idx);
  Tensor out = self.clone();
  scatter_into(out, d, idx, src);
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_defined("scatter", self, index);
  return scatter(self, dim, index, value_src(self, index, value));
}

// reduce "add" is scatter_add; "multiply" is scatter_reduce's "prod" (with self included).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               std::string_view reduce) {
  check_defined("scatter", self, index, src);
  if (reduce == "add") return scatter_add(self, dim, index, src);
  EMBER_CHECK(reduce == "multiply", "scatter: reduce argument must be either add or multiply, got ",
              std::string(reduce));
  return scatter_reduce(self, dim, index, src, "prod", true);
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               std::string_view reduce) {
  check_defined("scatter", self, index);
  return scatter(self, dim, index, value_src(self, index, value), reduce);
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  const Reduce r = parse_reduce(reduce);
  if (autograd::should_record(self, src)) {
    return detail::recorded::scatter_reduce(self, dim, index, src, reduce, include_self);
  }
  Tensor idx;
  const int64_t d = check_scatter("scatter_reduce", self, dim, index, src, &idx);
  Tensor out = self.clone();
  scatter_reduce_into(out, d, idx, src, r, include_self);
  return out;
}

// ---- index_add, index_fill, index_copy ----
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  const int64_t d = check_index_source("index_add", self, dim, index, source);
  const Tensor src = alpha.equal(1) ? source : source * alpha;
  return named_errors("index_add", [&] {
    if (self.dim() == 0)
      return self.reshape({1}).scatter_add(0, index.reshape({1}), src.reshape({1})).reshape({});
    return self.scatter_add(d, index_along(index, d, source.sizes()), src);
  });
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = check_index_source("index_copy", self, dim, index, source);
  return named_errors("index_copy", [&] {
    if (self.dim() == 0)
      return self.reshape({1}).scatter(0, index.reshape({1}), source.reshape({1})).reshape({});
    return self.scatter(d, index_along(index, d, source.sizes()), source);
  });
}

namespace {
// index_fill's index: negative values count from the end, as LibTorch's.
Tensor fill_index(const Tensor& self, int64_t d, const Tensor& index, DimVector* shape) {
  EMBER_CHECK(index.dim() <= 1, "index_fill: index should have dim <= 1, got ", index.sizes());
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
              "index_fill: expected an int64 index, got ", index.dtype());
  check_same_device("index_fill", self, index);
  const int64_t size = self.dim() == 0 ? 1 : self.size(d);
  Tensor idx = index.to(kInt64);
  if (idx.is_cpu()) {
    const Tensor c = idx.contiguous();
    const int64_t* p = c.data_ptr<int64_t>();
    for (int64_t i = 0; i < c.numel(); ++i) {
      EMBER_CHECK(p[i] >= -size && p[i] < size, "index_fill: index ", p[i],
                  " is out of bounds for dim ", d, " with size ", size);
    }
  }
  idx = where(idx < 0, idx + size, idx);
  *shape = DimVector(self.dim() == 0 ? IntArrayRef(int64_t(1)) : self.sizes());
  (*shape)[d] = idx.numel();
  return index_along(idx, d, *shape);
}
}  // namespace

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_defined("index_fill", self, index);
  const int64_t d = wrap_dim("index_fill", dim, self.dim());
  DimVector shape;
  const Tensor idx = fill_index(self, d, index, &shape);
  if (self.dim() == 0) return as_1d(self).clone().scatter(0, idx, value).reshape({});
  return self.scatter(d, idx, value);
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  check_defined("index_fill", self, index, value);
  EMBER_CHECK(value.dim() == 0,
              "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  const int64_t d = wrap_dim("index_fill", dim, self.dim());
  DimVector shape;
  const Tensor idx = fill_index(self, d, index, &shape);
  const Tensor src = value.to(self.dtype()).to(self.device()).expand(idx.sizes());
  if (self.dim() == 0) return self.reshape({1}).scatter(0, idx, src).reshape({});
  return self.scatter(d, idx, src);
}

// ---- bincount ----
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  check_defined("bincount", self);
  NoGradGuard no_grad;  // not differentiable, as LibTorch's
  EMBER_CHECK(minlength >= 0, "bincount: minlength should be >= 0, got ", minlength);
  const bool integral = !is_floating_point(self.dtype()) && self.dtype() != kBool;
  EMBER_CHECK(self.dim() == 1 && integral,
              "bincount only supports 1-d non-negative integral inputs, got ", self.dtype(), " ",
              self.sizes());
  const bool weighted = weights.has_value() && weights->defined();
  if (weighted) {
    EMBER_CHECK(weights->dim() == 1 && weights->numel() == self.numel(),
                "bincount: weights should be 1-d and have the same length as input, got ",
                weights->sizes(), " and ", self.sizes());
    check_same_device("bincount", self, *weights);
  }
  const TensorOptions opts = TensorOptions().device(self.device());
  if (self.numel() == 0) return zeros({minlength}, opts.dtype(kInt64));
  EMBER_CHECK(self.min().item<int64_t>() >= 0,
              "bincount only supports 1-d non-negative integral inputs.");
  const int64_t bins = std::max(self.max().item<int64_t>() + 1, minlength);
  const Tensor idx = self.to(kInt64);
  if (!weighted) return zeros({bins}, opts.dtype(kInt64)).scatter_add(0, idx, ones_like(idx));
  const ScalarType dt = weights->dtype() == kFloat32 ? kFloat32 : kFloat64;
  return zeros({bins}, opts.dtype(dt)).scatter_add(0, idx, weights->to(dt));
}

// ---- Tensor methods ----
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src,
                       std::string_view reduce) const {
  return ember::scatter(*this, dim, index, src, reduce);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value,
                       std::string_view reduce) const {
  return ember::scatter(*this, dim, index, value, reduce);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (autograd::should_record(*this, src)) {
    detail::recorded::scatter_(self_(), dim, index, src);
    return self_();
  }
  Tensor idx;
  const int64_t d = check_scatter("scatter_", *this, dim, index, src, &idx);
  scatter_into(*this, d, idx, src);
  impl_->storage()->bump_version();
  return self_();
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  check_defined("scatter_", *this, index);
  return scatter_(dim, index, value_src(*this, index, value));
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                         std::string_view reduce) const {
  check_defined("scatter_", *this, index, src);
  if (reduce == "add") return scatter_add_(dim, index, src);
  EMBER_CHECK(reduce == "multiply",
              "scatter_: reduce argument must be either add or multiply, got ",
              std::string(reduce));
  return scatter_reduce_(dim, index, src, "prod", true);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                         std::string_view reduce) const {
  check_defined("scatter_", *this, index);
  return scatter_(dim, index, value_src(*this, index, value), reduce);
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                std::string_view reduce, bool include_self) const {
  const Reduce r = parse_reduce(reduce);
  if (autograd::should_record(*this, src)) {
    detail::recorded::scatter_reduce_(self_(), dim, index, src, reduce, include_self);
    return self_();
  }
  Tensor idx;
  const int64_t d = check_scatter("scatter_reduce_", *this, dim, index, src, &idx);
  scatter_reduce_into(*this, d, idx, src, r, include_self);
  impl_->storage()->bump_version();
  return self_();
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha) const {
  const int64_t d = check_index_source("index_add_", *this, dim, index, source);
  const Tensor src = alpha.equal(1) ? source : source * alpha;
  named_errors("index_add_", [&] {
    if (this->dim() == 0)
      reshape({1}).scatter_add_(0, index.reshape({1}), src.reshape({1}));
    else
      scatter_add_(d, index_along(index, d, source.sizes()), src);
  });
  return self_();
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  check_defined("index_fill_", *this, index);
  const int64_t d = wrap_dim("index_fill_", dim, this->dim());
  DimVector shape;
  const Tensor idx = fill_index(*this, d, index, &shape);
  if (this->dim() == 0) {
    reshape({1}).scatter_(0, idx, value);
    return self_();
  }
  return scatter_(d, idx, value);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const {
  check_defined("index_fill_", *this, index, value);
  EMBER_CHECK(value.dim() == 0,
              "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  const int64_t d = wrap_dim("index_fill_", dim, this->dim());
  DimVector shape;
  const Tensor idx = fill_index(*this, d, index, &shape);
  const Tensor src = value.to(dtype()).to(device()).expand(idx.sizes());
  if (this->dim() == 0) {
    reshape({1}).scatter_(0, idx, src);
    return self_();
  }
  return scatter_(d, idx, src);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  const int64_t d = check_index_source("index_copy_", *this, dim, index, source);
  named_errors("index_copy_", [&] {
    if (this->dim() == 0)
      reshape({1}).scatter_(0, index.reshape({1}), source.reshape({1}));
    else
      scatter_(d, index_along(index, d, source.sizes()), source);
  });
  return self_();
}
Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return ember::bincount(*this, weights, minlength);
}

}  // namespace ember
