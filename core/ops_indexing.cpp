// Tensor indexing as LibTorch's: index({...}), index_put_, masked_select/scatter/fill, nonzero,
// argwhere, where(cond). Composites of public ops (autograd for free), but for nonzero's host loop
// and the rows pick of advanced indexing (native::index_rows, recorded as IndexBackward0).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <unordered_set>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/context.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/indexing.h>
#include <ember/core/native.h>
#include <ember/core/recording.h>
#include <ember/core/tensor.h>

namespace ember {

using indexing::Slice;
using indexing::TensorIndex;
using OptTensors = std::vector<std::optional<Tensor>>;

namespace {

bool is_mask_dtype(ScalarType t) { return t == kBool || t == kUInt8; }

void check_index_dtype(const Tensor& t) {
  const ScalarType s = t.dtype();
  EMBER_CHECK(s == kInt64 || s == kInt32 || is_mask_dtype(s),
              "tensors used as indices must be long, int, byte or bool tensors, got ",
              dtype_name(s));
}

// How many dims of self an index consumes (None, Ellipsis and bools consume none).
int64_t consumed_dims(const TensorIndex& ix) {
  if (ix.is_integer() || ix.is_slice()) return 1;
  if (ix.is_tensor()) {
    const Tensor& t = ix.tensor();
    EMBER_CHECK(t.defined(), "index: an undefined tensor cannot be used as an index");
    check_index_dtype(t);
    return is_mask_dtype(t.dtype()) ? t.dim() : 1;
  }
  return 0;
}

int64_t wrap_index(int64_t index, int64_t dim, int64_t size) {
  EMBER_CHECK(index >= -size && index < size, "index ", index, " is out of bounds for dimension ",
              dim, " with size ", size);
  return index < 0 ? index + size : index;
}

// Python's slice bounds for a positive step: negative counts from the end, out-of-range clamps.
void slice_bounds(const Slice& s, int64_t size, int64_t* start, int64_t* length) {
  EMBER_CHECK(s.step() > 0, "step must be greater than zero");
  int64_t b = s.start(), e = s.stop();
  if (b < 0) b = b < -size ? 0 : b + size;
  if (e < 0) e = e < -size ? 0 : e + size;
  b = std::min(b, size);
  e = std::clamp(e, b, size);
  *start = b;
  *length = (e - b + s.step() - 1) / s.step();
}

struct Counts {
  int64_t specified = 0;
  bool advanced = false;  // a tensor or bool index: the result is a copy
};

Counts count(ArrayRef<TensorIndex> indices, int64_t ndim) {
  Counts c;
  int64_t ellipses = 0;
  for (const TensorIndex& ix : indices) {
    c.specified += consumed_dims(ix);
    ellipses += ix.is_ellipsis();
    c.advanced = c.advanced || ix.is_tensor() || ix.is_boolean();
  }
  EMBER_CHECK(ellipses <= 1, "an index can only have a single ellipsis ('...')");
  EMBER_CHECK(c.specified <= ndim, "too many indices for tensor of dimension ", ndim);
  return c;
}

// Ints, slices, None and Ellipsis without autograd: the view's geometry in one pass, one view.
Tensor basic_view(const Tensor& self, ArrayRef<TensorIndex> indices, int64_t specified) {
  const int64_t ndim = self.dim();
  IntArrayRef sz = self.sizes(), st = self.strides();
  DimVector sizes, strides;
  int64_t offset = self.storage_offset();
  int64_t d = 0;
  for (const TensorIndex& ix : indices) {
    switch (ix.type()) {
      case indexing::TensorIndexType::SymInt:
        offset += wrap_index(ix.integer(), d, sz[d]) * st[d];
        ++d;
        break;
      case indexing::TensorIndexType::Slice: {
        int64_t start, length;
        slice_bounds(ix.slice(), sz[d], &start, &length);
        offset += start * st[d];
        sizes.push_back(length);
        strides.push_back(st[d] * ix.slice().step());
        ++d;
        break;
      }
      case indexing::TensorIndexType::None:
        sizes.push_back(1);
        strides.push_back(d < ndim ? sz[d] * st[d] : 1);
        break;
      case indexing::TensorIndexType::Ellipsis:
        for (int64_t k = 0; k < ndim - specified; ++k, ++d) {
          sizes.push_back(sz[d]);
          strides.push_back(st[d]);
        }
        break;
      default:
        EMBER_CHECK(false, "index: unexpected index type");
    }
  }
  for (; d < ndim; ++d) {
    sizes.push_back(sz[d]);
    strides.push_back(st[d]);
  }
  auto impl =
      std::make_shared<TensorImpl>(self.impl()->storage(), self.dtype(), sizes, strides, offset);
  impl->set_is_view(true);
  return Tensor(std::move(impl));
}

// The index tensor that a bool scalar (or 0-dim bool tensor) adds on its new size-1 dim.
Tensor bool_index(bool value, Device device) {
  return value ? zeros({1}, TensorOptions().dtype(kInt64).device(device))
               : empty({0}, TensorOptions().dtype(kInt64).device(device));
}

// Masks become one int64 index per dim they cover (their nonzero() columns), as ATen's
// expandTensors; a mask must match the shape of the dims it covers.
OptTensors expand_masks(const Tensor& src, const OptTensors& indices) {
  OptTensors out;
  for (const auto& ix : indices) {
    if (!ix || !ix->defined() || !is_mask_dtype(ix->dtype())) {
      if (ix && ix->defined()) check_index_dtype(*ix);
      out.push_back(ix && ix->defined() ? ix : std::nullopt);
      continue;
    }
    const Tensor& m = *ix;
    const int64_t d0 = static_cast<int64_t>(out.size());
    EMBER_CHECK(d0 + m.dim() <= src.dim(), "too many indices for tensor of dimension ", src.dim());
    for (int64_t j = 0; j < m.dim(); ++j) {
      EMBER_CHECK(m.sizes()[j] == src.sizes()[d0 + j], "The shape of the mask ", m.sizes(),
                  " at index ", j, " does not match the shape of the indexed tensor ", src.sizes(),
                  " at index ", d0 + j);
    }
    Tensor nz = nonzero(m.dtype() == kBool ? m : m.ne(0));
    for (int64_t j = 0; j < m.dim(); ++j) out.push_back(nz.select(1, j));
  }
  return out;
}

// One linear int64 index over the indexed dims (row-major over them), of the index tensors'
// broadcast shape, on `device`. One index tensor passes as it is: index_rows counts its
// negative values from the end (CPU values are checked here). Several wrap their negatives
// here: on the host with a bounds check (CPU), with tensor ops on CUDA (a host check would
// sync; out-of-range values then stop index_rows's kernel with a device-side assert, as
// PyTorch's).
Tensor linear_index(const std::vector<Tensor>& idx, const std::vector<int64_t>& dims,
                    IntArrayRef sizes, Device device) {
  DimVector shape = idx[0].sizes();
  for (size_t k = 1; k < idx.size(); ++k) {
    const IntArrayRef a = shape, b = idx[k].sizes();
    const size_t n = std::max(a.size(), b.size());
    DimVector next(n, 1);
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = i + a.size() >= n ? a[i + a.size() - n] : 1;
      const int64_t y = i + b.size() >= n ? b[i + b.size() - n] : 1;
      ok = ok && (x == y || x == 1 || y == 1);
      next[i] = x == 1 ? y : x;
    }
    if (!ok) {
      std::ostringstream os;
      for (size_t j = 0; j < idx.size(); ++j) os << (j ? ", " : "") << idx[j].sizes();
      EMBER_CHECK(false,
                  "shape mismatch: indexing tensors could not be broadcast together with "
                  "shapes ",
                  os.str());
    }
    shape = next;
  }
  if (device.is_cpu()) {
    std::vector<Tensor> cont;
    for (const Tensor& t : idx) cont.push_back(t.expand(shape).to(kInt64).contiguous());
    if (cont.size() == 1) {  // common: one index, checked only
      const int64_t* p = cont[0].data_ptr<int64_t>();
      for (int64_t i = 0, n = cont[0].numel(); i < n; ++i)
        wrap_index(p[i], dims[0], sizes[dims[0]]);
      return cont[0];
    }
    Tensor lin = empty(shape, TensorOptions().dtype(kInt64));
    int64_t* out = lin.data_ptr<int64_t>();
    const int64_t n = lin.numel();
    for (int64_t i = 0; i < n; ++i) out[i] = 0;
    for (size_t k = 0; k < cont.size(); ++k) {
      const int64_t* p = cont[k].data_ptr<int64_t>();
      const int64_t size = sizes[dims[k]];
      for (int64_t i = 0; i < n; ++i) out[i] = out[i] * size + wrap_index(p[i], dims[k], size);
    }
    return lin;
  }
  if (idx.size() == 1) return idx[0].to(device, kInt64).contiguous();
  Tensor lin;
  for (size_t k = 0; k < idx.size(); ++k) {
    const int64_t size = sizes[dims[k]];
    Tensor t = idx[k].to(device, kInt64);
    t = where(t < 0, t + size, t);
    lin = k == 0 ? t : lin * size + t;
  }
  return lin.expand(shape).contiguous();
}

// src.index(indices) where `indices` holds an optional int64/int32 tensor per leading dim of
// src (masks already expanded). The indexed dims go first (permute), merge into one (reshape),
// and index_rows picks the rows; the broadcast index dims land where PyTorch puts them: in
// place of the indexed dims when those are adjacent, first otherwise.
Tensor advanced_index(const Tensor& src, const OptTensors& indices) {
  std::vector<int64_t> dims, rest;
  std::vector<Tensor> idx;
  for (int64_t d = 0; d < src.dim(); ++d) {
    if (d < static_cast<int64_t>(indices.size()) && indices[d]) {
      const Tensor& t = *indices[d];
      check_index_dtype(t);
      EMBER_CHECK(t.device() == src.device() || t.is_cpu(), "index: indices on ", t.device(),
                  " cannot index a tensor on ", src.device());
      dims.push_back(d);
      idx.push_back(t);
    } else {
      rest.push_back(d);
    }
  }
  if (dims.empty()) return src;
  const Tensor lin = linear_index(idx, dims, src.sizes(), src.device());
  bool adjacent = true;
  for (size_t k = 1; k < dims.size(); ++k) adjacent = adjacent && dims[k] == dims[k - 1] + 1;
  DimVector perm, flat_shape{1};
  for (int64_t d : dims) {
    perm.push_back(d);
    flat_shape[0] *= src.sizes()[d];
  }
  for (int64_t d : rest) {
    perm.push_back(d);
    flat_shape.push_back(src.sizes()[d]);
  }
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  Tensor flat = identity ? src : src.permute(perm);
  if (dims.size() != 1) flat = flat.reshape(flat_shape);
  const int64_t minus_one = -1;
  const Tensor rows = lin.reshape(IntArrayRef(minus_one));
  Tensor out = autograd::should_record(flat) ? detail::recorded::index_rows(flat, rows)
                                             : native::index_rows(flat, rows);
  DimVector out_shape(lin.sizes());
  for (int64_t d : rest) out_shape.push_back(src.sizes()[d]);
  if (!(out.sizes() == IntArrayRef(out_shape))) out = out.view(out_shape);
  if (adjacent && dims[0] > 0) {  // the index dims go where the indexed ones were
    const int64_t nb = lin.dim(), lead = dims[0];
    DimVector p;
    for (int64_t i = 0; i < lead; ++i) p.push_back(nb + i);
    for (int64_t i = 0; i < nb; ++i) p.push_back(i);
    for (int64_t i = nb + lead; i < out.dim(); ++i) p.push_back(i);
    out = out.permute(p);
  }
  return out;
}

// The general path, through public ops (recorded under autograd): basic indices apply as
// views, tensor indices are collected per dim of the view and applied last.
Tensor index_slow(const Tensor& self, ArrayRef<TensorIndex> indices, int64_t specified) {
  Tensor result = self;
  OptTensors adv;
  int64_t d = 0;  // dim of `result` that the next index applies to
  auto put = [&](int64_t dim, const Tensor& t) {
    if (static_cast<int64_t>(adv.size()) <= dim) adv.resize(dim + 1);
    adv[dim] = t;
  };
  for (const TensorIndex& ix : indices) {
    switch (ix.type()) {
      case indexing::TensorIndexType::SymInt:
        result = result.select(d, wrap_index(ix.integer(), d, result.sizes()[d]));
        break;
      case indexing::TensorIndexType::Slice: {
        int64_t start, length;
        slice_bounds(ix.slice(), result.sizes()[d], &start, &length);
        const Slice& s = ix.slice();
        if (!(start == 0 && length == result.sizes()[d] && s.step() == 1)) {
          result = result.slice(d, start, start + (length - 1) * s.step() + 1, s.step());
        }
        ++d;
        break;
      }
      case indexing::TensorIndexType::None:
        result = result.unsqueeze(d);
        ++d;
        break;
      case indexing::TensorIndexType::Ellipsis:
        d += self.dim() - specified;
        break;
      case indexing::TensorIndexType::Boolean:
        result = result.unsqueeze(d);
        put(d, bool_index(ix.boolean(), self.device()));
        ++d;
        break;
      case indexing::TensorIndexType::Tensor: {
        const Tensor& t = ix.tensor();
        if (t.dim() == 0 && !is_mask_dtype(t.dtype())) {  // a 0-dim integer: select
          result = result.select(d, wrap_index(t.item<int64_t>(), d, result.sizes()[d]));
        } else if (t.dim() == 0) {
          result = result.unsqueeze(d);
          put(d, bool_index(t.item<int64_t>() != 0, self.device()));
          ++d;
        } else if (is_mask_dtype(t.dtype())) {
          OptTensors one(static_cast<size_t>(d));
          one.push_back(t);
          OptTensors cols = expand_masks(result, one);
          for (int64_t j = 0; j < t.dim(); ++j) put(d + j, *cols[d + j]);
          d += t.dim();
        } else {
          put(d, t);
          ++d;
        }
        break;
      }
    }
  }
  return adv.empty() ? result : advanced_index(result, adv);
}

// -0.0 + x is x for every float x (0.0 + -0.0 would lose the sign): the base of the sums.
Tensor put_base(const Tensor& flat) {
  return is_floating_point(flat.dtype()) ? full_like(flat, -0.0) : zeros_like(flat);
}

// flat (1-D) with positions pos (1-D int64, unique) replaced by vals (1-D, flat's dtype), out of
// place through scatter_add and where, so that autograd records it.
Tensor put_unique(const Tensor& flat, const Tensor& pos, const Tensor& vals) {
  const Tensor hit = zeros(flat.sizes(), TensorOptions().dtype(kInt64).device(flat.device()))
                         .scatter_add(0, pos, ones_like(pos))
                         .gt(0);
  if (flat.dtype() == kBool) {  // scatter_add has no bool form: through uint8
    const Tensor placed = zeros(flat.sizes(), TensorOptions().dtype(kUInt8).device(flat.device()))
                              .scatter_add(0, pos, vals.to(kUInt8));
    return where(hit, placed.ne(0), flat);
  }
  return where(hit, put_base(flat).scatter_add(0, pos, vals), flat);
}

// CUDA's scatter_add adds repeated positions with atomics, in an order that varies from run
// to run (float sums differ in the last bits); under deterministic algorithms the sum is made
// on the CPU, in index order, and copied back.
bool deterministic_on_host(const Tensor& flat) {
  return flat.device().is_cuda() && flat.is_floating_point() &&
         globalContext().deterministicAlgorithms();
}

// flat + the sum of vals at pos (bool: or).
Tensor put_accumulate(const Tensor& flat, const Tensor& pos, const Tensor& vals) {
  if (deterministic_on_host(flat)) {
    return put_accumulate(flat.to(kCPU), pos.to(kCPU), vals.to(kCPU)).to(flat.device());
  }
  if (flat.dtype() == kBool) {
    return flat.to(kInt64).scatter_add(0, pos, vals.to(kInt64)).ne(0);
  }
  return flat.scatter_add(0, pos, vals);
}

// Keeps the last of repeated positions (what a serial loop of writes leaves): the indices of
// the kept entries, or an undefined tensor when every position is unique.
Tensor last_of_repeats(const Tensor& pos, int64_t numel) {
  const Tensor p = pos.to(kCPU).contiguous();
  const int64_t* d = p.data_ptr<int64_t>();
  const int64_t n = p.numel();
  std::vector<int64_t> keep;
  bool repeated = false;
  std::vector<bool> seen_bits;
  std::unordered_set<int64_t> seen_set;
  const bool bits = numel <= 64 * n + 4096;
  if (bits) seen_bits.assign(static_cast<size_t>(numel), false);
  for (int64_t i = n - 1; i >= 0; --i) {
    bool fresh;
    if (bits) {
      fresh = !seen_bits[static_cast<size_t>(d[i])];
      seen_bits[static_cast<size_t>(d[i])] = true;
    } else {
      fresh = seen_set.insert(d[i]).second;
    }
    if (fresh) keep.push_back(i);
    repeated = repeated || !fresh;
  }
  if (!repeated) return Tensor();
  std::reverse(keep.begin(), keep.end());
  return tensor(ArrayRef<int64_t>(keep)).to(pos.device());
}

// A value's leading size-1 dims beyond the target's rank are dropped, as PyTorch's setitem.
Tensor strip_prefix_ones(const Tensor& v, int64_t target_dim) {
  int64_t k = 0;
  while (v.dim() - k > target_dim && v.sizes()[k] == 1) ++k;
  if (k == 0) return v;
  return v.view(v.sizes().slice(static_cast<size_t>(k), static_cast<size_t>(v.dim() - k)));
}

// The flat positions that self.index(indices) covers (those of an arange indexed the same way)
// and the values broadcast to them, both 1-D; repeated positions keep their last value unless
// accumulating.
void put_operands(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& values,
                  bool accumulate, bool advanced, Tensor* pos_out, Tensor* v_out) {
  EMBER_CHECK(values.defined(), "index_put_: the value tensor is undefined");
  Tensor pos;
  {
    NoGradGuard no_grad;
    pos = arange(self.numel(), TensorOptions().dtype(kInt64).device(self.device()))
              .view(self.sizes())
              .index(indices);
  }
  const DimVector target(pos.sizes());
  Tensor v = strip_prefix_ones(values.to(self.device(), self.dtype()), pos.dim());
  EMBER_CHECK(is_expandable_to(v.sizes(), target), "shape mismatch: value tensor of shape ",
              values.sizes(), " cannot be broadcast to indexing result of shape ", target);
  const int64_t minus_one = -1;
  const IntArrayRef flat_shape(minus_one);
  pos = pos.reshape(flat_shape);
  v = v.expand(target).reshape(flat_shape);
  if (!accumulate && advanced) {
    const Tensor keep = last_of_repeats(pos, self.numel());
    if (keep.defined()) {
      pos = pos.index_select(0, keep);
      v = v.index_select(0, keep);
    }
  }
  *pos_out = pos;
  *v_out = v;
}

// self with self.index(indices) replaced by values (accumulate: plus values), out of place and
// recorded (scatter_add and where over the flattened self).
Tensor index_put_functional(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& values,
                            bool accumulate, bool advanced) {
  Tensor pos, v;
  put_operands(self, indices, values, accumulate, advanced, &pos, &v);
  const int64_t minus_one = -1;
  const Tensor flat = self.reshape(IntArrayRef(minus_one));
  const Tensor out = accumulate ? put_accumulate(flat, pos, v) : put_unique(flat, pos, v);
  return out.view(self.sizes());
}

// Without autograd, into a contiguous self: one scatter_ (scatter_add_) into a flat view of
// self, which touches only the written elements. False when self does not qualify.
bool index_put_inplace(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& values,
                       bool accumulate, bool advanced) {
  if (!self.is_contiguous() || self.dtype() == kBool || self.numel() == 0) return false;
  Tensor pos, v;
  put_operands(self, indices, values, accumulate, advanced, &pos, &v);
  const int64_t minus_one = -1;
  const Tensor flat = self.view(IntArrayRef(minus_one));
  if (pos.numel() == 0) return true;
  if (accumulate && deterministic_on_host(flat)) {
    flat.copy_(put_accumulate(flat, pos, v));
  } else if (accumulate) {
    flat.scatter_add_(0, pos, v);
  } else {
    flat.scatter_(0, pos, v);
  }
  return true;
}

// Linear (row-major) positions of the true elements of a bool tensor, and their count; on the
// host (a CUDA mask is copied to the CPU first: the result's size depends on the values).
template <class F>
int64_t for_each_true(const Tensor& mask_cpu, F&& f) {
  const bool* p = mask_cpu.data_ptr<bool>();
  const int64_t n = mask_cpu.numel();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (p[i]) {
      f(i);
      ++count;
    }
  }
  return count;
}

