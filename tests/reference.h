// Naive references shared by the tests: read any tensor (views included) element by element
// through its sizes/strides, build tensors in unusual layouts, random shapes and values.
#pragma once

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ref {

using ember::ScalarType;
using ember::Tensor;
using Shape = std::vector<int64_t>;

// The six concrete dtypes, for loops over "each dtype it supports".
inline const std::vector<ScalarType>& all_dtypes() {
  static const std::vector<ScalarType> v = {ember::kFloat32, ember::kFloat64, ember::kInt32,
                                            ember::kInt64,   ember::kUInt8,   ember::kBool};
  return v;
}
inline const std::vector<ScalarType>& numeric_dtypes() {  // no bool
  static const std::vector<ScalarType> v = {ember::kFloat32, ember::kFloat64, ember::kInt32,
                                            ember::kInt64, ember::kUInt8};
  return v;
}
inline const std::vector<ScalarType>& float_dtypes() {
  static const std::vector<ScalarType> v = {ember::kFloat32, ember::kFloat64};
  return v;
}
inline bool is_float(ScalarType t) { return t == ember::kFloat32 || t == ember::kFloat64; }

inline std::string str(const Shape& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}
inline std::string name(ScalarType t) { return ember::dtype_name(t); }

inline int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
inline Shape shape_of(const Tensor& t) { return t.sizes().vec(); }

// Row-major multi-index <-> flat index.
inline Shape unravel(int64_t flat, const Shape& shape) {
  Shape idx(shape.size(), 0);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 0) return idx;
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}
inline int64_t ravel(const Shape& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

// ---- reading tensors ----

// Logical (row-major) elements of t, read through data_ptr<T>() and strides, independently
// of the library's own contiguous()/copy code.
template <class T>
std::vector<T> strided_values(const Tensor& t) {
  const int64_t n = t.numel();
  std::vector<T> out(static_cast<size_t>(n));
  if (n == 0) return out;
  const T* base = t.data_ptr<T>();
  const Shape sizes = t.sizes().vec(), strides = t.strides().vec();
  for (int64_t k = 0; k < n; ++k) {
    Shape idx = unravel(k, sizes);
    int64_t off = 0;
    for (size_t d = 0; d < sizes.size(); ++d) off += idx[d] * strides[d];
    out[static_cast<size_t>(k)] = base[off];
  }
  return out;
}

// The brief's to_vector: contiguous() then data_ptr<T>().
template <class T>
std::vector<T> to_vector(const Tensor& t) {
  Tensor c = t.contiguous();
  std::vector<T> out(static_cast<size_t>(c.numel()));
  if (c.numel() == 0) return out;
  const T* p = c.data_ptr<T>();
  std::copy(p, p + c.numel(), out.begin());
  return out;
}

// Logical values of any dtype, as doubles (read through strides).
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  auto conv = [&](auto v) {
    out.resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<double>(v[i]);
  };
  switch (t.dtype()) {
    case ember::kFloat32:
      conv(strided_values<float>(t));
      break;
    case ember::kFloat64:
      conv(strided_values<double>(t));
      break;
    case ember::kInt32:
      conv(strided_values<int32_t>(t));
      break;
    case ember::kInt64:
      conv(strided_values<int64_t>(t));
      break;
    case ember::kUInt8:
      conv(strided_values<uint8_t>(t));
      break;
    case ember::kBool:
      conv(strided_values<bool>(t));
      break;
    default:
      ADD_FAILURE() << "unsupported dtype";
      break;
  }
  return out;
}

// ---- conversions the way PyTorch does them ----

// What storing double v into dtype t gives (floats round, ints truncate toward zero, uint8
// wraps modulo 256, bool is v != 0).
inline double cast_to(ScalarType t, double v) {
  switch (t) {
    case ember::kFloat32:
      return static_cast<double>(static_cast<float>(v));
    case ember::kFloat64:
      return v;
    case ember::kInt32:
      return static_cast<double>(static_cast<int32_t>(v));
    case ember::kInt64:
      return static_cast<double>(static_cast<int64_t>(v));
    case ember::kUInt8:
      return static_cast<double>(static_cast<uint8_t>(static_cast<int64_t>(v)));
    case ember::kBool:
      return v != 0 ? 1.0 : 0.0;
    default:
      return v;
  }
}

