// More view ops as LibTorch has them: diagonal (as_strided), movedim/moveaxis, swapaxes/swapdims,
// broadcast_to/broadcast_tensors, meshgrid, unflatten, squeeze(dims), mT/mH/T/H/adjoint,
// split(sizes)/split_with_sizes, atleast_Nd, and the in-place views (squeeze_, unsqueeze_, t_,
// transpose_, swapaxes_): composites of the views of core/views.cpp, so autograd records them.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/recording.h>
#include <ember/core/tensor.h>

namespace ember {

namespace {

// The in-place views: self takes the geometry of `v` (a view of self's storage). Under
// autograd self also takes v's history, as LibTorch rebases it; leaves refuse, as there.
Tensor& become_view(const char* op, const Tensor& self, const std::function<Tensor()>& make) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  EMBER_CHECK(impl != nullptr, op, ": the tensor is undefined");
  Tensor v = make();
  if (self.requires_grad()) {
    detail::recorded::become_view(op, self, v);  // autograd/grad_views.cpp
  } else {
    impl->set_geometry(v.sizes(), v.strides(), v.storage_offset());
  }
  return const_cast<Tensor&>(self);
}

}  // namespace

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  const int64_t nd = dim();
  const int64_t d1 = wrap_dim("diagonal", dim1, nd);
  const int64_t d2 = wrap_dim("diagonal", dim2, nd);
  EMBER_CHECK(d1 != d2, "diagonal: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t s1 = sizes()[d1], s2 = sizes()[d2];
  const int64_t st1 = strides()[d1], st2 = strides()[d2];
  const int64_t n =
      std::max<int64_t>(offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2), 0);
  int64_t start = storage_offset();
  if (n > 0) start += offset >= 0 ? offset * st2 : -offset * st1;
  DimVector shape, st;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == d1 || d == d2) continue;
    shape.push_back(sizes()[d]);
    st.push_back(strides()[d]);
  }
  shape.push_back(n);
  st.push_back(st1 + st2);
  return as_strided(shape, st, start);
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  return t.diagonal(offset, dim1, dim2);
}

// ---- meshgrid, broadcasting ----

std::vector<Tensor> meshgrid(TensorList tensors) { return meshgrid(tensors, "ij"); }

std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing) {
  const size_t n = tensors.size();
  EMBER_CHECK(n > 0, "meshgrid expects a non-empty TensorList");
  for (size_t i = 0; i + 1 < n; ++i) {
    EMBER_CHECK(tensors[i].dtype() == tensors[i + 1].dtype(),
                "meshgrid expects all tensors to have the same dtype, got ", tensors[i].dtype(),
                " and ", tensors[i + 1].dtype());
    EMBER_CHECK(tensors[i].device() == tensors[i + 1].device(),
                "meshgrid expects all tensors to have the same device, got ", tensors[i].device(),
                " and ", tensors[i + 1].device());
  }
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  bool swap = false;
  if (indexing == "xy") {
    swap = n >= 2;
    if (swap) std::swap(in[0], in[1]);
  } else {
    EMBER_CHECK(indexing == "ij",
                "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ",
                std::string(indexing));
  }
  DimVector shape(n, 1);
  for (size_t i = 0; i < n; ++i) {
    EMBER_CHECK(in[i].dim() <= 1,
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                "but got one of shape ",
                shape_str(in[i].sizes()));
    shape[i] = in[i].numel();
  }
  std::vector<Tensor> grids;
  DimVector view_shape(n, 1);
  for (size_t i = 0; i < n; ++i) {
    view_shape[i] = -1;
    grids.push_back(in[i].view(view_shape).expand(shape));
    view_shape[i] = 1;
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

Tensor broadcast_to(const Tensor& t, IntArrayRef size) { return t.expand(size); }
Tensor Tensor::broadcast_to(IntArrayRef size) const { return expand(size); }

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  if (tensors.empty()) return {};
  DimVector shape(tensors[0].sizes());
  for (size_t i = 1; i < tensors.size(); ++i) {
    shape = broadcast_shapes("broadcast_tensors", shape, tensors[i].sizes());
  }
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

// ---- views: movedim, swapaxes, unflatten, squeeze(dims), mT, split(sizes) ----

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  EMBER_CHECK(source.size() == destination.size(),
              "movedim: Invalid source or destination dims: source (", shape_str(source),
              " dims) should contain the same number of dims as destination (",
              shape_str(destination), " dims)");
  const int64_t nd = dim();
  DimVector src, dst;
  for (int64_t s : source) src.push_back(wrap_dim("movedim", s, nd));
  for (int64_t s : destination) dst.push_back(wrap_dim("movedim", s, nd));
  auto unique = [](const DimVector& v) {
    DimVector s(v);
    std::sort(s.begin(), s.end());
    return std::adjacent_find(s.begin(), s.end()) == s.end();
  };
  EMBER_CHECK(unique(src), "movedim: repeated dim in `source` (", shape_str(source), ")");
  EMBER_CHECK(unique(dst), "movedim: repeated dim in `destination` (", shape_str(destination), ")");
  if (nd == 0) return permute({});
  DimVector order(nd, -1), rest_src, rest_dst;
  std::vector<bool> src_used(nd, false), dst_used(nd, false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[dst[i]] = src[i];
    src_used[src[i]] = true;
    dst_used[dst[i]] = true;
  }
  for (int64_t d = 0; d < nd; ++d) {
    if (!src_used[d]) rest_src.push_back(d);
    if (!dst_used[d]) rest_dst.push_back(d);
  }
  for (size_t i = 0; i < rest_src.size(); ++i) order[rest_dst[i]] = rest_src[i];
  return permute(order);
}

Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef(source), IntArrayRef(destination));
}
Tensor Tensor::moveaxis(IntArrayRef source, IntArrayRef destination) const {
  return movedim(source, destination);
}
Tensor Tensor::moveaxis(int64_t source, int64_t destination) const {
  return movedim(source, destination);
}
Tensor movedim(const Tensor& t, IntArrayRef source, IntArrayRef destination) {
  return t.movedim(source, destination);
}
Tensor movedim(const Tensor& t, int64_t source, int64_t destination) {
  return t.movedim(source, destination);
}
Tensor moveaxis(const Tensor& t, IntArrayRef source, IntArrayRef destination) {
  return t.movedim(source, destination);
}
Tensor moveaxis(const Tensor& t, int64_t source, int64_t destination) {
  return t.movedim(source, destination);
}

Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const { return transpose(axis0, axis1); }
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
Tensor swapaxes(const Tensor& t, int64_t axis0, int64_t axis1) { return t.transpose(axis0, axis1); }
Tensor swapdims(const Tensor& t, int64_t dim0, int64_t dim1) { return t.transpose(dim0, dim1); }

