// Backward rules of the view ops and of the copies (clone, to, copy_), written with
// ember's own ops so that create_graph records them too. View nodes carry kView: in-place
// ops on their outputs are refused (ember does not rebase a view's base).
#include <ember/autograd/recorders.h>

#include <algorithm>
#include <utility>
#include <vector>

#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>

namespace ember::autograd::recorded {

namespace {

constexpr uint8_t kView = FunctionNode::kView;

// Gradient of t.slice(d, start, start + (n-1)*step + 1, step) for a t of `in_sizes`:
// zeros with g in the slice region. Under create_graph (g has history) it is built from
// differentiable ops (cat of zero blocks, with zeros interleaved for step > 1); otherwise
// a plain zeros + copy into the region.
Tensor slice_backward(const Tensor& g, const DimVector& in_sizes, int64_t d, int64_t start,
                      int64_t step) {
  const int64_t n = g.size(d);
  if (n == 0) return ember::zeros(in_sizes, g.options());
  const int64_t len = (n - 1) * step + 1;  // extent of the region along d
  if (!(GradMode::is_enabled() && g.requires_grad())) {
    Tensor z = ember::zeros(in_sizes, g.options());
    z.slice(d, start, start + len, step).copy_(g);
    return z;
  }
  Tensor mid = g;
  if (step > 1) {
    // [.., n, ..] -> [.., n, step, ..] with g at step index 0 -> [.., n*step, ..] -> first len.
    DimVector gap_sizes(g.sizes());
    gap_sizes.insert(d + 1, step - 1);
    Tensor gap = ember::zeros(gap_sizes, g.options());
    DimVector merged(g.sizes());
    merged[d] = n * step;
    mid = ember::cat(std::vector<Tensor>{g.unsqueeze(d + 1), gap}, d + 1)
              .reshape(merged)
              .narrow(d, 0, len);
  }
  std::vector<Tensor> parts;
  if (start > 0) {
    DimVector s(in_sizes);
    s[d] = start;
    parts.push_back(ember::zeros(s, g.options()));
  }
  parts.push_back(mid);
  const int64_t after = in_sizes[d] - start - len;
  if (after > 0) {
    DimVector s(in_sizes);
    s[d] = after;
    parts.push_back(ember::zeros(s, g.options()));
  }
  return parts.size() == 1 ? mid : ember::cat(parts, d);
}

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// One past the last element a geometry reaches, relative to its offset (numel > 0).
int64_t span_of(IntArrayRef sizes, IntArrayRef strides) {
  int64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) last += (sizes[i] - 1) * strides[i];
  return last + 1;
}

// Whether two elements of the geometry may share a memory location (conservative: a
// false "true" only costs the division by the reference count).
bool may_overlap(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims of size > 1
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 2) continue;
    if (strides[i] == 0) return true;
    dims.emplace_back(strides[i], sizes[i]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;  // largest offset the smaller-stride dims reach
  for (auto [stride, size] : dims) {
    if (stride <= reach) return true;
    reach += (size - 1) * stride;
  }
  return false;
}

struct Geometry {
  DimVector sizes, strides;
  int64_t offset;
};

// PyTorch's as_strided_backward: the output's gradient scatter-added into a flat buffer
// over the storage range both geometries touch, read back through the input's geometry
// (divided by how many input elements share each location when the input overlaps).
Tensor as_strided_backward(const Tensor& g, const Geometry& in, const Geometry& out) {
  const int64_t numel_in = numel_of(in.sizes);
  if (numel_in == 0 || numel_of(out.sizes) == 0) return ember::zeros(in.sizes, g.options());
  const int64_t lo = std::min(in.offset, out.offset);
  const int64_t hi = std::max(in.offset + span_of(in.sizes, in.strides),
                              out.offset + span_of(out.sizes, out.strides));
  const int64_t n = hi - lo;
  Tensor pos = ember::arange(n, TensorOptions().dtype(kInt64).device(g.device()));
  const int64_t po = pos.storage_offset();
  Tensor out_idx = pos.as_strided(out.sizes, out.strides, po + out.offset - lo).reshape({-1});
  Tensor buf = ember::zeros({n}, g.options()).scatter_add(0, out_idx, g.reshape({-1}));
  Tensor r = buf.as_strided(in.sizes, in.strides, buf.storage_offset() + in.offset - lo);
  if (may_overlap(in.sizes, in.strides)) {
    Tensor in_idx = pos.as_strided(in.sizes, in.strides, po + in.offset - lo).reshape({-1});
    Tensor cnt =
        ember::zeros({n}, g.options()).scatter_add(0, in_idx, ember::ones({numel_in}, g.options()));
    r = r / cnt.as_strided(in.sizes, in.strides, cnt.storage_offset() + in.offset - lo);
  }
  return r;
}

}  // namespace

