// unique: _unique, _unique2, unique_dim, unique_consecutive, unique_dim_consecutive. Computed on
// the CPU (a CUDA input is copied to the host and the results back: their size depends on data).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <type_traits>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/tensor.h>

namespace ember {
namespace {

// The groups of equal elements (or rows): rep[g] is the position of group g's first element,
// inverse[i] the group of element i, counts[g] its size.
struct Groups {
  std::vector<int64_t> rep, inverse, counts;
};

template <class T>
bool less_value(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a)) return false;  // NaNs last; each NaN is its own value
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// rows [n, m] contiguous: row i is data[i m, (i + 1) m). sorted: groups in ascending order;
// otherwise runs of consecutive equal rows.
template <class T>
Groups group_rows(const T* data, int64_t n, int64_t m, bool sorted) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  auto row_less = [&](int64_t a, int64_t b) {
    for (int64_t j = 0; j < m; ++j) {
      const T x = data[a * m + j], y = data[b * m + j];
      if (less_value(x, y)) return true;
      if (less_value(y, x)) return false;
      if (!(x == y)) return false;  // two NaNs: keep their order
    }
    return false;
  };
  auto row_equal = [&](int64_t a, int64_t b) {
    for (int64_t j = 0; j < m; ++j) {
      if (!(data[a * m + j] == data[b * m + j])) return false;
    }
    return true;
  };
  if (sorted) std::stable_sort(order.begin(), order.end(), row_less);
  Groups g;
  g.inverse.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = order[static_cast<size_t>(i)];
    if (i == 0 || !row_equal(at, order[static_cast<size_t>(i - 1)])) {
      g.rep.push_back(at);
      g.counts.push_back(0);
    }
    g.inverse[static_cast<size_t>(at)] = static_cast<int64_t>(g.rep.size()) - 1;
    ++g.counts.back();
  }
  return g;
}

Tensor long_tensor(const std::vector<int64_t>& v, IntArrayRef shape) {
  return tensor(ArrayRef<int64_t>(v), kInt64).reshape(shape);
}

Tensor empty_long(Device device) {
  return empty({0}, TensorOptions().dtype(kInt64).device(device));
}

// The groups of the rows of x [n, m] (x on the CPU, any layout).
Groups groups_of(const Tensor& x, bool sorted) {
  const Tensor c = x.contiguous();
  const int64_t n = c.size(0), m = c.size(1);
  Groups g;
  EMBER_DISPATCH_ALL_TYPES(c.dtype(), "unique",
                           [&] { g = group_rows(c.data_ptr<scalar_t>(), n, m, sorted); });
  return g;
}

// Flattened unique (sorted, or runs of consecutive values).
std::tuple<Tensor, Tensor, Tensor> unique_flat(const Tensor& self, bool sorted, bool inverse,
                                               bool counts) {
  NoGradGuard no_grad;
  const Tensor x = self.detach().to(kCPU).reshape({-1, 1});
  const Groups g = groups_of(x, sorted);
  const Device dev = self.device();
  const Tensor values =
      x.reshape({-1}).index_select(0, long_tensor(g.rep, {static_cast<int64_t>(g.rep.size())}));
  Tensor inv = inverse ? long_tensor(g.inverse, self.sizes()).to(dev) : empty_long(dev);
  Tensor cnt = counts ? long_tensor(g.counts, {static_cast<int64_t>(g.counts.size())}).to(dev)
                      : empty_long(dev);
  return {values.to(dev), inv, cnt};
}

// Unique slices along dim; inverse and counts are always computed (as LibTorch's).
std::tuple<Tensor, Tensor, Tensor> unique_along(const Tensor& self, int64_t dim, bool sorted) {
  NoGradGuard no_grad;
  const int64_t d = wrap_dim("unique_dim", dim, self.dim());
  const Tensor x = self.detach().to(kCPU);
  const int64_t n = x.size(d);
  const Device dev = self.device();
  if (n == 0 || x.numel() == 0) {
    EMBER_CHECK(n == 0,
                "unique_dim: Number of zero sized dimensions is more than one, so "
                "unique cannot be applied");
    return {self.detach().clone(), empty_long(dev), empty_long(dev)};
  }
  DimVector perm{d};
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (i != d) perm.push_back(i);
  }
  const Tensor rows = x.permute(perm).reshape({n, -1});
  const Groups g = groups_of(rows, sorted);
  const int64_t k = static_cast<int64_t>(g.rep.size());
  const Tensor values = x.index_select(d, long_tensor(g.rep, {k}));
  return {values.to(dev), long_tensor(g.inverse, {n}).to(dev), long_tensor(g.counts, {k}).to(dev)};
}

}  // namespace

std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool sorted, bool return_inverse) {
  auto [values, inverse, counts] = unique_flat(self, true, return_inverse, false);
  (void)sorted;  // always sorted: one valid order of the unsorted form
  (void)counts;
  return {values, inverse};
}

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted, bool return_inverse,
                                            bool return_counts) {
  (void)sorted;
  return unique_flat(self, true, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted,
                                              bool return_inverse, bool return_counts) {
  (void)sorted;
  (void)return_inverse;
  (void)return_counts;
  return unique_along(self, dim, true);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  if (dim && self.dim() > 1)
    return unique_dim_consecutive(self, *dim, return_inverse, return_counts);
  if (dim) wrap_dim("unique_consecutive", *dim, self.dim());
  return unique_flat(self, false, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive(const Tensor& self, int64_t dim,
                                                          bool return_inverse, bool return_counts) {
  (void)return_inverse;
  (void)return_counts;
  return unique_along(self, dim, false);
}

}  // namespace ember
