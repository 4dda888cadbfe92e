// View ops of Tensor (view, reshape, squeeze, transpose, expand, slice, select, split...):
// each builds a new TensorImpl over the same Storage with new sizes, strides and offset.
// Under autograd each records its node first (autograd/grad_views.cpp).
#include <algorithm>
#include <optional>
#include <vector>

#include <ember/core/recording.h>
#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/tensor.h>

namespace ember {

namespace {

Tensor make_view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), sizes, strides, offset);
  impl->set_is_view(true);
  return Tensor(std::move(impl));
}

// Resolves a single -1 in a requested shape against numel (PyTorch's infer_size).
DimVector infer_size(const char* op, IntArrayRef shape, int64_t numel) {
  DimVector out(shape);
  int64_t known = 1;
  int64_t infer_dim = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(infer_dim < 0, op, ": only one dimension can be inferred, got shape ",
                  shape_str(shape));
      infer_dim = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(shape[i] >= 0, op, ": invalid shape dimension ", shape[i], " in ",
                  shape_str(shape));
      EMBER_CHECK(!__builtin_mul_overflow(known, shape[i], &known), op, ": shape ",
                  shape_str(shape), " has more elements than int64 can count");
    }
  }
  if (infer_dim >= 0) {
    // With zero known elements the inferred size could be anything.
    EMBER_CHECK(known != 0, op, ": cannot reshape a tensor of ", numel, " elements into shape ",
                shape_str(shape), " because the size of the -1 dimension is ambiguous");
    EMBER_CHECK(numel % known == 0, op, ": shape ", shape_str(shape),
                " is invalid for input of size ", numel);
    out[infer_dim] = numel / known;
  } else {
    EMBER_CHECK(known == numel, op, ": shape ", shape_str(shape), " is invalid for input of size ",
                numel);
  }
  return out;
}

// PyTorch's computeStride: strides that express newshape over the old memory layout
// without copying, or nullopt when some merged group of dims is not contiguous.
std::optional<DimVector> compute_stride(IntArrayRef oldshape, IntArrayRef oldstride,
                                        IntArrayRef newshape) {
  const int64_t ndim = static_cast<int64_t>(newshape.size());
  DimVector newstride(newshape.size(), 1);
  if (oldshape.empty()) return newstride;  // a 0-dim tensor views as any all-ones shape

  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0 && oldshape.equals(newshape)) return DimVector(oldstride);
  if (numel == 0) {
    // No memory is touched: any strides do; use contiguous ones (size-0 dims count as 1).
    for (int64_t d = ndim - 1; d >= 0; --d) {
      newstride[d] = d == ndim - 1 ? 1 : std::max<int64_t>(newshape[d + 1], 1) * newstride[d + 1];
    }
    return newstride;
  }

  int64_t view_d = ndim - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    // A chunk ends where the next-outer dim is not laid out right after this one.
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 &&
                          oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

void check_not_scalar(const char* op, const Tensor& t) {
  EMBER_CHECK(t.dim() > 0, op, ": cannot be applied to a 0-dim tensor");
}

}  // namespace

Tensor Tensor::view(IntArrayRef sizes) const {
  if (autograd::should_record(*this)) return detail::recorded::view(*this, sizes);
  check_defined("view", *this);
  DimVector shape = infer_size("view", sizes, numel());
  std::optional<DimVector> st = compute_stride(this->sizes(), strides(), shape);
  EMBER_CHECK(st.has_value(), "view: size ", shape_str(shape),
              " is not compatible with the input's size ", shape_str(this->sizes()), " and stride ",
              shape_str(strides()), "; use reshape");
  return make_view(*this, shape, *st, storage_offset());
}

Tensor Tensor::view_as(const Tensor& other) const {
  check_defined("view_as", *this, other);
  return view(other.sizes());
}

Tensor Tensor::reshape(IntArrayRef sizes) const {
  if (autograd::should_record(*this)) return detail::recorded::reshape(*this, sizes);
  check_defined("reshape", *this);
  DimVector shape = infer_size("reshape", sizes, numel());
  if (std::optional<DimVector> st = compute_stride(this->sizes(), strides(), shape)) {
    return make_view(*this, shape, *st, storage_offset());
  }
  Tensor c = contiguous();
  Tensor out = make_view(c, shape, contiguous_strides(shape), c.storage_offset());
  out.unsafeGetTensorImpl()->set_is_view(false);  // a copy: nothing else sees its memory
  return out;
}

