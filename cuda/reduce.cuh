// The reduction engine shared by cuda/reduce.cu and cuda/arg_reduce.cu: the input split into
// kept and reduced dims, row/column kernels over that split, split rows with a finalize pass.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <ember/common/reduce_geometry.h>
#include <ember/core/checks.h>
#include <ember/core/tensor.h>
#include <ember/cuda/check.h>
#include <ember/cuda/device_props.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/stream.h>

// A reducer R (a small struct passed by value to the kernels) provides:
//   using In, Acc (per-thread accumulator), Total (cross-thread accumulator), Shift;
//   Acc identity();  Shift shift(int64_t o);  Acc map(In x, int64_t i, Shift s);
//   A combine(A a, A b) for A = Acc and Total;  void write(int64_t o, Total t, int64_t n).
// o is the output number (row-major over the kept dims), i the element's number inside the
// reduced index space (argmax needs it), n the number of reduced elements. Outputs are
// contiguous: write() stores element o.

namespace ember {
namespace cuda {
namespace reduce_detail {

constexpr int kThreads = 512;          // threads per block of the row and column kernels
constexpr int64_t kMinPerThread = 16;  // fewest elements a thread gets before rows are split
constexpr int kMaxSplits = 65535;      // gridDim.y limit

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t pow2_ceil(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Maps a flat index of a row-major index space to an element offset. Dims are stored
// innermost first; the unrolled loop keeps the arrays in registers (no local memory).
struct Indexer {
  int ndim = 0;
  bool small = true;  // every index fits in 32 bits: cheaper division
  int64_t size[kMaxLaunchDims];
  int64_t stride[kMaxLaunchDims];

  __device__ int64_t offset(int64_t i) const {
    if (ndim <= 1) return ndim == 0 ? 0 : i * stride[0];
    int64_t off = 0;
    if (small) {
      uint32_t u = static_cast<uint32_t>(i);
#pragma unroll
      for (int d = 0; d < kMaxLaunchDims - 1; ++d) {
        if (d == ndim - 1) break;
        const uint32_t s = static_cast<uint32_t>(size[d]);
        const uint32_t q = u / s;
        off += static_cast<int64_t>(u - q * s) * stride[d];
        u = q;
      }
      return off + static_cast<int64_t>(u) * stride[ndim - 1];
    }
#pragma unroll
    for (int d = 0; d < kMaxLaunchDims - 1; ++d) {
      if (d == ndim - 1) break;
      const int64_t q = i / size[d];
      off += (i - q * size[d]) * stride[d];
      i = q;
    }
    return off + i * stride[ndim - 1];
  }
};

using Geometry = common::ReduceGeometry;  // common/reduce_geometry.h, as the CPU's
using common::make_reduce_geometry;

inline Indexer make_indexer(const DimVector& size, const DimVector& stride) {
  Indexer ix;
  ix.ndim = static_cast<int>(size.size());
  int64_t n = 1;
  for (int d = 0; d < ix.ndim; ++d) {  // reversed: innermost first
    ix.size[d] = size[size.size() - 1 - d];
    ix.stride[d] = stride[size.size() - 1 - d];
    n *= ix.size[d];
  }
  ix.small = n <= INT32_MAX;
  return ix;
}

// ---- warp and block helpers ----

template <class T>
__device__ T shfl_down(T v, int offset, int width) {
  if constexpr (sizeof(T) < 4) {  // bool, uint8: shuffled as int
    return static_cast<T>(__shfl_down_sync(0xffffffffu, static_cast<int>(v), offset, width));
  } else {
    return __shfl_down_sync(0xffffffffu, v, offset, width);
  }
}

// A value and the index it was found at (max_dim/min_dim). index < 0 marks the identity.
template <class T>
struct ArgPair {
  T value;
  int64_t index;
};

template <class T>
__device__ ArgPair<T> shfl_down(ArgPair<T> v, int offset, int width) {
  return {shfl_down(v.value, offset, width), shfl_down(v.index, offset, width)};
}

// Combines the values of the blockDim.x threads that share threadIdx.y; the result is in the
// thread with threadIdx.x == 0. blockDim.x is a power of two; above 32 blockDim.y must be 1.
// Every thread of the block must call it.
template <class R>
__device__ typename R::Total reduce_x(const R& r, typename R::Total v) {
  using Total = typename R::Total;
  const int width = blockDim.x < 32 ? blockDim.x : 32;
  for (int off = width / 2; off > 0; off /= 2) v = r.combine(v, shfl_down(v, off, width));
  if (blockDim.x <= 32) return v;
  __shared__ Total warp_total[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_total[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / 32) ? warp_total[lane]
                                                 : static_cast<Total>(r.identity());
    for (int off = 16; off > 0; off /= 2) v = r.combine(v, shfl_down(v, off, 32));
  }
  return v;
}

template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T val[V];
};

// Reduces base[begin, end) by the blockDim.x threads of a row with 16-byte loads: base + begin
// is 16-byte aligned (the host checks). Four loads are issued before they are consumed.
template <class R>
__device__ typename R::Acc reduce_row_vec(const R& r, const typename R::In* base, int64_t begin,
                                          int64_t end, typename R::Shift s) {
  using T = typename R::In;
  using Acc = typename R::Acc;
  constexpr int V = 16 / sizeof(T);
  using VecT = Vec<T, V>;
  const VecT* pv = reinterpret_cast<const VecT*>(base + begin);
  const int64_t nv = (end - begin) / V;
  const int step = blockDim.x;
  Acc lane[V];
#pragma unroll
  for (int k = 0; k < V; ++k) lane[k] = r.identity();
  int64_t j = threadIdx.x;
  for (; j + 3 * step < nv; j += 4 * step) {
    VecT v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = pv[j + u * step];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        lane[k] = r.combine(lane[k], r.map(v[u].val[k], begin + (j + u * step) * V + k, s));
      }
    }
  }
  for (; j < nv; j += step) {
    const VecT v = pv[j];
#pragma unroll
    for (int k = 0; k < V; ++k) lane[k] = r.combine(lane[k], r.map(v.val[k], begin + j * V + k, s));
  }
  Acc acc = lane[0];
#pragma unroll
  for (int k = 1; k < V; ++k) acc = r.combine(acc, lane[k]);
  for (int64_t i = begin + nv * V + threadIdx.x; i < end; i += step) {
    acc = r.combine(acc, r.map(base[i], i, s));
  }
  return acc;
}

// The same over base's reduced elements [begin, end) laid out as segments of seg_len
// contiguous elements, segment k at outer.offset(k) (the reduced dims but the innermost,
// which has stride 1): 16-byte loads, one division per load instead of one per element.
// begin, end and seg_len are multiples of the vector width and every segment is 16-byte
// aligned (the host checks).
template <class R>
__device__ typename R::Acc reduce_segments_vec(const R& r, const typename R::In* base,
                                               const Indexer& outer, int64_t seg_len,
                                               int64_t begin, int64_t end, typename R::Shift s) {
  using T = typename R::In;
  using Acc = typename R::Acc;
  constexpr int V = 16 / sizeof(T);
  using VecT = Vec<T, V>;
  const int step = blockDim.x;
  auto load = [&](int64_t q, int64_t* first) {
    const int64_t i = q * V;
    const int64_t k = outer.small ? static_cast<int64_t>(static_cast<uint32_t>(i) /
                                                         static_cast<uint32_t>(seg_len))
                                  : i / seg_len;
    *first = i;
    return *reinterpret_cast<const VecT*>(base + outer.offset(k) + (i - k * seg_len));
  };
  Acc lane[V];
#pragma unroll
  for (int k = 0; k < V; ++k) lane[k] = r.identity();
  const int64_t q_end = end / V;
  int64_t q = begin / V + threadIdx.x;
  for (; q + 3 * step < q_end; q += 4 * step) {
    VecT v[4];
    int64_t first[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = load(q + u * step, &first[u]);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (int k = 0; k < V; ++k) lane[k] = r.combine(lane[k], r.map(v[u].val[k], first[u] + k, s));
    }
  }
  for (; q < q_end; q += step) {
    int64_t first = 0;
    const VecT v = load(q, &first);
#pragma unroll
    for (int k = 0; k < V; ++k) lane[k] = r.combine(lane[k], r.map(v.val[k], first + k, s));
  }
  Acc acc = lane[0];
#pragma unroll
  for (int k = 1; k < V; ++k) acc = r.combine(acc, lane[k]);
  return acc;
}

// ---- kernels ----

// Rows: blockDim.x threads per output (a sub-warp, a warp or the whole block), blockDim.y
// outputs per block; blockIdx.y picks the segment [y * chunk, (y + 1) * chunk) of the
// reduced elements. contig: the reduced space is one unit-stride dim; vec: 16-byte loads.
// seg_len > 0: the reduced space is segments of seg_len unit-stride elements and red indexes
// the segments (reduce_segments_vec). With splits > 1 each block writes a partial total,
// finished by reduce_finalize.
template <class R>
__global__ void __launch_bounds__(kThreads)
    reduce_rows(R r, const typename R::In* __restrict__ in, Indexer kept, Indexer red, int64_t M,
                int64_t N, int64_t chunk, bool contig, bool vec, int64_t seg_len,
                typename R::Total* partial) {
  using Acc = typename R::Acc;
  using Total = typename R::Total;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * chunk;
  const int64_t end = min(N, begin + chunk);
  Acc acc = r.identity();
  if (o < M) {
    const typename R::In* base = in + kept.offset(o);
    const typename R::Shift s = r.shift(o);
    if (seg_len > 0) {
      acc = reduce_segments_vec(r, base, red, seg_len, begin, end, s);
    } else if (vec) {
      acc = reduce_row_vec(r, base, begin, end, s);
    } else if (contig) {
      for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        acc = r.combine(acc, r.map(base[i], i, s));
      }
    } else {
      for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
        acc = r.combine(acc, r.map(base[red.offset(i)], i, s));
      }
    }
  }
  const Total t = reduce_x(r, static_cast<Total>(acc));
  if (threadIdx.x == 0 && o < M) {
    if (gridDim.y == 1) {
      r.write(o, t, N);
    } else {
      partial[o * gridDim.y + blockIdx.y] = t;
    }
  }
}

