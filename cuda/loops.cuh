// Generic elementwise machinery for CUDA kernels: one scalar functor applied over an output
// and N inputs of any dtypes and strides. Private to cuda/ (included by .cu files only).
//
// Design
// - Usage: gpu_kernel<Out, In...>("add", functor, out, a, b) computes out[i] = f(a[i], b[i]).
//   The functor is a plain struct with a __device__ operator() (no extended lambdas), so one
//   kernel template per op family is instantiated once per (functor, dtypes).
// - Contracts (as cpu/loops.h): every input has out's shape (broadcast inputs arrive as
//   stride-0 views); out may alias an input at identical positions (in-place ops); out is
//   never stride 0. Bool is read as a byte compared with 0 and written as 0/1.
// - Host side: the operands' geometry is collapsed (size-1 dims dropped, neighbours that are
//   contiguous for every operand merged; dims walked in the output's memory order), with
//   strides in bytes so operands of different dtypes share one index. All-contiguous operands
//   skip that and become one flat dim.
// - Two kernels, both with 32-bit index math and grid-stride loops over blocks of kThreads:
//   (a) vectorized: every operand unit-stride and every pointer aligned to its vector; each
//       thread moves U vectors of V elements per step, V = 16 bytes / the widest operand
//       (4 floats, 2 doubles, 16 bytes), so each load and store of the widest operand is one
//       16-byte access; U = 2 (32 bytes in flight per operand), 1 for byte-sized operands
//       (16 elements of them already take many registers to unpack); the n % V tail is done by
//       block 0 element by element.
//   (b) strided: an OffsetCalc turns the linear index into per-operand byte offsets (up to
//       kMaxDims dims; divisions by the sizes are multiply-shifts, IntDivider); kUnroll
//       elements per thread per step, loads issued before the compute.
// - Huge tensors: rather than 64-bit index math in every kernel (slower and twice the code),
//   the host splits a launch whose element count (or, for the strided kernel, an operand's
//   byte extent) does not fit 31 bits into halves along its largest dim, as PyTorch's
//   with_32bit_indexing does; geometries of more than kMaxDims collapsed dims are launched
//   one outer slice at a time. Vector addresses themselves are computed in 64 bits.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <ember/core/tensor.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace loops {

constexpr int kMaxDims = 8;    // dims an OffsetCalc handles after collapsing
constexpr int kThreads = 128;  // threads per block
constexpr int kUnroll = 4;     // strided kernel: elements per thread per step
constexpr int kVecBytes = 16;  // the widest vector access
// Grid cap for the grid-stride loops: ~30 waves of 16 blocks on each of the H200's 132 SMs;
// beyond that each thread loops (saves block scheduling, keeps the grid within limits).
constexpr int64_t kMaxBlocks = 1 << 16;
constexpr int64_t kMax32 = INT32_MAX;  // 31 bits: linear indices and byte offsets

// ---- element access: bool lives in memory as a byte ----

template <class T>
using Mem = std::conditional_t<std::is_same<T, bool>::value, uint8_t, T>;

template <class T>
__device__ __forceinline__ T from_mem(Mem<T> m) {
  if constexpr (std::is_same<T, bool>::value)
    return m != 0;
  else
    return m;
}

template <class T>
__device__ __forceinline__ T load(const char* p) {
  return from_mem<T>(*reinterpret_cast<const Mem<T>*>(p));
}

template <class T>
__device__ __forceinline__ void store(char* p, T v) {
  *reinterpret_cast<Mem<T>*>(p) = static_cast<Mem<T>>(v);
}

// V elements of T as one aligned access (V * sizeof <= 16 bytes: one ld/st.v4 at most).
template <class T, int V>
struct alignas(sizeof(Mem<T>) * V) Vec {
  Mem<T> v[V];
};

// Registers for E values of T.
template <class T, int E>
struct Regs {
  T v[E];
};

