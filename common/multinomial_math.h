// multinomial's per-row steps (the scheme in core/generator.h), written once for the CPU loop
// (cpu/random.cpp) and the CUDA kernels (cuda/random.cu), so both draw the same indices.
// Private to the backends (common/: compiled by g++ for cpu/ and by nvcc for cuda/).
#pragma once

#include <cstdint>

#include <ember/core/generator.h>
#include <ember/core/host_device.h>

namespace ember {
namespace common {

// The canonical cumulative sums split a row into this many chunks (a CUDA block's threads).
constexpr int kMultinomialChunks = 256;

// Categories per chunk for a row of c categories.
EMBER_HOST_DEVICE inline int64_t multinomial_chunk_len(int64_t c) {
  return (c + kMultinomialChunks - 1) / kMultinomialChunks;
}

// A weight as the sums count it, in double: drawn categories hold -1 and count as 0.
template <class W>
EMBER_HOST_DEVICE inline double multinomial_weight(W w) {
  return w > 0 ? static_cast<double>(w) : 0.0;
}

// Whether the draws of a row reuse one cdf: with replacement, and for a single sample (without
// replacement it draws from the same full row).
inline bool multinomial_one_cdf(bool replacement, int64_t samples) {
  return replacement || samples == 1;
}

// The uniform double of output element e (two words per element, as uniform float64).
EMBER_HOST_DEVICE inline double multinomial_uniform(uint64_t seed, uint64_t offset, int64_t e) {
  const Philox4 w = philox4x32(seed, offset + static_cast<uint64_t>(e) / 2);
  const int j = static_cast<int>(e % 2);
  return uints_to_unit_double(w.v[2 * j], w.v[2 * j + 1]);
}

// The first k with cdf[k] > u * cdf[c - 1]; the last positive weight if rounding leaves none.
// A zero weight never wins: its cdf equals its predecessor's (or 0 at k = 0).
template <class W>
EMBER_HOST_DEVICE inline int64_t multinomial_pick(const W* w, const double* cdf, int64_t c,
                                                  double u) {
  const double target = u * cdf[c - 1];
  int64_t lo = 0, hi = c;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (cdf[mid] > target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  if (lo == c) {
    lo = c - 1;
    while (lo > 0 && !(w[lo] > 0)) --lo;
  }
  return lo;
}

// Without replacement, once every weight left is 0: the first category not drawn yet.
EMBER_HOST_DEVICE inline int64_t multinomial_first_left(const double* w, int64_t c) {
  int64_t k = 0;
  while (k < c - 1 && w[k] < 0) ++k;
  return k;
}

}  // namespace common
}  // namespace ember
