// CPU max_dim and min_dim: the extremum along one dim and the first index where it occurs
// (a NaN wins, as in PyTorch). Contiguous rows take a vectorized max, then a blocked search.
#include <algorithm>
#include <cstdint>
#include <limits>

#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>
#include <ember/common/reduce_geometry.h>
#include <ember/common/reduce_math.h>

namespace ember {
namespace cpu {
namespace {

using common::is_nan;  // common/reduce_geometry.h
using common::Odometer;

// NaN-propagating max (kMax) or min of n contiguous elements, in independent lanes that
// the compiler keeps in vector registers.
template <bool kMax, class T>
T extremum(const T* x, int64_t n) {
  constexpr int64_t kLanes = 64 / sizeof(T);
  auto pick = [](T a, T b) { return common::nan_extremum<kMax>(a, b); };
  T lane[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) lane[j] = x[0];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t j = 0; j < kLanes; ++j) lane[j] = pick(lane[j], x[i + j]);
  }
  for (; i < n; ++i) lane[0] = pick(lane[0], x[i]);
  for (int64_t j = 1; j < kLanes; ++j) lane[0] = pick(lane[0], lane[j]);
  return lane[0];
}

template <bool kMax, class T>
inline bool better(T x, T best) {
  return (kMax ? x > best : x < best) || (is_nan(x) && !is_nan(best));
}

// The first i with x[i] == v (or NaN when v is NaN), given that one exists. Blocks are
// tested with a branch-free any(), which vectorizes, before the exact position is found.
template <class T>
int64_t find_first(const T* x, int64_t n, T v) {
  if (is_nan(v)) {
    for (int64_t i = 0; i < n; ++i) {
      if (is_nan(x[i])) return i;
    }
  }
  constexpr int64_t kStep = 32;
  int64_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    int any = 0;
    for (int64_t j = 0; j < kStep; ++j) any |= x[i + j] == v;
    if (any) break;
  }
  for (; i < n; ++i) {
    if (x[i] == v) return i;
  }
  return 0;
}

template <bool kMax, class T>
void arg_reduce(T* values, int64_t* indices, const T* in, const common::ReduceGeometry& g) {
  const int64_t M = g.outputs, N = g.length;
  const int64_t rstride = g.rsize.empty() ? 1 : g.rstride[0];
  if (!g.rsize.empty() && !g.ksize.empty() && g.kstride.back() == 1 && rstride != 1) {
    // Column form: a row of kept lanes compared at once against each reduced row.
    const int64_t inner = g.ksize.back();
    const DimVector osize(IntArrayRef(g.ksize.data(), g.ksize.size() - 1));
    const DimVector ostride(IntArrayRef(g.kstride.data(), g.kstride.size() - 1));
    parallel_range(M / inner, std::max<int64_t>(1, kParallelGrain / (N * inner)),
                   [&](int64_t o0, int64_t o1) {
                     for (int64_t o = o0; o < o1; ++o) {
                       const T* base = in + Odometer(osize, ostride, o).offset;
                       T* v = values + o * inner;
                       int64_t* idx = indices + o * inner;
                       for (int64_t j = 0; j < inner; ++j) {
                         v[j] = base[j];
                         idx[j] = 0;
                       }
                       for (int64_t r = 1; r < N; ++r) {
                         const T* row = base + r * rstride;
                         for (int64_t j = 0; j < inner; ++j) {
                           if (better<kMax>(row[j], v[j])) {
                             v[j] = row[j];
                             idx[j] = r;
                           }
                         }
                       }
                     }
                   });
    return;
  }
  parallel_range(M, std::max<int64_t>(1, kParallelGrain / N), [&](int64_t o0, int64_t o1) {
    Odometer it(g.ksize, g.kstride, o0);
    for (int64_t o = o0; o < o1; ++o, it.next()) {
      const T* x = in + it.offset;
      if (rstride == 1) {
        const int64_t i = find_first(x, N, extremum<kMax>(x, N));
        values[o] = x[i];
        indices[o] = i;
        continue;
      }
      T best = x[0];
      int64_t best_i = 0;
      for (int64_t i = 1; i < N; ++i) {
        if (better<kMax>(x[i * rstride], best)) {
          best = x[i * rstride];
          best_i = i;
        }
      }
      values[o] = best;
      indices[o] = best_i;
    }
  });
}

template <bool kMax>
void arg_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kMax ? "max" : "min", [&] {
    const common::ReduceGeometry g = common::make_reduce_geometry(in, IntArrayRef(dim));
    arg_reduce<kMax>(values.data_ptr<scalar_t>(), indices.data_ptr<int64_t>(),
                     in.data_ptr<scalar_t>(), g);
  });
}

}  // namespace

void register_arg_reduce_kernels() {
  register_kernel<Op::max_dim>(kCPU, arg_kernel<true>);
  register_kernel<Op::min_dim>(kCPU, arg_kernel<false>);
}

}  // namespace cpu
}  // namespace ember