Tensor Tensor::unflatten(int64_t dim, IntArrayRef sizes) const {
  const int64_t d = wrap_dim("unflatten", dim, this->dim());
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  const int64_t size = this->dim() == 0 ? 1 : this->sizes()[d];
  int64_t known = 1, infer = -1;
  bool ok = true;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(infer < 0, "unflatten: only one dimension can be inferred, got sizes ",
                  shape_str(sizes));
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(sizes[i] >= 0, "unflatten: invalid shape dimension ", sizes[i], " in ",
                  shape_str(sizes));
      EMBER_CHECK(!__builtin_mul_overflow(known, sizes[i], &known), "unflatten: sizes ",
                  shape_str(sizes), " have more elements than int64 can count");
    }
  }
  DimVector inferred(sizes);
  if (infer >= 0) {
    ok = known != 0 && size % known == 0;
    if (ok) inferred[infer] = size / known;
  } else {
    ok = known == size;
  }
  EMBER_CHECK(ok, "unflatten: Provided sizes ", shape_str(sizes),
              " don't multiply up to the size of dim ", d, " (", size, ") in the input tensor");
  DimVector shape(this->sizes());
  if (this->dim() > 0) shape.erase(d);
  for (size_t i = 0; i < inferred.size(); ++i)
    shape.insert(d + static_cast<int64_t>(i), inferred[i]);
  return view(shape);
}

Tensor unflatten(const Tensor& t, int64_t dim, IntArrayRef sizes) {
  return t.unflatten(dim, sizes);
}

Tensor Tensor::squeeze(IntArrayRef dim) const {
  DimVector ds = unique_dims("squeeze", dim, this->dim());
  std::sort(ds.begin(), ds.end());
  if (autograd::should_record(*this)) {
    Tensor out = *this;
    for (size_t i = ds.size(); i-- > 0;) out = out.squeeze(ds[i]);
    return ds.empty() ? view(sizes()) : out;
  }
  DimVector shape, st;
  for (int64_t d = 0; d < this->dim(); ++d) {
    if (sizes()[d] == 1 && std::binary_search(ds.begin(), ds.end(), d)) continue;
    shape.push_back(sizes()[d]);
    st.push_back(strides()[d]);
  }
  Tensor out = restride(*this, shape, st);
  out.unsafeGetTensorImpl()->set_is_view(true);
  return out;
}

