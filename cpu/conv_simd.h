// Portable 32-byte vectors for the CPU conv and pool kernels (cpu/conv.cpp, cpu/pool.cpp):
// GCC/Clang vector extensions rather than intrinsics, so that one template serves float and
// double and builds without AVX too (the compiler then splits each vector). Private to cpu/.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ember {
namespace cpu {

// V<T>: one 32-byte vector (8 floats, 4 doubles); MaskV<T>: the integer vector of as many
// lanes that comparisons of V<T> give (-1 true, 0 false).
template <class T>
using V [[gnu::vector_size(32)]] = T;
template <class T>
using LaneInt = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
template <class T>
using MaskV [[gnu::vector_size(32)]] = LaneInt<T>;
template <class T>
constexpr int64_t kVecLanes = 32 / sizeof(T);
template <class T>
inline V<T> load(const T* p) {
  V<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T, class Vec>
inline void store(T* p, Vec v) {
  std::memcpy(p, &v, sizeof v);
}
// Bit casts between a vector and its lane mask type, for masking lanes with &.
template <class T>
inline MaskV<T> as_mask(V<T> v) {
  return reinterpret_cast<MaskV<T>>(v);
}
template <class T>
inline V<T> as_float(MaskV<T> m) {
  return reinterpret_cast<V<T>>(m);
}
// Lanes u with first + u < end set.
template <class T>
inline MaskV<T> lanes_below(int64_t first, int64_t end) {
  MaskV<T> m{};
  for (int64_t u = 0; u < kVecLanes<T>; ++u) m[u] = first + u < end ? -1 : 0;
  return m;
}

// mask ? a : b, lane by lane.
template <class T>
inline V<T> select(MaskV<T> mask, V<T> a, V<T> b) {
  return as_float<T>((mask & as_mask<T>(a)) | (~mask & as_mask<T>(b)));
}
template <class M>
inline M select_int(M mask, M a, M b) {
  return (mask & a) | (~mask & b);
}

// The even and odd lanes of the 2 * kVecLanes elements in (lo, hi).
template <class T>
inline void deinterleave(V<T> lo, V<T> hi, V<T>& even, V<T>& odd) {
#if defined(__clang__)
  // clang wants constant indices: spell them out per lane count
  if constexpr (kVecLanes<T> == 8) {
    even = __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14);
    odd = __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15);
  } else {
    even = __builtin_shufflevector(lo, hi, 0, 2, 4, 6);
    odd = __builtin_shufflevector(lo, hi, 1, 3, 5, 7);
  }
#else
  MaskV<T> e, o;
  for (int64_t u = 0; u < kVecLanes<T>; ++u) e[u] = 2 * u, o[u] = 2 * u + 1;
  even = __builtin_shuffle(lo, hi, e);
  odd = __builtin_shuffle(lo, hi, o);
#endif
}

}  // namespace cpu
}  // namespace ember
