// CUDA scans along one dim of a contiguous [outer, n, inner] tensor: cumsum, cumprod (floats in
// double), cummax, cummin; one thread per column, or one block per row with cub::BlockScan.
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <cstdint>

#include <ember/common/scan_geometry.h>
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

constexpr int kThreads = 256;
constexpr int kRowThreads = 512;
constexpr int64_t kOneRowScan = 16384;  // longer single rows scan device-wide

using common::scan_shape;
using common::ScanShape;  // common/scan_geometry.h, shared with cpu/scan.cpp
template <class T>
using Acc = common::ScanAcc<T>;

// The scans' associative steps over (earlier, later).
template <bool kProd>
struct CumOp {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return kProd ? a * b : a + b;
  }
};

// The same step over one accumulation type, whatever the input's (for cub::DeviceScan).
template <bool kProd, class A>
struct TypedCumOp {
  __device__ A operator()(A a, A b) const { return kProd ? a * b : a + b; }
};

template <class T>
struct Running {
  T value;
  int64_t index;
};

template <bool kMax>
struct ExtremumOp {
  template <class T>
  __device__ Running<T> operator()(Running<T> a, Running<T> b) const {
    return common::cum_takes<kMax>(b.value, a.value) ? b : a;
  }
};

// ---- columns: one thread per (outer, inner) column, n sequential steps (coalesced) ----
template <bool kProd, class T>
__global__ void cum_columns(const T* x, T* y, ScanShape s) {
  const int64_t cols = s.outer * s.inner;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cols;
       c += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = c / s.inner, j = c - o * s.inner;
    const int64_t base = o * s.n * s.inner + j;
    Acc<T> acc = kProd ? Acc<T>(1) : Acc<T>(0);
    for (int64_t i = 0; i < s.n; ++i) {
      const int64_t at = base + i * s.inner;
      acc = CumOp<kProd>()(acc, Acc<T>(x[at]));
      y[at] = T(acc);
    }
  }
}

template <bool kMax, class T>
__global__ void extremum_columns(const T* x, T* v, int64_t* ix, ScanShape s) {
  const int64_t cols = s.outer * s.inner;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cols;
       c += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = c / s.inner, j = c - o * s.inner;
    const int64_t base = o * s.n * s.inner + j;
    Running<T> r{x[base], 0};
    for (int64_t i = 0; i < s.n; ++i) {
      const int64_t at = base + i * s.inner;
      r = ExtremumOp<kMax>()(r, Running<T>{x[at], i});
      v[at] = r.value;
      ix[at] = r.index;
    }
  }
}

// ---- rows: one block per row, tiles of kRowThreads elements, a carry between tiles ----
template <bool kProd, class T>
__global__ void cum_rows(const T* x, T* y, int64_t rows, int64_t n) {
  using A = Acc<T>;
  using Scan = cub::BlockScan<A, kRowThreads>;
  __shared__ typename Scan::TempStorage temp;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    A carry = kProd ? A(1) : A(0);
    for (int64_t t0 = 0; t0 < n; t0 += kRowThreads) {
      const int64_t i = t0 + threadIdx.x;
      A v = i < n ? A(xr[i]) : (kProd ? A(1) : A(0));
      A total;
      Scan(temp).InclusiveScan(v, v, CumOp<kProd>(), total);
      __syncthreads();
      v = CumOp<kProd>()(carry, v);
      if (i < n) yr[i] = T(v);
      carry = CumOp<kProd>()(carry, total);
    }
  }
}

template <bool kMax, class T>
__global__ void extremum_rows(const T* x, T* vals, int64_t* ix, int64_t rows, int64_t n) {
  using Scan = cub::BlockScan<Running<T>, kRowThreads>;
  __shared__ typename Scan::TempStorage temp;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * n;
    Running<T> carry{xr[0], 0};
    for (int64_t t0 = 0; t0 < n; t0 += kRowThreads) {
      const int64_t i = t0 + threadIdx.x;
      // past the end: copies of the last element, which change no real position's result
      const int64_t src = i < n ? i : n - 1;
      Running<T> v{xr[src], src};
      Running<T> total;
      Scan(temp).InclusiveScan(v, v, ExtremumOp<kMax>(), total);
      __syncthreads();
      v = ExtremumOp<kMax>()(carry, v);
      if (i < n) {
        vals[row * n + i] = v.value;
        ix[row * n + i] = v.index;
      }
      carry = ExtremumOp<kMax>()(carry, total);
    }
  }
}

unsigned row_blocks(int64_t rows) { return static_cast<unsigned>(rows < 65535 ? rows : 65535); }

template <bool kProd>
void cum(const Tensor& out, const Tensor& in, int64_t dim) {
  DeviceGuard guard(in.device().index());
  const ScanShape s = scan_shape(in, dim);
  cudaStream_t stream = current_stream();
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kProd ? "cumprod" : "cumsum", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    if (s.inner == 1 && s.outer == 1 && s.n > kOneRowScan) {
      // one long row: CUB's device-wide scan (decoupled look-back), accumulating in Acc
      size_t bytes = 0;
      const TypedCumOp<kProd, Acc<scalar_t>> op;
      EMBER_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, x, y, op, s.n, stream));
      Tensor temp = empty_on({int64_t(bytes) + 1}, kUInt8, in.device());
      EMBER_CUDA_CHECK(
          cub::DeviceScan::InclusiveScan(temp.data_ptr<uint8_t>(), bytes, x, y, op, s.n, stream));
    } else if (s.inner == 1) {
      cum_rows<kProd, scalar_t>
          <<<row_blocks(s.outer), kRowThreads, 0, stream>>>(x, y, s.outer, s.n);
    } else {
      cum_columns<kProd, scalar_t>
          <<<grid_blocks(s.outer * s.inner, kThreads, 65535), kThreads, 0, stream>>>(x, y, s);
    }
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

template <bool kMax>
void cum_extremum(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  DeviceGuard guard(in.device().index());
  const ScanShape s = scan_shape(in, dim);
  cudaStream_t stream = current_stream();
  EMBER_DISPATCH_ALL_TYPES(in.dtype(), kMax ? "cummax" : "cummin", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* v = values.data_ptr<scalar_t>();
    int64_t* ix = indices.data_ptr<int64_t>();
    if (s.inner == 1) {
      extremum_rows<kMax, scalar_t>
          <<<row_blocks(s.outer), kRowThreads, 0, stream>>>(x, v, ix, s.outer, s.n);
    } else {
      extremum_columns<kMax, scalar_t>
          <<<grid_blocks(s.outer * s.inner, kThreads, 65535), kThreads, 0, stream>>>(x, v, ix, s);
    }
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

void register_scan_kernels() {
  register_kernel<Op::cumsum>(kCUDA, cum<false>);
  register_kernel<Op::cumprod>(kCUDA, cum<true>);
  register_kernel<Op::cummax>(kCUDA, cum_extremum<true>);
  register_kernel<Op::cummin>(kCUDA, cum_extremum<false>);
}

}  // namespace cuda
}  // namespace ember
