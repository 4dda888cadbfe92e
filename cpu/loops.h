// Generic elementwise machinery for CPU kernels: one scalar functor applied over an
// output and N inputs, with a contiguous fast path that the compiler vectorizes and a
// strided N-d walk for views and stride-0 (broadcast) inputs. Private to cpu/.
//
// Usage (habit 4 of STYLE.md: a functor plus one generic launcher, no macros):
//   binary_loop<float, float, float>(out, a, b, [](float x, float y) { return x + y; });
// Contracts: every input has out's shape (broadcast inputs arrive as stride-0 views);
// out may alias an input at the same positions (in-place ops); out is never stride 0.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <utility>

#include <ember/core/tensor.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {

// fn(begin, end) over [0, n): below grain it runs inline, so tiny ops build no
// std::function, take no lock and allocate nothing; above it goes to the pool.
template <class Fn>
inline void parallel_range(int64_t n, int64_t grain, const Fn& fn) {
  if (n <= grain) {
    if (n > 0) fn(int64_t(0), n);
    return;
  }
  parallel_for(0, n, grain, fn);
}

// N operands' geometry with size-1 dims dropped and mergeable neighbours merged,
// innermost dim first, strides in bytes (so operands of different dtypes share it).
// Written here rather than with core's collapse_dims because where() has 4 operands.
template <int N>
struct StridedLayout {
  DimVector sizes;                   // innermost first; never empty
  std::array<DimVector, N> strides;  // strides[k][d], bytes

  StridedLayout(const std::array<const Tensor*, N>& t, const std::array<int64_t, N>& elem_size) {
    IntArrayRef out_sizes = t[0]->sizes(), out_strides = t[0]->strides();
    const int64_t nd = static_cast<int64_t>(out_sizes.size());
    // Walk dims in the output's memory order (innermost = smallest output stride), so a
    // transposed output is still written sequentially; stable, so ties keep row-major order.
    DimVector order(nd);
    for (int64_t d = 0; d < nd; ++d) order[d] = nd - 1 - d;
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      return std::abs(out_strides[x]) < std::abs(out_strides[y]);
    });
    for (int64_t d : order) {
      const int64_t size = out_sizes[d];
      if (size == 1) continue;
      const size_t last = sizes.size();
      bool merge = last > 0;
      for (int k = 0; k < N && merge; ++k)
        merge = t[k]->strides()[d] * elem_size[k] == strides[k][last - 1] * sizes[last - 1];
      if (merge) {
        sizes[last - 1] *= size;
        continue;
      }
      sizes.push_back(size);
      for (int k = 0; k < N; ++k) strides[k].push_back(t[k]->strides()[d] * elem_size[k]);
    }
    if (sizes.empty()) {  // 0-dim or all size-1: one element
      sizes.push_back(1);
      for (int k = 0; k < N; ++k) strides[k].push_back(0);
    }
  }

  // A transpose: some input has a unit stride in dim 1 but not in dim 0, the output's
  // innermost dim. Walking row by row would then touch a new cache line (and page) per
  // element of that input, so such layouts are walked in square tiles instead.
  bool is_transpose(const std::array<int64_t, N>& elem_size) const {
    if (sizes.size() < 2 || sizes[0] < kTile / 2 || sizes[1] < kTile / 2) return false;
    for (int k = 1; k < N; ++k)
      if (strides[k][1] == elem_size[k] && strides[k][0] != elem_size[k] && strides[k][0] != 0)
        return true;
    return false;
  }

  // 16: one cache line of float output per tile row, and few enough input lines per
  // tile that power-of-two row strides (all in one cache set) still fit.
  static constexpr int64_t kTile = 16;
  int64_t tiles0() const { return (sizes[0] + kTile - 1) / kTile; }
  int64_t tiles1() const { return (sizes[1] + kTile - 1) / kTile; }
  // Number of tiles; tile t covers kTile x kTile elements of dims 0 and 1 at one index
  // of the outer dims.
  int64_t num_tiles() const {
    int64_t n = tiles0() * tiles1();
    for (size_t d = 2; d < sizes.size(); ++d) n *= sizes[d];
    return n;
  }

  // Calls inner(ptrs, inner_strides, n) over the rows of tiles [begin, end).
  template <class Inner>
  void walk_tiles(const std::array<char*, N>& base, int64_t begin, int64_t end,
                  const Inner& inner) const {
    const int64_t t0n = tiles0(), t1n = tiles1();
    std::array<int64_t, N> inner_strides;
    for (int k = 0; k < N; ++k) inner_strides[k] = strides[k][0];
    for (int64_t tile = begin; tile < end; ++tile) {
      int64_t rest = tile;
      const int64_t i0 = (rest % t0n) * kTile;
      rest /= t0n;
      const int64_t j0 = (rest % t1n) * kTile;
      rest /= t1n;
      std::array<char*, N> ptr = base;
      for (size_t d = 2; d < sizes.size(); ++d) {
        const int64_t i = rest % sizes[d];
        rest /= sizes[d];
        for (int k = 0; k < N; ++k) ptr[k] += i * strides[k][d];
      }
      const int64_t n = std::min(kTile, sizes[0] - i0), j1 = std::min(sizes[1], j0 + kTile);
      for (int64_t j = j0; j < j1; ++j) {
        std::array<char*, N> p;
        for (int k = 0; k < N; ++k) p[k] = ptr[k] + j * strides[k][1] + i0 * strides[k][0];
        inner(p.data(), inner_strides.data(), n);
      }
    }
  }

  // Calls inner(ptrs, inner_strides, n) over runs of the innermost dim covering the
  // linear (out-order) element range [begin, end).
  template <class Inner>
  void walk(const std::array<char*, N>& base, int64_t begin, int64_t end,
            const Inner& inner) const {
    const size_t nd = sizes.size();
    DimVector index(nd);
    std::array<char*, N> ptr = base;
    std::array<int64_t, N> inner_strides;
    int64_t rest = begin;
    for (size_t d = 0; d < nd; ++d) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
      for (int k = 0; k < N; ++k) ptr[k] += index[d] * strides[k][d];
    }
    for (int k = 0; k < N; ++k) inner_strides[k] = strides[k][0];
    int64_t left = end - begin;
    while (left > 0) {
      const int64_t n = std::min(sizes[0] - index[0], left);
      inner(ptr.data(), inner_strides.data(), n);
      left -= n;
      if (left == 0) break;
      for (int k = 0; k < N; ++k) ptr[k] += n * strides[k][0];
      index[0] += n;
      for (size_t d = 0; index[d] == sizes[d] && d + 1 < nd; ++d) {  // carry
        for (int k = 0; k < N; ++k) ptr[k] += strides[k][d + 1] - sizes[d] * strides[k][d];
        index[d] = 0;
        ++index[d + 1];
      }
    }
  }
};

