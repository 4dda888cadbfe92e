// Shared front-end helpers: dim wrapping, broadcasting, strides, device checks, PyTorch's
// result_type, output allocation, reduction dims and dim collapsing for strided loops.
#include <ember/core/checks.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

namespace ember {

int64_t wrap_dim(const char* op, int64_t dim, int64_t ndim) {
  int64_t n = ndim > 0 ? ndim : 1;  // a 0-dim tensor accepts -1 and 0, as in PyTorch
  if (__builtin_expect(dim < -n || dim >= n, 0)) {
    EMBER_THROW(op, ": dim ", dim, " is out of range for a tensor of ", ndim,
                " dims (expected in [", -n, ", ", n - 1, "])");
  }
  return dim < 0 ? dim + n : dim;
}

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t s = shape[shape.size() - 1 - i], d = desired[desired.size() - 1 - i];
    if (s != d && s != 1) return false;
  }
  return true;
}

DimVector broadcast_shapes(const char* op, IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {  // i counts from the right
    int64_t sa = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t sb = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (sa == sb || sb == 1) {
      out[n - 1 - i] = sa;
    } else if (sa == 1) {
      out[n - 1 - i] = sb;
    } else {
      EMBER_THROW(op, ": shapes ", a, " and ", b, " cannot be broadcast (dim ", n - 1 - i, ": ", sa,
                  " vs ", sb, ")");
    }
  }
  return out;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);  // size-0/1 dims keep nonzero strides, as PyTorch's
  }
  return strides;
}

void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  Device da = a.device(), db = b.device();
  if (__builtin_expect(da != db, 0)) {
    EMBER_THROW(op, ": expected all tensors on one device, got ", da, " and ", db);
  }
}

namespace {
// Categories of PyTorch's type promotion: bool < integer < floating.
inline int category(ScalarType t) { return t == kBool ? 0 : is_floating_point(t) ? 2 : 1; }

// Undefined marks an empty slot in the three-tier state below.
constexpr ScalarType kUndefined = ScalarType::NumTypes;

inline ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == kUndefined) return b;
  if (b == kUndefined) return a;
  return promote_types(a, b);
}

// PyTorch's combine_categories: the higher tier keeps its dtype unless the lower tier
// belongs to a higher category (or the higher tier is only bool).
inline ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher != kUndefined && is_floating_point(higher)) return higher;
  if (higher == kBool || (lower != kUndefined && is_floating_point(lower))) {
    return promote_skip_undefined(higher, lower);
  }
  return higher != kUndefined ? higher : lower;
}
}  // namespace

ScalarType result_type(const Tensor& a, const Tensor& b) {
  ScalarType ta = a.dtype(), tb = b.dtype();
  if (ta == tb) return ta;  // the common case, decided at once
  bool za = a.dim() == 0, zb = b.dim() == 0;
  if (za == zb) return promote_types(ta, tb);
  ScalarType dim_type = za ? tb : ta;
  ScalarType zero_type = za ? ta : tb;
  return combine_categories(dim_type, zero_type);
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  ScalarType ta = a.dtype();
  // A Python-number-like scalar: float scalars count as the default dtype (float32),
  // int scalars as int64, bools as bool; it only matters when its category is higher.
  ScalarType tb = b.isFloatingPoint() ? default_float_dtype() : b.isBoolean() ? kBool : kInt64;
  if (category(tb) <= category(ta)) return ta;
  // The scalar is the lowest tier whether a has dims or not (0-dim tensors rank above
  // scalars), so both cases reduce to one combine.
  return combine_categories(ta, tb);
}

std::string shape_str(IntArrayRef sizes) {
  std::ostringstream os;
  os << sizes;
  return os.str();
}

Tensor empty_on(IntArrayRef sizes, ScalarType dtype, Device device) {
  return empty_on(nullptr, sizes, dtype, device);
}

// Every op's output goes through here: strides live on the stack (DimVector only past 8
// dims), and the tensor costs one storage allocation plus two make_shared.
Tensor empty_on(const char* op, IntArrayRef sizes, ScalarType dtype, Device device) {
  const size_t n = sizes.size();
  int64_t inline_strides[DimVector::kInline];
  std::vector<int64_t> heap_strides;  // empty (no allocation) unless n > 8
  int64_t* strides = inline_strides;
  if (__builtin_expect(n > DimVector::kInline, 0)) {
    heap_strides.resize(n);
    strides = heap_strides.data();
  }
  int64_t stride = 1;
  bool empty = false, overflow = false;
  for (size_t i = n; i-- > 0;) {
    strides[i] = stride;
    int64_t s = sizes[i];
    empty |= s == 0;
    // size-0/1 dims keep nonzero strides, as PyTorch's
    overflow |= __builtin_mul_overflow(stride, s > 1 ? s : 1, &stride);
  }
  size_t nbytes = 0;
  overflow |= __builtin_mul_overflow(static_cast<size_t>(stride), element_size(dtype), &nbytes);
  const char* colon = op != nullptr ? ": " : "";
  if (op == nullptr) op = "";
  EMBER_CHECK(!overflow, op, colon, "allocating a ", dtype_name(dtype), " tensor of shape ", sizes,
              ": more elements or bytes than int64 can count");
  if (empty) nbytes = 0;
  Storage storage;
  try {
    storage = make_storage(nbytes, device);
  } catch (const OutOfMemoryError& e) {  // the allocator knows the bytes; add what they were for
    throw OutOfMemoryError(detail::str(op, colon, e.what(), " (for a ", dtype_name(dtype),
                                       " tensor of shape ", sizes, " on ", device, ")"));
  } catch (const Error& e) {  // no allocator for the device (a CUDA tensor without a GPU)
    EMBER_THROW(op, colon, e.what(), " (for a ", dtype_name(dtype), " tensor of shape ", sizes,
                " on ", device, ")");
  }
  return Tensor(
      std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, IntArrayRef(strides, n), 0));
}