// Columns: each thread owns output o = blockIdx.x * blockDim.x + threadIdx.x (consecutive
// outputs are consecutive in memory, so loads coalesce) and walks the reduced elements with
// a step of blockDim.y; the blockDim.y totals of a column are then combined in shared memory.
template <class R>
__global__ void __launch_bounds__(kThreads)
    reduce_cols(R r, const typename R::In* __restrict__ in, Indexer kept, Indexer red, int64_t M,
                int64_t N, int64_t chunk, typename R::Total* partial) {
  using T = typename R::In;
  using Acc = typename R::Acc;
  using Total = typename R::Total;
  __shared__ Total column[kThreads];
  const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * bx + tx;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * chunk;
  const int64_t end = min(N, begin + chunk);
  Acc acc = r.identity();
  if (o < M) {
    const T* base = in + kept.offset(o);
    const typename R::Shift s = r.shift(o);
    int64_t i = begin + ty;
    for (; i + 3 * by < end; i += 4 * by) {
      T v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = base[red.offset(i + u * by)];
#pragma unroll
      for (int u = 0; u < 4; ++u) acc = r.combine(acc, r.map(v[u], i + u * by, s));
    }
    for (; i < end; i += by) acc = r.combine(acc, r.map(base[red.offset(i)], i, s));
  }
  column[ty * bx + tx] = static_cast<Total>(acc);
  __syncthreads();
  for (int h = by / 2; h > 0; h /= 2) {
    if (ty < h) column[ty * bx + tx] = r.combine(column[ty * bx + tx], column[(ty + h) * bx + tx]);
    __syncthreads();
  }
  if (ty == 0 && o < M) {
    if (gridDim.y == 1) {
      r.write(o, column[tx], N);
    } else {
      partial[o * gridDim.y + blockIdx.y] = column[tx];
    }
  }
}

