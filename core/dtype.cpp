// Element sizes, names and PyTorch's promotion table for ember's dtypes.
// The table is indexed by ScalarType's order (see dtype.h), so keep both in sync.
#include <ember/core/dtype.h>

#include <ember/core/error.h>

namespace ember {

namespace detail {
std::atomic<ScalarType> g_default_dtype{kFloat32};
}  // namespace detail

void set_default_dtype(ScalarType dtype) {
  EMBER_CHECK(dtype == kFloat32 || dtype == kFloat64,
              "set_default_dtype: only float32 and "
              "float64 are supported as the default dtype, got ",
              dtype_name(dtype));
  detail::g_default_dtype.store(dtype, std::memory_order_relaxed);
}

namespace {
constexpr int kN = static_cast<int>(ScalarType::NumTypes);

// Sizes and names, in ScalarType order.
constexpr size_t kSizes[kN] = {1, 4, 8, 4, 8, 1, 2, 2};
constexpr const char* kNames[kN] = {"uint8",   "int32", "int64",   "float32",
                                    "float64", "bool",  "float16", "bfloat16"};

constexpr ScalarType u1 = kUInt8, i4 = kInt32, i8 = kInt64, f4 = kFloat32, f8 = kFloat64,
                     b1 = kBool, f2 = kFloat16, bf = kBFloat16;

// PyTorch's promoteTypes restricted to ember's dtypes: bool is below every number,
// any float beats any integer, float16 and bfloat16 meet at float32.
constexpr ScalarType kPromote[kN][kN] = {
    /*        u1  i4  i8  f4  f8  b1  f2  bf */
    /* u1 */ {u1, i4, i8, f4, f8, u1, f2, bf},
    /* i4 */ {i4, i4, i8, f4, f8, i4, f2, bf},
    /* i8 */ {i8, i8, i8, f4, f8, i8, f2, bf},
    /* f4 */ {f4, f4, f4, f4, f8, f4, f4, f4},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8},
    /* b1 */ {u1, i4, i8, f4, f8, b1, f2, bf},
    /* f2 */ {f2, f2, f2, f4, f8, f2, f2, f4},
    /* bf */ {bf, bf, bf, f4, f8, bf, f4, bf},
};

inline int index_of(ScalarType t) {
  int i = static_cast<int>(t);
  EMBER_CHECK(i >= 0 && i < kN, "dtype: invalid ScalarType value ", i);
  return i;
}
}  // namespace

size_t element_size(ScalarType t) { return kSizes[index_of(t)]; }

const char* dtype_name(ScalarType t) {
  int i = static_cast<int>(t);
  return i >= 0 && i < kN ? kNames[i] : "invalid";
}

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

ScalarType promote_types(ScalarType a, ScalarType b) { return kPromote[index_of(a)][index_of(b)]; }

}  // namespace ember
