// Front-ends of sorting, selection and scans (sort argsort topk kthvalue median nanmedian mode
// cumsum cumprod cummax cummin logsumexp) and of the small reductions nansum nanmean ...
#include <cmath>
#include <limits>
#include <tuple>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/recording.h>
#include <ember/core/tensor.h>

namespace ember {
namespace {

template <class F>
auto untracked(F&& f) {
  NoGradGuard off;
  return f();
}

// self with dim d moved last, contiguous, seen as [R, N]; `moved`: that moved shape.
struct Rows {
  Tensor in;
  DimVector moved;
  int64_t R = 1, N = 1;
};

Rows to_rows(const Tensor& self, int64_t d) {
  Rows r;
  Tensor t = self.dim() == 0 ? self.reshape({1}) : self;
  const int64_t last = t.dim() - 1;
  if (d != last) t = t.transpose(d, last);
  r.moved = DimVector(t.sizes());
  r.N = r.moved[last];
  r.R = 1;
  for (int64_t i = 0; i < last; ++i) r.R *= r.moved[i];
  r.in = t.contiguous().view({r.R, r.N});
  return r;
}

// A result in the moved shape (last dim of size n) back in self's dim order, contiguous.
Tensor from_rows(const Tensor& flat, const Rows& r, int64_t n, int64_t d, const Tensor& self) {
  DimVector shape(r.moved);
  shape.back() = n;
  Tensor t = flat.view(shape);
  if (self.dim() == 0) return t.numel() == 1 ? t.reshape({}) : t;
  const int64_t last = self.dim() - 1;
  return d == last ? t : t.transpose(d, last).contiguous();
}

// A per-row result [R] as the reduction's result (keepdim: dim d of size 1).
Tensor reduced_from_rows(const Tensor& flat, const Rows& r, int64_t d, const Tensor& self,
                         bool keepdim) {
  Tensor t = from_rows(flat, r, 1, d, self);
  return keepdim || self.dim() == 0 ? t : t.squeeze(d);
}

void check_sortable(const char* name, ScalarType dt) {
  EMBER_CHECK(dt == kFloat32 || dt == kFloat64 || dt == kInt32 || dt == kInt64 || dt == kUInt8 ||
                  dt == kBool,
              name, ": dtype ", dt, " is not supported");
}

int64_t size_along(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }

std::tuple<Tensor, Tensor> record_pair(const char* node, const char* op, const Tensor& self,
                                       Tensor values, const Tensor& indices, int64_t d,
                                       bool keepdim) {
  if (autograd::should_record(self)) {
    values = detail::recorded::select_values(node, op, self, values, indices, d, keepdim);
  }
  return std::make_tuple(values, indices);
}

std::tuple<Tensor, Tensor> sort_impl(const Tensor& self, int64_t dim, bool descending) {
  check_defined("sort", self);
  check_sortable("sort", self.dtype());
  const int64_t d = wrap_dim("sort", dim, self.dim());
  Rows r = to_rows(self, d);
  Tensor values = empty_on({r.R, r.N}, self.dtype(), self.device());
  Tensor indices = empty_on({r.R, r.N}, kInt64, self.device());
  if (values.numel() != 0) {
    kernel<Op::sort>(self.device().type())(values, indices, r.in, descending);
  }
  return std::make_tuple(from_rows(values, r, r.N, d, self), from_rows(indices, r, r.N, d, self));
}

std::tuple<Tensor, Tensor> topk_impl(const Tensor& self, int64_t k, int64_t dim, bool largest) {
  check_defined("topk", self);
  check_sortable("topk", self.dtype());
  const int64_t d = wrap_dim("topk", dim, self.dim());
  const int64_t n = size_along(self, d);
  EMBER_CHECK(k >= 0 && k <= n, "topk: selected index k out of range (k = ", k, ", dim ", d,
              " of size ", n, ")");
  Rows r = to_rows(self, d);
  Tensor values = empty_on({r.R, k}, self.dtype(), self.device());
  Tensor indices = empty_on({r.R, k}, kInt64, self.device());
  if (values.numel() != 0) {
    kernel<Op::topk>(self.device().type())(values, indices, r.in, k, largest);
  }
  return std::make_tuple(from_rows(values, r, k, d, self), from_rows(indices, r, k, d, self));
}

// kthvalue (k >= 1) and median (k == 0: median, k == -1: nanmedian) along dim.
std::tuple<Tensor, Tensor> select_impl(const char* name, const Tensor& self, int64_t k, int64_t dim,
                                       bool keepdim) {
  check_defined(name, self);
  check_sortable(name, self.dtype());
  const int64_t d = wrap_dim(name, dim, self.dim());
  const int64_t n = size_along(self, d);
  if (k >= 1) {
    EMBER_CHECK(k <= n, name, "(): selected number k out of range for dimension ", d, " (k = ", k,
                ", size ", n, ")");
  } else {
    EMBER_CHECK(n > 0, name, "(): Expected reduction dim ", d, " to have non-zero size.");
  }
  Rows r = to_rows(self, d);
  Tensor values = empty_on({r.R}, self.dtype(), self.device());
  Tensor indices = empty_on({r.R}, kInt64, self.device());
  if (r.R != 0) {
    const DeviceType dev = self.device().type();
    if (k >= 1) {
      kernel<Op::kthvalue>(dev)(values, indices, r.in, k);
    } else {
      kernel<Op::median>(dev)(values, indices, r.in, k == -1);
    }
  }
  return std::make_tuple(reduced_from_rows(values, r, d, self, keepdim),
                         reduced_from_rows(indices, r, d, self, keepdim));
}

// median() / nanmedian() of every element: NaN for an empty tensor, as LibTorch.
Tensor median_all(const char* name, const char* node, const Tensor& self, bool ignore_nan) {
  check_defined(name, self);
  if (self.numel() == 0) {
    // as LibTorch: a float NaN converted to self's dtype
    return full({}, std::numeric_limits<double>::quiet_NaN(),
                TensorOptions().dtype(kFloat32).device(self.device()))
        .to(self.dtype());
  }
  Tensor flat = self.reshape({-1});
  auto [v, i] = untracked([&] { return select_impl(name, flat, ignore_nan ? -1 : 0, 0, false); });
  return std::get<0>(record_pair(node, name, flat, v, i, 0, false));
}

// mode over [R, N] rows: sort, number the runs of equal values, count them, take the first
// most frequent run (the smallest value) and its last element in the stable order.
std::tuple<Tensor, Tensor> mode_impl(const Tensor& self, int64_t dim, bool keepdim) {
  check_defined("mode", self);
  check_sortable("mode", self.dtype());
  const int64_t d = wrap_dim("mode", dim, self.dim());
  const int64_t n = size_along(self, d);
  EMBER_CHECK(n > 0, "mode(): Expected reduction dim ", d, " to have non-zero size.");
  Rows r = to_rows(self, d);
  Tensor values = empty_on({r.R}, self.dtype(), self.device());
  Tensor indices = empty_on({r.R}, kInt64, self.device());
  if (r.R != 0) {
    Tensor s = empty_on({r.R, n}, self.dtype(), self.device());
    Tensor si = empty_on({r.R, n}, kInt64, self.device());
    kernel<Op::sort>(self.device().type())(s, si, r.in, false);
    const TensorOptions opts = TensorOptions().dtype(kInt64).device(self.device());
    Tensor starts = ones({r.R, n}, opts);
    if (n > 1) starts.narrow(1, 1, n - 1).copy_(s.narrow(1, 1, n - 1).ne(s.narrow(1, 0, n - 1)));
    Tensor run = starts.cumsum(1) - 1;
    Tensor counts = zeros({r.R, n}, opts).scatter_add(1, run, ones({r.R, n}, opts));
    Tensor best = std::get<1>(counts.max(1, true));
    Tensor pos = (counts.cumsum(1) - 1).gather(1, best);
    values = s.gather(1, pos).view({r.R});
    indices = si.gather(1, pos).view({r.R});
  }
  return std::make_tuple(reduced_from_rows(values, r, d, self, keepdim),
                         reduced_from_rows(indices, r, d, self, keepdim));
}

ScalarType scan_dtype(const Tensor& t, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(t.dtype(), /*include_bool=*/true) ? kInt64 : t.dtype();
}

Tensor scan_impl(Op op, const char* name, const Tensor& self, int64_t dim,
                 std::optional<ScalarType> dtype) {
  check_defined(name, self);
  const int64_t d = wrap_dim(name, dim, self.dim());
  const ScalarType dt = scan_dtype(self, dtype);
  check_sortable(name, dt);
  Tensor in = (self.dtype() == dt ? self : self.to(dt)).contiguous();
  if (self.dim() == 0) in = in.reshape({1});
  Tensor out = empty_on(in.sizes(), dt, in.device());
  if (out.numel() != 0) {
    const DeviceType dev = in.device().type();
    if (op == Op::cumsum) {
      kernel<Op::cumsum>(dev)(out, in, d);
    } else {
      kernel<Op::cumprod>(dev)(out, in, d);
    }
  }
  return self.dim() == 0 ? out.reshape({}) : out;
}

std::tuple<Tensor, Tensor> cum_extremum(bool is_max, const Tensor& self, int64_t dim) {
  const char* name = is_max ? "cummax" : "cummin";
  check_defined(name, self);
  check_sortable(name, self.dtype());
  const int64_t d = wrap_dim(name, dim, self.dim());
  Tensor in = self.contiguous();
  if (self.dim() == 0) in = in.reshape({1});
  Tensor values = empty_on(in.sizes(), in.dtype(), in.device());
  Tensor indices = empty_on(in.sizes(), kInt64, in.device());
  if (in.numel() != 0) {
    const DeviceType dev = in.device().type();
    if (is_max) {
      kernel<Op::cummax>(dev)(values, indices, in, d);
    } else {
      kernel<Op::cummin>(dev)(values, indices, in, d);
    }
  }
  if (self.dim() == 0) {
    values = values.reshape({});
    indices = indices.reshape({});
  }
  return record_pair(is_max ? "CummaxBackward0" : "CumminBackward0", name, self, values, indices, d,
                     true);
}

// The number of elements a reduction over `dim` ({} = all) combines.
int64_t reduced_count(const char* name, const Tensor& t, IntArrayRef dim) {
  int64_t n = 1;
  for (int64_t d : reduction_dims(name, dim, t.dim())) n *= t.size(d);
  return n;
}

// var with any correction, without autograd: the var kernel takes it as its parameter.
Tensor var_kernel_path(const char* name, const Tensor& self, IntArrayRef dim, double correction,
                       bool keepdim) {
  EMBER_CHECK(is_floating_point(self.dtype()), name, ": expected a floating point dtype, got ",
              self.dtype());
  DimVector dims = reduction_dims(name, dim, self.dim());
  Tensor in = self;
  if (self.dim() == 0) {
    in = self.reshape({1});
    dims.assign(1, 0);
    keepdim = false;
  }
  DimVector shape(in.sizes());
  for (int64_t d : dims) shape[d] = 1;
  Tensor out = empty_on(shape, in.dtype(), in.device());
  const DeviceType dev = in.device().type();
  if (in.numel() != 0) {
    kernel<Op::var>(dev)(out, in, dims, correction);
  } else if (out.numel() != 0) {
    kernel<Op::fill>(dev)(out, std::numeric_limits<double>::quiet_NaN());
  }
  if (self.dim() == 0) return out.reshape({});
  if (keepdim) return out;
  for (size_t i = dims.size(); i-- > 0;) out = out.squeeze(dims[i]);
  return out;
}

Tensor var_correction(const char* name, const Tensor& t, OptionalIntArrayRef dim,
                      const std::optional<Scalar>& correction, bool keepdim) {
  check_defined(name, t);
  const double c = correction ? correction->toDouble() : 1.0;
  const IntArrayRef dims = dim ? *dim : IntArrayRef();
  if (c == 0 || c == 1) return t.var(dims, c == 1, keepdim);
  if (!autograd::should_record(t)) return var_kernel_path(name, t, dims, c, keepdim);
  const double n = static_cast<double>(reduced_count(name, t, dims));
  return t.var(dims, false, keepdim) * (n / (n - c));
}

Tensor logsumexp_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  check_defined("logsumexp", self);
  reduction_dims("logsumexp", dim, self.dim());  // names the op for a bad or repeated dim
  Tensor x = is_integral(self.dtype(), true) ? self.to(default_float_dtype()) : self;
  if (x.numel() == 0) return x.exp().sum(dim, keepdim).log();
  // The shift: the maximum, without history (it cancels); 0 where it is infinite.
  auto shift = [&](bool keep) {
    Tensor m = x.detach().amax(dim, keep);
    return m.masked_fill(m.abs().eq(std::numeric_limits<double>::infinity()), 0);
  };
  return (x - shift(true)).exp().sum(dim, keepdim).log() + shift(keepdim);
}

}  // namespace