Tensor squeeze(const Tensor& t, IntArrayRef dim) { return t.squeeze(dim); }

Tensor Tensor::mT() const {
  EMBER_CHECK(dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ",
              dim(), "-D tensor.");
  return transpose(-2, -1);
}

Tensor Tensor::mH() const {
  EMBER_CHECK(dim() >= 2, "tensor.mH is only supported on matrices or batches of matrices. Got ",
              dim(), "-D tensor.");
  return transpose(-2, -1);
}

Tensor Tensor::adjoint() const {
  EMBER_CHECK(dim() >= 2,
              "tensor.adjoint() is only supported on matrices or batches of matrices. Got ", dim(),
              "-D tensor.");
  return transpose(-2, -1);
}

Tensor adjoint(const Tensor& t) { return t.adjoint(); }

Tensor Tensor::H() const {
  EMBER_CHECK(dim() == 2 || dim() == 0,
              "tensor.H is only supported on matrices (2-D tensors). Got ", dim(), "-D tensor.",
              dim() > 2 ? " For batches of matrices, consider using tensor.mH" : "");
  return dim() == 0 ? *this : transpose(0, 1);
}

Tensor Tensor::T() const {
  DimVector order;
  for (int64_t d = dim() - 1; d >= 0; --d) order.push_back(d);
  return permute(order);
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  EMBER_CHECK(this->dim() != 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim("split_with_sizes", dim, this->dim());
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0,
                "split_with_sizes expects split_sizes have only non-negative entries, "
                "but got split_sizes=",
                shape_str(split_sizes));
    total += s;
  }
  EMBER_CHECK(total == sizes()[d], "split_with_sizes expects split_sizes to sum exactly to ",
              sizes()[d], " (input tensor's size at dimension ", dim,
              "), but got split_sizes=", shape_str(split_sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(narrow(d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const {
  return split_with_sizes(split_sizes, dim);
}
std::vector<Tensor> split(const Tensor& t, IntArrayRef split_sizes, int64_t dim) {
  return t.split_with_sizes(split_sizes, dim);
}
std::vector<Tensor> split_with_sizes(const Tensor& t, IntArrayRef split_sizes, int64_t dim) {
  return t.split_with_sizes(split_sizes, dim);
}

// ---- in-place views ----

Tensor& Tensor::squeeze_() const {
  return become_view("squeeze_", *this, [this] { return squeeze(); });
}
Tensor& Tensor::squeeze_(int64_t dim) const {
  return become_view("squeeze_", *this, [this, dim] { return squeeze(dim); });
}
Tensor& Tensor::squeeze_(IntArrayRef dim) const {
  return become_view("squeeze_", *this, [this, dim] { return squeeze(dim); });
}
Tensor& Tensor::unsqueeze_(int64_t dim) const {
  return become_view("unsqueeze_", *this, [this, dim] { return unsqueeze(dim); });
}
Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) const {
  return become_view("transpose_", *this, [this, dim0, dim1] { return transpose(dim0, dim1); });
}
Tensor& Tensor::t_() const {
  return become_view("t_", *this, [this] { return t(); });
}
Tensor& Tensor::swapaxes_(int64_t axis0, int64_t axis1) const { return transpose_(axis0, axis1); }
Tensor& Tensor::swapdims_(int64_t dim0, int64_t dim1) const { return transpose_(dim0, dim1); }

// ---- atleast_Nd and the stacks ----

Tensor atleast_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

Tensor atleast_2d(const Tensor& t) {
  if (t.dim() == 0) return t.reshape({1, 1});
  if (t.dim() == 1) return t.unsqueeze(0);
  return t;
}

Tensor atleast_3d(const Tensor& t) {
  if (t.dim() == 0) return t.reshape({1, 1, 1});
  if (t.dim() == 1) return t.unsqueeze(0).unsqueeze(-1);
  if (t.dim() == 2) return t.unsqueeze(-1);
  return t;
}

namespace {
template <Tensor (*F)(const Tensor&)>
std::vector<Tensor> map_list(TensorList tensors) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(F(t));
  return out;
}
}  // namespace

std::vector<Tensor> atleast_1d(TensorList tensors) { return map_list<atleast_1d>(tensors); }
std::vector<Tensor> atleast_2d(TensorList tensors) { return map_list<atleast_2d>(tensors); }
std::vector<Tensor> atleast_3d(TensorList tensors) { return map_list<atleast_3d>(tensors); }

}  // namespace ember