Tensor Tensor::reshape_as(const Tensor& other) const {
  check_defined("reshape_as", *this, other);
  return reshape(other.sizes());
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  check_defined("flatten", *this);
  if (dim() == 0) return reshape({1});
  const int64_t start = wrap_dim("flatten", start_dim, dim());
  const int64_t end = wrap_dim("flatten", end_dim, dim());
  EMBER_CHECK(start <= end, "flatten: start_dim (", start_dim, ") cannot come after end_dim (",
              end_dim, ") for a tensor of shape ", shape_str(sizes()));
  if (start == end) {
    if (autograd::should_record(*this)) return view(sizes());  // records ViewBackward0
    return make_view(*this, sizes(), strides(), storage_offset());
  }
  DimVector shape;
  int64_t merged = 1;
  for (int64_t d = 0; d < dim(); ++d) {
    if (d < start || d > end) {
      shape.push_back(sizes()[d]);
    } else {
      merged *= sizes()[d];
      if (d == end) shape.push_back(merged);
    }
  }
  return reshape(shape);
}

Tensor Tensor::squeeze() const {
  check_defined("squeeze", *this);
  if (autograd::should_record(*this)) return detail::recorded::squeeze(*this);
  DimVector shape, st;
  for (int64_t d = 0; d < dim(); ++d) {
    if (sizes()[d] != 1) {
      shape.push_back(sizes()[d]);
      st.push_back(strides()[d]);
    }
  }
  return make_view(*this, shape, st, storage_offset());
}

Tensor Tensor::squeeze(int64_t dim) const {
  check_defined("squeeze", *this);
  if (autograd::should_record(*this)) return detail::recorded::squeeze_dim(*this, dim);
  const int64_t d = wrap_dim("squeeze", dim, this->dim());
  DimVector shape(sizes()), st(strides());
  if (this->dim() > 0 && shape[d] == 1) {
    shape.erase(d);
    st.erase(d);
  }
  return make_view(*this, shape, st, storage_offset());
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  check_defined("unsqueeze", *this);
  if (autograd::should_record(*this)) return detail::recorded::unsqueeze(*this, dim);
  const int64_t d = wrap_dim("unsqueeze", dim, this->dim() + 1);
  DimVector shape(sizes()), st(strides());
  // Any stride is valid for a size-1 dim; this one keeps contiguous tensors contiguous.
  const int64_t new_stride = d >= this->dim() ? 1 : shape[d] * st[d];
  shape.insert(d, 1);
  st.insert(d, new_stride);
  return make_view(*this, shape, st, storage_offset());
}

Tensor Tensor::t() const {
  check_defined("t", *this);
  if (autograd::should_record(*this)) return detail::recorded::t(*this);
  EMBER_CHECK(dim() <= 2, "t: expects a tensor with <= 2 dimensions, but got ", dim(),
              " dims (shape ", shape_str(sizes()), "); use transpose or permute");
  if (dim() < 2) return make_view(*this, sizes(), strides(), storage_offset());
  return transpose(0, 1);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  check_defined("transpose", *this);
  if (autograd::should_record(*this)) return detail::recorded::transpose(*this, dim0, dim1);
  const int64_t d0 = wrap_dim("transpose", dim0, dim());
  const int64_t d1 = wrap_dim("transpose", dim1, dim());
  DimVector shape(sizes()), st(strides());
  std::swap(shape[d0], shape[d1]);
  std::swap(st[d0], st[d1]);
  return make_view(*this, shape, st, storage_offset());
}

Tensor Tensor::permute(IntArrayRef dims) const {
  check_defined("permute", *this);
  if (autograd::should_record(*this)) return detail::recorded::permute(*this, dims);
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == dim(), "permute: got ", dims.size(), " dims ",
              shape_str(dims), " for a tensor of ", dim(), " dims (shape ", shape_str(sizes()),
              ")");
  DimVector shape(dims.size()), st(dims.size());
  DimVector seen(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim("permute", dims[i], dim());
    EMBER_CHECK(!seen[d], "permute: dim ", d, " is repeated in ", shape_str(dims));
    seen[d] = 1;
    shape[i] = sizes()[d];
    st[i] = strides()[d];
  }
  return make_view(*this, shape, st, storage_offset());
}

