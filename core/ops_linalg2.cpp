// Linear-algebra composites over matmul/bmm/mm and views: dot vdot inner outer ger mv addmv addr
// baddbmm addbmm einsum trace kron tensordot cross linalg_cross and the linalg norms.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/tensor.h>

namespace ember {
namespace {

void check_vector(const char* name, const char* what, const Tensor& t) {
  EMBER_CHECK(t.dim() == 1, name, ": expected 1-D argument ", what, ", but got ", t.dim(), "-D ",
              t.sizes());
}

// beta * self + product, with beta == 0 ignoring self's values (NaN too), as BLAS does.
// self must broadcast to the product's shape (the result keeps that shape).
Tensor add_scaled(const char* name, const Tensor& self, const Tensor& product, const Scalar& beta) {
  EMBER_CHECK(is_expandable_to(self.sizes(), product.sizes()), name, ": self of shape ",
              self.sizes(), " cannot be broadcast to ", product.sizes());
  check_same_device(name, self, product);
  if (beta.toDouble() == 0.0) return product;
  return product + (beta.equal(1) ? self : self * beta);
}

Tensor scaled(const Tensor& t, const Scalar& alpha) { return alpha.equal(1) ? t : t * alpha; }

// The main diagonal of dims d1 < d2 (equal sizes) as a view in dim d1; d2 is dropped.
Tensor diagonal_view(const Tensor& t, int64_t d1, int64_t d2) {
  DimVector sizes(t.sizes()), strides(t.strides());
  sizes[d1] = std::min(sizes[d1], sizes[d2]);
  strides[d1] += strides[d2];
  sizes.erase(static_cast<size_t>(d2));
  strides.erase(static_cast<size_t>(d2));
  return t.as_strided(sizes, strides, t.storage_offset());
}

}  // namespace

// ---- products of vectors and matrices ----
Tensor dot(const Tensor& self, const Tensor& tensor) {
  EMBER_CHECK(self.dim() == 1 && tensor.dim() == 1, "dot: 1D tensors expected, but got ",
              self.dim(), "D and ", tensor.dim(), "D tensors");
  EMBER_CHECK(self.dtype() == tensor.dtype(),
              "dot : expected both vectors to have same dtype, but found ", self.dtype(), " and ",
              tensor.dtype());
  EMBER_CHECK(self.numel() == tensor.numel(), "dot: inconsistent tensor size, expected tensor [",
              self.numel(), "] and src [", tensor.numel(),
              "] to have the same number of elements, but got ", self.numel(), " and ",
              tensor.numel(), " elements respectively");
  return matmul(self, tensor);
}

Tensor vdot(const Tensor& self, const Tensor& other) {  // real dtypes: no conjugate
  EMBER_CHECK(self.dim() == 1 && other.dim() == 1, "vdot: 1D tensors expected, but got ",
              self.dim(), "D and ", other.dim(), "D tensors");
  EMBER_CHECK(self.dtype() == other.dtype(),
              "vdot: expected both vectors to have same dtype, but found ", self.dtype(), " and ",
              other.dtype());
  return dot(self, other);
}

Tensor inner(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return self * other;
  EMBER_CHECK(self.size(-1) == other.size(-1),
              "inner: the last dimension must match on both input tensors but got shapes ",
              self.sizes(), " and ", other.sizes());
  const int64_t da = self.dim() - 1, db = other.dim() - 1;
  return tensordot(self, other, IntArrayRef(da), IntArrayRef(db));
}

// As LibTorch: a broadcast product, so the dtypes promote (outer(int, float) is float).
Tensor outer(const Tensor& self, const Tensor& vec2) {
  check_vector("outer", "self", self);
  check_vector("outer", "vec2", vec2);
  return self.reshape({-1, 1}) * vec2;
}

Tensor ger(const Tensor& self, const Tensor& vec2) { return outer(self, vec2); }

Tensor mv(const Tensor& self, const Tensor& vec) {
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "mv: vector + matrix @ vector expected, got ",
              self.dim(), "-D and ", vec.dim(), "-D");
  EMBER_CHECK(self.size(1) == vec.size(0), "mv: size mismatch, got input (", self.size(0),
              "), mat (", self.size(0), "x", self.size(1), "), vec (", vec.size(0), ")");
  return matmul(self, vec);
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  return add_scaled("addmv", self, scaled(mv(mat, vec), alpha), beta);
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
            const Scalar& alpha) {
  check_vector("addr", "vec1", vec1);
  check_vector("addr", "vec2", vec2);
  return add_scaled("addr", self, scaled(outer(vec1, vec2), alpha), beta);
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  check_defined("baddbmm", self, batch1, batch2);
  EMBER_CHECK(batch1.dim() == 3 && batch2.dim() == 3 && batch1.size(0) == batch2.size(0) &&
                  batch1.size(2) == batch2.size(1),
              "baddbmm: shapes ", batch1.sizes(), " and ", batch2.sizes(), " cannot be multiplied");
  return add_scaled("baddbmm", self, scaled(bmm(batch1, batch2), alpha), beta);
}