// A tuple of one Regs per input, indexable by input number in device code (std::tuple's
// members are not __device__).
template <size_t I, class T>
struct Leaf {
  T value;
};
template <class Seq, class... Ts>
struct PackImpl;
template <size_t... I, class... Ts>
struct PackImpl<std::index_sequence<I...>, Ts...> : Leaf<I, Ts>... {};
template <class... Ts>
using Pack = PackImpl<std::index_sequence_for<Ts...>, Ts...>;
template <size_t I, class T>
__device__ __forceinline__ T& get(Leaf<I, T>& leaf) {
  return leaf.value;
}

template <int N>
struct Ptrs {
  char* p[N];  // operand 0 is the output
};

// ---- index math ----

// n / d as a multiply-high and a shift (Granlund-Montgomery, as PyTorch's IntDivider):
// exact for n, d < 2^31, which the host guarantees.
struct IntDivider {
  uint32_t divisor = 1, magic = 1, shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    shift = 0;
    while (shift < 32 && (uint32_t(1) << shift) < d) ++shift;
    const uint64_t one = 1;
    magic = static_cast<uint32_t>(((one << 32) * ((one << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const {
    return (__umulhi(n, magic) + n) >> shift;
  }
};

template <int N>
struct Offsets {
  int32_t v[N];  // bytes
};

// Linear element number (innermost dim fastest) -> byte offset of each operand.
template <int N>
struct OffsetCalc {
  int ndim = 0;
  IntDivider sizes[kMaxDims];    // innermost first
  int32_t strides[kMaxDims][N];  // bytes

  __device__ __forceinline__ Offsets<N> get(uint32_t linear) const {
    Offsets<N> off;
#pragma unroll
    for (int k = 0; k < N; ++k) off.v[k] = 0;
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == ndim) break;
      const uint32_t q = sizes[d].div(linear);
      const int32_t r = static_cast<int32_t>(linear - q * sizes[d].divisor);
      linear = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off.v[k] += r * strides[d][k];
    }
    return off;
  }
};

// ---- the kernels ----

template <class Out, class... In>
struct Elementwise {
  static constexpr int N = 1 + static_cast<int>(sizeof...(In));
  using Seq = std::index_sequence_for<In...>;

  // Vector width in elements: 16 bytes of the widest operand.
  static constexpr int kMaxSize = std::max({sizeof(Mem<Out>), sizeof(Mem<In>)...});
  static constexpr int V = kVecBytes / kMaxSize;
  // Vectors per thread per step.
  static constexpr int U = V >= 8 ? 1 : 2;

  template <class T>
  __device__ __forceinline__ static void load_vec(const char* base, uint32_t vi, T* dst) {
    const Vec<T, V> vec = reinterpret_cast<const Vec<T, V>*>(base)[vi];
#pragma unroll
    for (int e = 0; e < V; ++e) dst[e] = from_mem<T>(vec.v[e]);
  }

  // Vectors first, first + kThreads, ... (U of them, those below nv): all loads
  // are issued before any compute so that each thread keeps several accesses in flight.
  template <class F, size_t... I>
  __device__ __forceinline__ static void vec_step(const F& f, const Ptrs<N>& p, uint32_t nv,
                                                  uint32_t first, std::index_sequence<I...>) {
    Pack<Regs<In, V * U>...> in;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const uint32_t vi = first + u * kThreads;
      if (vi < nv) (load_vec<In>(p.p[I + 1], vi, get<I>(in).v + u * V), ...);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const uint32_t vi = first + u * kThreads;
      if (vi < nv) {
        Vec<Out, V> o;
#pragma unroll
        for (int e = 0; e < V; ++e)
          o.v[e] = static_cast<Mem<Out>>(static_cast<Out>(f(get<I>(in).v[u * V + e]...)));
        reinterpret_cast<Vec<Out, V>*>(p.p[0])[vi] = o;
      }
    }
  }

  // One element i of unit-stride operands (the vectorized kernel's tail).
  template <class F, size_t... I>
  __device__ __forceinline__ static void scalar_at(const F& f, const Ptrs<N>& p, uint32_t i,
                                                   std::index_sequence<I...>) {
    store<Out>(p.p[0] + size_t(i) * sizeof(Mem<Out>),
               f(load<In>(p.p[I + 1] + size_t(i) * sizeof(Mem<In>))...));
  }

  // Elements first, first + kThreads, ... (kUnroll of them, those below n) of a strided
  // geometry.
  template <class F, size_t... I>
  __device__ __forceinline__ static void strided_step(const F& f, const Ptrs<N>& p,
                                                      const OffsetCalc<N>& calc, uint32_t n,
                                                      uint32_t first, std::index_sequence<I...>) {
    Pack<Regs<In, kUnroll>...> in;
    int32_t out_off[kUnroll];
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const uint32_t idx = first + j * kThreads;
      if (idx < n) {
        const Offsets<N> off = calc.get(idx);
        out_off[j] = off.v[0];
        ((get<I>(in).v[j] = load<In>(p.p[I + 1] + off.v[I + 1])), ...);
      }
    }
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      if (first + j * kThreads < n) store<Out>(p.p[0] + out_off[j], f(get<I>(in).v[j]...));
    }
  }
};