namespace detail {

// Inputs of type bool are read as uint8_t and compared with 0: GCC 12 does not
// vectorize loops that load bool, but does for the same bytes as uint8_t.
template <class T>
using MemType = std::conditional_t<std::is_same<T, bool>::value, uint8_t, T>;

template <class T>
T load(const char* ptr) {
  const MemType<T> m = *reinterpret_cast<const MemType<T>*>(ptr);
  if constexpr (std::is_same<T, bool>::value)
    return m != 0;
  else
    return m;
}

// An input read either at i (a plain pointer) or once, outside the loop (broadcast).
template <class T, bool kBroadcast>
struct Operand {
  const MemType<T>* p;
  explicit Operand(const char* ptr) : p(reinterpret_cast<const MemType<T>*>(ptr)) {}
  T operator[](int64_t i) const {
    if constexpr (std::is_same<T, bool>::value)
      return p[i] != 0;
    else
      return p[i];
  }
};
template <class T>
struct Operand<T, true> {
  T v;
  explicit Operand(const char* ptr) : v(load<T>(ptr)) {}
  T operator[](int64_t) const { return v; }
};

template <class Out, class... In>
struct Elementwise {
  static constexpr int N = 1 + static_cast<int>(sizeof...(In));
  using Seq = std::index_sequence_for<In...>;

  // Unit-stride loop; bit k of kMask marks input k as broadcast (stride 0). Plain
  // indexed pointer loops like this are what GCC vectorizes.
  template <unsigned kMask, class F, size_t... I>
  static void unit_loop(char* const* p, int64_t n, const F& f, std::index_sequence<I...>) {
    Out* out = reinterpret_cast<Out*>(p[0]);
    std::tuple<Operand<In, ((kMask >> I) & 1u) != 0>...> in{
        Operand<In, ((kMask >> I) & 1u) != 0>(p[I + 1])...};
    for (int64_t i = 0; i < n; ++i) out[i] = f(std::get<I>(in)[i]...);
  }

  template <class F, size_t... I>
  static void strided_loop(char* const* p, const int64_t* s, int64_t n, const F& f,
                           std::index_sequence<I...>) {
    char* out = p[0];
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<Out*>(out + i * s[0]) = f(load<In>(p[I + 1] + i * s[I + 1])...);
  }

  // Tries the unit-stride loop for broadcast masks with at most one bit set (the
  // common shapes: x + bias-row, where(c, x, 0)); returns false for other masks.
  template <unsigned kMask, class F>
  static bool unit_dispatch(unsigned mask, char* const* p, int64_t n, const F& f) {
    if constexpr (kMask > (1u << sizeof...(In)) / 2 || kMask > 4) {
      return false;
    } else {
      if (mask == kMask) {
        unit_loop<kMask>(p, n, f, Seq{});
        return true;
      }
      constexpr unsigned kNext = kMask == 0 ? 1u : kMask * 2;
      return unit_dispatch<kNext>(mask, p, n, f);
    }
  }

