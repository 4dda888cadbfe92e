// CUDA unary elementwise kernels: neg, abs, relu, logical_not and the rows of core/elementwise.def,
// over cuda/loops.cuh, with the CPU kernels' (cpu/unary.cpp) dtypes and semantics.
#include <cstdint>
#include <type_traits>

#include <ember/common/elementwise_math.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/loops.cuh>

namespace ember {
namespace cuda {
namespace {

using loops::gpu_kernel;

// ---- the rows of core/elementwise.def: float32/float64 (core casts integer inputs to float
// first), the row's formula, which calls CUDA's accurate (non-intrinsic) math functions ----
template <Op op>
void float_kernel(const Tensor& out, const Tensor& in) {
  using Math = common::UnaryMath<op>;
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), Math::kName, [&] {
    gpu_kernel<scalar_t, scalar_t>(Math::kName, Math(), out, in);
  });
}

// ---- neg, abs, relu: every numeric dtype ----

// Integer negation in unsigned arithmetic: wraps (INT_MIN stays INT_MIN) like the CPU's
// two's complement result, without signed-overflow UB.
template <class T>
__device__ __forceinline__ T negate(T x) {
  if constexpr (std::is_integral<T>::value) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(x)));
  } else {
    return -x;
  }
}

struct Neg {
  static constexpr const char* kName = "neg";
  template <class T>
  __device__ T operator()(T x) const {
    return negate(x);
  }
};
// fabs for floats (clears the sign bit: -0 and -NaN map right, as std::fabs on the CPU).
struct Abs {
  static constexpr const char* kName = "abs";
  template <class T>
  __device__ T operator()(T x) const {
    if constexpr (std::is_same<T, float>::value)
      return fabsf(x);
    else if constexpr (std::is_same<T, double>::value)
      return fabs(x);
    else if constexpr (std::is_unsigned<T>::value)
      return x;
    else
      return x < T(0) ? negate(x) : x;
  }
};
// !(x <= 0) keeps NaN as NaN, as PyTorch's relu does.
struct Relu {
  static constexpr const char* kName = "relu";
  template <class T>
  __device__ T operator()(T x) const {
    return !(x <= T(0)) ? x : T(0);
  }
};

template <class Fn>
void numeric_kernel(const Tensor& out, const Tensor& in) {
  EMBER_DISPATCH_NUMERIC_TYPES(in.dtype(), Fn::kName,
                               [&] { gpu_kernel<scalar_t, scalar_t>(Fn::kName, Fn(), out, in); });
}

// Bool in (the front-end casts first: NaN becomes true, as in PyTorch), bool out.
struct LogicalNot {
  __device__ bool operator()(bool x) const { return !x; }
};

void logical_not_kernel(const Tensor& out, const Tensor& in) {
  EMBER_CHECK(in.dtype() == kBool, "logical_not: the kernel takes bool, got ", in.dtype());
  gpu_kernel<bool, bool>("logical_not", LogicalNot(), out, in);
}

}  // namespace

void register_unary_kernels() {
  register_kernel<Op::neg>(kCUDA, &numeric_kernel<Neg>);
  register_kernel<Op::abs>(kCUDA, &numeric_kernel<Abs>);
  register_kernel<Op::relu>(kCUDA, &numeric_kernel<Relu>);
#define EMBER_UNARY_FLOAT(name, ...) register_kernel<Op::name>(kCUDA, &float_kernel<Op::name>);
#define EMBER_UNARY_SAME(name, ...) \
  register_kernel<Op::name>(kCUDA, &numeric_kernel<common::UnaryMath<Op::name>>);
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_UNARY_SAME
  register_kernel<Op::logical_not>(kCUDA, &logical_not_kernel);
}

}  // namespace cuda
}  // namespace ember
