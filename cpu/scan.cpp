// CPU scans along one dim of a contiguous tensor, seen as [outer, n, inner]: cumsum and cumprod
// (floats accumulate in double, integers in int64, as LibTorch's CPU kernels), cummax, cummin.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <ember/common/scan_geometry.h>
#include <ember/common/sort_keys.h>
#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {
namespace {

using common::scan_shape;
using common::ScanShape;  // common/scan_geometry.h, shared with cuda/scan.cu
template <class T>
using Acc = common::ScanAcc<T>;

// The scan of each [n, inner] slab: inner columns side by side, so the loop over them vectorizes.
template <bool kProd, class T>
void cum_kernel(const Tensor& out, const Tensor& in, int64_t dim) {
  const ScanShape s = scan_shape(in, dim);
  const T* x = in.data_ptr<T>();
  T* y = out.data_ptr<T>();
  const int64_t slab = s.n * s.inner;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(slab, 1));
  parallel_for(0, s.outer, grain, [&](int64_t o0, int64_t o1) {
    std::vector<Acc<T>> acc(static_cast<size_t>(s.inner));
    for (int64_t o = o0; o < o1; ++o) {
      const T* xs = x + o * slab;
      T* ys = y + o * slab;
      std::fill(acc.begin(), acc.end(), Acc<T>(kProd ? 1 : 0));
      for (int64_t i = 0; i < s.n; ++i) {
        const T* xr = xs + i * s.inner;
        T* yr = ys + i * s.inner;
        for (int64_t j = 0; j < s.inner; ++j) {
          if (kProd) {
            acc[j] *= static_cast<Acc<T>>(xr[j]);
          } else {
            acc[j] += static_cast<Acc<T>>(xr[j]);
          }
          yr[j] = static_cast<T>(acc[j]);
        }
      }
    }
  });
}

template <bool kProd>
void cum(const Tensor& out, const Tensor& in, int64_t dim) {
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kProd ? "cumprod" : "cumsum",
                           [&] { cum_kernel<kProd, scalar_t>(out, in, dim); });
}

template <bool kMax, class T>
void cum_extremum_kernel(const Tensor& values, const Tensor& indices, const Tensor& in,
                         int64_t dim) {
  const ScanShape s = scan_shape(in, dim);
  const T* x = in.data_ptr<T>();
  T* v = values.data_ptr<T>();
  int64_t* ix = indices.data_ptr<int64_t>();
  const int64_t slab = s.n * s.inner;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(slab, 1));
  parallel_for(0, s.outer, grain, [&](int64_t o0, int64_t o1) {
    std::unique_ptr<T[]> best(new T[static_cast<size_t>(s.inner)]);
    std::vector<int64_t> at(static_cast<size_t>(s.inner));
    for (int64_t o = o0; o < o1; ++o) {
      const int64_t base = o * slab;
      for (int64_t i = 0; i < s.n; ++i) {
        const int64_t row = base + i * s.inner;
        for (int64_t j = 0; j < s.inner; ++j) {
          const T xv = x[row + j];
          if (i == 0 || common::cum_takes<kMax>(xv, best[j])) {
            best[j] = xv;
            at[j] = i;
          }
          v[row + j] = best[j];
          ix[row + j] = at[j];
        }
      }
    }
  });
}

template <bool kMax>
void cum_extremum(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kMax ? "cummax" : "cummin",
                           [&] { cum_extremum_kernel<kMax, scalar_t>(values, indices, in, dim); });
}

}  // namespace

void register_scan_kernels() {
  register_kernel<Op::cumsum>(kCPU, cum<false>);
  register_kernel<Op::cumprod>(kCPU, cum<true>);
  register_kernel<Op::cummax>(kCPU, cum_extremum<true>);
  register_kernel<Op::cummin>(kCPU, cum_extremum<false>);
}

}  // namespace cpu
}  // namespace ember
