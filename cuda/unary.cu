// CUDA unary elementwise kernels (neg ... gelu, logical_not): one functor per op over
// cuda/loops.cuh, with the CPU kernels' (cpu/unary.cpp) dtypes and semantics.
#include <cstdint>
#include <type_traits>

#include <ember/core/dispatch.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/loops.cuh>

namespace ember {
namespace cuda {
namespace {

using loops::gpu_kernel;

// ---- float32/float64 math (core casts integer inputs to float first). Each functor has
// a float and a double overload calling CUDA's accurate (non-intrinsic) math functions;
// the formulas are the CPU's, operation for operation. ----
struct Exp {
  static constexpr const char* kName = "exp";
  __device__ float operator()(float x) const { return expf(x); }
  __device__ double operator()(double x) const { return exp(x); }
};
struct Log {
  static constexpr const char* kName = "log";
  __device__ float operator()(float x) const { return logf(x); }
  __device__ double operator()(double x) const { return log(x); }
};
struct Log1p {
  static constexpr const char* kName = "log1p";
  __device__ float operator()(float x) const { return log1pf(x); }
  __device__ double operator()(double x) const { return log1p(x); }
};
struct Sqrt {
  static constexpr const char* kName = "sqrt";
  __device__ float operator()(float x) const { return sqrtf(x); }
  __device__ double operator()(double x) const { return sqrt(x); }
};
// 1 / sqrt(x), correctly rounded twice as on the CPU (rsqrtf is a 2-ulp approximation).
struct Rsqrt {
  static constexpr const char* kName = "rsqrt";
  __device__ float operator()(float x) const { return 1.0f / sqrtf(x); }
  __device__ double operator()(double x) const { return 1.0 / sqrt(x); }
};
struct Sin {
  static constexpr const char* kName = "sin";
  __device__ float operator()(float x) const { return sinf(x); }
  __device__ double operator()(double x) const { return sin(x); }
};
struct Cos {
  static constexpr const char* kName = "cos";
  __device__ float operator()(float x) const { return cosf(x); }
  __device__ double operator()(double x) const { return cos(x); }
};
struct Tanh {
  static constexpr const char* kName = "tanh";
  __device__ float operator()(float x) const { return tanhf(x); }
  __device__ double operator()(double x) const { return tanh(x); }
};
struct Sigmoid {
  static constexpr const char* kName = "sigmoid";
  __device__ float operator()(float x) const { return 1.0f / (1.0f + expf(-x)); }
  __device__ double operator()(double x) const { return 1.0 / (1.0 + exp(-x)); }
};
// Exact gelu, PyTorch's default: 0.5 x (1 + erf(x / sqrt 2)).
constexpr double kSqrtHalf = 0.70710678118654752440;
struct Gelu {
  static constexpr const char* kName = "gelu";
  __device__ float operator()(float x) const {
    return 0.5f * x * (1.0f + erff(x * static_cast<float>(kSqrtHalf)));
  }
  __device__ double operator()(double x) const { return 0.5 * x * (1.0 + erf(x * kSqrtHalf)); }
};

template <class Math>
void float_kernel(const Tensor& out, const Tensor& in) {
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
  register_kernel<Op::exp>(kCUDA, &float_kernel<Exp>);
  register_kernel<Op::log>(kCUDA, &float_kernel<Log>);
  register_kernel<Op::log1p>(kCUDA, &float_kernel<Log1p>);
  register_kernel<Op::sqrt>(kCUDA, &float_kernel<Sqrt>);
  register_kernel<Op::rsqrt>(kCUDA, &float_kernel<Rsqrt>);
  register_kernel<Op::sin>(kCUDA, &float_kernel<Sin>);
  register_kernel<Op::cos>(kCUDA, &float_kernel<Cos>);
  register_kernel<Op::tanh>(kCUDA, &float_kernel<Tanh>);
  register_kernel<Op::sigmoid>(kCUDA, &float_kernel<Sigmoid>);
  register_kernel<Op::gelu>(kCUDA, &float_kernel<Gelu>);
  register_kernel<Op::logical_not>(kCUDA, &logical_not_kernel);
}

}  // namespace cuda
}  // namespace ember
