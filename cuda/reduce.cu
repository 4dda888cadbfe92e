// CUDA reductions: sum prod mean amax amin var norm all any over any set of dims, with the
// CPU kernels' accumulation types. The loops are in cuda/reduce.cuh; here are the reducers.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/reduce.cuh>

namespace ember {
namespace cuda {
namespace {

using reduce_detail::launch_reduce;

using common::is_nan;

template <class A>
__device__ A abs_of(A x) {
  if constexpr (std::is_same<A, float>::value) return fabsf(x);
  if constexpr (std::is_same<A, double>::value) return ::fabs(x);
  return x < A(0) ? A(-x) : x;
}

// As the CPU: float elements accumulate in float within a thread (its lanes), and the
// threads' totals combine in double; integers wrap (sums in uint64).
template <class T>
struct SumTypes {
  using Acc = std::conditional_t<std::is_integral<T>::value, uint64_t, T>;
  using Total = std::conditional_t<std::is_integral<T>::value, uint64_t, double>;
};

// ---- element maps and projections of the additive reducers ----

struct Id {
  template <class A, class T>
  __device__ static A apply(T x) {
    return static_cast<A>(x);
  }
};
struct Abs {
  template <class A, class T>
  __device__ static A apply(T x) {
    return abs_of(static_cast<A>(x));
  }
};
struct Square {
  template <class A, class T>
  __device__ static A apply(T x) {
    return static_cast<A>(x) * static_cast<A>(x);
  }
};
struct NonZero {
  template <class A, class T>
  __device__ static A apply(T x) {
    return x != T(0) ? A(1) : A(0);
  }
};
struct AsIs {
  template <class T, class Total>
  __device__ static T apply(Total t, int64_t) {
    return static_cast<T>(t);
  }
};
struct Average {
  template <class T, class Total>
  __device__ static T apply(Total t, int64_t n) {
    return static_cast<T>(static_cast<double>(t) / static_cast<double>(n));
  }
};
struct Sqrt {
  template <class T, class Total>
  __device__ static T apply(Total t, int64_t) {
    return static_cast<T>(::sqrt(static_cast<double>(t)));
  }
};

// ---- reducers (see the interface at the top of cuda/reduce.cuh) ----

template <class T, class Map, class Project>
struct Additive {
  using In = T;
  using Acc = typename SumTypes<T>::Acc;
  using Total = typename SumTypes<T>::Total;
  using Shift = int;
  T* out;
  __device__ Acc identity() const { return Acc(0); }
  __device__ Shift shift(int64_t) const { return 0; }
  __device__ Acc map(T x, int64_t, Shift) const { return Map::template apply<Acc>(x); }
  template <class A>
  __device__ A combine(A a, A b) const {
    return a + b;
  }
  __device__ void write(int64_t o, Total t, int64_t n) const {
    out[o] = Project::template apply<T>(t, n);
  }
};

template <class T>
using SumR = Additive<T, Id, AsIs>;
template <class T>
using MeanR = Additive<T, Id, Average>;
template <class T>
using Norm1R = Additive<T, Abs, AsIs>;
template <class T>
using Norm2R = Additive<T, Square, Sqrt>;
template <class T>
using Norm0R = Additive<T, NonZero, AsIs>;

template <class T>
struct ProdR {
  using In = T;
  using Acc = typename SumTypes<T>::Acc;
  using Total = typename SumTypes<T>::Total;
  using Shift = int;
  T* out;
  __device__ Acc identity() const { return Acc(1); }
  __device__ Shift shift(int64_t) const { return 0; }
  __device__ Acc map(T x, int64_t, Shift) const { return static_cast<Acc>(x); }
  template <class A>
  __device__ A combine(A a, A b) const {
    return a * b;
  }
  __device__ void write(int64_t o, Total t, int64_t) const { out[o] = static_cast<T>(t); }
};

// (sum |x|^p)^(1/p) in double, for p other than 0, 1, 2 and +-inf.
template <class T>
struct NormPR {
  using In = T;
  using Acc = double;
  using Total = double;
  using Shift = int;
  T* out;
  double p;
  __device__ Acc identity() const { return 0; }
  __device__ Shift shift(int64_t) const { return 0; }
  __device__ Acc map(T x, int64_t, Shift) const { return ::pow(::fabs(static_cast<double>(x)), p); }
  template <class A>
  __device__ A combine(A a, A b) const {
    return a + b;
  }
  __device__ void write(int64_t o, Total t, int64_t) const {
    out[o] = static_cast<T>(::pow(t, 1.0 / p));
  }
};

// Max (kMax) or min of M(x); a NaN wins, as in PyTorch and the CPU kernel.
template <class T, bool kMax, class M = Id>
struct ExtremumR {
  using In = T;
  using Acc = T;
  using Total = T;
  using Shift = int;
  T* out;
  __device__ Acc identity() const {
    if constexpr (std::is_floating_point<T>::value) {
      return kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    }
    return kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  __device__ Shift shift(int64_t) const { return 0; }
  __device__ Acc map(T x, int64_t, Shift) const { return M::template apply<T>(x); }
  template <class A>
  __device__ A combine(A a, A b) const {
    return ((kMax ? a > b : a < b) || is_nan(a)) ? a : b;
  }
  __device__ void write(int64_t o, Total t, int64_t) const { out[o] = t; }
};

// all/any over bool, or over uint8 giving uint8 0/1.
template <bool kAll, class T>
struct LogicalR {
  using In = T;
  using Acc = bool;
  using Total = bool;
  using Shift = int;
  T* out;
  __device__ Acc identity() const { return kAll; }
  __device__ Shift shift(int64_t) const { return 0; }
  __device__ Acc map(T x, int64_t, Shift) const { return x != T(0); }
  template <class A>
  __device__ A combine(A a, A b) const {
    return kAll ? (a && b) : (a || b);
  }
  __device__ void write(int64_t o, Total t, int64_t) const { out[o] = static_cast<T>(t); }
};

// First pass of var: the mean of each output, in double.
template <class T>
struct MeanDoubleR {
  using In = T;
  using Acc = double;
  using Total = double;
  using Shift = int;
  double* mean;
  __device__ Acc identity() const { return 0; }
  __device__ Shift shift(int64_t) const { return 0; }
  __device__ Acc map(T x, int64_t, Shift) const { return static_cast<double>(x); }
  template <class A>
  __device__ A combine(A a, A b) const {
    return a + b;
  }
  __device__ void write(int64_t o, Total t, int64_t n) const {
    mean[o] = t / static_cast<double>(n);
  }
};

// Second pass of var: squared deviations from the first pass's mean, in double.
template <class T>
struct SquaredDevR {
  using In = T;
  using Acc = double;
  using Total = double;
  using Shift = double;
  T* out;
  const double* mean;
  double correction;
  __device__ Acc identity() const { return 0; }
  __device__ Shift shift(int64_t o) const { return mean[o]; }
  __device__ Acc map(T x, int64_t, Shift m) const {
    const double d = static_cast<double>(x) - m;
    return d * d;
  }
  template <class A>
  __device__ A combine(A a, A b) const {
    return a + b;
  }
  __device__ void write(int64_t o, Total t, int64_t n) const {
    out[o] = static_cast<T>(t / ::fmax(0.0, static_cast<double>(n) - correction));
  }
};

// ---- kernels ----

template <template <class> class R>
void additive(const char* name, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  DeviceGuard guard(out.device().index());
  switch (in.dtype()) {
    case kFloat32:
      return launch_reduce(name, R<float>{out.data_ptr<float>()}, in, dims);
    case kFloat64:
      return launch_reduce(name, R<double>{out.data_ptr<double>()}, in, dims);
    case kInt64:
      return launch_reduce(name, R<int64_t>{out.data_ptr<int64_t>()}, in, dims);
    default:
      EMBER_THROW(name, ": dtype ", in.dtype(), " is not supported by the CUDA kernel");
  }
}

template <template <class> class R>
void floating(const char* name, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), name, [&] {
    launch_reduce(name, R<scalar_t>{out.data_ptr<scalar_t>()}, in, dims);
  });
}

void sum_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  if (batch::try_reduce(batch::Code::kSum, out, in)) return;
  additive<SumR>("sum", out, in, dims);
}

void prod_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  additive<ProdR>("prod", out, in, dims);
}