Tensor as_bool_cpu(const Tensor& t) {
  NoGradGuard no_grad;
  const Tensor m = t.dtype() == kBool ? t : t.ne(0);
  return m.to(kCPU).contiguous();
}

Tensor true_positions(const Tensor& mask) {
  const Tensor m = as_bool_cpu(mask);
  std::vector<int64_t> pos;
  for_each_true(m, [&](int64_t i) { pos.push_back(i); });
  Tensor out = empty({static_cast<int64_t>(pos.size())}, TensorOptions().dtype(kInt64));
  if (!pos.empty()) {
    std::memcpy(out.data_ptr<int64_t>(), pos.data(), pos.size() * sizeof(int64_t));
  }
  return out.to(mask.device());
}

void check_bool_mask(const char* op, const Tensor& mask) {
  EMBER_CHECK(mask.defined(), op, ": the mask is undefined");
  EMBER_CHECK(mask.dtype() == kBool, op, " only supports boolean masks, but got mask with dtype ",
              dtype_name(mask.dtype()));
}

Tensor scalar_like(const Tensor& self, const Scalar& v) {
  return wrapped_scalar_tensor(v, TensorOptions().dtype(self.dtype()).device(self.device()));
}

}  // namespace

// ---- printing the index types ----
namespace indexing {
std::ostream& operator<<(std::ostream& stream, const Slice& slice) {
  return stream << slice.start() << ":" << slice.stop() << ":" << slice.step();
}
std::ostream& operator<<(std::ostream& stream, const TensorIndex& ix) {
  switch (ix.type()) {
    case TensorIndexType::None:
      return stream << "None";
    case TensorIndexType::Ellipsis:
      return stream << "...";
    case TensorIndexType::SymInt:
      return stream << ix.integer();
    case TensorIndexType::Boolean:
      return stream << (ix.boolean() ? "true" : "false");
    case TensorIndexType::Slice:
      return stream << ix.slice();
    case TensorIndexType::Tensor:
      return stream << ix.tensor();
  }
  return stream;
}
std::ostream& operator<<(std::ostream& stream, const std::vector<TensorIndex>& tensor_indices) {
  stream << "(";
  for (size_t i = 0; i < tensor_indices.size(); ++i) {
    stream << (i ? ", " : "") << tensor_indices[i];
  }
  return stream << ")";
}
}  // namespace indexing

