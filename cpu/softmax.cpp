// CPU softmax and log_softmax along any dim, numerically stable (the max is subtracted
// before exp). Eigen's array exp is vectorized, so rows go through Eigen maps.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include <ember/common/softmax_geometry.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {
namespace {

// Lanes of the softmax dim's neighbours handled at once when dim is not the last one.
constexpr int64_t kChunk = 1024;

template <class T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
template <class T>
using StridedIn = Eigen::Map<const Array<T>, Eigen::Unaligned, Eigen::InnerStride<>>;
template <class T>
using ContigIn = Eigen::Map<const Array<T>>;
template <class T>
using Out = Eigen::Map<Array<T>>;

using Geometry = common::SoftmaxGeometry;  // common/softmax_geometry.h

template <bool kLog, class T, class In>
void softmax_row(T* y, const In& x) {
  const T max = x.maxCoeff();
  Out<T> out(y, x.size());
  if (kLog) {
    const T sum = (x - max).exp().sum();
    out = (x - max) - std::log(sum);  // x - max first: exact for the largest entries
  } else {
    out = (x - max).exp();
    out *= T(1) / out.sum();
  }
}

// Softmax over rows of `size` elements; rows are outer positions (inner == 1).
template <bool kLog, class T>
void softmax_last(T* y, const T* x, const Geometry& g) {
  parallel_range(g.outer, std::max<int64_t>(1, kParallelGrain / g.size),
                 [&](int64_t o0, int64_t o1) {
                   for (int64_t o = o0; o < o1; ++o) {
                     const T* row = x + o * g.outer_stride;
                     if (g.stride == 1) {
                       softmax_row<kLog>(y + o * g.size, ContigIn<T>(row, g.size));
                     } else {
                       softmax_row<kLog>(y + o * g.size,
                                         StridedIn<T>(row, g.size, Eigen::InnerStride<>(g.stride)));
                     }
                   }
                 });
}

// Softmax along a dim that has inner neighbours: a chunk of inner lanes is processed
// together, so every pass reads rows of lanes, not columns.
template <bool kLog, bool kContig, class T>
void softmax_inner(T* y, const T* x, const Geometry& g) {
  int64_t width_max = std::min(g.inner, kChunk);
  const int64_t threads = get_num_threads();
  if (g.outer * ((g.inner + width_max - 1) / width_max) < threads &&
      g.outer * g.size * g.inner > kParallelGrain) {
    width_max = std::max<int64_t>(16, (g.inner / threads + 15) / 16 * 16);  // share the lanes
  }
  const int64_t chunks = (g.inner + width_max - 1) / width_max;
  const int64_t work = width_max * g.size;
  parallel_range(
      g.outer * chunks, std::max<int64_t>(1, kParallelGrain / work), [&](int64_t w0, int64_t w1) {
        T max_buf[kChunk], sum_buf[kChunk];
        for (int64_t w = w0; w < w1; ++w) {
          const int64_t o = w / chunks, j0 = (w % chunks) * width_max;
          const int64_t width = std::min(width_max, g.inner - j0);
          const T* xb = x + o * g.outer_stride + j0 * g.inner_stride;
          T* yb = y + o * g.size * g.inner + j0;
          Out<T> max(max_buf, width), sum(sum_buf, width);
          auto in_row = [&](int64_t d) {  // a unit inner stride lets Eigen vectorize
            if constexpr (kContig) {
              return ContigIn<T>(xb + d * g.stride, width);
            } else {
              return StridedIn<T>(xb + d * g.stride, width, Eigen::InnerStride<>(g.inner_stride));
            }
          };
          max = in_row(0);
          for (int64_t d = 1; d < g.size; ++d) max = max.max(in_row(d));
          sum.setZero();
          for (int64_t d = 0; d < g.size; ++d) {
            Out<T> out(yb + d * g.inner, width);
            out = (in_row(d) - max).exp();
            sum += out;
          }
          if (kLog) {
            sum = sum.log();
            for (int64_t d = 0; d < g.size; ++d) {
              Out<T>(yb + d * g.inner, width) = (in_row(d) - max) - sum;
            }
          } else {
            sum = sum.inverse();
            for (int64_t d = 0; d < g.size; ++d) Out<T>(yb + d * g.inner, width) *= sum;
          }
        }
      });
}

template <bool kLog>
void softmax_kernel(const Tensor& out, const Tensor& in_, int64_t dim) {
  Geometry g;
  const Tensor in = common::softmax_geometry(in_, dim, g);
  if (in.numel() == 0) return;
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), kLog ? "log_softmax" : "softmax", [&] {
    scalar_t* y = out.data_ptr<scalar_t>();
    const scalar_t* x = in.data_ptr<scalar_t>();
    if (g.inner == 1) {
      softmax_last<kLog>(y, x, g);
    } else if (g.inner_stride == 1) {
      softmax_inner<kLog, true>(y, x, g);
    } else {
      softmax_inner<kLog, false>(y, x, g);
    }
  });
}

}  // namespace

void register_softmax_kernels() {
  register_kernel<Op::softmax>(kCPU, softmax_kernel<false>);
  register_kernel<Op::log_softmax>(kCPU, softmax_kernel<true>);
}

}  // namespace cpu
}  // namespace ember
