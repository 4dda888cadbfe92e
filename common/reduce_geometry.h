// The reductions' geometry, shared by both backends (cpu/reduce.cpp, cpu/arg_reduce.cpp,
// cuda/reduce.cuh): the input split into kept and reduced dims, an odometer over strided index
// spaces (the CPU's walk), and NaN detection for host and device. Private to the backends.
#pragma once

#include <cstdint>
#include <type_traits>

#include <ember/core/host_device.h>
#include <ember/core/tensor.h>

namespace ember {
namespace common {

template <class T>
EMBER_HOST_DEVICE constexpr bool is_nan(T x) {
  if constexpr (std::is_floating_point<T>::value) return x != x;
  return false;
}

// Walks the offsets of a multi-dim index space (sizes/strides outermost first) from a
// linear position; next() steps in row-major order.
struct Odometer {
  Odometer(const DimVector& sizes, const DimVector& strides, int64_t linear)
      : size(sizes), stride(strides), index(sizes.size()) {
    for (size_t d = size.size(); d-- > 0;) {
      index[d] = linear % size[d];
      linear /= size[d];
      offset += index[d] * stride[d];
    }
  }
  void next() {
    for (size_t d = size.size(); d-- > 0;) {
      if (++index[d] < size[d]) {
        offset += stride[d];
        return;
      }
      offset -= (size[d] - 1) * stride[d];
      index[d] = 0;
    }
  }
  const DimVector& size;
  const DimVector& stride;
  DimVector index;
  int64_t offset = 0;
};

// The input split into kept dims (row-major output order) and reduced dims (sorted by
// decreasing stride, so the walk is as sequential as the layout allows), size-1 dims
// dropped and neighbours merged when their strides chain.
struct ReduceGeometry {
  DimVector ksize, kstride, rsize, rstride;
  int64_t outputs = 1, length = 1;
};

inline void push_dim(DimVector& size, DimVector& stride, int64_t s, int64_t st) {
  if (s == 1) return;
  if (!size.empty() && stride.back() == st * s) {
    size[size.size() - 1] *= s;
    stride[stride.size() - 1] = st;
    return;
  }
  size.push_back(s);
  stride.push_back(st);
}

inline ReduceGeometry make_reduce_geometry(const Tensor& in, IntArrayRef dims) {
  ReduceGeometry g;
  const int64_t nd = in.dim();
  DimVector order;  // reduced dims
  size_t j = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (j < dims.size() && dims[j] == d) {
      ++j;
      order.push_back(d);
      g.length *= in.sizes()[d];
    } else {
      push_dim(g.ksize, g.kstride, in.sizes()[d], in.strides()[d]);
      g.outputs *= in.sizes()[d];
    }
  }
  // Insertion sort, stable: a handful of dims, and no temporary buffer as stable_sort's.
  for (size_t i = 1; i < order.size(); ++i) {
    const int64_t d = order[i];
    size_t k = i;
    for (; k > 0 && in.strides()[order[k - 1]] < in.strides()[d]; --k) order[k] = order[k - 1];
    order[k] = d;
  }
  for (int64_t d : order) push_dim(g.rsize, g.rstride, in.sizes()[d], in.strides()[d]);
  return g;
}

}  // namespace common
}  // namespace ember