// ---- Tensor methods ----
std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  auto [v, i] = untracked([&] { return sort_impl(*this, dim, descending); });
  const int64_t d = wrap_dim("sort", dim, this->dim());
  return record_pair("SortBackward0", "sort", *this, v, i, d, true);
}
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                        bool descending) const {
  (void)stable;  // every sort is stable
  auto [v, i] = untracked([&] { return sort_impl(*this, dim, descending); });
  const int64_t d = wrap_dim("sort", dim, this->dim());
  return record_pair("SortBackward1", "sort", *this, v, i, d, true);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  check_defined("argsort", *this);
  return std::get<1>(untracked([&] { return sort_impl(*this, dim, descending); }));
}
Tensor Tensor::argsort(bool stable, int64_t dim, bool descending) const {
  (void)stable;
  return argsort(dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  (void)sorted;  // the k values always come in order
  auto [v, i] = untracked([&] { return topk_impl(*this, k, dim, largest); });
  const int64_t d = wrap_dim("topk", dim, this->dim());
  return record_pair("TopkBackward0", "topk", *this, v, i, d, true);
}
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  EMBER_CHECK(k >= 1, "kthvalue(): selected number k out of range (k = ", k, ")");
  auto [v, i] = untracked([&] { return select_impl("kthvalue", *this, k, dim, keepdim); });
  const int64_t d = wrap_dim("kthvalue", dim, this->dim());
  return record_pair("KthvalueBackward0", "kthvalue", *this, v, i, d, keepdim);
}
Tensor Tensor::median() const { return median_all("median", "MedianBackward0", *this, false); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  auto [v, i] = untracked([&] { return select_impl("median", *this, 0, dim, keepdim); });
  const int64_t d = wrap_dim("median", dim, this->dim());
  return record_pair("MedianBackward1", "median", *this, v, i, d, keepdim);
}
Tensor Tensor::nanmedian() const {
  return median_all("nanmedian", "NanmedianBackward0", *this, true);
}
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  auto [v, i] = untracked([&] { return select_impl("nanmedian", *this, -1, dim, keepdim); });
  const int64_t d = wrap_dim("nanmedian", dim, this->dim());
  return record_pair("NanmedianBackward1", "nanmedian", *this, v, i, d, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  auto [v, i] = untracked([&] { return mode_impl(*this, dim, keepdim); });
  const int64_t d = wrap_dim("mode", dim, this->dim());
  return record_pair("ModeBackward0", "mode", *this, v, i, d, keepdim);
}
Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  if (autograd::should_record(*this)) return detail::recorded::cumsum(*this, dim, dtype);
  return scan_impl(Op::cumsum, "cumsum", *this, dim, dtype);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  if (autograd::should_record(*this)) return detail::recorded::cumprod(*this, dim, dtype);
  return scan_impl(Op::cumprod, "cumprod", *this, dim, dtype);
}
Tensor& Tensor::cumsum_(int64_t dim, std::optional<ScalarType> dtype) const {
  check_defined("cumsum_", *this);
  copy_(cumsum(dim, dtype));
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::cumprod_(int64_t dim, std::optional<ScalarType> dtype) const {
  check_defined("cumprod_", *this);
  copy_(cumprod(dim, dtype));
  return const_cast<Tensor&>(*this);
}
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const {
  auto [v, i] = untracked([&] { return cum_extremum(true, *this, dim); });
  return record_pair("CummaxBackward0", "cummax", *this, v, i, wrap_dim("cummax", dim, this->dim()),
                     true);
}
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const {
  auto [v, i] = untracked([&] { return cum_extremum(false, *this, dim); });
  return record_pair("CumminBackward0", "cummin", *this, v, i, wrap_dim("cummin", dim, this->dim()),
                     true);
}
Tensor Tensor::logsumexp(IntArrayRef dim, bool keepdim) const {
  return logsumexp_impl(*this, dim, keepdim);
}
Tensor Tensor::nansum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  check_defined("nansum", *this);
  const Tensor x = ::ember::is_floating_point(this->dtype()) ? masked_fill(ne(*this), 0) : *this;
  return x.sum(dim, keepdim, dtype);
}
Tensor Tensor::nanmean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  check_defined("nanmean", *this);
  EMBER_CHECK(::ember::is_floating_point(this->dtype()),
              "nanmean(): expected input to have floating point dtype but got ", this->dtype());
  return nansum(dim, keepdim, dtype) / eq(*this).sum(dim, keepdim);
}
Tensor Tensor::count_nonzero(IntArrayRef dim) const { return ne(0).sum(dim, false); }
Tensor Tensor::count_nonzero(std::optional<int64_t> dim) const {
  return dim ? ne(0).sum(IntArrayRef(*dim), false) : ne(0).sum();
}

