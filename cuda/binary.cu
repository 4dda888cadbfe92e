// CUDA binary elementwise kernels: tensor-tensor and tensor-scalar arithmetic, comparisons and
// logical and/or over cuda/loops.cuh, with the CPU kernels' (cpu/binary.cpp) dtypes and results.
#include <cstdint>
#include <type_traits>

#include <ember/common/elementwise_math.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/loops.cuh>

namespace ember {
namespace cuda {
namespace {

using loops::BindSecond;
using loops::gpu_kernel;

// Which dtypes an op accepts; anything else reaches the dispatch macro's error.
enum class Types { Floating, Numeric, All, Float = Floating };  // Float: elementwise.def's

// Calls body(T{}) with T the C++ type of dtype, within the set kTypes.
template <Types kTypes, class Body>
void dispatch(ScalarType dtype, const char* name, const Body& body) {
  if constexpr (kTypes == Types::Floating) {
    EMBER_DISPATCH_FLOATING_TYPES(dtype, name, [&] { body(scalar_t{}); });
  } else if constexpr (kTypes == Types::Numeric) {
    EMBER_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { body(scalar_t{}); });
  } else {
    EMBER_DISPATCH_ALL_TYPES(dtype, name, [&] { body(scalar_t{}); });
  }
}

template <class T>
constexpr bool kIsBool = std::is_same<T, bool>::value;
template <class T>
constexpr bool kIsInt = std::is_integral<T>::value && !kIsBool<T>;

// Integer +, -, * in unsigned arithmetic: the same two's complement wraparound the CPU's
// results have (uint8 wraps mod 256), without signed-overflow UB.
template <class T>
using Unsigned = std::make_unsigned_t<T>;
template <class T>
__device__ __forceinline__ T wrap_add(T x, T y) {
  using U = Unsigned<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
}
template <class T>
__device__ __forceinline__ T wrap_sub(T x, T y) {
  using U = Unsigned<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) - static_cast<U>(y)));
}
template <class T>
__device__ __forceinline__ T wrap_mul(T x, T y) {
  using U = Unsigned<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) * static_cast<U>(y)));
}

// Integer power by squaring; negative exponents give what truncating division would
// (0, or +-1 for bases +-1), as PyTorch's integer pow and the CPU kernel do.
template <class T>
__device__ T int_pow(T base, T exp) {
  if constexpr (std::is_signed<T>::value) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = wrap_mul(result, base);
    exp = static_cast<T>(exp >> 1);
    base = wrap_mul(base, base);
  }
  return result;
}

// ---- the scalar functors; bool arithmetic follows PyTorch (add = or, mul = and) ----
struct Add {
  static constexpr const char* kName = "add";
  template <class T>
  __device__ T operator()(T x, T y) const {
    if constexpr (kIsBool<T>)
      return x || y;
    else if constexpr (kIsInt<T>)
      return wrap_add(x, y);
    else
      return x + y;
  }
};
struct Sub {
  static constexpr const char* kName = "sub";
  template <class T>
  __device__ T operator()(T x, T y) const {
    if constexpr (kIsInt<T>)
      return wrap_sub(x, y);
    else
      return x - y;
  }
};
struct Mul {
  static constexpr const char* kName = "mul";
  template <class T>
  __device__ T operator()(T x, T y) const {
    if constexpr (kIsBool<T>)
      return x && y;
    else if constexpr (kIsInt<T>)
      return wrap_mul(x, y);
    else
      return x * y;
  }
};
// Floating only: core promotes true division of integers to float32.
struct Div {
  static constexpr const char* kName = "div";
  template <class T>
  __device__ T operator()(T x, T y) const {
    return x / y;
  }
};
struct Pow {
  static constexpr const char* kName = "pow";
  __device__ float operator()(float x, float y) const { return powf(x, y); }
  __device__ double operator()(double x, double y) const { return pow(x, y); }
  template <class T>
  __device__ T operator()(T x, T y) const {
    return int_pow(x, y);
  }
};
// out = y ^ x: pow with the scalar as the base.
struct RPow {
  static constexpr const char* kName = "rpow";
  template <class T>
  __device__ T operator()(T x, T y) const {
    return Pow()(y, x);
  }
};
// relu's backward (threshold_backward in PyTorch): the gradient where the result is positive.
struct ReluBackward {
  static constexpr const char* kName = "relu_backward";
  template <class T>
  __device__ T operator()(T grad, T result) const {
    return result > T(0) ? grad : T(0);
  }
};

