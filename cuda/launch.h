// Launch arithmetic of cuda/'s hand-written grid-stride kernels (pooling, batch norm, index,
// random, fill): the grid for n elements and the choice between 32- and 64-bit index math.
// Private to cuda/.
#pragma once

#include <cstdint>

namespace ember {
namespace cuda {

// Blocks of `threads` threads for n > 0 elements, at most max_blocks (beyond that the
// grid-stride loop gives each thread several elements).
inline unsigned grid_blocks(int64_t n, int threads, int64_t max_blocks) {
  const int64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < max_blocks ? b : max_blocks);
}

// 32-bit index math is safe when every linear index, plus one grid stride, stays below 2^31.
constexpr int64_t kIndex32Limit = int64_t(1) << 30;

// Calls f(I{}) with I = int32_t when n (the most elements any of a kernel's tensors has) is
// below kIndex32Limit, else I = int64_t.
template <class F>
void with_index_type(int64_t n, const F& f) {
  if (n < kIndex32Limit) {
    f(int32_t{});
  } else {
    f(int64_t{});
  }
}

}  // namespace cuda
}  // namespace ember
