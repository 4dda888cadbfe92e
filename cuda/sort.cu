// CUDA sort, topk, kthvalue, median over [R, N] rows: CUB's stable radix sort of order-preserving
// keys (the CPU's order exactly), scratch from ember's caching allocator; warp selection for topk.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <type_traits>

#include <ember/common/sort_keys.h>
#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

using common::SortKey;

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

// Device scratch of ember's caching allocator (freed back to the cache, in stream order).
Tensor scratch(int64_t bytes, const Device& device) {
  return empty_on({bytes > 0 ? bytes : 1}, kUInt8, device);
}
template <class U>
U* ptr(const Tensor& t) {
  return reinterpret_cast<U*>(t.data_ptr<uint8_t>());
}

int bits_for(uint64_t v) {  // bits needed to write v
  int b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

// keys[i] = (row << 32 | key) when packed, else the key; pos[i] = i.
template <class T, class K, class I>
__global__ void make_keys(const T* x, int64_t total, int64_t n, bool descending, bool packed,
                          K* keys, I* pos) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t key = common::directed_key(x[i], descending);
    keys[i] = packed ? K((uint64_t(i / n) << 32) | key) : K(key);
    pos[i] = I(i);
  }
}

template <class I>
__global__ void row_keys(const I* pos, int64_t total, int64_t n, uint32_t* keys) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    keys[i] = uint32_t(int64_t(pos[i]) / n);
  }
}

template <class K, class V>
void radix_pairs(const K* keys_in, K* keys_out, const V* vals_in, V* vals_out, int64_t total,
                 int end_bit, const Device& device, cudaStream_t stream) {
  size_t bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, vals_in,
                                                   vals_out, total, 0, end_bit, stream));
  Tensor temp = scratch(static_cast<int64_t>(bytes), device);
  EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ptr<void>(temp), bytes, keys_in, keys_out,
                                                   vals_in, vals_out, total, 0, end_bit, stream));
}

// The positions (flat indices into in) of every row's elements in the stable sorted order, row
// after row: a tensor of R * N values of type I (int32 or int64).
template <class T, class I>
Tensor sorted_positions(const Tensor& in, bool descending) {
  using Bits = typename SortKey<T>::Bits;
  const int64_t R = in.size(0), N = in.size(1), total = R * N;
  const Device device = in.device();
  cudaStream_t stream = current_stream();
  const unsigned blocks = grid_blocks(total, kThreads, kMaxBlocks);
  const int key_bits =
      (std::is_same<T, uint8_t>::value || std::is_same<T, bool>::value) ? 8 : int(sizeof(Bits) * 8);
  Tensor pos_a = scratch(total * int64_t(sizeof(I)), device);
  Tensor pos_b = scratch(total * int64_t(sizeof(I)), device);
  if (sizeof(Bits) == 4 && R > 1) {  // one sort of (row, key) words
    Tensor ka = scratch(total * 8, device), kb = scratch(total * 8, device);
    make_keys<<<blocks, kThreads, 0, stream>>>(in.data_ptr<T>(), total, N, descending, true,
                                               ptr<uint64_t>(ka), ptr<I>(pos_a));
    EMBER_CUDA_CHECK_LAUNCH();
    radix_pairs(ptr<uint64_t>(ka), ptr<uint64_t>(kb), ptr<I>(pos_a), ptr<I>(pos_b), total,
                32 + bits_for(uint64_t(R - 1)), device, stream);
    return pos_b;
  }
  using K = std::conditional_t<sizeof(Bits) == 4, uint32_t, uint64_t>;
  Tensor ka = scratch(total * int64_t(sizeof(K)), device);
  Tensor kb = scratch(total * int64_t(sizeof(K)), device);
  make_keys<<<blocks, kThreads, 0, stream>>>(in.data_ptr<T>(), total, N, descending, false,
                                             ptr<K>(ka), ptr<I>(pos_a));
  EMBER_CUDA_CHECK_LAUNCH();
  radix_pairs(ptr<K>(ka), ptr<K>(kb), ptr<I>(pos_a), ptr<I>(pos_b), total, key_bits, device,
              stream);
  if (R == 1) return pos_b;
  // 64-bit keys of several rows: a second stable sort, by row, groups the rows.
  Tensor ra = scratch(total * 4, device), rb = scratch(total * 4, device);
  row_keys<<<blocks, kThreads, 0, stream>>>(ptr<I>(pos_b), total, N, ptr<uint32_t>(ra));
  EMBER_CUDA_CHECK_LAUNCH();
  radix_pairs(ptr<uint32_t>(ra), ptr<uint32_t>(rb), ptr<I>(pos_b), ptr<I>(pos_a), total,
              bits_for(uint64_t(R - 1)), device, stream);
  return pos_a;
}

