// Shape ops that copy, as LibTorch has them: flip, roll, rot90, tril/triu (+ _indices), diag,
// diag_embed, repeat, tile, repeat_interleave, the stacks and narrow_copy (the views are in
// core/views_shape.cpp). Composites of public ops, so both devices and autograd come with them.
// flip (one index_select per dim) and tril/triu (a masked_fill over an index mask) are first
// versions: a kernel each would be faster.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/tensor.h>

namespace ember {

namespace {

TensorOptions long_on(Device device) { return TensorOptions().dtype(kInt64).device(device); }

// Bool [rows, cols] mask of the elements tril (lower) or triu (!lower) sets to zero.
Tensor triangle_zeros(const char* op, const Tensor& t, int64_t diagonal, bool lower) {
  EMBER_CHECK(t.dim() >= 2, op, ": input tensor must have at least 2 dimensions, got shape ",
              shape_str(t.sizes()));
  Tensor row = arange(t.size(-2), long_on(t.device())).unsqueeze(1);
  Tensor col = arange(t.size(-1), long_on(t.device())).unsqueeze(0);
  Tensor above = col - row;  // j - i
  return lower ? above.gt(diagonal) : above.lt(diagonal);
}

// Values of a CPU copy of an integer tensor, as int64.
std::vector<int64_t> int_values(const Tensor& t) {
  Tensor c = t.to(kCPU).to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

}  // namespace

// ---- flip, roll, rot90 ----

Tensor flip(const Tensor& t, IntArrayRef dims) {
  check_defined("flip", t);
  DimVector ds = unique_dims("flip", dims, t.dim());
  Tensor out = t;
  bool copied = false;
  for (int64_t d : ds) {
    if (t.dim() == 0 || t.size(d) <= 1) continue;
    const int64_t n = t.size(d);
    out = out.index_select(d, arange(n - 1, -1, -1, long_on(t.device())));
    copied = true;
  }
  return copied ? out : t.clone();  // always a copy, as LibTorch's
}

Tensor fliplr(const Tensor& t) {
  check_defined("fliplr", t);
  EMBER_CHECK(t.dim() >= 2, "fliplr: input must be >= 2-d, got shape ", shape_str(t.sizes()));
  return flip(t, {1});
}

Tensor flipud(const Tensor& t) {
  check_defined("flipud", t);
  EMBER_CHECK(t.dim() >= 1, "flipud: input must be >= 1-d, got a 0-dim tensor");
  return flip(t, {0});
}

Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims) {
  check_defined("roll", t);
  EMBER_CHECK(!shifts.empty(), "roll: `shifts` required");
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1,
                "roll: shifts and dimensions must align. shifts: ", shifts.size(), ", dims: 0");
    const int64_t zero = 0;
    return roll(t.flatten(), shifts, IntArrayRef(zero)).view(t.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(),
              "roll: shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims: ", dims.size());
  Tensor out = t;
  bool copied = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim("roll", dims[i], t.dim());
    const int64_t n = t.dim() == 0 ? 1 : t.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
    copied = true;
  }
  return copied ? out : t.clone();
}

Tensor rot90(const Tensor& t, int64_t k, IntArrayRef dims) {
  check_defined("rot90", t);
  const int64_t nd = t.dim();
  EMBER_CHECK(dims.size() == 2,
              "rot90: expected total rotation dims == 2, but got dims = ", dims.size());
  EMBER_CHECK(nd >= 2, "rot90: expected total dims >= 2, but got total dims = ", nd);
  EMBER_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != nd,
              "rot90: expected rotation dims to be different, but got dim0 = ", dims[0],
              " and dim1 = ", dims[1]);
  EMBER_CHECK(dims[0] < nd && dims[0] >= -nd,
              "rot90: Rotation dim0 out of range, dim0 = ", dims[0]);
  EMBER_CHECK(dims[1] < nd && dims[1] >= -nd,
              "rot90: Rotation dim1 out of range, dim1 = ", dims[1]);
  k = (4 + (k % 4)) % 4;
  if (k == 1) return flip(t, {dims[1]}).transpose(dims[0], dims[1]);
  if (k == 2) return flip(t, dims);
  if (k == 3) return flip(t, {dims[0]}).transpose(dims[0], dims[1]);
  return t.clone();
}

// ---- triangles and diagonals ----

Tensor tril(const Tensor& t, int64_t diagonal) {
  check_defined("tril", t);
  return t.masked_fill(triangle_zeros("tril", t, diagonal, true), 0);
}