// ---- free functions ----
std::tuple<Tensor, Tensor> sort(const Tensor& t, int64_t dim, bool descending) {
  return t.sort(dim, descending);
}
std::tuple<Tensor, Tensor> sort(const Tensor& t, std::optional<bool> stable, int64_t dim,
                                bool descending) {
  return t.sort(stable, dim, descending);
}
Tensor argsort(const Tensor& t, int64_t dim, bool descending) { return t.argsort(dim, descending); }
Tensor argsort(const Tensor& t, bool stable, int64_t dim, bool descending) {
  return t.argsort(stable, dim, descending);
}
std::tuple<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  return t.topk(k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
  return t.kthvalue(k, dim, keepdim);
}
Tensor median(const Tensor& t) { return t.median(); }
std::tuple<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim) {
  return t.median(dim, keepdim);
}
Tensor nanmedian(const Tensor& t) { return t.nanmedian(); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim) {
  return t.nanmedian(dim, keepdim);
}
std::tuple<Tensor, Tensor> mode(const Tensor& t, int64_t dim, bool keepdim) {
  return t.mode(dim, keepdim);
}
Tensor cumsum(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  return t.cumsum(dim, dtype);
}
Tensor cumprod(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype) {
  return t.cumprod(dim, dtype);
}
std::tuple<Tensor, Tensor> cummax(const Tensor& t, int64_t dim) { return t.cummax(dim); }
std::tuple<Tensor, Tensor> cummin(const Tensor& t, int64_t dim) { return t.cummin(dim); }
Tensor logsumexp(const Tensor& t, IntArrayRef dim, bool keepdim) {
  return t.logsumexp(dim, keepdim);
}
Tensor nansum(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return t.nansum(dim, keepdim, dtype);
}
Tensor nanmean(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return t.nanmean(dim, keepdim, dtype);
}
Tensor count_nonzero(const Tensor& t, IntArrayRef dim) { return t.count_nonzero(dim); }
Tensor count_nonzero(const Tensor& t, std::optional<int64_t> dim) { return t.count_nonzero(dim); }
Tensor var(const Tensor& t, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
           bool keepdim) {
  return var_correction("var", t, dim, correction, keepdim);
}
Tensor std(const Tensor& t, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
           bool keepdim) {
  return var_correction("std", t, dim, correction, keepdim).sqrt();
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, bool unbiased) {
  check_defined("var_mean", t);
  Tensor v = t.var(unbiased);
  return std::make_tuple(v, t.mean());
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, IntArrayRef dim, bool unbiased, bool keepdim) {
  check_defined("var_mean", t);
  Tensor v = t.var(dim, unbiased, keepdim);
  return std::make_tuple(v, t.mean(dim, keepdim));
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, OptionalIntArrayRef dim,
                                    const std::optional<Scalar>& correction, bool keepdim) {
  check_defined("var_mean", t);
  Tensor v = var(t, dim, correction, keepdim);
  return std::make_tuple(v, t.mean(dim ? *dim : IntArrayRef(), keepdim));
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, bool unbiased) {
  check_defined("std_mean", t);
  Tensor s = t.std(unbiased);
  return std::make_tuple(s, t.mean());
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, IntArrayRef dim, bool unbiased, bool keepdim) {
  check_defined("std_mean", t);
  Tensor s = t.std(dim, unbiased, keepdim);
  return std::make_tuple(s, t.mean(dim, keepdim));
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, OptionalIntArrayRef dim,
                                    const std::optional<Scalar>& correction, bool keepdim) {
  check_defined("std_mean", t);
  Tensor s = std(t, dim, correction, keepdim);
  return std::make_tuple(s, t.mean(dim ? *dim : IntArrayRef(), keepdim));
}

}  // namespace ember