// One row of 32-bit keys sorts as 64-bit words (key << 32 | position), keys only: the position
// rides in the low half. position() reads either form.
__device__ inline int64_t position(uint64_t word) { return int64_t(word & 0xFFFFFFFFu); }
__device__ inline int64_t position(int32_t p) { return p; }
__device__ inline int64_t position(int64_t p) { return p; }

template <class T>
__global__ void make_words(const T* x, int64_t n, bool descending, uint64_t* words) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    words[i] = (uint64_t(common::directed_key(x[i], descending)) << 32) | uint64_t(i);
  }
}

// The sorted words of one row, in one of two buffers (CUB's double buffer: no copy back).
template <class T>
Tensor sorted_words(const Tensor& in, bool descending) {
  const int64_t n = in.size(1);
  const Device device = in.device();
  cudaStream_t stream = current_stream();
  const int end_bit = (std::is_same<T, uint8_t>::value || std::is_same<T, bool>::value) ? 40 : 64;
  Tensor a = scratch(n * 8, device), b = scratch(n * 8, device);
  make_words<<<grid_blocks(n, kThreads, kMaxBlocks), kThreads, 0, stream>>>(
      in.data_ptr<T>(), n, descending, ptr<uint64_t>(a));
  EMBER_CUDA_CHECK_LAUNCH();
  cub::DoubleBuffer<uint64_t> words(ptr<uint64_t>(a), ptr<uint64_t>(b));
  size_t bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, words, n, 32, end_bit, stream));
  Tensor temp = scratch(static_cast<int64_t>(bytes), device);
  EMBER_CUDA_CHECK(
      cub::DeviceRadixSort::SortKeys(ptr<void>(temp), bytes, words, n, 32, end_bit, stream));
  return words.Current() == ptr<uint64_t>(a) ? a : b;
}

// values/indices [1, k] from the first k sorted words of one row: each value decodes from its
// key (a coalesced pass instead of a gather), but for zeros and NaNs, read from x.
template <class T>
__global__ void take_words_of_row(const T* x, const uint64_t* words, int64_t k, bool descending,
                                  T* vals, int64_t* idx) {
  using Bits = typename SortKey<T>::Bits;
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < k;
       j += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t word = words[j];
    const int64_t p = int64_t(word & 0xFFFFFFFFu);
    const Bits key = Bits(word >> 32);
    T v;
    if (!SortKey<T>::decode(descending ? Bits(~key) : key, &v)) v = x[p];
    vals[j] = v;
    idx[j] = p;
  }
}

// values/indices [R, k] from columns [0, k) of the sorted positions.
template <class T, class I>
__global__ void take_columns(const T* x, const I* pos, int64_t R, int64_t n, int64_t k, T* vals,
                             int64_t* idx) {
  const int64_t total = R * k;
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < total;
       j += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = j / k, col = j - row * k;
    const int64_t p = position(pos[row * n + col]);
    vals[j] = x[p];
    idx[j] = p - row * n;
  }
}

// One value per row: column `col` (kthvalue), or the median: mode 1 the first NaN if any, else
// the lower median; mode 2 (nanmedian) the lower median of the non-NaN values.
template <class T, class I>
__global__ void take_one(const T* x, const I* pos, int64_t R, int64_t n, int64_t col, int mode,
                         T* vals, int64_t* idx) {
  for (int64_t row = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; row < R;
       row += int64_t(gridDim.x) * blockDim.x) {
    const I* p = pos + row * n;
    int64_t c = col;
    if (mode != 0) {
      // NaN sorts last: binary search for the first NaN of the ascending row
      int64_t lo = 0, hi = n;
      while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        const T v = x[position(p[mid])];
        if (v != v) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      const int64_t valid = lo;
      if (mode == 1 && valid < n) {
        c = valid;
      } else {
        c = valid > 0 ? (valid - 1) / 2 : 0;
      }
    }
    const int64_t q = position(p[c]);
    vals[row] = x[q];
    idx[row] = q - row * n;
  }
}