// ---- views ----

Tensor view(const Tensor& t, IntArrayRef sizes) {
  Tensor out = untracked([&] { return t.view(sizes); });
  DimVector in_sizes(t.sizes());
  return record(
      "ViewBackward0", "view", {t}, out, {},
      [in_sizes](FunctionNode&, const tensor_list& g) -> tensor_list {
        return {g[0].reshape(in_sizes)};
      },
      kView);
}

// A view when the strides allow one (ViewBackward0), else a copy recorded as
// CloneBackward0 followed by ViewBackward0 (the copy is not redone).
Tensor reshape(const Tensor& t, IntArrayRef sizes) {
  Tensor out = untracked([&] { return t.reshape(sizes); });
  DimVector in_sizes(t.sizes());
  if (out.impl()->storage() == t.impl()->storage()) {
    return record(
        "ViewBackward0", "view", {t}, out, {},
        [in_sizes](FunctionNode&, const tensor_list& g) -> tensor_list {
          return {g[0].reshape(in_sizes)};
        },
        kView);
  }
  Tensor copy = untracked([&] { return out.view(in_sizes); });
  copy = record("CloneBackward0", "clone", {t}, copy, {},
                [](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0]}; });
  return copy.view(out.sizes());
}

Tensor squeeze(const Tensor& t) {
  Tensor out = untracked([&] { return t.squeeze(); });
  DimVector ones_at;  // the squeezed dims, ascending
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] == 1) ones_at.push_back(d);
  }
  return record(
      "SqueezeBackward0", "squeeze", {t}, out, {},
      [ones_at](FunctionNode&, const tensor_list& g) -> tensor_list {
        Tensor r = g[0];
        for (int64_t d : ones_at) r = r.unsqueeze(d);
        return {r};
      },
      kView);
}

Tensor squeeze(const Tensor& t, int64_t dim) {
  Tensor out = untracked([&] { return t.squeeze(dim); });
  const int64_t d = wrap_dim("squeeze", dim, t.dim());
  const bool squeezed = t.dim() > 0 && t.sizes()[d] == 1;
  return record(
      "SqueezeBackward1", "squeeze", {t}, out, {},
      [d, squeezed](FunctionNode&, const tensor_list& g) -> tensor_list {
        return {squeezed ? g[0].unsqueeze(d) : g[0]};
      },
      kView);
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  Tensor out = untracked([&] { return t.unsqueeze(dim); });
  const int64_t d = wrap_dim("unsqueeze", dim, t.dim() + 1);
  return record(
      "UnsqueezeBackward0", "unsqueeze", {t}, out, {},
      [d](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0].squeeze(d)}; }, kView);
}

Tensor t(const Tensor& self) {
  Tensor out = untracked([&] { return self.t(); });
  return record(
      "TBackward0", "transpose", {self}, out, {},
      [](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0].t()}; }, kView);
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  Tensor out = untracked([&] { return t.transpose(dim0, dim1); });
  const int64_t d0 = wrap_dim("transpose", dim0, t.dim());
  const int64_t d1 = wrap_dim("transpose", dim1, t.dim());
  return record(
      "TransposeBackward0", "transpose", {t}, out, {},
      [d0, d1](FunctionNode&, const tensor_list& g) -> tensor_list {
        return {g[0].transpose(d0, d1)};
      },
      kView);
}

Tensor permute(const Tensor& t, IntArrayRef dims) {
  Tensor out = untracked([&] { return t.permute(dims); });
  DimVector inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[wrap_dim("permute", dims[i], t.dim())] = static_cast<int64_t>(i);
  }
  return record(
      "PermuteBackward0", "permute", {t}, out, {},
      [inverse](FunctionNode&, const tensor_list& g) -> tensor_list {
        return {g[0].permute(inverse)};
      },
      kView);
}