// n elements, every operand unit-stride and aligned to its Vec; n < 2^31.
template <class F, class Out, class... In>
__global__ void __launch_bounds__(kThreads)
    vectorized_kernel(F f, Ptrs<1 + sizeof...(In)> p, uint32_t n) {
  using E = Elementwise<Out, In...>;
  const uint32_t nv = n / E::V;
  const uint32_t step = gridDim.x * uint32_t(kThreads * E::U);
  for (uint32_t base = blockIdx.x * uint32_t(kThreads * E::U); base < nv; base += step)
    E::vec_step(f, p, nv, base + threadIdx.x, typename E::Seq{});
  const uint32_t tail = nv * E::V + threadIdx.x;  // fewer than V elements: block 0 does them
  if (blockIdx.x == 0 && tail < n) E::scalar_at(f, p, tail, typename E::Seq{});
}

// n elements of any geometry that calc describes; n and every byte offset < 2^31.
template <class F, class Out, class... In>
__global__ void __launch_bounds__(kThreads)
    strided_kernel(F f, Ptrs<1 + sizeof...(In)> p, OffsetCalc<1 + sizeof...(In)> calc, uint32_t n) {
  using E = Elementwise<Out, In...>;
  const uint32_t step = gridDim.x * uint32_t(kThreads * kUnroll);
  for (uint32_t base = blockIdx.x * uint32_t(kThreads * kUnroll); base < n; base += step)
    E::strided_step(f, p, calc, n, base + threadIdx.x, typename E::Seq{});
}

// ---- host side ----

inline unsigned blocks_for(int64_t n, int64_t per_block) {
  const int64_t b = (n + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(b, kMaxBlocks)));
}

// The collapsed geometry of N operands: sizes innermost first, strides in bytes, and the
// operands' base pointers.
template <int N>
struct Layout {
  DimVector sizes;
  std::array<DimVector, N> strides;
  std::array<char*, N> ptrs;
  int64_t numel = 0;

  int ndim() const { return static_cast<int>(sizes.size()); }

  // Drops dimension d (the slice at index 0 of it).
  void erase(int d) {
    sizes.erase(d);
    for (int k = 0; k < N; ++k) strides[k].erase(d);
  }
};