namespace {
// x.index({mask}) alone: the mask's true positions pick rows of x with its covered dims merged.
Tensor mask_index(const Tensor& self, const Tensor& m) {
  DimVector shape{1};
  for (int64_t j = 0; j < m.dim(); ++j) {
    EMBER_CHECK(m.sizes()[j] == self.sizes()[j], "The shape of the mask ", m.sizes(), " at index ",
                j, " does not match the shape of the indexed tensor ", self.sizes(), " at index ",
                j);
    shape[0] *= m.sizes()[j];
  }
  for (int64_t d = m.dim(); d < self.dim(); ++d) shape.push_back(self.sizes()[d]);
  return self.reshape(shape).index_select(0, true_positions(m).to(self.device()));
}
}  // namespace

// ---- index ----
Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  check_defined("index", *this);
  const Counts c = count(indices, dim());
  if (!c.advanced && !autograd::should_record(*this)) {
    return basic_view(*this, indices, c.specified);
  }
  if (indices.size() == 1 && indices[0].is_tensor() && indices[0].tensor().dim() > 0 &&
      is_mask_dtype(indices[0].tensor().dtype())) {
    return mask_index(*this, indices[0].tensor());
  }
  return index_slow(*this, indices, c.specified);
}
Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(ArrayRef<TensorIndex>(indices));
}
Tensor Tensor::index(const OptTensors& indices) const {
  check_defined("index", *this);
  EMBER_CHECK(static_cast<int64_t>(indices.size()) <= dim(),
              "too many indices for tensor of dimension ", dim(), " (got ", indices.size(), ")");
  return advanced_index(*this, expand_masks(*this, indices));
}
Tensor index(const Tensor& self, const OptTensors& indices) { return self.index(indices); }

