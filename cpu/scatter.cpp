// CPU scatter (assignment) and the scatter reductions multiply, amax and amin, over strided
// tensors: one sequential walk over index (repeated indices: the last write wins, as PyTorch's).
#include <cmath>
#include <cstdint>

#include <ember/common/index_geometry.h>
#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>

namespace ember {
namespace cpu {
namespace {

enum class Mode { kAssign, kMul, kMax, kMin };

template <Mode kMode, class T>
inline void apply(T* p, T v) {
  if constexpr (kMode == Mode::kAssign) {
    *p = v;
  } else if constexpr (kMode == Mode::kMul) {
    *p = static_cast<T>(*p * v);
  } else {
    const T cur = *p;
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(cur)) return;  // NaN wins
      if (std::isnan(v)) {
        *p = v;
        return;
      }
    }
    if (kMode == Mode::kMax ? v > cur : v < cur) *p = v;
  }
}

// dst[off_dst + index * w.step] op= src[off_src] for every element of the walk (index's).
template <Mode kMode, class T>
void walk(T* dst, const T* src, const int64_t* idx, const common::IndexWalk& w) {
  using common::kDst;
  using common::kIdx;
  using common::kSrc;
  const StridedGeometry g = w.collapse();
  const int64_t nd = static_cast<int64_t>(g.sizes.size());
  int64_t total = 1;
  for (int64_t s : g.sizes) total *= s;
  if (total == 0) return;
  DimVector pos(nd, 0);
  int64_t off[3] = {0, 0, 0};
  for (int64_t i = 0; i < total; ++i) {
    apply<kMode>(dst + off[kDst] + idx[off[kIdx]] * w.step, src[off[kSrc]]);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++pos[d] < g.sizes[d]) {
        for (int k = 0; k < 3; ++k) off[k] += g.strides[k][d];
        break;
      }
      for (int k = 0; k < 3; ++k) off[k] -= (g.sizes[d] - 1) * g.strides[k][d];
      pos[d] = 0;
    }
  }
}

// out (already self's copy) [index] op= in along dim (common/index_geometry.h's scatter walk).
template <Mode kMode>
void scatter_kernel(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  if (index.numel() == 0) return;
  const common::IndexWalk w = common::scatter_walk(out, in, dim, index);
  if constexpr (kMode == Mode::kAssign) {
    EMBER_DISPATCH_ALL_TYPES(out.dtype(), "scatter", [&] {
      walk<kMode>(out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), index.data_ptr<int64_t>(), w);
    });
  } else {
    EMBER_DISPATCH_NUMERIC_TYPES(out.dtype(), "scatter_reduce", [&] {
      walk<kMode>(out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), index.data_ptr<int64_t>(), w);
    });
  }
}

}  // namespace

void register_scatter_kernels() {
  register_kernel<Op::scatter>(kCPU, scatter_kernel<Mode::kAssign>);
  register_kernel<Op::scatter_mul>(kCPU, scatter_kernel<Mode::kMul>);
  register_kernel<Op::scatter_amax>(kCPU, scatter_kernel<Mode::kMax>);
  register_kernel<Op::scatter_amin>(kCPU, scatter_kernel<Mode::kMin>);
}

}  // namespace cpu
}  // namespace ember