// The six comparisons as one functor with the comparison chosen at run time (uniform over
// the grid, so no divergence): one kernel per dtype instead of six, which keeps this file's
// compile time down. NaN compares false except for ne, as in C++.
enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };
struct Compare {
  Cmp cmp;
  template <class T>
  __device__ bool operator()(T x, T y) const {
    switch (cmp) {
      case Cmp::Eq:
        return x == y;
      case Cmp::Ne:
        return x != y;
      case Cmp::Lt:
        return x < y;
      case Cmp::Le:
        return x <= y;
      case Cmp::Gt:
        return x > y;
      default:
        return x >= y;
    }
  }
};
constexpr const char* cmp_name(Cmp c) {
  return c == Cmp::Eq   ? "eq"
         : c == Cmp::Ne ? "ne"
         : c == Cmp::Lt ? "lt"
         : c == Cmp::Le ? "le"
         : c == Cmp::Gt ? "gt"
                        : "ge";
}

// Any dtype in (nonzero is true), bool out.
struct LogicalAnd {
  static constexpr const char* kName = "logical_and";
  template <class T>
  __device__ bool operator()(T x, T y) const {
    return x != T(0) && y != T(0);
  }
};
struct LogicalOr {
  static constexpr const char* kName = "logical_or";
  template <class T>
  __device__ bool operator()(T x, T y) const {
    return x != T(0) || y != T(0);
  }
};

// The small-op batch's code for Fn (cuda/batch.h), for the four that it runs.
template <class Fn>
constexpr int kBatchCode = std::is_same<Fn, Add>::value   ? int(batch::Code::kAdd)
                           : std::is_same<Fn, Sub>::value ? int(batch::Code::kSub)
                           : std::is_same<Fn, Mul>::value ? int(batch::Code::kMul)
                           : std::is_same<Fn, Div>::value ? int(batch::Code::kDiv)
                                                          : -1;

// The output element type of Fn on T: bool for predicates, T otherwise.
template <class Fn, class T>
using Result = decltype(std::declval<Fn>()(std::declval<T>(), std::declval<T>()));

// out = Fn(a, b); a and b share one dtype; out is that dtype, or bool for predicates.
template <class Fn, Types kTypes>
void binary_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  if constexpr (kBatchCode<Fn> >= 0) {
    if (batch::try_binary(batch::Code(kBatchCode<Fn>), out, a, b)) return;
  }
  dispatch<kTypes>(a.dtype(), Fn::kName, [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<Result<Fn, T>, T, T>(Fn::kName, Fn(), out, a, b);
  });
}

// out = Fn(a, s) with s converted to a's dtype once, on the host.
template <class Fn, Types kTypes>
void scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& s) {
  if constexpr (kBatchCode<Fn> >= 0) {
    if (a.dtype() == kFloat32 &&
        batch::try_scalar(batch::Code(kBatchCode<Fn>), out, a, s.to<float>()))
      return;
  }
  dispatch<kTypes>(a.dtype(), Fn::kName, [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<Result<Fn, T>, T>(Fn::kName, BindSecond<Fn, T>{s.to<T>()}, out, a);
  });
}

// Comparisons: a and b (or a and s) of one dtype, any of the six; out bool.
template <Cmp kCmp>
void compare_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch<Types::All>(a.dtype(), cmp_name(kCmp), [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<bool, T, T>(cmp_name(kCmp), Compare{kCmp}, out, a, b);
  });
}

// Compare with its second operand fixed (BindSecond's form for a functor with state).
template <class T>
struct CompareScalar {
  Compare compare;
  T s;
  __device__ bool operator()(T x) const { return compare(x, s); }
};

template <Cmp kCmp>
void compare_scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& s) {
  dispatch<Types::All>(a.dtype(), cmp_name(kCmp), [&](auto tag) {
    using T = decltype(tag);
    gpu_kernel<bool, T>(cmp_name(kCmp), CompareScalar<T>{Compare{kCmp}, s.to<T>()}, out, a);
  });
}

