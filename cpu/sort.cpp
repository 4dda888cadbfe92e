// CPU sort, topk, kthvalue, median over the rows of a contiguous [R, N] input: order-preserving
// keys with their index (stable order); LSD radix for long rows, a heap for topk, nth_element.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/common/sort_keys.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {
namespace {

using common::SortKey;

// A key with its index, ordered by key then index (so any sort of them is the stable one).
template <class Bits>
struct Item {
  Bits key;
  int64_t index;
  bool operator<(const Item& o) const { return key < o.key || (key == o.key && index < o.index); }
};

// LSD radix sort of n records by the key bits [lo_bit, hi_bit), stable, with `tmp` as scratch;
// passes whose digit is the same for every record are skipped. The result ends in `a`.
template <class Rec, class KeyOf>
void radix_sort(Rec* a, Rec* tmp, int64_t n, int lo_bit, int hi_bit, KeyOf key_of) {
  constexpr int kBits = 11;
  constexpr int kBuckets = 1 << kBits;
  std::vector<int64_t> count(kBuckets);
  Rec* src = a;
  Rec* dst = tmp;
  for (int shift = lo_bit; shift < hi_bit; shift += kBits) {
    std::fill(count.begin(), count.end(), 0);
    for (int64_t i = 0; i < n; ++i) ++count[(key_of(src[i]) >> shift) & (kBuckets - 1)];
    bool trivial = false;
    for (int b = 0; b < kBuckets; ++b) {
      if (count[b] == n) trivial = true;
    }
    if (trivial) continue;
    int64_t sum = 0;
    for (int b = 0; b < kBuckets; ++b) {
      const int64_t c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; ++i)
      dst[count[(key_of(src[i]) >> shift) & (kBuckets - 1)]++] = src[i];
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(static_cast<void*>(a), src, sizeof(Rec) * static_cast<size_t>(n));
}

constexpr int64_t kRadixMin = 512;  // shorter rows take std::sort

// Sorts one row of n values: values and indices in the stable (ascending or descending) order.
template <class T>
void sort_row(const T* x, int64_t n, bool descending, T* vals, int64_t* idx,
              std::vector<uint64_t>& packed, std::vector<uint64_t>& scratch) {
  using Bits = typename SortKey<T>::Bits;
  if constexpr (sizeof(Bits) == 4) {
    if (n < (int64_t(1) << 32)) {
      // key in the high half, index in the low: sorting the words sorts by key, then index
      packed.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        packed[i] = (uint64_t(common::directed_key(x[i], descending)) << 32) | uint64_t(i);
      }
      if (n >= kRadixMin) {
        scratch.resize(static_cast<size_t>(n));
        const int hi = std::is_same<T, uint8_t>::value || std::is_same<T, bool>::value ? 40 : 64;
        radix_sort(packed.data(), scratch.data(), n, 32, hi, [](uint64_t w) { return w; });
      } else {
        std::sort(packed.begin(), packed.end());
      }
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = static_cast<int64_t>(packed[i] & 0xFFFFFFFFu);
        vals[i] = x[j];
        idx[i] = j;
      }
      return;
    }
  }
  std::vector<Item<Bits>> items(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) items[i] = {common::directed_key(x[i], descending), i};
  if (n >= kRadixMin) {
    std::vector<Item<Bits>> tmp(static_cast<size_t>(n));
    radix_sort(items.data(), tmp.data(), n, 0, int(sizeof(Bits) * 8),
               [](const Item<Bits>& it) { return it.key; });
  } else {
    std::sort(items.begin(), items.end());
  }
  for (int64_t i = 0; i < n; ++i) {
    vals[i] = x[items[i].index];
    idx[i] = items[i].index;
  }
}

// Rows of n elements in parallel, about kParallelGrain elements per task.
void for_rows(int64_t rows, int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1));
  parallel_for(0, rows, grain, fn);
}

void sort_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending) {
  const int64_t R = in.size(0), N = in.size(1);
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), "sort", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* v = values.data_ptr<scalar_t>();
    int64_t* ix = indices.data_ptr<int64_t>();
    for_rows(R, N, [&](int64_t r0, int64_t r1) {
      std::vector<uint64_t> packed, scratch;
      for (int64_t r = r0; r < r1; ++r) {
        sort_row(x + r * N, N, descending, v + r * N, ix + r * N, packed, scratch);
      }
    });
  });
}

