// The kernel formulas of core/elementwise.def's rows as functors that g++ and nvcc both compile
// (UnaryMath<Op::exp>, BinaryMath<Op::maximum>); cpu/ and cuda/ run them, one loop per backend.
#pragma once

#include <cmath>

#include <ember/core/dispatch.h>
#include <ember/core/host_device.h>

namespace ember {
namespace common {

template <Op op>
struct UnaryMath;
template <Op op>
struct BinaryMath;

#define EMBER_UNARY_FLOAT(op_name, formula, ...)   \
  template <>                                      \
  struct UnaryMath<Op::op_name> {                  \
    static constexpr const char* kName = #op_name; \
    template <class T>                             \
    EMBER_HOST_DEVICE T operator()(T x) const {    \
      return formula;                              \
    }                                              \
  };
#define EMBER_BINARY(op_name, types, formula, ...)   \
  template <>                                        \
  struct BinaryMath<Op::op_name> {                   \
    static constexpr const char* kName = #op_name;   \
    template <class T>                               \
    EMBER_HOST_DEVICE T operator()(T a, T b) const { \
      return formula;                                \
    }                                                \
  };
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_BINARY

}  // namespace common
}  // namespace ember