// pow by the common float exponents, as multiplications (exact, as on the CPU).
struct Square {
  template <class T>
  __device__ T operator()(T x) const {
    return x * x;
  }
};
struct Cube {
  template <class T>
  __device__ T operator()(T x) const {
    return x * x * x;
  }
};
struct Identity {
  template <class T>
  __device__ T operator()(T x) const {
    return x;
  }
};
struct SqrtOf {
  __device__ float operator()(float x) const { return sqrtf(x); }
  __device__ double operator()(double x) const { return sqrt(x); }
};
struct Reciprocal {
  template <class T>
  __device__ T operator()(T x) const {
    return T(1) / x;
  }
};

// pow by a scalar: exponents 2, 1, 0.5, -1, 3 on floats take the CPU's shortcuts (so the
// results match it bit for bit); the rest go to pow or integer pow.
void pow_scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& s) {
  dispatch<Types::Numeric>(a.dtype(), "pow", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point<T>::value) {
      const double e = s.toDouble();
      if (e == 2.0) return gpu_kernel<T, T>("pow", Square(), out, a);
      if (e == 1.0) return gpu_kernel<T, T>("pow", Identity(), out, a);
      if (e == 0.5) return gpu_kernel<T, T>("pow", SqrtOf(), out, a);
      if (e == -1.0) return gpu_kernel<T, T>("pow", Reciprocal(), out, a);
      if (e == 3.0) return gpu_kernel<T, T>("pow", Cube(), out, a);
    }
    gpu_kernel<T, T>("pow", BindSecond<Pow, T>{s.to<T>()}, out, a);
  });
}

}  // namespace

void register_binary_kernels() {
  register_kernel<Op::add>(kCUDA, &binary_kernel<Add, Types::All>);
  register_kernel<Op::sub>(kCUDA, &binary_kernel<Sub, Types::Numeric>);
  register_kernel<Op::mul>(kCUDA, &binary_kernel<Mul, Types::All>);
  register_kernel<Op::div>(kCUDA, &binary_kernel<Div, Types::Floating>);
  register_kernel<Op::pow>(kCUDA, &binary_kernel<Pow, Types::Numeric>);
#define EMBER_BINARY(name, types, ...) \
  register_kernel<Op::name>(kCUDA, &binary_kernel<common::BinaryMath<Op::name>, Types::types>);
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
  register_kernel<Op::eq>(kCUDA, &compare_kernel<Cmp::Eq>);
  register_kernel<Op::ne>(kCUDA, &compare_kernel<Cmp::Ne>);
  register_kernel<Op::lt>(kCUDA, &compare_kernel<Cmp::Lt>);
  register_kernel<Op::le>(kCUDA, &compare_kernel<Cmp::Le>);
  register_kernel<Op::gt>(kCUDA, &compare_kernel<Cmp::Gt>);
  register_kernel<Op::ge>(kCUDA, &compare_kernel<Cmp::Ge>);
  register_kernel<Op::logical_and>(kCUDA, &binary_kernel<LogicalAnd, Types::All>);
  register_kernel<Op::logical_or>(kCUDA, &binary_kernel<LogicalOr, Types::All>);
  register_kernel<Op::relu_backward>(kCUDA, &binary_kernel<ReluBackward, Types::Floating>);

  register_kernel<Op::add_scalar>(kCUDA, &scalar_kernel<Add, Types::All>);
  register_kernel<Op::mul_scalar>(kCUDA, &scalar_kernel<Mul, Types::All>);
  register_kernel<Op::div_scalar>(kCUDA, &scalar_kernel<Div, Types::Floating>);
  register_kernel<Op::pow_scalar>(kCUDA, &pow_scalar_kernel);
  register_kernel<Op::rpow_scalar>(kCUDA, &scalar_kernel<RPow, Types::Numeric>);
  register_kernel<Op::eq_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Eq>);
  register_kernel<Op::ne_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Ne>);
  register_kernel<Op::lt_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Lt>);
  register_kernel<Op::le_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Le>);
  register_kernel<Op::gt_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Gt>);
  register_kernel<Op::ge_scalar>(kCUDA, &compare_scalar_kernel<Cmp::Ge>);
}

// The three elementwise families (unary.cu, binary.cu, ternary.cu).
void register_elementwise_kernels() {
  register_unary_kernels();
  register_binary_kernels();
  register_ternary_kernels();
}

}  // namespace cuda
}  // namespace ember