Tensor Tensor::expand(IntArrayRef sizes) const {
  check_defined("expand", *this);
  if (autograd::should_record(*this)) return detail::recorded::expand(*this, sizes);
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  const int64_t old_ndim = dim();
  EMBER_CHECK(ndim >= old_ndim, "expand: the number of sizes provided (", ndim,
              ") must be greater or equal to the number of dims of the tensor (", old_ndim,
              "; target ", shape_str(sizes), ", tensor ", shape_str(this->sizes()), ")");
  DimVector shape(ndim), st(ndim);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t offset = ndim - 1 - i;
    const int64_t d = old_ndim - 1 - offset;  // matching dim of this tensor, < 0 when new
    int64_t size = d >= 0 ? this->sizes()[d] : 1;
    int64_t stride = d >= 0 ? strides()[d] : (i + 1 < ndim ? shape[i + 1] * st[i + 1] : 1);
    int64_t target = sizes[i];
    if (target == -1) {
      EMBER_CHECK(d >= 0, "expand: -1 is not allowed in a new leading dim ", i, " (target ",
                  shape_str(sizes), ", tensor ", shape_str(this->sizes()), ")");
      target = size;
    }
    EMBER_CHECK(target >= 0, "expand: invalid size ", target, " at dim ", i, " (target ",
                shape_str(sizes), ")");
    if (size != target) {
      EMBER_CHECK(size == 1, "expand: the expanded size ", target, " must match the existing size ",
                  size, " at non-singleton dim ", i, " (target ", shape_str(sizes), ", tensor ",
                  shape_str(this->sizes()), ")");
      size = target;
      stride = 0;
    }
    shape[i] = size;
    st[i] = stride;
  }
  int64_t numel = 1;
  bool overflow = false;
  for (int64_t s : shape) overflow |= __builtin_mul_overflow(numel, s, &numel);
  EMBER_CHECK(!overflow, "expand: the target ", shape_str(sizes),
              " has more elements than int64 can count (tensor ", shape_str(this->sizes()), ")");
  return make_view(*this, shape, st, storage_offset());
}

Tensor Tensor::expand_as(const Tensor& other) const {
  check_defined("expand_as", *this, other);
  return expand(other.sizes());
}

Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  check_defined("slice", *this);
  if (autograd::should_record(*this)) {
    return detail::recorded::slice(*this, dim, start, end, step);
  }
  check_not_scalar("slice", *this);
  const int64_t d = wrap_dim("slice", dim, this->dim());
  EMBER_CHECK(step > 0, "slice: step must be positive, got ", step);
  const int64_t size = sizes()[d];
  // Python-style bounds: negative counts from the end, out-of-range clamps.
  int64_t s = start.value_or(0);
  int64_t e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  DimVector shape(sizes()), st(strides());
  shape[d] = e == s ? 0 : (e - s - 1) / step + 1;  // e - s + step - 1 could overflow
  int64_t stride = 0;  // overflows only for a huge step, which leaves one element: any stride
  st[d] = __builtin_mul_overflow(strides()[d], step, &stride) ? strides()[d] : stride;
  return make_view(*this, shape, st, storage_offset() + s * strides()[d]);
}

Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  check_defined("narrow", *this);
  check_not_scalar("narrow", *this);
  const int64_t d = wrap_dim("narrow", dim, this->dim());
  const int64_t size = sizes()[d];
  EMBER_CHECK(start >= -size && start <= size, "narrow: start ", start, " is out of range for dim ",
              d, " of size ", size, " (expected in [", -size, ", ", size, "])");
  if (start < 0) start += size;
  EMBER_CHECK(length >= 0 && length <= size - start, "narrow: start (", start, ") + length (",
              length, ") exceeds the size ", size, " of dim ", d, " (shape ", shape_str(sizes()),
              ")");
  if (autograd::should_record(*this)) return slice(d, start, start + length);
  DimVector shape(sizes());
  shape[d] = length;
  return make_view(*this, shape, strides(), storage_offset() + start * strides()[d]);
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  check_defined("select", *this);
  if (autograd::should_record(*this)) return detail::recorded::select(*this, dim, index);
  check_not_scalar("select", *this);
  const int64_t d = wrap_dim("select", dim, this->dim());
  const int64_t size = sizes()[d];
  EMBER_CHECK(index >= -size && index < size, "select: index ", index, " is out of range for dim ",
              d, " of size ", size);
  if (index < 0) index += size;
  DimVector shape(sizes()), st(strides());
  shape.erase(d);
  st.erase(d);
  return make_view(*this, shape, st, storage_offset() + index * strides()[d]);
}