// sum over b of batch1[b] @ batch2[b]: one mm of [n, B k] @ [B k, m].
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  EMBER_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "addbmm: expected 3-D tensors, got ",
              batch1.sizes(), " and ", batch2.sizes());
  EMBER_CHECK(batch1.size(0) == batch2.size(0) && batch1.size(2) == batch2.size(1),
              "addbmm: shapes ", batch1.sizes(), " and ", batch2.sizes(), " cannot be multiplied");
  const int64_t B = batch1.size(0), n = batch1.size(1), k = batch1.size(2), m = batch2.size(2);
  const Tensor a = batch1.permute({1, 0, 2}).reshape({n, B * k});
  const Tensor b = batch2.reshape({B * k, m});
  return add_scaled("addbmm", self, scaled(mm(a, b), alpha), beta);
}

// ---- einsum ----
namespace {

constexpr int kEllipsisBase = 128;  // labels >= this are the broadcast dims of "..."

struct Subscripts {
  std::vector<int> labels;  // letters as chars; -1 marks the ellipsis
  bool ellipsis = false;
};

Subscripts parse_subscripts(const std::string& s, const char* what) {
  Subscripts r;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      EMBER_CHECK(s.compare(i, 3, "...") == 0, "einsum(): found '.' for ", what,
                  " that is not part of any ellipsis");
      EMBER_CHECK(!r.ellipsis, "einsum(): found more than one ellipsis ('...') for ", what);
      r.ellipsis = true;
      r.labels.push_back(-1);
      i += 2;
    } else {
      EMBER_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'),
                  "einsum(): invalid subscript given at index ", i,
                  " in the equation string, "
                  "subscripts must be in [a-zA-Z]");
      r.labels.push_back(c);
    }
  }
  return r;
}

