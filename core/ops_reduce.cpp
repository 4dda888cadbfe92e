// Reduction front-ends (sum mean prod max min amax amin argmax argmin var std norm all any):
// dims, dtypes and empty inputs are settled here, so ReduceKernels see keepdim-shaped outputs.
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>

#include <ember/core/recording.h>
#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/tensor.h>

namespace ember {
namespace {

// The keepdim-shaped result without its (sorted) reduced dims: what keepdim=false returns.
Tensor drop_dims(const Tensor& out, IntArrayRef dims) {
  DimVector sizes, strides;
  size_t j = 0;
  for (int64_t d = 0; d < out.dim(); ++d) {
    if (j < dims.size() && dims[j] == d) {
      ++j;
      continue;
    }
    sizes.push_back(out.sizes()[d]);
    strides.push_back(out.strides()[d]);
  }
  return restride(out, sizes, strides);
}

Tensor cast(const Tensor& t, ScalarType dtype) { return t.dtype() == dtype ? t : t.to(dtype); }

void check_floating(const char* name, ScalarType dtype) {
  EMBER_CHECK(is_floating_point(dtype), name, ": expected a floating point dtype, got ", dtype);
}

// max/min/argmax have no identity: reducing a zero-size dim is an error, as in PyTorch.
void check_nonempty_dims(const char* name, const Tensor& in, IntArrayRef dims) {
  for (int64_t d : dims) {
    EMBER_CHECK(in.sizes()[d] != 0, name, ": cannot reduce over a zero-size dimension (dim ", d,
                " of ", in.sizes(), ")");
  }
}

enum class Empty { kIdentity, kError };

// Shared path of every ReduceKernel op. `in` already has the computation dtype, which is
// also the output's unless out_dtype says otherwise (all/any). An empty reduction fills
// out with `identity` instead of calling the kernel, so kernels never see zero-size dims.
template <Op op>
Tensor reduce(const char* name, const Tensor& self, IntArrayRef dim, bool keepdim,
              ScalarType out_dtype, const Scalar& param, Empty empty, const Scalar& identity) {
  DimVector dims = reduction_dims(name, dim, self.dim());
  Tensor in = self;
  if (self.dim() == 0) {  // PyTorch: a 0-dim result whatever keepdim says
    in = as_1d(self);
    dims.assign(1, 0);
    keepdim = false;
  }
  if (empty == Empty::kError) {
    check_nonempty_dims(name, in, dims);
  }
  DimVector shape(in.sizes());
  for (int64_t d : dims) shape[d] = 1;
  const DeviceType dev = in.device().type();
  Tensor out = empty_on(shape, out_dtype, in.device());
  if (in.numel() != 0) {
    kernel<op>(dev)(out, in, dims, param);
  } else if (out.numel() != 0) {
    kernel<Op::fill>(dev)(out, identity);
  }
  return keepdim ? out : drop_dims(out, dims);
}

ScalarType sum_dtype(const Tensor& t, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(t.dtype(), /*include_bool=*/true) ? kInt64 : t.dtype();
}

// Integer sums and products accumulate in int64; a narrower result dtype (sum(kInt32)) takes
// the int64 result cast down, which wraps as LibTorch's narrower accumulation does.
bool narrow_integer(ScalarType dt) {
  return is_integral(dt, /*include_bool=*/true) && dt != kInt64;
}

Tensor sum_impl(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined("sum", t);
  const ScalarType dt = sum_dtype(t, dtype);
  if (narrow_integer(dt)) return cast(sum_impl(t, dim, keepdim, kInt64), dt);
  return reduce<Op::sum>("sum", cast(t, dt), dim, keepdim, dt, 0, Empty::kIdentity, 0);
}

Tensor prod_impl(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined("prod", t);
  const ScalarType dt = sum_dtype(t, dtype);
  if (narrow_integer(dt)) return cast(prod_impl(t, dim, keepdim, kInt64), dt);
  return reduce<Op::prod>("prod", cast(t, dt), dim, keepdim, dt, 0, Empty::kIdentity, 1);
}

Tensor mean_impl(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined("mean", t);
  const ScalarType dt = dtype ? *dtype : t.dtype();
  check_floating("mean", dt);
  return reduce<Op::mean>("mean", cast(t, dt), dim, keepdim, dt, 0, Empty::kIdentity,
                          std::numeric_limits<double>::quiet_NaN());
}

template <Op op>
Tensor extremum(const char* name, const Tensor& t, IntArrayRef dim, bool keepdim) {
  check_defined(name, t);
  return reduce<op>(name, t, dim, keepdim, t.dtype(), 0, Empty::kError, 0);
}

// max(dim)/min(dim)/argmax/argmin: values and int64 indices along one dim.
template <Op op>
std::tuple<Tensor, Tensor> arg_reduce(const char* name, const Tensor& self, int64_t dim,
                                      bool keepdim) {
  check_defined(name, self);
  int64_t d = wrap_dim(name, dim, self.dim());
  Tensor in = self;
  if (self.dim() == 0) {
    in = as_1d(self);
    d = 0;
    keepdim = false;
  }
  const int64_t dims[1] = {d};
  check_nonempty_dims(name, in, IntArrayRef(dims, 1));
  DimVector shape(in.sizes());
  shape[d] = 1;
  Tensor values = empty_on(shape, in.dtype(), in.device());
  Tensor indices = empty_on(shape, kInt64, in.device());
  if (values.numel() != 0) {
    kernel<op>(in.device().type())(values, indices, in, d);
  }
  if (keepdim) return std::make_tuple(values, indices);
  return std::make_tuple(drop_dims(values, IntArrayRef(dims, 1)),
                         drop_dims(indices, IntArrayRef(dims, 1)));
}

// argmax()/argmin() without dim: over the flattened tensor; keepdim gives all dims of size 1.
template <Op op>
Tensor arg_reduce_all(const char* name, const Tensor& self, bool keepdim) {
  check_defined(name, self);
  if (self.numel() == 0) {
    DimVector all(self.dim());
    for (int64_t d = 0; d < self.dim(); ++d) all[d] = d;
    check_nonempty_dims(name, self, all);
  }
  const int64_t minus_one = -1;
  Tensor index = std::get<1>(arg_reduce<op>(name, self.reshape(IntArrayRef(minus_one)), 0, false));
  if (!keepdim) return index;
  DimVector ones(self.dim(), 1);
  return restride(index, ones, ones);
}

Tensor var_impl(const char* name, const Tensor& t, IntArrayRef dim, bool unbiased, bool keepdim) {
  check_defined(name, t);
  check_floating(name, t.dtype());
  return reduce<Op::var>(name, t, dim, keepdim, t.dtype(), int64_t(unbiased ? 1 : 0),
                         Empty::kIdentity, std::numeric_limits<double>::quiet_NaN());
}

// p = +-inf and p = 0 are composites (max/min of |x|, count of non-zeros); other p go to
// the kernel as (sum |x|^p)^(1/p).
Tensor norm_impl(const Tensor& t, const Scalar& p, IntArrayRef dim, bool keepdim) {
  check_defined("norm", t);
  check_floating("norm", t.dtype());
  const double pd = p.toDouble();
  if (std::isinf(pd)) {
    return pd > 0 ? extremum<Op::amax>("norm", t.abs(), dim, keepdim)
                  : extremum<Op::amin>("norm", t.abs(), dim, keepdim);
  }
  if (pd == 0) return sum_impl(t.ne(0), dim, keepdim, t.dtype());
  return reduce<Op::norm>("norm", t, dim, keepdim, t.dtype(), pd, Empty::kIdentity, 0);
}

template <Op op>
Tensor logical_reduce(const char* name, const Tensor& t, IntArrayRef dim, bool keepdim) {
  check_defined(name, t);
  // PyTorch keeps uint8 for uint8 input (0/1 values); everything else reduces as bool.
  const ScalarType out = t.dtype() == kUInt8 ? kUInt8 : kBool;
  return reduce<op>(name, cast(t, out), dim, keepdim, out, 0, Empty::kIdentity, op == Op::all);
}

}  // namespace

// ---- Tensor methods ----
Tensor Tensor::sum(std::optional<ScalarType> dtype) const {
  if (autograd::should_record(*this)) return detail::recorded::sum(*this, {}, false, dtype);
  return sum_impl(*this, {}, false, dtype);
}
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  if (autograd::should_record(*this)) return detail::recorded::sum(*this, dim, keepdim, dtype);
  return sum_impl(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const {
  if (autograd::should_record(*this)) return detail::recorded::mean(*this, {}, false, dtype);
  return mean_impl(*this, {}, false, dtype);
}
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  if (autograd::should_record(*this)) return detail::recorded::mean(*this, dim, keepdim, dtype);
  return mean_impl(*this, dim, keepdim, dtype);
}
Tensor Tensor::prod(std::optional<ScalarType> dtype) const {
  if (autograd::should_record(*this)) {
    return detail::recorded::prod(*this, std::nullopt, false, dtype);
  }
  return prod_impl(*this, {}, false, dtype);
}
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  if (autograd::should_record(*this)) return detail::recorded::prod(*this, dim, keepdim, dtype);
  return prod_impl(*this, IntArrayRef(dim), keepdim, dtype);
}
Tensor Tensor::max() const {
  if (autograd::should_record(*this)) return detail::recorded::max_all(*this, true);
  return extremum<Op::amax>("max", *this, {}, false);
}
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  if (autograd::should_record(*this)) return detail::recorded::max_dim(*this, dim, keepdim, true);
  return arg_reduce<Op::max_dim>("max", *this, dim, keepdim);
}
Tensor Tensor::min() const {
  if (autograd::should_record(*this)) return detail::recorded::max_all(*this, false);
  return extremum<Op::amin>("min", *this, {}, false);
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  if (autograd::should_record(*this)) {
    return detail::recorded::max_dim(*this, dim, keepdim, false);
  }
  return arg_reduce<Op::min_dim>("min", *this, dim, keepdim);
}
Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const {
  if (autograd::should_record(*this)) return detail::recorded::amax(*this, dim, keepdim, true);
  return extremum<Op::amax>("amax", *this, dim, keepdim);
}
Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const {
  if (autograd::should_record(*this)) return detail::recorded::amax(*this, dim, keepdim, false);
  return extremum<Op::amin>("amin", *this, dim, keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) return arg_reduce_all<Op::max_dim>("argmax", *this, keepdim);
  return std::get<1>(arg_reduce<Op::max_dim>("argmax", *this, *dim, keepdim));
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) return arg_reduce_all<Op::min_dim>("argmin", *this, keepdim);
  return std::get<1>(arg_reduce<Op::min_dim>("argmin", *this, *dim, keepdim));
}
Tensor Tensor::var(bool unbiased) const {
  if (autograd::should_record(*this)) return detail::recorded::var(*this, {}, unbiased, false);
  return var_impl("var", *this, {}, unbiased, false);
}
Tensor Tensor::var(IntArrayRef dim, bool unbiased, bool keepdim) const {
  if (autograd::should_record(*this)) return detail::recorded::var(*this, dim, unbiased, keepdim);
  return var_impl("var", *this, dim, unbiased, keepdim);
}
// std records as sqrt(var) (SqrtBackward0 over VarBackward0).
Tensor Tensor::std(bool unbiased) const {
  if (autograd::should_record(*this)) return var(unbiased).sqrt();
  return var_impl("std", *this, {}, unbiased, false).sqrt();
}
Tensor Tensor::std(IntArrayRef dim, bool unbiased, bool keepdim) const {
  if (autograd::should_record(*this)) return var(dim, unbiased, keepdim).sqrt();
  return var_impl("std", *this, dim, unbiased, keepdim).sqrt();
}
Tensor Tensor::norm(const Scalar& p) const {
  if (autograd::should_record(*this)) return detail::recorded::norm(*this, p, {}, false, true);
  return norm_impl(*this, p, {}, false);
}
Tensor Tensor::norm(const Scalar& p, IntArrayRef dim, bool keepdim) const {
  if (autograd::should_record(*this)) {
    return detail::recorded::norm(*this, p, dim, keepdim, false);
  }
  return norm_impl(*this, p, dim, keepdim);
}
Tensor Tensor::all() const { return logical_reduce<Op::all>("all", *this, {}, false); }
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  return logical_reduce<Op::all>("all", *this, IntArrayRef(dim), keepdim);
}
Tensor Tensor::any() const { return logical_reduce<Op::any>("any", *this, {}, false); }
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  return logical_reduce<Op::any>("any", *this, IntArrayRef(dim), keepdim);
}

