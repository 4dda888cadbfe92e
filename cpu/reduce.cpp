// CPU reductions: sum prod mean amax amin var norm all any over any set of dims (max_dim and
// min_dim are in arg_reduce.cpp). One geometry pass picks a contiguous-row loop, a column loop
// (reduced dim outside a contiguous kept dim) or a strided walk; float sums use blocked lanes.
#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>
#include <ember/common/reduce_geometry.h>
#include <ember/common/reduce_math.h>

namespace ember {
namespace cpu {
namespace {

using Geometry = common::ReduceGeometry;  // common/reduce_geometry.h
using common::make_reduce_geometry;
using common::Odometer;

// Elements summed in lanes before the block's result joins the (wider) total: a two-level
// cascade that keeps float32 sums accurate (error ~ kBlock / lanes, not ~ n) at full speed.
constexpr int64_t kBlock = 4096;
constexpr int64_t kColRows = 128;  // block of the column and strided loops, for the same reason
// Kept lanes handled together by the column loop: wide enough that each strided row is read
// as a long contiguous run (short runs cost a TLB miss per row), small enough for L1/L2.
constexpr int64_t kColChunk = 2048;
constexpr size_t kLaneBytes = 128;  // 4 AVX2 registers of independent accumulators

// ---- inner loops over a reducer R (common/reduce_math.h): map each element, combine lanes
// (Acc) and block totals (Total) ----

// Reduces n contiguous elements: kLanes independent accumulators per block of kBlock.
template <class R, class T>
typename R::Total reduce_contig(const T* x, int64_t n, typename R::Acc shift) {
  using Acc = typename R::Acc;
  using Total = typename R::Total;
  constexpr int kLanes = static_cast<int>(kLaneBytes / sizeof(Acc));
  if (n < kLanes) {  // short rows: setting up and folding the lanes would cost more
    Acc acc = R::identity();
    for (int64_t i = 0; i < n; ++i) acc = R::combine(acc, R::map(x[i], shift));
    return static_cast<Total>(acc);
  }
  Total total = static_cast<Total>(R::identity());
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    Acc lane[kLanes];
    for (int j = 0; j < kLanes; ++j) lane[j] = R::identity();
    int64_t i = b;
    for (; i + kLanes <= e; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) lane[j] = R::combine(lane[j], R::map(x[i + j], shift));
    }
    for (int j = 0; i < e; ++i, ++j) lane[j] = R::combine(lane[j], R::map(x[i], shift));
    for (int w = kLanes / 2; w >= 1; w /= 2) {
      for (int j = 0; j < w; ++j) lane[j] = R::combine(lane[j], lane[j + w]);
    }
    total = R::combine(total, static_cast<Total>(lane[0]));
  }
  return total;
}

template <class R, class T>
typename R::Total reduce_strided(const T* x, int64_t n, int64_t stride, typename R::Acc shift) {
  using Total = typename R::Total;
  if (stride == 1) return reduce_contig<R>(x, n, shift);
  Total total = static_cast<Total>(R::identity());
  for (int64_t b = 0; b < n; b += kColRows) {
    typename R::Acc acc = R::identity();
    for (int64_t i = b, e = std::min(n, b + kColRows); i < e; ++i) {
      acc = R::combine(acc, R::map(x[i * stride], shift));
    }
    total = R::combine(total, static_cast<Total>(acc));
  }
  return total;
}

// ---- the three loop shapes ----

template <class R, class T, class Out>
void reduce_geometry(Out* out, const T* in, const Geometry& g, double param,
                     const typename R::Acc* shifts) {
  using Acc = typename R::Acc;
  using Total = typename R::Total;
  const int64_t M = g.outputs, N = g.length;
  auto shift_at = [&](int64_t o) { return R::kShift ? shifts[o] : Acc(); };

  if (g.rsize.empty() || (g.rsize.size() == 1 && g.rstride[0] == 1)) {
    if (M == 1 && N > 2 * kBlock) {
      // One long row: blocks reduced in parallel, then combined in order, so the result
      // does not depend on the number of threads.
      const int64_t nblocks = (N + kBlock - 1) / kBlock;
      // Not std::vector<bool>: its packed bits would make the threads' writes race.
      using Slot = std::conditional_t<std::is_same<Total, bool>::value, uint8_t, Total>;
      std::vector<Slot> partial(nblocks);
      parallel_range(nblocks, kParallelGrain / kBlock, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          partial[b] =
              reduce_contig<R>(in + b * kBlock, std::min(kBlock, N - b * kBlock), shift_at(0));
        }
      });
      Total total = static_cast<Total>(R::identity());
      for (Slot p : partial) total = R::combine(total, static_cast<Total>(p));
      out[0] = R::project(total, N, param);
      return;
    }
    parallel_range(M, std::max<int64_t>(1, kParallelGrain / N), [&](int64_t o0, int64_t o1) {
      Odometer it(g.ksize, g.kstride, o0);
      for (int64_t o = o0; o < o1; ++o, it.next()) {
        out[o] = R::project(reduce_contig<R>(in + it.offset, N, shift_at(o)), N, param);
      }
    });
    return;
  }

  if (g.rsize.size() == 1 && !g.ksize.empty() && g.kstride.back() == 1) {
    // Column loop: out[o, j] over a contiguous run of kept lanes j, rows r strided.
    const int64_t inner = g.ksize.back(), rstride = g.rstride[0];
    const DimVector osize(IntArrayRef(g.ksize.data(), g.ksize.size() - 1));
    const DimVector ostride(IntArrayRef(g.kstride.data(), g.kstride.size() - 1));
    const int64_t outer = M / inner;
    int64_t width_max = std::min(inner, kColChunk);
    if (outer * ((inner + width_max - 1) / width_max) < get_num_threads() &&
        M * N > kParallelGrain) {
      width_max = std::max<int64_t>(16, (inner / get_num_threads() + 15) / 16 * 16);  // share
    }
    const int64_t chunks = (inner + width_max - 1) / width_max;
    const int64_t work = width_max * N;
    parallel_range(outer * chunks, std::max<int64_t>(1, kParallelGrain / work),
                   [&](int64_t w0, int64_t w1) {
                     Acc lane[kColChunk];
                     Total total[kColChunk];
                     Acc shift[kColChunk];
                     for (int64_t w = w0; w < w1; ++w) {
                       const int64_t o = w / chunks, j0 = (w % chunks) * width_max;
                       const int64_t width = std::min(width_max, inner - j0);
                       const T* base = in + Odometer(osize, ostride, o).offset + j0;
                       Out* dst = out + o * inner + j0;
                       for (int64_t j = 0; j < width; ++j) {
                         total[j] = static_cast<Total>(R::identity());
                         shift[j] = R::kShift ? shifts[o * inner + j0 + j] : Acc();
                       }
                       for (int64_t r0 = 0; r0 < N; r0 += kColRows) {
                         for (int64_t j = 0; j < width; ++j) lane[j] = R::identity();
                         for (int64_t r = r0, r1 = std::min(N, r0 + kColRows); r < r1; ++r) {
                           const T* row = base + r * rstride;
                           for (int64_t j = 0; j < width; ++j) {
                             lane[j] = R::combine(lane[j], R::map(row[j], shift[j]));
                           }
                         }
                         for (int64_t j = 0; j < width; ++j) {
                           total[j] = R::combine(total[j], static_cast<Total>(lane[j]));
                         }
                       }
                       for (int64_t j = 0; j < width; ++j) dst[j] = R::project(total[j], N, param);
                     }
                   });
    return;
  }

  // General walk: every output position, every row of the reduced sub-space.
  const DimVector rsize(IntArrayRef(g.rsize.data(), g.rsize.size() - 1));
  const DimVector rstride(IntArrayRef(g.rstride.data(), g.rstride.size() - 1));
  const int64_t row = g.rsize.back(), row_stride = g.rstride.back(), rows = N / row;
  parallel_range(M, std::max<int64_t>(1, kParallelGrain / N), [&](int64_t o0, int64_t o1) {
    Odometer it(g.ksize, g.kstride, o0);
    for (int64_t o = o0; o < o1; ++o, it.next()) {
      Total total = static_cast<Total>(R::identity());
      Odometer rit(rsize, rstride, 0);
      for (int64_t r = 0; r < rows; ++r, rit.next()) {
        total = R::combine(
            total, reduce_strided<R>(in + it.offset + rit.offset, row, row_stride, shift_at(o)));
      }
      out[o] = R::project(total, N, param);
    }
  });
}