// PyTorch's promote_types for the six dtypes: with no int8/int16 the lattice is a chain.
inline int rank(ScalarType t) {
  switch (t) {
    case ember::kBool:
      return 0;
    case ember::kUInt8:
      return 1;
    case ember::kInt32:
      return 2;
    case ember::kInt64:
      return 3;
    case ember::kFloat32:
      return 4;
    case ember::kFloat64:
      return 5;
    default:
      return -1;
  }
}
inline ScalarType promote(ScalarType a, ScalarType b) { return rank(a) >= rank(b) ? a : b; }
// PyTorch's result_type for two tensors, where 0-dim tensors rank below dimensioned ones
// (c10's combine_categories): a dimensioned float wins outright; a dimensioned int keeps its
// type against 0-dim ints and bools; otherwise the two promote. test_tensor_core checks this
// helper against torch.result_type's table in tests/data.
inline ScalarType result_type(ScalarType a, bool a_zero_dim, ScalarType b, bool b_zero_dim) {
  if (a_zero_dim == b_zero_dim) return promote(a, b);
  ScalarType dim = a_zero_dim ? b : a, zero = a_zero_dim ? a : b;
  if (is_float(dim)) return dim;
  if (dim == ember::kBool || is_float(zero)) return promote(dim, zero);
  return dim;
}
inline ScalarType result_type(const Tensor& a, const Tensor& b) {
  return result_type(a.dtype(), a.dim() == 0, b.dtype(), b.dim() == 0);
}

// int and bool inputs of float-only functions (exp, div...) compute in the default float.
inline ScalarType to_float(ScalarType t) { return is_float(t) ? t : ember::kFloat32; }

// ---- building tensors ----

// A contiguous tensor of shape/dtype holding vals (row-major), written via data_ptr<T>().
inline Tensor make(const std::vector<double>& vals, const Shape& shape, ScalarType dt) {
  EXPECT_EQ(static_cast<int64_t>(vals.size()), numel(shape));
  Tensor t = ember::empty(shape, dt);
  auto fill = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    for (size_t i = 0; i < vals.size(); ++i) p[i] = static_cast<T>(cast_to(dt, vals[i]));
  };
  if (vals.empty()) return t;
  switch (dt) {
    case ember::kFloat32:
      fill(t.data_ptr<float>());
      break;
    case ember::kFloat64:
      fill(t.data_ptr<double>());
      break;
    case ember::kInt32:
      fill(t.data_ptr<int32_t>());
      break;
    case ember::kInt64:
      fill(t.data_ptr<int64_t>());
      break;
    case ember::kUInt8:
      fill(t.data_ptr<uint8_t>());
      break;
    case ember::kBool:
      fill(t.data_ptr<bool>());
      break;
    default:
      ADD_FAILURE() << "unsupported dtype";
  }
  return t;
}

// Memory layouts that hold the same logical values.
enum class Layout { Contiguous, Transposed, Stepped, Offset };
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous:
      return "contiguous";
    case Layout::Transposed:
      return "transposed";
    case Layout::Stepped:
      return "stepped";
    case Layout::Offset:
      return "offset";
  }
  return "?";
}
inline const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> v = {Layout::Contiguous, Layout::Transposed, Layout::Stepped,
                                        Layout::Offset};
  return v;
}