// ---- free functions ----
Tensor sum(const Tensor& t, std::optional<ScalarType> dtype) { return t.sum(dtype); }
Tensor sum(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return t.sum(dim, keepdim, dtype);
}
Tensor mean(const Tensor& t, std::optional<ScalarType> dtype) { return t.mean(dtype); }
Tensor mean(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return t.mean(dim, keepdim, dtype);
}
Tensor prod(const Tensor& t, std::optional<ScalarType> dtype) { return t.prod(dtype); }
Tensor prod(const Tensor& t, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return t.prod(dim, keepdim, dtype);
}
Tensor max(const Tensor& t) { return t.max(); }
std::tuple<Tensor, Tensor> max(const Tensor& t, int64_t dim, bool keepdim) {
  return t.max(dim, keepdim);
}
Tensor min(const Tensor& t) { return t.min(); }
std::tuple<Tensor, Tensor> min(const Tensor& t, int64_t dim, bool keepdim) {
  return t.min(dim, keepdim);
}
Tensor amax(const Tensor& t, IntArrayRef dim, bool keepdim) { return t.amax(dim, keepdim); }
Tensor amin(const Tensor& t, IntArrayRef dim, bool keepdim) { return t.amin(dim, keepdim); }
Tensor argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  return t.argmax(dim, keepdim);
}
Tensor argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  return t.argmin(dim, keepdim);
}
Tensor var(const Tensor& t, bool unbiased) { return t.var(unbiased); }
Tensor var(const Tensor& t, IntArrayRef dim, bool unbiased, bool keepdim) {
  return t.var(dim, unbiased, keepdim);
}
Tensor std(const Tensor& t, bool unbiased) { return t.std(unbiased); }
Tensor std(const Tensor& t, IntArrayRef dim, bool unbiased, bool keepdim) {
  return t.std(dim, unbiased, keepdim);
}
Tensor norm(const Tensor& t, const Scalar& p) { return t.norm(p); }
Tensor norm(const Tensor& t, const Scalar& p, IntArrayRef dim, bool keepdim) {
  return t.norm(p, dim, keepdim);
}
Tensor all(const Tensor& t) { return t.all(); }
Tensor all(const Tensor& t, int64_t dim, bool keepdim) { return t.all(dim, keepdim); }
Tensor any(const Tensor& t) { return t.any(); }
Tensor any(const Tensor& t, int64_t dim, bool keepdim) { return t.any(dim, keepdim); }

}  // namespace ember