  // Not inlined: the 1-d, row and tile walks below each call it once per run of the innermost
  // dim, and inlined into all three it compiled its unit-stride loops three times per op, dtype
  // and broadcast pattern (cpu/binary.cpp: 124 s and 4.6 MB of code at -O3, 76 s and 3.0 MB
  // so; no change measured in the strided and broadcast ops' times).
  template <class F>
  __attribute__((noinline)) static void inner(char* const* p, const int64_t* s, int64_t n,
                                              const F& f) {
    constexpr std::array<int64_t, sizeof...(In)> kSize{{static_cast<int64_t>(sizeof(In))...}};
    if (s[0] == static_cast<int64_t>(sizeof(Out))) {
      unsigned mask = 0;
      bool unit = true;
      for (size_t k = 0; k < sizeof...(In); ++k) {
        if (s[k + 1] == 0)
          mask |= 1u << k;
        else if (s[k + 1] != kSize[k])
          unit = false;
      }
      if (unit && unit_dispatch<0>(mask, p, n, f)) return;
    }
    strided_loop(p, s, n, f, Seq{});
  }

  template <class F>
  static void run(const std::array<const Tensor*, N>& t, const F& f) {
    // Kernels get defined CPU tensors (the front-ends checked them): read the impls directly,
    // without the undefined-tensor check of each Tensor accessor (host time of small ops).
    const int64_t numel = t[0]->unsafeGetTensorImpl()->numel();
    if (numel == 0) return;
    const std::array<int64_t, N> elem_size{
        {static_cast<int64_t>(sizeof(Out)), static_cast<int64_t>(sizeof(In))...}};
    std::array<char*, N> base;
    bool contiguous = true;
    for (int k = 0; k < N; ++k) {
      const TensorImpl& impl = *t[k]->unsafeGetTensorImpl();
      // impl.data() would call the exported element_size(); sizeof the operand's type is it
      // (checked in debug builds, which CI's sanitizer pass is).
      assert(elem_size[k] == static_cast<int64_t>(element_size(impl.dtype())));
      base[k] = static_cast<char*>(impl.storage()->data()) + impl.storage_offset() * elem_size[k];
      contiguous = contiguous && impl.is_contiguous() && impl.numel() == numel;
    }
    if (contiguous) {
      parallel_range(numel, kParallelGrain, [&](int64_t begin, int64_t end) {
        std::array<char*, N> p;
        for (int k = 0; k < N; ++k) p[k] = base[k] + begin * elem_size[k];
        unit_loop<0>(p.data(), end - begin, f, Seq{});
      });
      return;
    }
    bool one_dim = true;  // vectors (any strides, broadcast ones too): no layout to build
    for (int k = 0; k < N; ++k) one_dim = one_dim && t[k]->dim() == 1;
    if (one_dim) {
      std::array<int64_t, N> s;
      for (int k = 0; k < N; ++k) s[k] = t[k]->strides()[0] * elem_size[k];
      parallel_range(numel, kParallelGrain, [&](int64_t begin, int64_t end) {
        std::array<char*, N> p;
        for (int k = 0; k < N; ++k) p[k] = base[k] + begin * s[k];
        inner(p.data(), s.data(), end - begin, f);
      });
      return;
    }
    const StridedLayout<N> layout(t, elem_size);
    const auto run_inner = [&](char* const* p, const int64_t* s, int64_t n) { inner(p, s, n, f); };
    if (layout.is_transpose(elem_size)) {
      constexpr int64_t kTileElems = StridedLayout<N>::kTile * StridedLayout<N>::kTile;
      parallel_range(
          layout.num_tiles(), kParallelGrain / kTileElems,
          [&](int64_t begin, int64_t end) { layout.walk_tiles(base, begin, end, run_inner); });
      return;
    }
    parallel_range(numel, kParallelGrain,
                   [&](int64_t begin, int64_t end) { layout.walk(base, begin, end, run_inner); });
  }
};

}  // namespace detail

// out[i] = f() (fill).
template <class Out, class F>
void nullary_loop(const Tensor& out, const F& f) {
  detail::Elementwise<Out>::run({{&out}}, f);
}

// out[i] = f(a[i]).
template <class Out, class A, class F>
void unary_loop(const Tensor& out, const Tensor& a, const F& f) {
  detail::Elementwise<Out, A>::run({{&out, &a}}, f);
}

// out[i] = f(a[i], b[i]).
template <class Out, class A, class B, class F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, const F& f) {
  detail::Elementwise<Out, A, B>::run({{&out, &a, &b}}, f);
}

// out[i] = f(a[i], b[i], c[i]) (where: a is the bool condition).
template <class Out, class A, class B, class C, class F>
void ternary_loop(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
                  const F& f) {
  detail::Elementwise<Out, A, B, C>::run({{&out, &a, &b, &c}}, f);
}

}  // namespace cpu
}  // namespace ember