void throw_undefined_input(const char* op) {
  EMBER_THROW(op,
              ": got an undefined Tensor (a default-constructed Tensor, or the grad() of a "
              "tensor no backward has reached yet)");
}

DimVector reduction_dims(const char* op, IntArrayRef dims, int64_t ndim) {
  DimVector out;
  if (ndim == 0) {
    // A 0-dim tensor has no dim to reduce; dims may still name -1 or 0 as in PyTorch.
    for (int64_t d : dims) wrap_dim(op, d, ndim);
    return out;
  }
  if (dims.empty()) {
    out.resize(static_cast<size_t>(ndim));
    for (int64_t i = 0; i < ndim; ++i) out[i] = i;
    return out;
  }
  for (int64_t d : dims) out.push_back(wrap_dim(op, d, ndim));
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i] == out[i - 1]) EMBER_THROW(op, ": dim ", out[i], " appears twice in dims ", dims);
  }
  return out;
}

StridedGeometry collapse_dims(IntArrayRef sizes, const IntArrayRef* strides, int noperands) {
  StridedGeometry g;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) {  // nothing to iterate: one empty flat loop
      g.sizes.assign(1, 0);
      for (int k = 0; k < noperands; ++k) g.strides[k].assign(1, 1);
      return g;
    }
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;  // size-1 dims never move the pointer
    if (!g.sizes.empty()) {
      // Merge with the previous (outer) kept dim when, for every operand, stepping the
      // outer dim once equals stepping this one sizes[i] times.
      size_t last = g.sizes.size() - 1;
      bool mergeable = true;
      for (int k = 0; k < noperands; ++k) {
        if (g.strides[k][last] != strides[k][i] * sizes[i]) {
          mergeable = false;
          break;
        }
      }
      if (mergeable) {
        g.sizes[last] *= sizes[i];
        for (int k = 0; k < noperands; ++k) g.strides[k][last] = strides[k][i];
        continue;
      }
    }
    g.sizes.push_back(sizes[i]);
    for (int k = 0; k < noperands; ++k) g.strides[k].push_back(strides[k][i]);
  }
  if (g.sizes.empty()) {  // every dim had size 1 (or a 0-dim tensor): one element
    g.sizes.assign(1, 1);
    for (int k = 0; k < noperands; ++k) g.strides[k].assign(1, 1);
  }
  return g;
}

Tensor restride(const Tensor& t, IntArrayRef sizes, IntArrayRef strides) {
  return Tensor(std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), sizes, strides,
                                             t.storage_offset()));
}

constexpr double kFloat16Max = 65504.0;                  // largest finite half
constexpr double kBFloat16Max = 3.3895313892515355e+38;  // largest finite bfloat16

// LibTorch's checked_convert: a floating value must be finite within the type's range (or
// inf/NaN for a floating type); an integer value within the type's range (uint8 also takes
// -255..-1, which wrap, as c10::overflows allows); anything converts to bool.
void check_fits(const char* op, const Scalar& value, ScalarType dtype) {
  if (dtype == kBool) return;
  bool ok = true;
  const char* type = dtype_name(dtype);
  if (value.isFloatingPoint()) {
    const double v = value.toDouble();
    if (dtype == kFloat32) {
      ok = !std::isfinite(v) ||
           std::fabs(v) <= static_cast<double>(std::numeric_limits<float>::max());
    } else if (dtype == kInt32) {
      ok = v >= -2147483648.0 && v < 2147483648.0;
    } else if (dtype == kInt64) {
      ok = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    } else if (dtype == kUInt8) {
      ok = v > -256.0 && v < 256.0;
    } else if (dtype == kFloat16) {
      ok = !std::isfinite(v) || std::fabs(v) <= kFloat16Max;
    } else if (dtype == kBFloat16) {
      ok = !std::isfinite(v) || std::fabs(v) <= kBFloat16Max;
    }
  } else if (!value.isBoolean()) {
    const int64_t v = value.toLong();
    if (dtype == kInt32)
      ok = v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
    if (dtype == kUInt8) ok = v >= -255 && v <= 255;
    if (dtype == kFloat16) ok = v >= -65504 && v <= 65504;
  }
  EMBER_CHECK(ok, op, ": value ", value, " cannot be converted to type ", type,
              " without overflow");
}

DimVector unique_dims(const char* op, IntArrayRef dims, int64_t ndim) {
  DimVector out;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(op, d, ndim);
    EMBER_CHECK(!seen[static_cast<size_t>(w)], op, ": dim ", w,
                " appears multiple times in the list of dims");
    seen[static_cast<size_t>(w)] = true;
    out.push_back(w);
  }
  return out;
}

Tensor as_1d(const Tensor& t) {
  if (t.dim() != 0) return t;
  const int64_t one = 1;
  return restride(t, IntArrayRef(one), IntArrayRef(one));
}

}  // namespace ember
