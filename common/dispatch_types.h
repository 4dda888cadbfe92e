// Dtype dispatch by a compile-time dtype set, for kernel templates that take the set as a
// parameter (binary_kernel<Fn, Types::Numeric>); shared by cpu/ and cuda/. Host code.
#pragma once

#include <ember/core/dtype.h>
#include <ember/core/error.h>

namespace ember {
namespace common {

// Which dtypes an op accepts; anything else reaches the dispatch macro's error.
// Bits: integers and bool (bitwise ops); Integer: integers only (shifts).
enum class Types { Floating, Numeric, All, Bits, Integer, Float = Floating };  // Float: the .def's

// Calls body(T{}) with T the C++ type of dtype, within the set kTypes.
template <Types kTypes, class Body>
void dispatch(ScalarType dtype, const char* name, const Body& body) {
  if constexpr (kTypes == Types::Floating) {
    EMBER_DISPATCH_FLOATING_TYPES(dtype, name, [&] { body(scalar_t{}); });
  } else if constexpr (kTypes == Types::Numeric) {
    EMBER_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { body(scalar_t{}); });
  } else if constexpr (kTypes == Types::Bits || kTypes == Types::Integer) {
    switch (dtype) {
      case kInt32:
        return body(int32_t{});
      case kInt64:
        return body(int64_t{});
      case kUInt8:
        return body(uint8_t{});
      case kBool:
        if constexpr (kTypes == Types::Bits) return body(bool{});
        [[fallthrough]];
      default:
        EMBER_THROW(name, ": dtype ", dtype, " is not supported (needs ",
                    kTypes == Types::Bits ? "an integer or bool" : "an integer", " dtype)");
    }
  } else {
    EMBER_DISPATCH_ALL_TYPES(dtype, name, [&] { body(scalar_t{}); });
  }
}

}  // namespace common
}  // namespace ember