template <class R, class T, class Out = T>
void run(const Tensor& out, const Tensor& in, IntArrayRef dims, double param) {
  const Geometry g = make_reduce_geometry(in, dims);
  if constexpr (R::kShift) {  // norm with a general p: the shift is p everywhere
    std::vector<double> p(g.outputs, param);
    reduce_geometry<R>(out.data_ptr<Out>(), in.data_ptr<T>(), g, param, p.data());
  } else {
    reduce_geometry<R>(out.data_ptr<Out>(), in.data_ptr<T>(), g, param, nullptr);
  }
}

// ---- kernels ----

template <template <class> class R>
void additive(const char* name, const Tensor& out, const Tensor& in, IntArrayRef dims,
              double param) {
  switch (in.dtype()) {
    case kFloat32:
      return run<R<float>, float>(out, in, dims, param);
    case kFloat64:
      return run<R<double>, double>(out, in, dims, param);
    case kInt64:
      return run<R<int64_t>, int64_t>(out, in, dims, param);
    default:
      EMBER_THROW(name, ": dtype ", in.dtype(), " is not supported by the CPU kernel");
  }
}

template <template <class> class R>
void floating(const char* name, const Tensor& out, const Tensor& in, IntArrayRef dims,
              double param) {
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), name,
                                [&] { run<R<scalar_t>, scalar_t>(out, in, dims, param); });
}