// One contraction of two operands aligned to the same L dims (size 1 where a label is absent):
// dims in `sum` are summed (by bmm where both have them), the others kept. The result keeps
// L dims, size 1 at the summed ones.
Tensor contract_pair(Tensor left, Tensor right, const std::vector<bool>& sum) {
  const int64_t L = left.dim();
  std::vector<int64_t> batch, lo, ro, k;
  for (int64_t d = 0; d < L; ++d) {
    const int64_t ls = left.size(d), rs = right.size(d);
    if (sum[d]) {
      if (ls != 1 && rs != 1) {
        EMBER_CHECK(ls == rs, "einsum(): operands do not broadcast (", ls, " vs ", rs, ")");
        k.push_back(d);
      } else if (ls != 1) {
        left = left.sum(IntArrayRef(d), true);
      } else if (rs != 1) {
        right = right.sum(IntArrayRef(d), true);
      }
      continue;
    }
    if (ls != 1 && rs != 1) {
      EMBER_CHECK(ls == rs, "einsum(): operands do not broadcast (", ls, " vs ", rs, ")");
      batch.push_back(d);
    } else if (ls != 1) {
      lo.push_back(d);
    } else if (rs != 1) {
      ro.push_back(d);
    } else {
      batch.push_back(d);
    }
  }
  std::vector<int64_t> summed1;  // the summed dims that are size 1 on both sides now
  for (int64_t d = 0; d < L; ++d) {
    if (sum[d] && std::find(k.begin(), k.end(), d) == k.end()) summed1.push_back(d);
  }
  auto prod = [](const Tensor& t, const std::vector<int64_t>& dims) {
    int64_t p = 1;
    for (int64_t d : dims) p *= t.size(d);
    return p;
  };
  const int64_t B = prod(left, batch), LO = prod(left, lo), K = prod(left, k), RO = prod(right, ro);
  auto cat_dims = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    DimVector r;
    for (const auto* p : parts) {
      for (int64_t d : *p) r.push_back(d);
    }
    return r;
  };
  const DimVector pl = cat_dims({&batch, &lo, &k, &ro, &summed1});
  const DimVector pr = cat_dims({&batch, &k, &ro, &lo, &summed1});
  const Tensor a = left.permute(pl).reshape({B, LO, K});
  const Tensor b = right.permute(pr).reshape({B, K, RO});
  Tensor out = bmm(a, b);  // [B, LO, RO]
  const DimVector order = cat_dims({&batch, &lo, &ro, &k, &summed1});
  DimVector shape;
  for (int64_t d : batch) shape.push_back(std::max(left.size(d), right.size(d)));
  for (int64_t d : lo) shape.push_back(left.size(d));
  for (int64_t d : ro) shape.push_back(right.size(d));
  for (size_t i = 0; i < k.size() + summed1.size(); ++i) shape.push_back(1);
  out = out.reshape(shape);
  DimVector inverse(L);
  for (int64_t i = 0; i < L; ++i) inverse[order[i]] = i;
  return out.permute(inverse);
}

}  // namespace

