// The scans' view of their contiguous input, shared by both backends (cpu/scan.cpp,
// cuda/scan.cu): [outer, n, inner] around the scanned dim, and the type cumsum/cumprod add in.
// Host code (ScanShape itself is passed to CUDA kernels by value). Private to the backends.
#pragma once

#include <cstdint>
#include <type_traits>

#include <ember/core/tensor.h>

namespace ember {
namespace common {

// A contiguous tensor as [outer, n, inner]: n is the scanned dim's size.
struct ScanShape {
  int64_t outer = 1, n = 1, inner = 1;
};

inline ScanShape scan_shape(const Tensor& t, int64_t dim) {
  ScanShape s;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim) s.outer *= t.size(d);
    if (d == dim) s.n = t.size(d);
    if (d > dim) s.inner *= t.size(d);
  }
  return s;
}

// cumsum and cumprod accumulate floats in double and integers in int64, as LibTorch's CPU
// kernels do.
template <class T>
using ScanAcc = std::conditional_t<std::is_floating_point<T>::value, double, int64_t>;

}  // namespace common
}  // namespace ember