// ---- index_put_ ----
Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& rhs) const {
  check_defined("index_put_", *this);
  EMBER_CHECK(rhs.defined(), "index_put_: the value tensor is undefined");
  const Counts c = count(indices, dim());
  if (!c.advanced && !autograd::should_record(*this, rhs)) {
    const Tensor view = basic_view(*this, indices, c.specified);
    view.copy_(strip_prefix_ones(rhs, view.dim()));
    return self_();
  }
  if (!autograd::should_record(*this, rhs) &&
      index_put_inplace(*this, indices, rhs, false, c.advanced)) {
    return self_();
  }
  const Tensor out = index_put_functional(*this, indices, rhs, false, c.advanced);
  return self_().copy_(out);
}
Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& v) const {
  check_defined("index_put_", *this);
  const Counts c = count(indices, dim());
  if (!autograd::should_record(*this)) {
    if (!c.advanced) {
      basic_view(*this, indices, c.specified).fill_(v);
      return self_();
    }
    // x.index_put_({mask}, v) with a mask over leading dims: masked_fill_
    if (indices.size() == 1 && indices[0].is_tensor() && indices[0].tensor().dtype() == kBool &&
        indices[0].tensor().dim() > 0 && indices[0].tensor().device() == device()) {
      const Tensor& m = indices[0].tensor();
      bool same = true;
      for (int64_t j = 0; j < m.dim(); ++j) same = same && m.sizes()[j] == sizes()[j];
      if (same) {
        DimVector shape(m.sizes());
        while (static_cast<int64_t>(shape.size()) < dim()) shape.push_back(1);
        return masked_fill_(m.reshape(shape), v);
      }
    }
  }
  return index_put_(indices, scalar_like(*this, v));
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& rhs) const {
  return index_put_(ArrayRef<TensorIndex>(indices), rhs);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& v) const {
  return index_put_(ArrayRef<TensorIndex>(indices), v);
}