Tensor expand(const Tensor& t, IntArrayRef sizes) {
  Tensor out = untracked([&] { return t.expand(sizes); });
  DimVector in_sizes(t.sizes());
  return record(
      "ExpandBackward0", "expand", {t}, out, {},
      [in_sizes](FunctionNode&, const tensor_list& g) -> tensor_list {
        return {sum_to(g[0], in_sizes)};
      },
      kView);
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  Tensor out = untracked([&] { return t.slice(dim, start, end, step); });
  const int64_t d = wrap_dim("slice", dim, t.dim());
  const int64_t size = t.sizes()[d];
  int64_t s = start.value_or(0);  // the clamped start, as Tensor::slice computes it
  if (s < 0) s += size;
  s = std::clamp<int64_t>(s, 0, size);
  DimVector in_sizes(t.sizes());
  return record(
      "SliceBackward0", "slice", {t}, out, {},
      [in_sizes, d, s, step](FunctionNode&, const tensor_list& g) -> tensor_list {
        return {slice_backward(g[0], in_sizes, d, s, step)};
      },
      kView);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  Tensor out = untracked([&] { return t.select(dim, index); });
  const int64_t d = wrap_dim("select", dim, t.dim());
  const int64_t i = index < 0 ? index + t.sizes()[d] : index;
  DimVector in_sizes(t.sizes());
  return record(
      "SelectBackward0", "select", {t}, out, {},
      [in_sizes, d, i](FunctionNode&, const tensor_list& g) -> tensor_list {
        return {slice_backward(g[0].unsqueeze(d), in_sizes, d, i, 1)};
      },
      kView);
}

Tensor as_strided(const Tensor& t, IntArrayRef sizes, IntArrayRef strides,
                  std::optional<int64_t> storage_offset) {
  Tensor out = untracked([&] { return t.as_strided(sizes, strides, storage_offset); });
  Geometry in{DimVector(t.sizes()), DimVector(t.strides()), t.storage_offset()};
  Geometry o{DimVector(out.sizes()), DimVector(out.strides()), out.storage_offset()};
  return record(
      "AsStridedBackward0", "as_strided", {t}, out, {},
      [in, o](FunctionNode&, const tensor_list& g) -> tensor_list {
        return {as_strided_backward(g[0], in, o)};
      },
      kView);
}

// ---- copies ----

Tensor clone(const Tensor& t) {
  Tensor out = untracked([&] { return t.clone(); });
  return record("CloneBackward0", "clone", {t}, out, {},
                [](FunctionNode&, const tensor_list& g) -> tensor_list { return {g[0]}; });
}

// No node when to() returns t itself (nothing to convert), or converts to a dtype that
// carries no gradient (integers, bool).
Tensor to(const Tensor& t, Device device, ScalarType dtype, bool non_blocking, bool copy) {
  Tensor out = untracked([&] { return t.to(device, dtype, non_blocking, copy); });
  if (out.is_same(t) || !out.is_floating_point()) return out;
  const Device in_device = t.device();
  const ScalarType in_dtype = t.dtype();
  return record("ToCopyBackward0", "to", {t}, out, {},
                [in_device, in_dtype](FunctionNode&, const tensor_list& g) -> tensor_list {
                  return {g[0].to(in_device, in_dtype)};
                });
}

void copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  if (!self.is_floating_point()) {  // an integer destination carries no gradient
    untracked([&] { return self.copy_(src, non_blocking); });
    return;
  }
  IntArrayRef ds = self.sizes(), ss = src.sizes();
  EMBER_CHECK(is_expandable_to(ss, ds), "copy_: source of shape ", ss,
              " cannot be broadcast to destination of shape ", ds);
  DimVector src_sizes(src.sizes());
  const Device src_device = src.device();
  const ScalarType src_dtype = src.dtype();
  record_inplace("copy_", self, /*saves_self=*/false, [&](const Tensor&) {
    // The new value: src converted to self's dtype and device, broadcast to self's shape.
    Tensor value = untracked(
        [&] { return src.to(self.device(), self.dtype(), non_blocking).expand(self.sizes()); });
    return record(
        "CopyBackwards", "copy_", {src}, value, {},
        [src_sizes, src_device, src_dtype](FunctionNode&, const tensor_list& g) -> tensor_list {
          return {sum_to(g[0], src_sizes).to(src_device, src_dtype)};
        });
  });
}

// squeeze_, unsqueeze_, transpose_...: self takes v's geometry (v views self's storage). With
// history, self also takes v's (LibTorch rebases it); a leaf that requires grad refuses, except
// under no_grad, where it changes shape as set_data() would (dropping its cached grad shape).
void become_view(const char* op, const Tensor& self, const Tensor& v) {
  TensorImpl* impl = self.unsafeGetTensorImpl();
  if (ember::autograd::should_record(self)) {
    EMBER_CHECK(!self.is_leaf(), op,
                ": a leaf Variable that requires grad is being used in an in-place operation");
    impl->set_geometry(v.sizes(), v.strides(), v.storage_offset());
    impl->autograd_meta() = v.impl()->autograd_meta();
  } else if (self.is_leaf()) {
    const bool was_view = impl->is_view();
    self.set_data(v);
    impl->set_is_view(was_view);
  } else {
    impl->set_geometry(v.sizes(), v.strides(), v.storage_offset());
  }
}

}  // namespace ember::autograd::recorded
