// Element types (ScalarType), their sizes and names, C++ type mapping and
// PyTorch's type-promotion lattice.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ostream>

namespace ember {

// Order matters: it is the index into the promotion table in dtype.cpp.
enum class ScalarType : int8_t {
  UInt8 = 0,
  Int32,
  Int64,
  Float32,
  Float64,
  Bool,
  Float16,   // reserved for mixed precision: no kernels yet
  BFloat16,  // reserved for mixed precision: no kernels yet
  NumTypes
};
using Dtype = ScalarType;

constexpr ScalarType kUInt8 = ScalarType::UInt8;
constexpr ScalarType kByte = ScalarType::UInt8;
constexpr ScalarType kInt32 = ScalarType::Int32;
constexpr ScalarType kInt = ScalarType::Int32;
constexpr ScalarType kInt64 = ScalarType::Int64;
constexpr ScalarType kLong = ScalarType::Int64;
constexpr ScalarType kFloat32 = ScalarType::Float32;
constexpr ScalarType kFloat = ScalarType::Float32;
constexpr ScalarType kFloat64 = ScalarType::Float64;
constexpr ScalarType kDouble = ScalarType::Float64;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kFloat16 = ScalarType::Float16;
constexpr ScalarType kHalf = ScalarType::Float16;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
// LibTorch's short names.
constexpr ScalarType kU8 = kUInt8;
constexpr ScalarType kI32 = kInt32;
constexpr ScalarType kI64 = kInt64;
constexpr ScalarType kF32 = kFloat32;
constexpr ScalarType kF64 = kFloat64;

size_t element_size(ScalarType t);
const char* dtype_name(ScalarType t);  // "float32", "int64", ...
std::ostream& operator<<(std::ostream& os, ScalarType t);

inline bool is_floating_point(ScalarType t) {
  return t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBFloat16;
}
inline bool is_integral(ScalarType t, bool include_bool) {
  return t == kUInt8 || t == kInt32 || t == kInt64 || (include_bool && t == kBool);
}

// PyTorch's promote_types: the smallest type both convert to without loss.
ScalarType promote_types(ScalarType a, ScalarType b);

// The default floating type, float32 unless set_default_dtype changed it: the dtype of
// creation functions without one, of float scalars and literals, and of int -> float ops.
namespace detail {
extern std::atomic<ScalarType> g_default_dtype;
}
inline ScalarType default_float_dtype() {
  return detail::g_default_dtype.load(std::memory_order_relaxed);
}
// LibTorch's names. set_default_dtype takes float32 or float64 (float16 and bfloat16 are not
// supported yet) and throws otherwise; it is process-wide, as LibTorch's.
void set_default_dtype(ScalarType dtype);
inline ScalarType get_default_dtype() { return default_float_dtype(); }
inline ScalarType get_default_dtype_as_scalartype() { return default_float_dtype(); }
// LibTorch passes a caffe2::TypeMeta: set_default_dtype(scalarTypeToTypeMeta(kFloat64)).
inline ScalarType scalarTypeToTypeMeta(ScalarType dtype) { return dtype; }

// Maps C++ types to ScalarType.
template <class T>
struct CppTypeToScalarType;
template <>
struct CppTypeToScalarType<uint8_t> {
  static constexpr ScalarType value = kUInt8;
};
template <>
struct CppTypeToScalarType<int32_t> {
  static constexpr ScalarType value = kInt32;
};
template <>
struct CppTypeToScalarType<int64_t> {
  static constexpr ScalarType value = kInt64;
};
template <>
struct CppTypeToScalarType<float> {
  static constexpr ScalarType value = kFloat32;
};
template <>
struct CppTypeToScalarType<double> {
  static constexpr ScalarType value = kFloat64;
};
template <>
struct CppTypeToScalarType<bool> {
  static constexpr ScalarType value = kBool;
};

}  // namespace ember

// EMBER_DISPATCH_ALL_TYPES(dtype, "op", [&] { using scalar_t = ...; body }) calls the
// lambda with scalar_t bound to the C++ type of dtype (the six concrete types).
#define EMBER_DISPATCH_CASE(ENUM, TYPE, ...) \
  case ENUM: {                               \
    using scalar_t = TYPE;                   \
    return __VA_ARGS__();                    \
  }

#define EMBER_DISPATCH_ALL_TYPES(DTYPE, NAME, ...)                 \
  [&] {                                                            \
    switch (DTYPE) {                                               \
      EMBER_DISPATCH_CASE(::ember::kFloat32, float, __VA_ARGS__)   \
      EMBER_DISPATCH_CASE(::ember::kFloat64, double, __VA_ARGS__)  \
      EMBER_DISPATCH_CASE(::ember::kInt32, int32_t, __VA_ARGS__)   \
      EMBER_DISPATCH_CASE(::ember::kInt64, int64_t, __VA_ARGS__)   \
      EMBER_DISPATCH_CASE(::ember::kUInt8, uint8_t, __VA_ARGS__)   \
      EMBER_DISPATCH_CASE(::ember::kBool, bool, __VA_ARGS__)       \
      default:                                                     \
        EMBER_THROW(NAME, ": dtype ", DTYPE, " is not supported"); \
    }                                                              \
  }()

#define EMBER_DISPATCH_FLOATING_TYPES(DTYPE, NAME, ...)                                       \
  [&] {                                                                                       \
    switch (DTYPE) {                                                                          \
      EMBER_DISPATCH_CASE(::ember::kFloat32, float, __VA_ARGS__)                              \
      EMBER_DISPATCH_CASE(::ember::kFloat64, double, __VA_ARGS__)                             \
      default:                                                                                \
        EMBER_THROW(NAME, ": dtype ", DTYPE, " is not supported (needs float32 or float64)"); \
    }                                                                                         \
  }()

// Numeric types without bool (arithmetic that bool does not support).
#define EMBER_DISPATCH_NUMERIC_TYPES(DTYPE, NAME, ...)             \
  [&] {                                                            \
    switch (DTYPE) {                                               \
      EMBER_DISPATCH_CASE(::ember::kFloat32, float, __VA_ARGS__)   \
      EMBER_DISPATCH_CASE(::ember::kFloat64, double, __VA_ARGS__)  \
      EMBER_DISPATCH_CASE(::ember::kInt32, int32_t, __VA_ARGS__)   \
      EMBER_DISPATCH_CASE(::ember::kInt64, int64_t, __VA_ARGS__)   \
      EMBER_DISPATCH_CASE(::ember::kUInt8, uint8_t, __VA_ARGS__)   \
      default:                                                     \
        EMBER_THROW(NAME, ": dtype ", DTYPE, " is not supported"); \
    }                                                              \
  }()