namespace {
std::vector<TensorIndex> to_tensor_indices(const OptTensors& indices, const Tensor& self,
                                           const Tensor& values) {
  EMBER_CHECK(values.defined(), "index_put_: the value tensor is undefined");
  EMBER_CHECK(values.dtype() == self.dtype(),
              "Index put requires the source and destination dtypes match, got ",
              dtype_name(self.dtype()), " for the destination and ", dtype_name(values.dtype()),
              " for the source.");
  std::vector<TensorIndex> out;
  for (const auto& ix : indices) {
    if (ix && ix->defined()) {
      out.emplace_back(*ix);
    } else {
      out.emplace_back(Slice());
    }
  }
  return out;
}
}  // namespace

Tensor Tensor::index_put(const OptTensors& indices, const Tensor& values, bool accumulate) const {
  check_defined("index_put", *this);
  const std::vector<TensorIndex> ti = to_tensor_indices(indices, *this, values);
  count(ti, dim());
  return index_put_functional(*this, ti, values, accumulate, /*advanced=*/true);
}
Tensor& Tensor::index_put_(const OptTensors& indices, const Tensor& values, bool accumulate) const {
  check_defined("index_put_", *this);
  if (!autograd::should_record(*this, values)) {
    const std::vector<TensorIndex> ti = to_tensor_indices(indices, *this, values);
    count(ti, dim());
    if (index_put_inplace(*this, ti, values, accumulate, /*advanced=*/true)) return self_();
  }
  return self_().copy_(index_put(indices, values, accumulate));
}
Tensor index_put(const Tensor& self, const OptTensors& indices, const Tensor& values,
                 bool accumulate) {
  return self.index_put(indices, values, accumulate);
}
Tensor& index_put_(const Tensor& self, const OptTensors& indices, const Tensor& values,
                   bool accumulate) {
  return self.index_put_(indices, values, accumulate);
}

