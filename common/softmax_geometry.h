// The softmax kernels' view of their input, shared by both backends (cpu/softmax.cpp,
// cuda/softmax.cu): in as [outer, size, inner] with one stride per part, row r = (o, j) starting
// at o * outer_stride + j * inner_stride; out is contiguous, so the row's elements are
// out[(o * size + d) * inner + j]. Host code. Private to the backends.
#pragma once

#include <cstdint>

#include <ember/core/tensor.h>

namespace ember {
namespace common {

struct SoftmaxGeometry {
  int64_t outer = 1, size = 1, inner = 1;
  int64_t outer_stride = 0, stride = 1, inner_stride = 1;
};

// Merges dims [begin, end) of t into one (size, stride); false when they do not chain.
inline bool merge_dims(const Tensor& t, int64_t begin, int64_t end, int64_t& size,
                       int64_t& stride) {
  size = 1;
  stride = 1;
  bool first = true;
  for (int64_t d = end; d-- > begin;) {  // innermost first
    const int64_t s = t.sizes()[d], st = t.strides()[d];
    if (s == 1) continue;
    if (first) {
      stride = st;
      first = false;
    } else if (st != stride * size) {
      return false;
    }
    size *= s;
  }
  return true;
}

// The geometry of a softmax over `dim` of in, and the tensor to read: in itself, or a
// contiguous copy when the dims before or after dim do not merge into one.
inline Tensor softmax_geometry(const Tensor& in, int64_t dim, SoftmaxGeometry& g) {
  g = SoftmaxGeometry{};
  if (in.dim() == 0) return in;
  g.size = in.sizes()[dim];
  g.stride = in.strides()[dim];
  if (merge_dims(in, 0, dim, g.outer, g.outer_stride) &&
      merge_dims(in, dim + 1, in.dim(), g.inner, g.inner_stride)) {
    return in;
  }
  Tensor c = in.contiguous();
  merge_dims(c, 0, dim, g.outer, g.outer_stride);
  merge_dims(c, dim + 1, c.dim(), g.inner, g.inner_stride);
  g.stride = c.strides()[dim];
  return c;
}

}  // namespace common
}  // namespace ember