Tensor einsum(std::string_view equation, TensorList tensors) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq += c;
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Subscripts> ops;
  size_t start = 0;
  for (;;) {
    const size_t comma = lhs.find(',', start);
    const std::string part = lhs.substr(start, comma == std::string::npos ? comma : comma - start);
    ops.push_back(parse_subscripts(part, "operand"));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK(!tensors.empty(), "einsum(): must provide at least one operand");
  EMBER_CHECK(ops.size() <= tensors.size(),
              "einsum(): more operands were provided than specified in the equation");
  EMBER_CHECK(ops.size() >= tensors.size(),
              "einsum(): fewer operands were provided than specified in the equation");
  // The ellipsis covers the dims an operand has beyond its letters (right-aligned across them).
  int64_t n_ell = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const int64_t letters = static_cast<int64_t>(ops[i].labels.size()) - (ops[i].ellipsis ? 1 : 0);
    const int64_t nd = tensors[i].dim();
    if (ops[i].ellipsis) {
      EMBER_CHECK(nd >= letters, "einsum(): the number of subscripts in the equation (", letters,
                  ") is more than the number of dimensions (", nd, ") for operand ", i);
      n_ell = std::max(n_ell, nd - letters);
    } else {
      EMBER_CHECK(nd == letters, "einsum(): the number of subscripts in the equation (", letters,
                  ") does not match the number of dimensions (", nd, ") for operand ", i,
                  " and no ellipsis was given");
    }
  }
  // Per operand: the label of each dim (ellipsis dims get kEllipsisBase + j).
  std::vector<std::vector<int>> dim_labels(ops.size());
  std::array<int, 256> count{};
  for (size_t i = 0; i < ops.size(); ++i) {
    const int64_t letters = static_cast<int64_t>(ops[i].labels.size()) - (ops[i].ellipsis ? 1 : 0);
    const int64_t covered = tensors[i].dim() - letters;
    for (int l : ops[i].labels) {
      if (l >= 0) {
        dim_labels[i].push_back(l);
        ++count[l];
      } else {
        for (int64_t j = 0; j < covered; ++j) {
          dim_labels[i].push_back(static_cast<int>(kEllipsisBase + n_ell - covered + j));
        }
      }
    }
  }
  // The output's labels: given, or the ellipsis then the letters seen once, in order.
  std::vector<int> out_labels;
  bool any_ellipsis = false;
  for (const auto& o : ops) any_ellipsis = any_ellipsis || o.ellipsis;
  if (arrow != std::string::npos) {
    const Subscripts out = parse_subscripts(eq.substr(arrow + 2), "the output");
    std::array<bool, 256> seen{};
    for (int l : out.labels) {
      if (l < 0) {
        for (int64_t j = 0; j < n_ell; ++j)
          out_labels.push_back(static_cast<int>(kEllipsisBase + j));
        continue;
      }
      EMBER_CHECK(count[l] > 0, "einsum(): output subscript ", static_cast<char>(l),
                  " does not appear in the equation for any input operand");
      EMBER_CHECK(!seen[l], "einsum(): output subscript ", static_cast<char>(l),
                  " appears more than once in the output");
      seen[l] = true;
      out_labels.push_back(l);
    }
  } else {
    if (any_ellipsis) {
      for (int64_t j = 0; j < n_ell; ++j) out_labels.push_back(static_cast<int>(kEllipsisBase + j));
    }
    for (int l = 0; l < 128; ++l) {
      if (count[l] == 1) out_labels.push_back(l);
    }
  }
  // Every label in use, in one order: output labels first, then the summed ones.
  std::vector<int> all(out_labels);
  for (const auto& dl : dim_labels) {
    for (int l : dl) {
      if (std::find(all.begin(), all.end(), l) == all.end()) all.push_back(l);
    }
  }
  const int64_t L = static_cast<int64_t>(all.size());
  // Each operand: repeated labels become diagonals, then aligned to `all` (size 1 if absent).
  std::vector<Tensor> aligned;
  for (size_t i = 0; i < ops.size(); ++i) {
    Tensor t = tensors[i];
    std::vector<int> labels = dim_labels[i];
    for (size_t a = 0; a < labels.size(); ++a) {
      for (size_t b = a + 1; b < labels.size();) {
        if (labels[b] != labels[a]) {
          ++b;
          continue;
        }
        EMBER_CHECK(t.size(a) == t.size(b), "einsum(): subscript ", static_cast<char>(labels[a]),
                    " is repeated for operand ", i, " but the sizes don't match, ", t.size(a),
                    " != ", t.size(b));
        t = diagonal_view(t, a, b);
        labels.erase(labels.begin() + b);
      }
    }
    DimVector perm;
    DimVector shape;
    for (int64_t p = 0; p < L; ++p) {
      const auto it = std::find(labels.begin(), labels.end(), all[p]);
      if (it != labels.end()) perm.push_back(it - labels.begin());
    }
    t = t.permute(perm);
    for (int64_t p = 0, j = 0; p < L; ++p) {
      const bool has = std::find(labels.begin(), labels.end(), all[p]) != labels.end();
      shape.push_back(has ? t.size(j++) : 1);
    }
    aligned.push_back(t.reshape(shape));
  }
  const int64_t n_out = static_cast<int64_t>(out_labels.size());
  // A label is summed after the last operand that has it (size > 1) joins.
  Tensor result = aligned[0];
  if (aligned.size() == 1) {
    DimVector summed;
    for (int64_t p = n_out; p < L; ++p) summed.push_back(p);
    if (!summed.empty()) result = result.sum(summed, true);
  }
  for (size_t i = 1; i < aligned.size(); ++i) {
    std::vector<bool> sum(L, false);
    for (int64_t p = n_out; p < L; ++p) {
      bool later = false;
      for (size_t j = i + 1; j < aligned.size(); ++j) {
        const std::vector<int>& dl = dim_labels[j];
        later = later || std::find(dl.begin(), dl.end(), all[p]) != dl.end();
      }
      sum[p] = !later;
    }
    result = contract_pair(result, aligned[i], sum);
  }
  DimVector out_shape;
  for (int64_t p = 0; p < n_out; ++p) out_shape.push_back(result.size(p));
  return result.reshape(out_shape);
}