Tensor Tensor::operator[](int64_t index) const { return select(0, index); }

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  check_defined("chunk", *this);
  check_not_scalar("chunk", *this);
  EMBER_CHECK(chunks > 0, "chunk: number of chunks must be positive, got ", chunks);
  const int64_t d = wrap_dim("chunk", dim, this->dim());
  const int64_t size = sizes()[d];
  const int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    // PyTorch returns `chunks` empty pieces when the dim is empty.
    std::vector<Tensor> out;
    for (int64_t i = 0; i < chunks; ++i) out.push_back(narrow(d, 0, 0));
    return out;
  }
  return split(split_size, d);
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  check_defined("split", *this);
  check_not_scalar("split", *this);
  EMBER_CHECK(split_size >= 0, "split: split_size must be non-negative, got ", split_size);
  const int64_t d = wrap_dim("split", dim, this->dim());
  const int64_t size = sizes()[d];
  EMBER_CHECK(split_size > 0 || size == 0, "split: split_size can only be 0 when dim ", d,
              " is empty (size ", size, ")");
  const int64_t n =
      split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t start = i * split_size;
    out.push_back(narrow(d, start, std::min(split_size, size - start)));
  }
  return out;
}

std::vector<Tensor> Tensor::unbind(int64_t dim) const {
  check_defined("unbind", *this);
  check_not_scalar("unbind", *this);
  const int64_t d = wrap_dim("unbind", dim, this->dim());
  std::vector<Tensor> out;
  out.reserve(sizes()[d]);
  for (int64_t i = 0; i < sizes()[d]; ++i) out.push_back(select(d, i));
  return out;
}

Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides,
                          std::optional<int64_t> storage_offset) const {
  check_defined("as_strided", *this);
  if (autograd::should_record(*this)) {
    return detail::recorded::as_strided(*this, sizes, strides, storage_offset);
  }
  EMBER_CHECK(sizes.size() == strides.size(), "as_strided: sizes ", shape_str(sizes),
              " and strides ", shape_str(strides), " have different lengths");
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  EMBER_CHECK(offset >= 0, "as_strided: negative storage offset ", offset);
  int64_t last = offset;  // highest element index the view reaches
  bool empty = false, overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(sizes[i] >= 0 && strides[i] >= 0, "as_strided: negative size or stride in sizes ",
                shape_str(sizes), ", strides ", shape_str(strides));
    int64_t step = 0;
    if (sizes[i] == 0) {
      empty = true;
    } else {
      overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &step);
      overflow |= __builtin_add_overflow(last, step, &last);
    }
  }
  EMBER_CHECK(empty || !overflow, "as_strided: sizes ", shape_str(sizes), " and strides ",
              shape_str(strides), " reach further than int64 can count");
  const int64_t capacity =
      static_cast<int64_t>(impl()->storage()->nbytes() / ember::element_size(dtype()));
  EMBER_CHECK(empty || last < capacity, "as_strided: sizes ", shape_str(sizes), ", strides ",
              shape_str(strides), " and offset ", offset, " reach outside a storage of ", capacity,
              " elements");
  return make_view(*this, sizes, strides, offset);
}

// ---- free-function forms ----

Tensor reshape(const Tensor& t, IntArrayRef sizes) { return t.reshape(sizes); }
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  return t.flatten(start_dim, end_dim);
}
Tensor squeeze(const Tensor& t) { return t.squeeze(); }
Tensor squeeze(const Tensor& t, int64_t dim) { return t.squeeze(dim); }
Tensor unsqueeze(const Tensor& t, int64_t dim) { return t.unsqueeze(dim); }
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) { return t.transpose(dim0, dim1); }
Tensor permute(const Tensor& t, IntArrayRef dims) { return t.permute(dims); }
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  return t.narrow(dim, start, length);
}
Tensor select(const Tensor& t, int64_t dim, int64_t index) { return t.select(dim, index); }
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  return t.chunk(chunks, dim);
}
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  return t.split(split_size, dim);
}
std::vector<Tensor> unbind(const Tensor& t, int64_t dim) { return t.unbind(dim); }
Tensor clone(const Tensor& t) { return t.clone(); }

}  // namespace ember