// Calls f with the type of the sorted positions: uint64_t words (total < 0), int32 or int64.
template <class F>
void with_positions(int64_t total, const F& f) {
  if (total < 0) {
    f(uint64_t{});
  } else if (total < (int64_t(1) << 31)) {
    f(int32_t{});
  } else {
    f(int64_t{});
  }
}

// Sorts the rows of in [R, N] on its device (keys ascending, or descending) and calls
// launch(T{}, pos), T in's dtype and pos the sorted positions: 64-bit words (key, index) of a
// single row when its keys fit 32 bits, else int32 or int64 positions (with_positions); then
// checks the launch.
template <class Launch>
void with_sorted_rows(const Tensor& in, bool descending, const char* name, const Launch& launch) {
  DeviceGuard guard(in.device().index());
  const int64_t R = in.size(0), N = in.size(1);
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), name, [&] {
    const bool words =
        R == 1 && sizeof(typename SortKey<scalar_t>::Bits) == 4 && N < (int64_t(1) << 32);
    with_positions(words ? -1 : R * N, [&](auto idx_type) {
      using I = decltype(idx_type);
      Tensor pos = words ? sorted_words<scalar_t>(in, descending)
                         : sorted_positions<scalar_t, I>(in, descending);
      launch(scalar_t{}, ptr<I>(pos));
      EMBER_CUDA_CHECK_LAUNCH();
    });
  });
}

// The first k of each sorted row (sort: k = N).
void take(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool descending,
          const char* name) {
  const int64_t R = in.size(0), N = in.size(1);
  with_sorted_rows(in, descending, name, [&](auto t, const auto* pos) {
    using T = decltype(t);
    const unsigned blocks = grid_blocks(R * k, kThreads, kMaxBlocks);
    using I = std::remove_const_t<std::remove_pointer_t<decltype(pos)>>;
    if constexpr (std::is_same<I, uint64_t>::value &&
                  sizeof(typename SortKey<T>::Bits) == 4) {  // one row's words
      take_words_of_row<<<blocks, kThreads, 0, current_stream()>>>(
          in.data_ptr<T>(), pos, k, descending, values.data_ptr<T>(), indices.data_ptr<int64_t>());
    } else {
      take_columns<<<blocks, kThreads, 0, current_stream()>>>(
          in.data_ptr<T>(), pos, R, N, k, values.data_ptr<T>(), indices.data_ptr<int64_t>());
    }
  });
}

// ---- topk for small k: warp selection over (key << 32 | index) words, in levels ----
// Each warp takes a tile of 32 * kItems words of a row and writes its k smallest, in order, by
// k rounds of a warp-wide minimum; the k-word lists of a level are the next level's input, until
// one tile is left per row. The words order as the CPU's (key, index) pairs: the same answer.
constexpr int kItems = 16;
constexpr int64_t kTile = 32 * kItems;
constexpr int64_t kFastTopk = 16;  // the largest k of this path
constexpr uint64_t kPad = ~uint64_t(0);

template <class T, bool kFromValues>
__global__ void warp_select(const T* x, const uint64_t* words, int64_t rows, int64_t n,
                            int64_t tiles, int64_t k, bool largest, uint64_t* out) {
  const int lane = threadIdx.x & 31;
  const int64_t gw = blockIdx.x * int64_t(blockDim.x / 32) + threadIdx.x / 32;
  if (gw >= rows * tiles) return;  // the whole warp leaves together
  const int64_t row = gw / tiles, tile = gw - row * tiles;
  uint64_t item[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int64_t i = tile * kTile + j * 32 + lane;
    if (i >= n) {
      item[j] = kPad;
    } else if (kFromValues) {
      item[j] = (uint64_t(common::directed_key(x[row * n + i], largest)) << 32) | uint64_t(i);
    } else {
      item[j] = words[row * n + i];
    }
  }
  uint64_t* dst = out + gw * k;
  for (int64_t r = 0; r < k; ++r) {
    uint64_t m = item[0];
#pragma unroll
    for (int j = 1; j < kItems; ++j) m = item[j] < m ? item[j] : m;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      const uint64_t o = __shfl_xor_sync(0xFFFFFFFFu, m, off);
      m = o < m ? o : m;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      if (item[j] == m) item[j] = kPad;
    }
    if (lane == 0) dst[r] = m;
  }
}