// A tensor whose logical values are vals (row-major in shape) laid out as `layout`:
// Transposed: a reversed-dims contiguous base viewed through permute (needs 2+ dims);
// Stepped: every dim of the base twice as long, viewed through slice(step 2), garbage between;
// Offset: a base with one extra leading element, viewed from storage offset > 0.
inline Tensor make_layout(const std::vector<double>& vals, const Shape& shape, ScalarType dt,
                          Layout layout) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  if (layout == Layout::Transposed && nd >= 2) {
    Shape rev(shape.rbegin(), shape.rend());
    std::vector<double> base_vals(vals.size());
    for (int64_t k = 0; k < numel(shape); ++k) {
      Shape idx = unravel(k, shape);
      Shape ridx(idx.rbegin(), idx.rend());
      base_vals[static_cast<size_t>(ravel(ridx, rev))] = vals[static_cast<size_t>(k)];
    }
    Shape perm(static_cast<size_t>(nd));
    for (int64_t d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
    return make(base_vals, rev, dt).permute(perm);
  }
  if (layout == Layout::Stepped || layout == Layout::Transposed) {
    if (nd == 0) return make_layout(vals, shape, dt, Layout::Offset);
    Shape big(shape);
    for (auto& s : big) s *= 2;
    std::vector<double> base_vals(static_cast<size_t>(numel(big)), 7.0);  // garbage
    for (int64_t k = 0; k < numel(shape); ++k) {
      Shape idx = unravel(k, shape);
      for (auto& i : idx) i *= 2;
      base_vals[static_cast<size_t>(ravel(idx, big))] = vals[static_cast<size_t>(k)];
    }
    Tensor t = make(base_vals, big, dt);
    for (int64_t d = 0; d < nd; ++d) t = t.slice(d, 0, std::nullopt, 2);
    return t;
  }
  if (layout == Layout::Offset) {
    std::vector<double> base_vals(vals.size() + 3, 5.0);
    std::copy(vals.begin(), vals.end(), base_vals.begin() + 3);
    Tensor base = make(base_vals, {static_cast<int64_t>(base_vals.size())}, dt);
    return base.slice(0, 3).view(shape);
  }
  return make(vals, shape, dt);
}

// ---- randomness (fixed seeds: every run sees the same cases) ----

using Rng = std::mt19937_64;

inline int64_t randint(Rng& rng, int64_t lo, int64_t hi) {  // inclusive
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A shape of ndim in [min_dim, max_dim]; sizes mostly 1..max_size, sometimes 0 when allow_zero.
inline Shape random_shape(Rng& rng, int min_dim = 0, int max_dim = 4, int64_t max_size = 5,
                          bool allow_zero = true) {
  Shape s(static_cast<size_t>(randint(rng, min_dim, max_dim)));
  for (auto& d : s) {
    int64_t r = randint(rng, 0, 11);
    d = (allow_zero && r == 0) ? 0 : r <= 3 ? 1 : randint(rng, 2, max_size);
  }
  return s;
}

// Random values suited to dtype: floats in [lo, hi], small ints, bits for bool.
inline std::vector<double> random_values(Rng& rng, int64_t n, ScalarType dt, double lo = -3,
                                         double hi = 3) {
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) {
    switch (dt) {
      case ember::kFloat32:
      case ember::kFloat64:
        x = std::uniform_real_distribution<double>(lo, hi)(rng);
        break;
      case ember::kUInt8:
        x = static_cast<double>(randint(rng, 0, 20));
        break;
      case ember::kBool:
        x = static_cast<double>(randint(rng, 0, 1));
        break;
      default:
        x = static_cast<double>(randint(rng, -9, 9));
        break;
    }
    x = cast_to(dt, x);  // exactly representable in dt
  }
  return v;
}

// Two shapes that broadcast: suffixes of a random output shape with some dims set to 1.
inline std::pair<Shape, Shape> broadcastable_shapes(Rng& rng, int max_dim = 4) {
  Shape out = random_shape(rng, 0, max_dim);
  auto derive = [&](void) {
    size_t drop = static_cast<size_t>(randint(rng, 0, static_cast<int64_t>(out.size())));
    Shape s(out.begin() + static_cast<int64_t>(drop), out.end());
    for (auto& d : s)
      if (randint(rng, 0, 2) == 0) d = 1;
    return s;
  };
  Shape a = derive(), b = derive();
  return {a, b};
}