Tensor triu(const Tensor& t, int64_t diagonal) {
  check_defined("triu", t);
  return t.masked_fill(triangle_zeros("triu", t, diagonal, false), 0);
}

namespace {
Tensor triangle_indices(const char* op, int64_t row, int64_t col, int64_t offset,
                        const TensorOptions& options, bool lower) {
  EMBER_CHECK(row >= 0, op, ": row must be non-negative, got ", row);
  EMBER_CHECK(col >= 0, op, ": col must be non-negative, got ", col);
  const ScalarType dtype = options.dtype();
  EMBER_CHECK(dtype == kInt64 || dtype == kInt32, op, ": expected dtype int64 or int32, got ",
              dtype);
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i) {
    for (int64_t j = 0; j < col; ++j) {
      if (lower ? j - i <= offset : j - i >= offset) {
        rows.push_back(i);
        cols.push_back(j);
      }
    }
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  rows.insert(rows.end(), cols.begin(), cols.end());
  Tensor out = tensor(ArrayRef<int64_t>(rows.data(), rows.size())).view({2, n});
  return out.to(options.device(), dtype);
}
}  // namespace

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices("tril_indices", row, col, offset, options, true);
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices("triu_indices", row, col, offset, options, false);
}

// out[..., i, j] = t_padded[..., i] (offset >= 0) or [..., j] where j - i == offset, zero
// elsewhere; then the two new dims move to dim1, dim2.
Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  check_defined("diag_embed", t);
  const int64_t nd = t.dim() + 1;
  const int64_t d1 = wrap_dim("diag_embed", dim1, nd);
  const int64_t d2 = wrap_dim("diag_embed", dim2, nd);
  EMBER_CHECK(d1 != d2, "diag_embed: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  EMBER_CHECK(t.dim() >= 1, "diag_embed: expected a tensor of at least 1 dim");
  const int64_t pad = std::abs(offset);
  const int64_t m = t.size(-1) + pad;
  Tensor x = t;
  if (pad > 0) {
    DimVector zs(t.sizes());
    zs.back() = pad;
    x = cat({t, zeros(zs, t.options())}, -1);
  }
  DimVector square(t.sizes());
  square.back() = m;
  square.push_back(m);
  Tensor spread = offset >= 0 ? x.unsqueeze(-1).expand(square) : x.unsqueeze(-2).expand(square);
  Tensor row = arange(m, long_on(t.device())).unsqueeze(1);
  Tensor col = arange(m, long_on(t.device())).unsqueeze(0);
  Tensor out = spread.masked_fill((col - row).ne(offset), 0);
  if (d1 == nd - 2 && d2 == nd - 1) return out;
  return out.movedim({nd - 2, nd - 1}, {d1, d2}).contiguous();
}

Tensor diag(const Tensor& t, int64_t diagonal) {
  check_defined("diag", t);
  EMBER_CHECK(t.dim() == 1 || t.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", t.dim(),
              "D");
  if (t.dim() == 1) return diag_embed(t, diagonal, 0, 1);
  return t.diagonal(diagonal, 0, 1).clone();
}

// ---- repeat, repeat_interleave, tile ----

Tensor Tensor::repeat(IntArrayRef repeats) const {
  check_defined("repeat", *this);
  const int64_t nd = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(nd >= dim(),
              "repeat: Number of dimensions of repeat dims can not be smaller than number of "
              "dimensions of tensor (repeats ",
              shape_str(repeats), ", tensor ", shape_str(sizes()), ")");
  DimVector split_shape, expanded, result;
  const int64_t lead = nd - dim();
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t s = i < lead ? 1 : sizes()[i - lead];
    EMBER_CHECK(repeats[i] >= 0, "repeat: Trying to create tensor with negative dimension ",
                repeats[i], ": ", shape_str(repeats));
    split_shape.push_back(1);
    split_shape.push_back(s);
    expanded.push_back(repeats[i]);
    expanded.push_back(s);
    result.push_back(repeats[i] * s);
  }
  // [s0, s1] -> [1, s0, 1, s1] -> [r0, s0, r1, s1] (a stride-0 view) -> copied -> [r0*s0, r1*s1]
  return reshape(split_shape).expand(expanded).clone().view(result);
}