template <int N>
Layout<N> collapse(const std::array<const Tensor*, N>& t, const std::array<int64_t, N>& esize) {
  Layout<N> L;
  L.numel = t[0]->numel();
  for (int k = 0; k < N; ++k) L.ptrs[k] = static_cast<char*>(t[k]->data_ptr());
  IntArrayRef out_sizes = t[0]->sizes(), out_strides = t[0]->strides();
  const int nd = static_cast<int>(out_sizes.size());
  // Innermost first in the output's memory order (a transposed output is still written
  // coalesced); stable, so ties keep the row-major order.
  DimVector order(nd);
  for (int d = 0; d < nd; ++d) order[d] = nd - 1 - d;
  if (!t[0]->is_contiguous()) {
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return out_strides[x] < out_strides[y]; });
  }
  for (int64_t d : order) {
    const int64_t size = out_sizes[d];
    if (size == 1) continue;
    const size_t last = L.sizes.size();
    bool merge = last > 0;
    for (int k = 0; k < N && merge; ++k)
      merge = t[k]->strides()[d] * esize[k] == L.strides[k][last - 1] * L.sizes[last - 1];
    if (merge) {
      L.sizes[last - 1] *= size;
      continue;
    }
    L.sizes.push_back(size);
    for (int k = 0; k < N; ++k) L.strides[k].push_back(t[k]->strides()[d] * esize[k]);
  }
  if (L.sizes.empty()) {  // 0-dim or all size-1: one element
    L.sizes.push_back(1);
    for (int k = 0; k < N; ++k) L.strides[k].push_back(0);
  }
  return L;
}

template <int N>
bool fits_32bit(const Layout<N>& L) {
  if (L.numel > kMax32) return false;
  for (int k = 0; k < N; ++k) {
    int64_t extent = 0;
    for (int d = 0; d < L.ndim(); ++d) extent += (L.sizes[d] - 1) * L.strides[k][d];
    if (extent > kMax32) return false;
  }
  return true;
}

template <class Out, class... In>
struct Launcher {
  using E = Elementwise<Out, In...>;
  static constexpr int N = E::N;

  static bool can_vectorize(const Layout<N>& L) {
    constexpr std::array<int64_t, N> kSize{
        {int64_t(sizeof(Mem<Out>)), int64_t(sizeof(Mem<In>))...}};
    if (L.ndim() != 1 || L.numel < E::V) return false;
    for (int k = 0; k < N; ++k) {
      if (L.strides[k][0] != kSize[k]) return false;
      if (reinterpret_cast<uintptr_t>(L.ptrs[k]) % (kSize[k] * E::V) != 0) return false;
    }
    return true;
  }

  template <class F>
  static void launch_vectorized(const char* op, const F& f, const Layout<N>& L) {
    Ptrs<N> p;
    for (int k = 0; k < N; ++k) p.p[k] = L.ptrs[k];
    const unsigned grid = blocks_for(L.numel / E::V, int64_t(kThreads) * E::U);
    vectorized_kernel<F, Out, In...>
        <<<grid, kThreads, 0, current_stream()>>>(f, p, static_cast<uint32_t>(L.numel));
    EMBER_CUDA_KERNEL_CHECK(op);
  }

  template <class F>
  static void launch_strided(const char* op, const F& f, const Layout<N>& L) {
    Ptrs<N> p;
    for (int k = 0; k < N; ++k) p.p[k] = L.ptrs[k];
    OffsetCalc<N> calc;
    calc.ndim = L.ndim();
    for (int d = 0; d < L.ndim(); ++d) {
      calc.sizes[d] = IntDivider(static_cast<uint32_t>(L.sizes[d]));
      for (int k = 0; k < N; ++k) calc.strides[d][k] = static_cast<int32_t>(L.strides[k][d]);
    }
    const unsigned grid = blocks_for(L.numel, int64_t(kThreads) * kUnroll);
    strided_kernel<F, Out, In...>
        <<<grid, kThreads, 0, current_stream()>>>(f, p, calc, static_cast<uint32_t>(L.numel));
    EMBER_CUDA_KERNEL_CHECK(op);
  }