void mean_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  if (batch::try_reduce(batch::Code::kMean, out, in)) return;
  floating<MeanR>("mean", out, in, dims);
}

template <bool kMax>
void extremum_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  const char* name = kMax ? "amax" : "amin";
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), name, [&] {
    launch_reduce(name, ExtremumR<scalar_t, kMax>{out.data_ptr<scalar_t>()}, in, dims);
  });
}

template <bool kAll>
void logical_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  const char* name = kAll ? "all" : "any";
  DeviceGuard guard(out.device().index());
  if (in.dtype() == kUInt8 && out.dtype() == kUInt8) {
    return launch_reduce(name, LogicalR<kAll, uint8_t>{out.data_ptr<uint8_t>()}, in, dims);
  }
  EMBER_CHECK(in.dtype() == kBool && out.dtype() == kBool, name,
              ": the CUDA kernel takes bool (or uint8 to uint8), got ", in.dtype(), " to ",
              out.dtype());
  launch_reduce(name, LogicalR<kAll, bool>{out.data_ptr<bool>()}, in, dims);
}

// Two passes (the mean, then squared deviations from it), both in double as on the CPU:
// stable for data with a large offset.
void var_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar& correction) {
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "var", [&] {
    Tensor mean = empty_on({out.numel()}, kFloat64, out.device());
    double* m = mean.data_ptr<double>();
    launch_reduce("var", MeanDoubleR<scalar_t>{m}, in, dims);
    launch_reduce("var", SquaredDevR<scalar_t>{out.data_ptr<scalar_t>(), m, correction.toDouble()},
                  in, dims);
  });
}

void norm_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar& p_scalar) {
  const double p = p_scalar.toDouble();
  if (p == 2) return floating<Norm2R>("norm", out, in, dims);
  if (p == 1) return floating<Norm1R>("norm", out, in, dims);
  if (p == 0) return floating<Norm0R>("norm", out, in, dims);
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "norm", [&] {
    scalar_t* y = out.data_ptr<scalar_t>();
    if (std::isinf(p) && p > 0) {
      return launch_reduce("norm", ExtremumR<scalar_t, true, Abs>{y}, in, dims);
    }
    if (std::isinf(p)) return launch_reduce("norm", ExtremumR<scalar_t, false, Abs>{y}, in, dims);
    launch_reduce("norm", NormPR<scalar_t>{y, p}, in, dims);
  });
}

}  // namespace

void register_reduce_kernels() {
  register_kernel<Op::sum>(kCUDA, sum_kernel);
  register_kernel<Op::prod>(kCUDA, prod_kernel);
  register_kernel<Op::mean>(kCUDA, mean_kernel);
  register_kernel<Op::amax>(kCUDA, extremum_kernel<true>);
  register_kernel<Op::amin>(kCUDA, extremum_kernel<false>);
  register_kernel<Op::var>(kCUDA, var_kernel);
  register_kernel<Op::norm>(kCUDA, norm_kernel);
  register_kernel<Op::all>(kCUDA, logical_kernel<true>);
  register_kernel<Op::any>(kCUDA, logical_kernel<false>);
  register_arg_reduce_kernels();
}

}  // namespace cuda
}  // namespace ember