void sum_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  additive<common::SumR>("sum", out, in, dims, 0);
}

void prod_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  additive<common::ProdR>("prod", out, in, dims, 0);
}

void mean_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  floating<common::MeanR>("mean", out, in, dims, 0);
}

template <bool kMax>
void extremum_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kMax ? "amax" : "amin", [&] {
    run<common::ExtremumR<scalar_t, kMax>, scalar_t>(out, in, dims, 0);
  });
}

template <bool kAll>
void logical_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar&) {
  if (in.dtype() == kUInt8 && out.dtype() == kUInt8) {
    return run<common::LogicalR<kAll, uint8_t>, uint8_t>(out, in, dims, 0);
  }
  EMBER_CHECK(in.dtype() == kBool && out.dtype() == kBool, kAll ? "all" : "any",
              ": the CPU kernel takes bool (or uint8 to uint8), got ", in.dtype(), " to ",
              out.dtype());
  run<common::LogicalR<kAll, bool>, bool>(out, in, dims, 0);
}

// Two passes (mean, then squared deviations from it), both in double: stable and exact
// enough that var of data with a large offset keeps its digits.
void var_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar& correction) {
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "var", [&] {
    const Geometry g = make_reduce_geometry(in, dims);
    std::vector<double> mean(g.outputs);
    const scalar_t* x = in.data_ptr<scalar_t>();
    reduce_geometry<common::MeanDoubleR<scalar_t>>(mean.data(), x, g, 0, nullptr);
    reduce_geometry<common::SquaredDevR<scalar_t>>(out.data_ptr<scalar_t>(), x, g,
                                                   correction.toDouble(), mean.data());
  });
}

void norm_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, const Scalar& p_scalar) {
  const double p = p_scalar.toDouble();
  if (p == 2) return floating<common::Norm2R>("norm", out, in, dims, p);
  if (p == 1) return floating<common::Norm1R>("norm", out, in, dims, p);
  if (p == 0) return floating<common::Norm0R>("norm", out, in, dims, p);
  if (std::isinf(p)) {
    EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "norm", [&] {
      using common::ExtremumR;
      using common::MapAbs;
      if (p > 0) return run<ExtremumR<scalar_t, true, MapAbs>, scalar_t>(out, in, dims, p);
      run<ExtremumR<scalar_t, false, MapAbs>, scalar_t>(out, in, dims, p);
    });
    return;
  }
  floating<common::NormPR>("norm", out, in, dims, p);
}

}  // namespace

void register_reduce_kernels() {
  register_kernel<Op::sum>(kCPU, sum_kernel);
  register_kernel<Op::prod>(kCPU, prod_kernel);
  register_kernel<Op::mean>(kCPU, mean_kernel);
  register_kernel<Op::amax>(kCPU, extremum_kernel<true>);
  register_kernel<Op::amin>(kCPU, extremum_kernel<false>);
  register_kernel<Op::var>(kCPU, var_kernel);
  register_kernel<Op::norm>(kCPU, norm_kernel);
  register_kernel<Op::all>(kCPU, logical_kernel<true>);
  register_kernel<Op::any>(kCPU, logical_kernel<false>);
  register_arg_reduce_kernels();
}

}  // namespace cpu
}  // namespace ember