Tensor tile(const Tensor& t, IntArrayRef dims) {
  check_defined("tile", t);
  DimVector reps(dims);
  while (static_cast<int64_t>(reps.size()) < t.dim()) reps.insert(0, 1);
  return t.repeat(reps);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats.dim() == 1,
              "repeat_interleave: repeat_interleave only accept 1D vector as "
              "repeat, got shape ",
              shape_str(repeats.sizes()));
  EMBER_CHECK(repeats.dtype() == kInt64 || repeats.dtype() == kInt32,
              "repeat_interleave: repeats has to be Long or Int tensor, got ", repeats.dtype());
  std::vector<int64_t> reps = int_values(repeats);
  std::vector<int64_t> idx;
  for (size_t i = 0; i < reps.size(); ++i) {
    EMBER_CHECK(reps[i] >= 0, "repeat_interleave: repeats can not be negative, got ", reps[i],
                " at index ", i);
    idx.insert(idx.end(), static_cast<size_t>(reps[i]), static_cast<int64_t>(i));
  }
  const int64_t total = static_cast<int64_t>(idx.size());
  EMBER_CHECK(!output_size || *output_size == total,
              "repeat_interleave: allocated size does not match required size (output_size ",
              output_size.value_or(0), ", sum of repeats ", total, ")");
  Tensor out = total == 0 ? empty({0}, kInt64) : tensor(ArrayRef<int64_t>(idx.data(), idx.size()));
  return out.to(repeats.device(), repeats.dtype());
}

Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  Tensor input = dim ? t : t.flatten();
  const int64_t d = wrap_dim("repeat_interleave", dim.value_or(0), input.dim());
  const int64_t n = input.dim() == 0 ? 1 : input.size(d);
  Tensor reps = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    reps = repeats.reshape({1}).expand({n});
  } else {
    EMBER_CHECK(repeats.dim() == 1,
                "repeat_interleave: repeats must be 0-dim or 1-dim tensor, "
                "got shape ",
                shape_str(repeats.sizes()));
    EMBER_CHECK(repeats.size(0) == n,
                "repeat_interleave: repeats must have the same size as input along dim, but got "
                "repeats.size(0) = ",
                repeats.size(0), " and input.size(", d, ") = ", n);
  }
  return input.index_select(d, repeat_interleave(reps, output_size).to(input.device()));
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  Tensor input = dim ? t : t.flatten();
  const int64_t d = wrap_dim("repeat_interleave", dim.value_or(0), input.dim());
  EMBER_CHECK(repeats >= 0, "repeat_interleave: Repeats must be non-negative, got ", repeats);
  if (input.dim() == 0) input = input.reshape({1});
  input = input.unsqueeze(d + 1);
  DimVector shape(input.sizes());
  shape[d + 1] = repeats;
  EMBER_CHECK(!output_size || *output_size == repeats * shape[d],
              "repeat_interleave: Invalid output_size, expected ", repeats * shape[d], " but got ",
              output_size.value_or(0));
  return input.expand(shape).clone().flatten(d, d + 1);
}

Tensor hstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  std::vector<Tensor> parts = atleast_1d(tensors);
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  return cat(atleast_2d(tensors), 0);
}

Tensor row_stack(TensorList tensors) { return vstack(tensors); }

Tensor dstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "dstack expects a non-empty TensorList");
  return cat(atleast_3d(tensors), 2);
}

Tensor column_stack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "column_stack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return hstack(parts);
}

Tensor narrow_copy(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  check_defined("narrow_copy", t);
  return t.narrow(dim, start, length).clone();
}

// ---- method forms ----

Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::fliplr() const { return ember::fliplr(*this); }
Tensor Tensor::flipud() const { return ember::flipud(*this); }
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  return ember::roll(*this, shifts, dims);
}
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const { return ember::rot90(*this, k, dims); }
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }
Tensor& Tensor::tril_(int64_t diagonal) const {
  return masked_fill_(triangle_zeros("tril_", *this, diagonal, true), 0);
}
Tensor& Tensor::triu_(int64_t diagonal) const {
  return masked_fill_(triangle_zeros("triu_", *this, diagonal, false), 0);
}
Tensor Tensor::diag(int64_t diagonal) const { return ember::diag(*this, diagonal); }
Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diag_embed(*this, offset, dim1, dim2);
}
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim,
                                 std::optional<int64_t> output_size) const {
  return ember::repeat_interleave(*this, repeats, dim, output_size);
}
Tensor Tensor::tile(IntArrayRef dims) const { return ember::tile(*this, dims); }
Tensor Tensor::narrow_copy(int64_t dim, int64_t start, int64_t length) const {
  return ember::narrow_copy(*this, dim, start, length);
}

}  // namespace ember