// ---- trace, kron, tensordot ----
Tensor trace(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return diagonal_view(self, 0, 1).sum();  // integers sum to int64, as LibTorch's trace
}

Tensor kron(const Tensor& self, const Tensor& other) {
  const int64_t nd = std::max(self.dim(), other.dim());
  DimVector sa(nd - self.dim(), 1), sb(nd - other.dim(), 1);
  for (int64_t s : self.sizes()) sa.push_back(s);
  for (int64_t s : other.sizes()) sb.push_back(s);
  DimVector va, vb, out;
  for (int64_t d = 0; d < nd; ++d) {
    va.push_back(sa[d]);
    va.push_back(1);
    vb.push_back(1);
    vb.push_back(sb[d]);
    out.push_back(sa[d] * sb[d]);
  }
  return (self.reshape(va) * other.reshape(vb)).reshape(out);
}

Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self,
                 IntArrayRef dims_other) {
  EMBER_CHECK(dims_self.size() == dims_other.size(),
              "tensordot: both dimension lists should have same length, got ", dims_self.size(),
              " and ", dims_other.size());
  std::vector<bool> used_a(self.dim(), false), used_b(other.dim(), false);
  DimVector ca, cb;
  int64_t K = 1;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    const int64_t da = wrap_dim("tensordot", dims_self[i], self.dim());
    const int64_t db = wrap_dim("tensordot", dims_other[i], other.dim());
    EMBER_CHECK(self.size(da) == other.size(db),
                "tensordot: contracted dimensions need to match, but first has size ",
                self.size(da), " in dim ", da, " and second has size ", other.size(db), " in dim ",
                db);
    EMBER_CHECK(!used_a[da] && !used_b[db], "tensordot: a dim appears twice in the lists");
    used_a[da] = used_b[db] = true;
    ca.push_back(da);
    cb.push_back(db);
    K *= self.size(da);
  }
  DimVector pa, pb, shape;
  int64_t Fa = 1, Fb = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (used_a[d]) continue;
    pa.push_back(d);
    shape.push_back(self.size(d));
    Fa *= self.size(d);
  }
  for (int64_t d : ca) pa.push_back(d);
  for (int64_t d : cb) pb.push_back(d);
  for (int64_t d = 0; d < other.dim(); ++d) {
    if (used_b[d]) continue;
    pb.push_back(d);
    shape.push_back(other.size(d));
    Fb *= other.size(d);
  }
  const Tensor a = self.permute(pa).reshape({Fa, K});
  const Tensor b = other.permute(pb).reshape({K, Fb});
  return mm(a, b).reshape(shape);
}

// ---- cross products ----
Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  EMBER_CHECK(self.dim() == other.dim(),
              "linalg.cross: inputs must have the same number of dimensions, got ", self.sizes(),
              " and ", other.sizes());
  EMBER_CHECK(self.dtype() == other.dtype(),
              "linalg.cross: expected input and other to have the same dtype, got ", self.dtype(),
              " and ", other.dtype());
  const int64_t d = wrap_dim("linalg.cross", dim, self.dim());
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension ", d,
              " must have length 3. Got ", self.size(d), " and ", other.size(d));
  const DimVector shape = broadcast_shapes("linalg.cross", self.sizes(), other.sizes());
  auto part = [d](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  const Tensor a0 = part(self, 0), a1 = part(self, 1), a2 = part(self, 2);
  const Tensor b0 = part(other, 0), b1 = part(other, 1), b2 = part(other, 2);
  (void)shape;
  return cat({a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0}, d);
}