// ---- nonzero, argwhere, where(cond) ----
// On the host: a CUDA tensor's mask is copied to the CPU (a sync, as PyTorch's nonzero), the
// coordinates are copied back.
Tensor nonzero(const Tensor& t) {
  check_defined("nonzero", t);
  const Tensor m = as_bool_cpu(t);
  const int64_t nd = m.dim();
  std::vector<int64_t> coords;
  DimVector at(static_cast<size_t>(nd), 0);
  IntArrayRef sz = m.sizes();
  const bool* p = m.data_ptr<bool>();
  const int64_t n = m.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (p[i]) coords.insert(coords.end(), at.begin(), at.end());
    for (int64_t d = nd - 1; d >= 0; --d) {  // next coordinate
      if (++at[d] < sz[d]) break;
      at[d] = 0;
    }
  }
  const int64_t count =
      nd == 0 ? (n == 1 && p[0] ? 1 : 0) : static_cast<int64_t>(coords.size()) / nd;
  Tensor out = empty({count, nd}, TensorOptions().dtype(kInt64));
  if (!coords.empty()) {
    std::memcpy(out.data_ptr<int64_t>(), coords.data(), coords.size() * sizeof(int64_t));
  }
  return out.to(t.device());
}
Tensor argwhere(const Tensor& t) {
  check_defined("argwhere", t);
  return nonzero(t);
}
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }
Tensor Tensor::argwhere() const { return ember::argwhere(*this); }