// partial [M, splits] -> outputs: one warp per output, blockDim (32, 8).
template <class R>
__global__ void reduce_finalize(R r, const typename R::Total* __restrict__ partial, int64_t M,
                                int splits, int64_t N) {
  using Total = typename R::Total;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y;
  Total t = static_cast<Total>(r.identity());
  if (o < M) {
    for (int s = threadIdx.x; s < splits; s += blockDim.x)
      t = r.combine(t, partial[o * splits + s]);
  }
  t = reduce_x(r, t);
  if (threadIdx.x == 0 && o < M) r.write(o, t, N);
}

// ---- host launcher ----

// Resident blocks of kThreads threads per SM for kernel.
template <class Kernel>
int blocks_per_sm(Kernel kernel) {
  int n = 0;
  EMBER_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kThreads, 0));
  return std::max(1, n);
}

// Reduces in over dims with reducer r on the current device and stream; r.write() stores
// the results. `name` labels errors.
template <class R>
void launch_reduce(const char* name, const R& r, const Tensor& input, IntArrayRef dims) {
  using T = typename R::In;
  using Total = typename R::Total;
  Tensor in = input;
  Geometry g = make_reduce_geometry(in, dims);
  if (static_cast<int>(g.ksize.size()) > kMaxLaunchDims ||
      static_cast<int>(g.rsize.size()) > kMaxLaunchDims) {
    in = in.contiguous();  // merges what can be merged
    g = make_reduce_geometry(in, dims);
    EMBER_CHECK(static_cast<int>(g.ksize.size()) <= kMaxLaunchDims &&
                    static_cast<int>(g.rsize.size()) <= kMaxLaunchDims,
                name, ": too many non-adjacent dims for the CUDA kernel (", in.sizes(), ")");
  }
  const int64_t M = g.outputs, N = g.length;
  if (M == 0 || N == 0) return;  // core never passes these
  const Indexer kept = make_indexer(g.ksize, g.kstride);
  Indexer red = make_indexer(g.rsize, g.rstride);
  const T* x = in.data_ptr<T>();
  const cudaStream_t stream = current_stream();
  const int device = input.device().index();  // current: the callers guard it
  // Asked once per reducer (every GPU of a host is taken to be the same model).
  static const int rows_occupancy = blocks_per_sm(reduce_rows<R>);
  static const int cols_occupancy = blocks_per_sm(reduce_cols<R>);

  const bool contig = g.rsize.empty() || (g.rsize.size() == 1 && g.rstride[0] == 1);
  const bool columns =
      !contig && !g.ksize.empty() && g.kstride.back() == 1 && g.rstride.back() != 1;
  int splits = 1;
  int64_t chunk = N;
  int64_t blocks_x = 0;
  dim3 block;
  if (columns) {
    const int bx = static_cast<int>(std::min<int64_t>(32, pow2_ceil(M)));
    const int by = static_cast<int>(std::min<int64_t>(kThreads / bx, pow2_ceil(N)));
    blocks_x = ceil_div(M, bx);
    const int64_t target = int64_t(sm_count(device)) * cols_occupancy;
    const int64_t want = std::min(ceil_div(target, blocks_x), ceil_div(N, by * kMinPerThread));
    splits = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(want, kMaxSplits)));
    block = dim3(bx, by);
  } else {
    const int tx = N >= 4096 ? kThreads : static_cast<int>(std::min<int64_t>(32, pow2_ceil(N)));
    const int ty = kThreads / tx;
    blocks_x = ceil_div(M, ty);
    const int64_t target = int64_t(sm_count(device)) * rows_occupancy;
    const int64_t want = std::min(ceil_div(target, blocks_x), ceil_div(N, tx * kMinPerThread));
    splits = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(want, kMaxSplits)));
    block = dim3(tx, ty);
  }
  EMBER_CHECK(blocks_x < (int64_t(1) << 31), name, ": too many outputs for the CUDA kernel (", M,
              ")");
  if (splits > 1) {
    chunk = ceil_div(ceil_div(N, splits), 16) * 16;  // a multiple of every vector width
    splits = static_cast<int>(ceil_div(N, chunk));
  }
  const dim3 grid(static_cast<unsigned>(blocks_x), static_cast<unsigned>(splits));

  Tensor partial_buf;
  Total* partial = nullptr;
  if (splits > 1) {
    const int64_t bytes = M * splits * static_cast<int64_t>(sizeof(Total));
    partial_buf = empty_on({bytes}, kUInt8, in.device());
    partial = static_cast<Total*>(partial_buf.data_ptr());
  }

  if (columns) {
    reduce_cols<R><<<grid, block, 0, stream>>>(r, x, kept, red, M, N, chunk, partial);
  } else {
    // 16-byte loads need every row start (and split start, a multiple of 16) aligned; over
    // segments, every segment start and the segment length too.
    const int64_t esize = static_cast<int64_t>(sizeof(T));
    const bool segments = !contig && g.rsize.size() >= 2 && g.rstride.back() == 1 &&
                          (g.rsize.back() * esize) % 16 == 0;
    bool vec = (contig || segments) && N >= 16 / esize && reinterpret_cast<uintptr_t>(x) % 16 == 0;
    for (size_t d = 0; vec && d < g.kstride.size(); ++d) vec = (g.kstride[d] * esize) % 16 == 0;
    for (size_t d = 0; vec && segments && d + 1 < g.rstride.size(); ++d) {
      vec = (g.rstride[d] * esize) % 16 == 0;
    }
    int64_t seg_len = 0;
    if (segments && vec) {
      seg_len = g.rsize.back();
      const size_t outer = g.rsize.size() - 1;
      red = make_indexer(IntArrayRef(g.rsize).slice(0, outer),
                         IntArrayRef(g.rstride).slice(0, outer));
      red.small = N <= INT32_MAX;  // the division in reduce_segments_vec is of element numbers
    }
    reduce_rows<R><<<grid, block, 0, stream>>>(r, x, kept, red, M, N, chunk, contig, vec && contig,
                                               seg_len, partial);
  }
  EMBER_CUDA_KERNEL_CHECK(name);
  if (splits > 1) {
    const dim3 fblock(32, 8);
    const dim3 fgrid(static_cast<unsigned>(ceil_div(M, 8)));
    reduce_finalize<R><<<fgrid, fblock, 0, stream>>>(r, partial, M, splits, N);
    EMBER_CUDA_KERNEL_CHECK(name);
  }
  // partial_buf is released here while the kernels may still run: the allocator is
  // stream-ordered (the memory is reused only by later work on the same stream).
}

}  // namespace reduce_detail
}  // namespace cuda
}  // namespace ember
