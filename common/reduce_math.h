// The reducers of sum, prod, mean, amax, amin, var, norm, all and any, written once for the CPU
// loops (cpu/reduce.cpp) and the CUDA engine (cuda/reduce.cuh, through cuda/reduce.cu's
// adaptor), so that both backends accumulate in the same types with the same operations.
// A reducer R over elements T provides:
//   using Acc (a thread's or lane's accumulator), Total (the accumulator across them);
//   kShift: whether map() reads a per-output shift (var's mean; norm's p);
//   Acc identity();  Acc map(T x, Acc shift);  A combine(A a, A b) for A = Acc and Total;
//   project(Total t, int64_t n, double param): the output from the total of n elements
//   (param: var's correction, norm's p).
// Float elements accumulate in float within a thread or lane, and totals in double; integers
// wrap (sums in uint64). Private to the backends.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <ember/common/reduce_geometry.h>
#include <ember/core/host_device.h>

namespace ember {
namespace common {

// Additive reducers share this: float lanes with double totals, integers wrap (unsigned).
template <class T>
struct SumTypes {
  using Acc = std::conditional_t<std::is_integral<T>::value, uint64_t, T>;
  using Total = std::conditional_t<std::is_integral<T>::value, uint64_t, double>;
};

// ---- element maps (x as A) and projections (the output from a total) ----
struct MapId {
  template <class A, class T>
  EMBER_HOST_DEVICE static A apply(T x) {
    return static_cast<A>(x);
  }
};
struct MapAbs {
  template <class A, class T>
  EMBER_HOST_DEVICE static A apply(T x) {
    return std::abs(static_cast<A>(x));
  }
};
struct MapSquare {
  template <class A, class T>
  EMBER_HOST_DEVICE static A apply(T x) {
    return static_cast<A>(x) * static_cast<A>(x);
  }
};
struct MapNonZero {
  template <class A, class T>
  EMBER_HOST_DEVICE static A apply(T x) {
    return x != T(0) ? A(1) : A(0);
  }
};
struct ProjectAsIs {
  template <class T, class Total>
  EMBER_HOST_DEVICE static T apply(Total t, int64_t, double) {
    return static_cast<T>(t);
  }
};
struct ProjectMean {
  template <class T, class Total>
  EMBER_HOST_DEVICE static T apply(Total t, int64_t n, double) {
    return static_cast<T>(static_cast<double>(t) / static_cast<double>(n));
  }
};
struct ProjectSqrt {
  template <class T, class Total>
  EMBER_HOST_DEVICE static T apply(Total t, int64_t, double) {
    return static_cast<T>(std::sqrt(t));
  }
};

// ---- reducers ----

template <class T, class Map, class Project>
struct Additive {
  using Acc = typename SumTypes<T>::Acc;
  using Total = typename SumTypes<T>::Total;
  static constexpr bool kShift = false;
  EMBER_HOST_DEVICE static Acc identity() { return Acc(0); }
  EMBER_HOST_DEVICE static Acc map(T x, Acc) { return Map::template apply<Acc>(x); }
  template <class A>
  EMBER_HOST_DEVICE static A combine(A a, A b) {
    return a + b;
  }
  EMBER_HOST_DEVICE static T project(Total t, int64_t n, double p) {
    return Project::template apply<T>(t, n, p);
  }
};

template <class T>
using SumR = Additive<T, MapId, ProjectAsIs>;
template <class T>
using MeanR = Additive<T, MapId, ProjectMean>;
template <class T>
using Norm1R = Additive<T, MapAbs, ProjectAsIs>;
template <class T>
using Norm2R = Additive<T, MapSquare, ProjectSqrt>;
template <class T>
using Norm0R = Additive<T, MapNonZero, ProjectAsIs>;

// Sums in double: norm with a general p, var's two passes.
struct DoubleSum {
  using Acc = double;
  using Total = double;
  EMBER_HOST_DEVICE static Acc identity() { return 0; }
  template <class A>
  EMBER_HOST_DEVICE static A combine(A a, A b) {
    return a + b;
  }
};

// sum |x|^p, then ^(1/p), for p other than 0, 1, 2 and +-inf. map needs p: it is the shift
// (the same for every output).
template <class T>
struct NormPR : DoubleSum {
  static constexpr bool kShift = true;
  EMBER_HOST_DEVICE static Acc map(T x, Acc p) {
    return std::pow(std::abs(static_cast<double>(x)), p);
  }
  EMBER_HOST_DEVICE static T project(Total t, int64_t, double p) {
    return static_cast<T>(std::pow(t, 1.0 / p));
  }
};

template <class T>
struct ProdR {
  using Acc = typename SumTypes<T>::Acc;
  using Total = typename SumTypes<T>::Total;
  static constexpr bool kShift = false;
  EMBER_HOST_DEVICE static Acc identity() { return Acc(1); }
  EMBER_HOST_DEVICE static Acc map(T x, Acc) { return static_cast<Acc>(x); }
  template <class A>
  EMBER_HOST_DEVICE static A combine(A a, A b) {
    return a * b;
  }
  EMBER_HOST_DEVICE static T project(Total t, int64_t, double) { return static_cast<T>(t); }
};

// The larger (kMax) or smaller of a and b; a NaN in either wins, as in PyTorch.
template <bool kMax, class T>
EMBER_HOST_DEVICE T nan_extremum(T a, T b) {
  return ((kMax ? a > b : a < b) || is_nan(a)) ? a : b;
}

// Max (kMax) or min of M(x); a NaN wins. M turns x into the compared value (MapAbs for norm
// with p = +-inf).
template <class T, bool kMax, class M = MapId>
struct ExtremumR {
  using Acc = T;
  using Total = T;
  static constexpr bool kShift = false;
  EMBER_HOST_DEVICE static Acc identity() {
    if constexpr (std::is_floating_point<T>::value) {
      return kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    }
    return kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  EMBER_HOST_DEVICE static Acc map(T x, Acc) { return M::template apply<T>(x); }
  template <class A>
  EMBER_HOST_DEVICE static A combine(A a, A b) {
    return nan_extremum<kMax>(a, b);
  }
  EMBER_HOST_DEVICE static T project(Total t, int64_t, double) { return t; }
};

// all/any over bool, or over uint8 giving uint8 0/1 (PyTorch keeps uint8 for uint8).
template <bool kAll, class T>
struct LogicalR {
  using Acc = bool;
  using Total = bool;
  static constexpr bool kShift = false;
  EMBER_HOST_DEVICE static Acc identity() { return kAll; }
  EMBER_HOST_DEVICE static Acc map(T x, Acc) { return x != T(0); }
  template <class A>
  EMBER_HOST_DEVICE static A combine(A a, A b) {
    return kAll ? (a && b) : (a || b);
  }
  EMBER_HOST_DEVICE static T project(Total t, int64_t, double) { return static_cast<T>(t); }
};

// Second pass of var: the sum of squared deviations from the shift (the mean).
template <class T>
struct SquaredDevR : DoubleSum {
  static constexpr bool kShift = true;
  EMBER_HOST_DEVICE static Acc map(T x, Acc mean) {
    const double d = static_cast<double>(x) - mean;
    return d * d;
  }
  EMBER_HOST_DEVICE static T project(Total t, int64_t n, double correction) {
    // max(0, dof): fmax on the device, std::max on the host, as each backend had it; the two
    // differ only for dof = -0.0, which n - correction (n >= 1) never is.
    const double dof = static_cast<double>(n) - correction;
#if defined(__CUDA_ARCH__)
    return static_cast<T>(t / ::fmax(0.0, dof));
#else
    return static_cast<T>(t / std::max(0.0, dof));
#endif
  }
};

// First pass of var: the mean in double (the second pass's shift).
template <class T>
struct MeanDoubleR : DoubleSum {
  static constexpr bool kShift = false;
  EMBER_HOST_DEVICE static double map(T x, double) { return static_cast<double>(x); }
  EMBER_HOST_DEVICE static double project(double t, int64_t n, double) {
    return t / static_cast<double>(n);
  }
};

}  // namespace common
}  // namespace ember