  // Any geometry: splits what 32-bit kernels cannot take, then picks the kernel.
  template <class F>
  static void launch(const char* op, const F& f, const Layout<N>& L) {
    if (L.numel == 0) return;
    // The vectorized kernel indexes vectors (64-bit addresses): only the count must fit.
    if (L.numel <= kMax32 && can_vectorize(L)) return launch_vectorized(op, f, L);
    if (L.ndim() > kMaxDims) {  // one launch per index of the outermost dim
      const int outer = L.ndim() - 1;
      Layout<N> sub = L;
      sub.erase(outer);
      sub.numel = L.numel / L.sizes[outer];
      for (int64_t i = 0; i < L.sizes[outer]; ++i) {
        for (int k = 0; k < N; ++k) sub.ptrs[k] = L.ptrs[k] + i * L.strides[k][outer];
        launch(op, f, sub);
      }
      return;
    }
    if (!fits_32bit(L)) {
      // Halve the dim with the most elements (too many elements) or the widest byte span.
      int split = 0;
      int64_t best = -1;
      for (int d = 0; d < L.ndim(); ++d) {
        int64_t score = L.sizes[d];
        if (L.numel <= kMax32) {
          score = 0;
          for (int k = 0; k < N; ++k) score = std::max(score, (L.sizes[d] - 1) * L.strides[k][d]);
        }
        if (score > best) best = score, split = d;
      }
      const int64_t size = L.sizes[split];
      int64_t half = size / 2;
      if (half >= 64) half -= half % 64;  // keeps the second half's pointers vector-aligned
      Layout<N> lo = L, hi = L;
      lo.sizes[split] = half;
      hi.sizes[split] = size - half;
      lo.numel = L.numel / size * half;
      hi.numel = L.numel / size * (size - half);
      for (int k = 0; k < N; ++k) hi.ptrs[k] += half * L.strides[k][split];
      launch(op, f, lo);
      launch(op, f, hi);
      return;
    }
    launch_strided(op, f, L);
  }
};

// out[i] = f(in[i]...): Out and In... are the C++ element types of out and of each input
// (bool for bool tensors); f is a functor with `__device__ R operator()(In...) const`, R
// convertible to Out. Runs on out's device and the current stream; never synchronizes.
template <class Out, class... In, class F, class... Ts>
void gpu_kernel(const char* op, const F& f, const Tensor& out, const Ts&... in) {
  static_assert(sizeof...(In) == sizeof...(Ts), "one element type per input tensor");
  static_assert(std::conjunction<std::is_same<Ts, Tensor>...>::value, "inputs are Tensors");
  using L = Launcher<Out, In...>;
  constexpr int N = L::N;
  const int64_t numel = out.numel();
  if (numel == 0) return;
  DeviceGuard guard(out.device().index());
  const std::array<const Tensor*, N> t{{&out, &in...}};
  const std::array<int64_t, N> esize{{int64_t(sizeof(Mem<Out>)), int64_t(sizeof(Mem<In>))...}};
  bool contiguous = true;
  for (int k = 0; k < N; ++k) contiguous = contiguous && t[k]->is_contiguous();
  if (contiguous) {  // the fast host path: one flat dim, no collapsing
    Layout<N> flat;
    flat.numel = numel;
    flat.sizes.push_back(numel);
    for (int k = 0; k < N; ++k) {
      flat.ptrs[k] = static_cast<char*>(t[k]->data_ptr());
      flat.strides[k].push_back(esize[k]);
    }
    return L::launch(op, f, flat);
  }
  L::launch(op, f, collapse<N>(t, esize));
}

// f(x) = Fn()(x, s): a binary functor with its second operand fixed (tensor-scalar ops).
template <class Fn, class T>
struct BindSecond {
  T s;
  __device__ __forceinline__ auto operator()(T x) const { return Fn()(x, s); }
};

}  // namespace loops
}  // namespace cuda
}  // namespace ember
