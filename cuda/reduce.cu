// CUDA reductions: sum prod mean amax amin var norm all any over any set of dims. The loops are
// in cuda/reduce.cuh; the reducers are the CPU kernels' (common/reduce_math.h), adapted here.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include <ember/common/reduce_math.h>
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

// A reducer of common/reduce_math.h as the engine takes it (the interface at the top of
// cuda/reduce.cuh): the results go to out (Out: double for var's first pass); param is what
// R::project reads (var's correction, norm's p) and, where R takes a shift, the shift (norm's
// p; var's second pass has its own, below).
template <class R, class T, class Out = T>
struct Reducer {
  using In = T;
  using Acc = typename R::Acc;
  using Total = typename R::Total;
  using Shift = Acc;
  Out* out;
  double param = 0;
  __device__ Acc identity() const { return R::identity(); }
  __device__ Shift shift(int64_t) const { return R::kShift ? Acc(param) : Acc(); }
  __device__ Acc map(T x, int64_t, Shift s) const { return R::map(x, s); }
  template <class A>
  __device__ A combine(A a, A b) const {
    return R::combine(a, b);
  }
  __device__ void write(int64_t o, Total t, int64_t n) const { out[o] = R::project(t, n, param); }
};

// var's second pass: the shift is the output's mean (from the first pass), param the correction.
template <class T>
struct SquaredDevReducer : Reducer<common::SquaredDevR<T>, T> {
  const double* mean;
  __device__ double shift(int64_t o) const { return mean[o]; }
};

// ---- kernels ----

template <template <class> class R>
void additive(const char* name, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  DeviceGuard guard(out.device().index());
  switch (in.dtype()) {
    case kFloat32:
      return launch_reduce(name, Reducer<R<float>, float>{out.data_ptr<float>()}, in, dims);
    case kFloat64:
      return launch_reduce(name, Reducer<R<double>, double>{out.data_ptr<double>()}, in, dims);
    case kInt64:
      return launch_reduce(name, Reducer<R<int64_t>, int64_t>{out.data_ptr<int64_t>()}, in, dims);
    default:
      EMBER_THROW(name, ": dtype ", in.dtype(), " is not supported by the CUDA kernel");
  }
}

template <template <class> class R>
void floating(const char* name, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), name, [&] {
    launch_reduce(name, Reducer<R<scalar_t>, scalar_t>{out.data_ptr<scalar_t>()}, in, dims);
  });
}

void sum_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  if (batch::try_reduce(batch::Code::kSum, out, in)) return;
  additive<common::SumR>("sum", out, in, dims);
}

void prod_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  additive<common::ProdR>("prod", out, in, dims);
}

void mean_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  if (batch::try_reduce(batch::Code::kMean, out, in)) return;
  floating<common::MeanR>("mean", out, in, dims);
}

template <bool kMax>
void extremum_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  const char* name = kMax ? "amax" : "amin";
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), name, [&] {
    using R = common::ExtremumR<scalar_t, kMax>;
    launch_reduce(name, Reducer<R, scalar_t>{out.data_ptr<scalar_t>()}, in, dims);
  });
}

template <bool kAll>
void logical_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  const char* name = kAll ? "all" : "any";
  DeviceGuard guard(out.device().index());
  if (in.dtype() == kUInt8 && out.dtype() == kUInt8) {
    using R = common::LogicalR<kAll, uint8_t>;
    return launch_reduce(name, Reducer<R, uint8_t>{out.data_ptr<uint8_t>()}, in, dims);
  }
  EMBER_CHECK(in.dtype() == kBool && out.dtype() == kBool, name,
              ": the CUDA kernel takes bool (or uint8 to uint8), got ", in.dtype(), " to ",
              out.dtype());
  launch_reduce(name, Reducer<common::LogicalR<kAll, bool>, bool>{out.data_ptr<bool>()}, in, dims);
}

// Two passes (the mean, then squared deviations from it), both in double as on the CPU:
// stable for data with a large offset.
void var_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar& correction) {
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "var", [&] {
    Tensor mean = empty_on({out.numel()}, kFloat64, out.device());
    double* m = mean.data_ptr<double>();
    launch_reduce("var", Reducer<common::MeanDoubleR<scalar_t>, scalar_t, double>{m}, in, dims);
    launch_reduce("var",
                  SquaredDevReducer<scalar_t>{{out.data_ptr<scalar_t>(), correction.toDouble()}, m},
                  in, dims);
  });
}

void norm_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar& p_scalar) {
  const double p = p_scalar.toDouble();
  if (p == 2) return floating<common::Norm2R>("norm", out, in, dims);
  if (p == 1) return floating<common::Norm1R>("norm", out, in, dims);
  if (p == 0) return floating<common::Norm0R>("norm", out, in, dims);
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "norm", [&] {
    using common::ExtremumR;
    using common::MapAbs;
    scalar_t* y = out.data_ptr<scalar_t>();
    if (std::isinf(p) && p > 0) {
      return launch_reduce("norm", Reducer<ExtremumR<scalar_t, true, MapAbs>, scalar_t>{y}, in,
                           dims);
    }
    if (std::isinf(p)) {
      return launch_reduce("norm", Reducer<ExtremumR<scalar_t, false, MapAbs>, scalar_t>{y}, in,
                           dims);
    }
    launch_reduce("norm", Reducer<common::NormPR<scalar_t>, scalar_t>{y, p}, in, dims);
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
