// The index walks' geometry, shared by both backends (cpu/index.cpp, cpu/scatter.cpp,
// cuda/index.cu, cuda/scatter.cu): index_select, gather and the scatters as one walk over three
// operands, the indexed one with stride 0 along dim. Host code. Private to the backends.
#pragma once

#include <cstdint>

#include <ember/core/checks.h>
#include <ember/core/tensor.h>

namespace ember {
namespace common {

// Operand slots in the walk.
enum IndexSlot { kDst = 0, kSrc = 1, kIdx = 2 };

// One walk over `sizes`: element i reads or writes the indexed operand (src of a gather, dst of
// a scatter) at its own offset plus index[i] * step. The indexed operand's stride along dim is
// 0 in `strides` (the index value supplies that coordinate); limit is its size along dim.
struct IndexWalk {
  IntArrayRef sizes;     // the iteration shape, a view of an operand's sizes
  DimVector strides[3];  // per slot, in elements
  int64_t step = 0, limit = 1;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  // sizes and strides with size-1 dims dropped and contiguous neighbours merged.
  StridedGeometry collapse() const {
    const IntArrayRef s[3] = {strides[kDst], strides[kSrc], strides[kIdx]};
    return collapse_dims(sizes, s, 3);
  }
};

// A walk over `sizes` whose indexed operand is t: its step and limit (a 0-dim t has step 0,
// limit 1); the callers below fill the strides.
inline IndexWalk indexed_walk(IntArrayRef sizes, const Tensor& t, int64_t dim) {
  IndexWalk w;
  w.sizes = sizes;
  if (dim < t.dim()) {
    w.step = t.strides()[dim];
    w.limit = t.sizes()[dim];
  }
  return w;
}

// t's strides with dim's replaced by 0.
inline DimVector strides_without(const Tensor& t, int64_t dim) {
  DimVector s(t.strides());
  if (dim < t.dim()) s[dim] = 0;
  return s;
}

// out = in.index_select(dim, index): the walk covers out; index varies along dim only.
inline IndexWalk index_select_walk(const Tensor& out, const Tensor& in, int64_t dim,
                                   const Tensor& index) {
  IndexWalk w = indexed_walk(out.sizes(), in, dim);
  w.strides[kDst] = out.strides();
  w.strides[kSrc] = strides_without(in, dim);
  w.strides[kIdx] = DimVector(out.dim(), 0);
  if (dim < out.dim()) w.strides[kIdx][dim] = index.dim() > 0 ? index.strides()[0] : 0;
  return w;
}

// out = in.gather(dim, index): the walk covers index (out has its shape).
inline IndexWalk gather_walk(const Tensor& out, const Tensor& in, int64_t dim,
                             const Tensor& index) {
  IndexWalk w = indexed_walk(index.sizes(), in, dim);
  w.strides[kDst] = out.strides();
  w.strides[kSrc] = strides_without(in, dim);
  w.strides[kIdx] = index.strides();
  return w;
}

// out[index] (op)= in along dim (scatter, scatter_add, the scatter reductions): the walk
// covers index.
inline IndexWalk scatter_walk(const Tensor& out, const Tensor& in, int64_t dim,
                              const Tensor& index) {
  IndexWalk w = indexed_walk(index.sizes(), out, dim);
  w.strides[kDst] = strides_without(out, dim);
  w.strides[kSrc] = in.strides();
  w.strides[kIdx] = index.strides();
  return w;
}

}  // namespace common
}  // namespace ember
