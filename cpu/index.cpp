// CPU index_select, gather and scatter_add over strided tensors of every dtype. All three
// are one walk: the indexed operand gets stride 0 along dim and each element adds
// index * stride(dim) to its offset, so one collapsed N-d loop serves them all.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <ember/common/index_geometry.h>
#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {
namespace {

using common::IndexWalk;  // common/index_geometry.h, shared with cuda/index.cu
using common::kDst;
using common::kIdx;
using common::kSrc;

// Gather mode: dst[i] = src[i + index[i] * step]; scatter mode: dst[i + index[i] * step] +=
// src[i]. Offsets in elements; a zero index stride means one index for the whole run. A
// negative index counts from the end when `wrap` (the indexed dim's size) is given (index_rows).
template <bool kScatter, class T>
void inner(T* dst, const T* src, const int64_t* idx, const int64_t* s, int64_t n, int64_t step,
           int64_t wrap) {
  const int64_t ds = s[kDst], ss = s[kSrc], xs = s[kIdx];
  if (xs == 0) {  // index_select along an outer dim: a plain (often contiguous) row copy
    const int64_t shift = (*idx < 0 ? *idx + wrap : *idx) * step;
    if (kScatter) {
      T* d = dst + shift;
      for (int64_t j = 0; j < n; ++j) d[j * ds] += src[j * ss];
    } else {
      const T* from = src + shift;
      if (ds == 1 && ss == 1) {
        std::memcpy(dst, from, static_cast<size_t>(n) * sizeof(T));
      } else {
        for (int64_t j = 0; j < n; ++j) dst[j * ds] = from[j * ss];
      }
    }
    return;
  }
  for (int64_t j = 0; j < n; ++j) {
    if (kScatter) {
      dst[j * ds + idx[j * xs] * step] += src[j * ss];
    } else {
      const int64_t x = idx[j * xs];
      dst[j * ds] = src[j * ss + (x < 0 ? x + wrap : x) * step];
    }
  }
}

// Walks w.sizes with three operands; w.step is the indexed operand's stride along dim (src's
// in gather mode, dst's in scatter mode).
template <bool kScatter, class T>
void walk(T* dst, const T* src, const int64_t* idx, const IndexWalk& w, int64_t wrap = 0) {
  const int64_t step = w.step;
  const StridedGeometry g = w.collapse();
  const size_t nd = g.sizes.size();
  const int64_t n = g.sizes[nd - 1];
  if (n == 0) return;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < nd; ++d) rows *= g.sizes[d];
  const int64_t last[3] = {g.strides[0][nd - 1], g.strides[1][nd - 1], g.strides[2][nd - 1]};
  // Scatter may hit one destination from many rows, so it stays on one thread.
  const int64_t grain = kScatter ? rows : std::max<int64_t>(1, kParallelGrain / n);
  parallel_range(rows, grain, [&](int64_t r0, int64_t r1) {
    DimVector index(nd);
    int64_t off[3] = {0, 0, 0};
    int64_t rest = r0;
    for (size_t d = nd - 1; d-- > 0;) {
      index[d] = rest % g.sizes[d];
      rest /= g.sizes[d];
      for (int k = 0; k < 3; ++k) off[k] += index[d] * g.strides[k][d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      inner<kScatter>(dst + off[kDst], src + off[kSrc], idx + off[kIdx], last, n, step, wrap);
      for (size_t d = nd - 1; d-- > 0;) {  // next row
        if (++index[d] < g.sizes[d]) {
          for (int k = 0; k < 3; ++k) off[k] += g.strides[k][d];
          break;
        }
        for (int k = 0; k < 3; ++k) off[k] -= (g.sizes[d] - 1) * g.strides[k][d];
        index[d] = 0;
      }
    }
  });
}

// out = in.index_select(dim, index). index_rows: the same with negative indices counting from
// the end (wrap: in's size along dim).
template <bool kWrap>
void index_select_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  const IndexWalk w = common::index_select_walk(out, in, dim, index);
  const int64_t wrap = kWrap && dim < in.dim() ? w.limit : 0;
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), "index_select", [&] {
    walk<false>(out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), index.data_ptr<int64_t>(), w,
                wrap);
  });
}

// out = in.gather(dim, index).
void gather_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  const IndexWalk w = common::gather_walk(out, in, dim, index);
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), "gather", [&] {
    walk<false>(out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), index.data_ptr<int64_t>(), w);
  });
}

// out (already self's copy) .scatter_add_(dim, index, in).
void scatter_add_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (index.numel() == 0) return;
  const IndexWalk w = common::scatter_walk(out, in, dim, index);
  EMBER_DISPATCH_NUMERIC_TYPES(out.dtype(), "scatter_add", [&] {
    walk<true>(out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), index.data_ptr<int64_t>(), w);
  });
}

}  // namespace

void register_index_kernels() {
  register_kernel<Op::index_select>(kCPU, index_select_kernel<false>);
  register_kernel<Op::index_rows>(kCPU, index_select_kernel<true>);
  register_kernel<Op::gather>(kCPU, gather_kernel);
  register_kernel<Op::scatter_add>(kCPU, scatter_add_kernel);
}

}  // namespace cpu
}  // namespace ember