template <class T>
__global__ void take_words(const T* x, const uint64_t* words, int64_t rows, int64_t n, int64_t k,
                           T* vals, int64_t* idx) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < rows * k;
       j += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = j / k;
    const int64_t i = int64_t(words[j] & 0xFFFFFFFFu);
    vals[j] = x[row * n + i];
    idx[j] = i;
  }
}

template <class T>
void fast_topk(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k,
               bool largest) {
  const int64_t R = in.size(0), N = in.size(1);
  const Device device = in.device();
  cudaStream_t stream = current_stream();
  const int threads = 256, warps = threads / 32;
  int64_t n = N, tiles = (N + kTile - 1) / kTile;
  Tensor cur = scratch(R * tiles * k * 8, device);
  warp_select<T, true><<<unsigned((R * tiles + warps - 1) / warps), threads, 0, stream>>>(
      in.data_ptr<T>(), nullptr, R, n, tiles, k, largest, ptr<uint64_t>(cur));
  EMBER_CUDA_CHECK_LAUNCH();
  while (tiles > 1) {
    n = tiles * k;
    tiles = (n + kTile - 1) / kTile;
    Tensor next = scratch(R * tiles * k * 8, device);
    warp_select<T, false><<<unsigned((R * tiles + warps - 1) / warps), threads, 0, stream>>>(
        nullptr, ptr<uint64_t>(cur), R, n, tiles, k, largest, ptr<uint64_t>(next));
    EMBER_CUDA_CHECK_LAUNCH();
    cur = next;
  }
  take_words<<<grid_blocks(R * k, kThreads, kMaxBlocks), kThreads, 0, stream>>>(
      in.data_ptr<T>(), ptr<uint64_t>(cur), R, N, k, values.data_ptr<T>(),
      indices.data_ptr<int64_t>());
  EMBER_CUDA_CHECK_LAUNCH();
}

void sort_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending) {
  take(values, indices, in, in.size(1), descending, "sort");
}

void topk_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k,
                 bool largest) {
  const int64_t R = in.size(0), N = in.size(1);
  const bool small_keys = in.dtype() != kFloat64 && in.dtype() != kInt64;
  if (k <= kFastTopk && small_keys && R * N < (int64_t(1) << 31) && N > k) {
    DeviceGuard guard(in.device().index());
    EMBER_DISPATCH_ALL_TYPES(in.dtype(), "topk", [&] {
      if constexpr (sizeof(typename SortKey<scalar_t>::Bits) == 4) {
        fast_topk<scalar_t>(values, indices, in, k, largest);
      }
    });
    return;
  }
  take(values, indices, in, k, largest, "topk");
}

// One element of each ascending row: column col (mode 0), or the median (modes 1, 2: take_one).
void select_one(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t col,
                int mode, const char* name) {
  const int64_t R = in.size(0), N = in.size(1);
  with_sorted_rows(in, false, name, [&](auto t, const auto* pos) {
    using T = decltype(t);
    take_one<<<grid_blocks(R, kThreads, kMaxBlocks), kThreads, 0, current_stream()>>>(
        in.data_ptr<T>(), pos, R, N, col, mode, values.data_ptr<T>(), indices.data_ptr<int64_t>());
  });
}

void kthvalue_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k) {
  select_one(values, indices, in, k - 1, 0, "kthvalue");
}

void median_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, bool ignore_nan) {
  select_one(values, indices, in, 0, ignore_nan ? 2 : 1, "median");
}

}  // namespace

void register_sort_kernels() {
  register_kernel<Op::sort>(kCUDA, sort_kernel);
  register_kernel<Op::topk>(kCUDA, topk_kernel);
  register_kernel<Op::kthvalue>(kCUDA, kthvalue_kernel);
  register_kernel<Op::median>(kCUDA, median_kernel);
}

}  // namespace cuda
}  // namespace ember