std::vector<Tensor> where(const Tensor& condition) {
  check_defined("where", condition);
  const Tensor c = condition.dim() == 0 ? condition.unsqueeze(0) : condition;
  return nonzero(c).unbind(1);
}

Tensor where(const Tensor& condition, const Scalar& a, const Scalar& b) {
  const ScalarType dt = a.isFloatingPoint() || b.isFloatingPoint() ? default_float_dtype()
                        : a.isBoolean() && b.isBoolean()           ? kBool
                                                                   : kInt64;
  const TensorOptions o = TensorOptions().dtype(dt).device(condition.device());
  return where(condition, wrapped_scalar_tensor(a, o), wrapped_scalar_tensor(b, o));
}

// ---- masked_select, masked_scatter, masked_fill with a tensor value ----
Tensor masked_select(const Tensor& self, const Tensor& mask) {
  check_defined("masked_select", self, mask);
  check_bool_mask("masked_select", mask);
  check_same_device("masked_select", self, mask);
  const DimVector shape = broadcast_shapes("masked_select", self.sizes(), mask.sizes());
  const Tensor pos = true_positions(mask.expand(shape));
  const int64_t minus_one = -1;
  return self.expand(shape).reshape(IntArrayRef(minus_one)).index_select(0, pos);
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_defined("masked_scatter", self, mask, source);
  check_bool_mask("masked_scatter_", mask);
  check_same_device("masked_scatter_", self, mask);
  check_same_device("masked_scatter_", self, source);
  EMBER_CHECK(source.dtype() == self.dtype(),
              "masked_scatter_: expected self and source to have same dtypes but got ",
              dtype_name(self.dtype()), " and ", dtype_name(source.dtype()));
  const DimVector shape = broadcast_shapes("masked_scatter", self.sizes(), mask.sizes());
  const Tensor pos = true_positions(mask.expand(shape));
  const int64_t n = pos.numel();
  EMBER_CHECK(source.numel() >= n, "masked_scatter_: expected source to have at least ", n,
              " elements (the number of true values in mask), got ", source.numel());
  const int64_t minus_one = -1;
  const IntArrayRef flat(minus_one);
  const Tensor vals = source.reshape(flat).narrow(0, 0, n);
  return put_unique(self.expand(shape).reshape(flat), pos, vals).view(shape);
}
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}
Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  check_defined("masked_scatter_", *this, mask, source);
  EMBER_CHECK(is_expandable_to(mask.sizes(), sizes()), "masked_scatter_: mask of shape ",
              mask.sizes(), " cannot be broadcast to self's shape ", sizes());
  return self_().copy_(ember::masked_scatter(*this, mask, source));
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, const Tensor& value) {
  check_defined("masked_fill", t, mask, value);
  EMBER_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  if (autograd::should_record(t, value)) {
    check_bool_mask("masked_fill_", mask);
    EMBER_CHECK(is_expandable_to(mask.sizes(), t.sizes()), "masked_fill: mask of shape ",
                mask.sizes(), " cannot be broadcast to self's shape ", t.sizes());
    return where(mask, value.to(t.device(), t.dtype()), t);
  }
  return masked_fill(t, mask, value.item());
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  check_defined("masked_fill_", *this, mask, value);
  if (autograd::should_record(*this, value)) {
    return self_().copy_(ember::masked_fill(*this, mask, value));
  }
  EMBER_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_(mask, value.item());
}

}  // namespace ember