// The k best items of x[begin, end) (the smallest (directed key, index) pairs), unordered.
template <class T>
void best_k(const T* x, int64_t begin, int64_t end, int64_t k, bool descending,
            std::vector<Item<typename SortKey<T>::Bits>>& heap) {
  using Bits = typename SortKey<T>::Bits;
  heap.clear();
  int64_t i = begin;
  for (; i < end && static_cast<int64_t>(heap.size()) < k; ++i) {
    heap.push_back({common::directed_key(x[i], descending), i});
  }
  std::make_heap(heap.begin(), heap.end());  // max-heap: the worst kept item on top
  if (heap.empty()) return;
  Bits worst = heap.front().key;
  for (; i < end; ++i) {
    const Bits key = common::directed_key(x[i], descending);
    if (key >= worst) continue;  // equal keys lose to the earlier index already kept
    std::pop_heap(heap.begin(), heap.end());
    heap.back() = {key, i};
    std::push_heap(heap.begin(), heap.end());
    worst = heap.front().key;
  }
}

template <class T>
void topk_row(const T* x, int64_t n, int64_t k, bool largest, T* vals, int64_t* idx, bool split) {
  using It = Item<typename SortKey<T>::Bits>;
  std::vector<It> best;
  if (k * 8 > n) {  // a large share of the row: select, then sort the k
    best.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) best[i] = {common::directed_key(x[i], largest), i};
    if (k < n) std::nth_element(best.begin(), best.begin() + (k - 1), best.end());
    best.resize(static_cast<size_t>(k));
  } else if (split) {  // one long row: each thread keeps the k best of its chunk, then merge
    const int64_t chunks = std::max(1, get_num_threads());
    std::vector<std::vector<It>> parts(static_cast<size_t>(chunks));
    const int64_t step = (n + chunks - 1) / chunks;
    parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        best_k(x, c * step, std::min(n, (c + 1) * step), k, largest, parts[c]);
      }
    });
    for (auto& p : parts) best.insert(best.end(), p.begin(), p.end());
    std::nth_element(best.begin(), best.begin() + (k - 1), best.end());
    best.resize(static_cast<size_t>(k));
  } else {
    best_k(x, 0, n, k, largest, best);
  }
  std::sort(best.begin(), best.end());
  for (int64_t i = 0; i < k; ++i) {
    vals[i] = x[best[i].index];
    idx[i] = best[i].index;
  }
}

void topk_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k,
                 bool largest) {
  const int64_t R = in.size(0), N = in.size(1);
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), "topk", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* v = values.data_ptr<scalar_t>();
    int64_t* ix = indices.data_ptr<int64_t>();
    const bool split = R == 1 && N >= 4 * kParallelGrain;
    for_rows(R, N, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        topk_row(x + r * N, N, k, largest, v + r * k, ix + r * k, split);
      }
    });
  });
}

// The item at position pos (0-based) of the row's stable ascending order. pos < 0 asks for the
// median: the first NaN if the row has one (pos == -1), else the lower median of the non-NaN
// values (pos == -2: nanmedian, the first NaN when every value is NaN).
template <class T>
void select_row(const T* x, int64_t n, int64_t pos, T* val, int64_t* index) {
  using Bits = typename SortKey<T>::Bits;
  std::vector<Item<Bits>> items(static_cast<size_t>(n));
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    items[i] = {SortKey<T>::of(x[i]), i};
    nans += SortKey<T>::is_nan(items[i].key);
  }
  if (pos < 0) {
    const int64_t valid = n - nans;
    if (pos == -1 && nans > 0) {
      pos = valid;
    } else {
      pos = valid > 0 ? (valid - 1) / 2 : 0;
    }
  }
  std::nth_element(items.begin(), items.begin() + pos, items.end());
  *val = x[items[pos].index];
  *index = items[pos].index;
}

void select_rows(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t pos,
                 const char* name) {
  const int64_t R = in.size(0), N = in.size(1);
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), name, [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* v = values.data_ptr<scalar_t>();
    int64_t* ix = indices.data_ptr<int64_t>();
    for_rows(R, N, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) select_row(x + r * N, N, pos, v + r, ix + r);
    });
  });
}

void kthvalue_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k) {
  select_rows(values, indices, in, k - 1, "kthvalue");
}

void median_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, bool ignore_nan) {
  select_rows(values, indices, in, ignore_nan ? -2 : -1, "median");
}

}  // namespace

void register_sort_kernels() {
  register_kernel<Op::sort>(kCPU, sort_kernel);
  register_kernel<Op::topk>(kCPU, topk_kernel);
  register_kernel<Op::kthvalue>(kCPU, kthvalue_kernel);
  register_kernel<Op::median>(kCPU, median_kernel);
}

}  // namespace cpu
}  // namespace ember