// dim left out: the first dim of size 3 (LibTorch's deprecated default for torch::cross).
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim) return linalg_cross(self, other, *dim);
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) == 3) return linalg_cross(self, other, d);
  }
  EMBER_THROW("cross: no dimension of size 3 in input of shape ", self.sizes());
}

// ---- norms ----
namespace {

Tensor norm_input(const char* name, const Tensor& self, std::optional<ScalarType> dtype) {
  const Tensor x = dtype ? self.to(*dtype) : self;
  EMBER_CHECK(x.is_floating_point(), name,
              ": Expected a floating point or complex tensor as input. Got ", x.dtype());
  return x;
}

DimVector norm_dims(const char* name, const Tensor& x, OptionalIntArrayRef dim) {
  DimVector dims;
  if (dim.has_value() && !dim.value().empty()) {
    for (int64_t d : dim.value()) dims.push_back(wrap_dim(name, d, x.dim()));
    std::sort(dims.begin(), dims.end());
  } else {
    for (int64_t d = 0; d < x.dim(); ++d) dims.push_back(d);
  }
  return dims;
}

}  // namespace

Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim,
                          bool keepdim, std::optional<ScalarType> dtype) {
  const char* name = "linalg.vector_norm";
  const Tensor x = norm_input(name, self, dtype);
  const DimVector dims = norm_dims(name, x, dim);
  const double p = ord.toDouble();
  if (x.dim() == 0) {  // a 0-dim input: |x| (or x != 0 for ord 0)
    return p == 0 ? x.ne(0).to(x.dtype()) : x.abs();
  }
  if (std::isinf(p)) {
    if (x.numel() == 0) {
      EMBER_CHECK(p > 0, name, ": cannot compute the -inf norm of an empty tensor");
    }
    return p > 0 ? x.abs().amax(dims, keepdim) : x.abs().amin(dims, keepdim);
  }
  if (p == 0) return x.ne(0).to(x.dtype()).sum(dims, keepdim);
  return x.norm(ord, dims, keepdim);
}

Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const char* name = "linalg.matrix_norm";
  EMBER_CHECK(self.dim() >= 2, name, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(dim.size() == 2, name, ": dim must be a 2-tuple. Got ", dim);
  const Tensor x = norm_input(name, self, dtype);
  int64_t d0 = wrap_dim(name, dim[0], x.dim()), d1 = wrap_dim(name, dim[1], x.dim());
  EMBER_CHECK(d0 != d1, name, ": dims must be different. Got (", dim[0], ", ", dim[1], ")");
  const double p = ord.toDouble();
  EMBER_CHECK(p == 1 || p == -1 || std::isinf(p), name, ": Order ", p,
              " not supported (ember has no SVD; 1, -1, inf, -inf and 'fro' are)");
  // 1: the largest column sum of |x| (sum over d0, then max over d1); inf: the row sums.
  const int64_t sum_dim = std::isinf(p) ? d1 : d0;
  const int64_t max_dim = std::isinf(p) ? d0 : d1;
  Tensor s = x.abs().sum(IntArrayRef(sum_dim), true);
  Tensor r = p > 0 ? s.amax(IntArrayRef(max_dim), true) : s.amin(IntArrayRef(max_dim), true);
  if (keepdim) return r;
  if (d0 < d1) std::swap(d0, d1);
  return r.squeeze(d0).squeeze(d1);
}

Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const char* name = "linalg.matrix_norm";
  EMBER_CHECK(self.dim() >= 2, name, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(dim.size() == 2, name, ": dim must be a 2-tuple. Got ", dim);
  EMBER_CHECK(ord == "fro" || ord == "nuc", name, ": Order ", std::string(ord), " not supported.");
  EMBER_CHECK(ord == "fro", name, ": the nuclear norm needs an SVD, which ember does not have");
  return linalg_vector_norm(self, 2, dim, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& self, const std::optional<Scalar>& ord, OptionalIntArrayRef dim,
                   bool keepdim, std::optional<ScalarType> dtype) {
  const char* name = "linalg.norm";
  if (dim.has_value()) {
    const size_t n = dim.value().size();
    EMBER_CHECK(n == 1 || n == 2, name, ": If dim is specified, it must be of length 1 or 2. Got ",
                dim.value());
    if (n == 2) {
      return ord ? linalg_matrix_norm(self, *ord, dim.value(), keepdim, dtype)
                 : linalg_matrix_norm(self, "fro", dim.value(), keepdim, dtype);
    }
    return linalg_vector_norm(self, ord ? *ord : Scalar(2), dim, keepdim, dtype);
  }
  if (ord) {
    EMBER_CHECK(self.dim() == 1 || self.dim() == 2, name,
                ": If dim is not specified but ord is, the input must be 1D or 2D. Got ",
                self.dim(), "D.");
    if (self.dim() == 2) return linalg_matrix_norm(self, *ord, {0, 1}, keepdim, dtype);
    return linalg_vector_norm(self, *ord, std::nullopt, keepdim, dtype);
  }
  return linalg_vector_norm(self, 2, std::nullopt, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& self, std::string_view ord, OptionalIntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* name = "linalg.norm";
  if (dim.has_value()) {
    const size_t n = dim.value().size();
    EMBER_CHECK(n == 1 || n == 2, name, ": If dim is specified, it must be of length 1 or 2. Got ",
                dim.value());
    return linalg_matrix_norm(self, ord, dim.value(), keepdim, dtype);
  }
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, name,
              ": If dim is not specified but ord is, the input must be 1D or 2D. Got ", self.dim(),
              "D.");
  return linalg_matrix_norm(self, ord, {0, 1}, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& self, const char* ord, OptionalIntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_CHECK(ord != nullptr, "linalg.norm: ord is a null string");
  return linalg_norm(self, std::string_view(ord), dim, keepdim, dtype);
}

Tensor linalg_matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  EMBER_CHECK(ord != nullptr, "linalg.matrix_norm: ord is a null string");
  return linalg_matrix_norm(self, std::string_view(ord), dim, keepdim, dtype);
}

// ---- Tensor methods ----
Tensor Tensor::dot(const Tensor& tensor) const { return ember::dot(*this, tensor); }
Tensor Tensor::vdot(const Tensor& other) const { return ember::vdot(*this, other); }
Tensor Tensor::inner(const Tensor& other) const { return ember::inner(*this, other); }
Tensor Tensor::outer(const Tensor& vec2) const { return ember::outer(*this, vec2); }
Tensor Tensor::ger(const Tensor& vec2) const { return ember::ger(*this, vec2); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor& Tensor::addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                       const Scalar& alpha) const {
  return copy_(ember::addmv(*this, mat, vec, beta, alpha));
}
Tensor Tensor::addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                    const Scalar& alpha) const {
  return ember::addr(*this, vec1, vec2, beta, alpha);
}
Tensor& Tensor::addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                      const Scalar& alpha) const {
  return copy_(ember::addr(*this, vec1, vec2, beta, alpha));
}
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return ember::baddbmm(*this, batch1, batch2, beta, alpha);
}
Tensor& Tensor::baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                         const Scalar& alpha) const {
  return copy_(ember::baddbmm(*this, batch1, batch2, beta, alpha));
}
Tensor Tensor::addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                      const Scalar& alpha) const {
  return ember::addbmm(*this, batch1, batch2, beta, alpha);
}
Tensor& Tensor::addbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                        const Scalar& alpha) const {
  return copy_(ember::addbmm(*this, batch1, batch2, beta, alpha));
}
Tensor Tensor::trace() const { return ember::trace(*this); }
Tensor Tensor::kron(const Tensor& other) const { return ember::kron(*this, other); }
Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  return ember::cross(*this, other, dim);
}

}  // namespace ember