inline Shape broadcast(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Value of a (logical values va, shape sa) at output index idx under broadcasting.
inline double at_broadcast(const std::vector<double>& va, const Shape& sa, const Shape& idx) {
  Shape ai(sa.size());
  size_t off = idx.size() - sa.size();
  for (size_t d = 0; d < sa.size(); ++d) ai[d] = sa[d] == 1 ? 0 : idx[d + off];
  return va[static_cast<size_t>(ravel(ai, sa))];
}

// ---- comparing ----

// Checks dtype, shape and every value (NaN matches NaN; infinities must match exactly).
inline ::testing::AssertionResult matches(const Tensor& got, ScalarType dtype, const Shape& shape,
                                          const std::vector<double>& want, double rtol = 0,
                                          double atol = 0) {
  if (!got.defined()) return ::testing::AssertionFailure() << "undefined tensor";
  if (got.dtype() != dtype)
    return ::testing::AssertionFailure()
           << "dtype " << name(got.dtype()) << ", expected " << name(dtype);
  if (shape_of(got) != shape)
    return ::testing::AssertionFailure()
           << "shape " << str(shape_of(got)) << ", expected " << str(shape);
  std::vector<double> v = values(got);
  if (v.size() != want.size()) return ::testing::AssertionFailure() << "reference size mismatch";
  for (size_t i = 0; i < v.size(); ++i) {
    double g = v[i], w = want[i];
    bool ok = (std::isnan(g) && std::isnan(w)) || g == w ||
              (std::isfinite(w) && std::abs(g - w) <= atol + rtol * std::abs(w));
    if (!ok)
      return ::testing::AssertionFailure()
             << "element " << i << " (index " << str(unravel(static_cast<int64_t>(i), shape))
             << ") is " << g << ", expected " << w << " (shape " << str(shape) << ", dtype "
             << name(dtype) << ")";
  }
  return ::testing::AssertionSuccess();
}

// Tolerance for results computed by the library in dtype and by the reference in double.
inline double tol(ScalarType t) {
  return t == ember::kFloat32 ? 2e-6 : t == ember::kFloat64 ? 1e-13 : 0.0;
}

// ---- operands for elementwise tests ----

// Tolerances for elementwise results computed in dtype, against references in double.
inline double rtol_for(ScalarType t) {
  return t == ember::kFloat32 ? 1e-5 : t == ember::kFloat64 ? 1e-12 : 0;
}
inline double atol_for(ScalarType t) {
  return t == ember::kFloat32 ? 1e-6 : t == ember::kFloat64 ? 1e-13 : 0;
}

inline Layout random_layout(Rng& rng) {
  return all_layouts()[static_cast<size_t>(randint(rng, 0, 3))];
}

// An operand with logical shape s: either a random layout of its own values, or (sometimes)
// a stride-0 expand of a smaller tensor, so broadcast views are inputs too.
struct Operand {
  Tensor t;
  std::vector<double> v;
  Shape s;
};
inline Operand operand(Rng& rng, const Shape& s, ScalarType dt, double lo = -3, double hi = 3) {
  Operand o{Tensor(), {}, s};
  if (!s.empty() && randint(rng, 0, 3) == 0) {
    Shape small = s;
    small[static_cast<size_t>(randint(rng, 0, static_cast<int64_t>(s.size()) - 1))] = 1;
    std::vector<double> sv = random_values(rng, numel(small), dt, lo, hi);
    o.t = make_layout(sv, small, dt, random_layout(rng)).expand(s);
    o.v.resize(static_cast<size_t>(numel(s)));
    for (int64_t k = 0; k < numel(s); ++k)
      o.v[static_cast<size_t>(k)] = at_broadcast(sv, small, unravel(k, s));
    return o;
  }
  o.v = random_values(rng, numel(s), dt, lo, hi);
  o.t = make_layout(o.v, s, dt, random_layout(rng));
  return o;
}

// erf^-1 by bisection on std::erf (the tests' reference, independent of the kernels').
inline double erfinv(double y) {
  if (y <= -1) return y == -1 ? -HUGE_VAL : NAN;
  if (y >= 1) return y == 1 ? HUGE_VAL : NAN;
  double lo = -7, hi = 7;
  for (int i = 0; i < 200 && lo < hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (std::erf(mid) < y ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace ref
