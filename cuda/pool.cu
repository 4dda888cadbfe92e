// CUDA max/avg pooling over [N, C, H, W] (fixed and adaptive windows) and their backward,
// with ember's own kernels: cuDNN's pooling cannot return the max indices (PyTorch uses its own
// kernels too). Forward: one thread per output element. Backward: one thread per input element
// gathering from the outputs whose window covers it (no atomics, so results are deterministic
// and every element of grad_in is written). Semantics are PyTorch's (see core/ops.def).
#include <cuda_runtime.h>

#include <cstdint>

#include <ember/core/dispatch.h>
#include <ember/core/dtype.h>
#include <ember/core/error.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 1 << 16;  // grid-stride beyond that
// 32-bit index math when every linear index, plus one grid stride, stays below 2^31.
constexpr int64_t kMax32 = int64_t(1) << 30;

unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kBlock - 1) / kBlock;
  return static_cast<unsigned>(b < kMaxBlocks ? b : kMaxBlocks);
}

// The geometry of one pooling, in the kernels' index type I. Planes: N * C of them, H x W in,
// OH x OW out. Fixed windows start at o * stride - pad and take taps dilation apart.
template <class I>
struct Dims {
  I h, w, oh, ow;
  I kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t divisor_override;  // 0: none
  bool count_include_pad;
};

template <class I>
Dims<I> make_dims(const Tensor& in, const Tensor& out, const PoolArgs& a) {
  Dims<I> d;
  d.h = static_cast<I>(in.sizes()[2]);
  d.w = static_cast<I>(in.sizes()[3]);
  d.oh = static_cast<I>(out.sizes()[2]);
  d.ow = static_cast<I>(out.sizes()[3]);
  d.kh = static_cast<I>(a.kernel[0]);
  d.kw = static_cast<I>(a.kernel[1]);
  d.sh = static_cast<I>(a.stride[0]);
  d.sw = static_cast<I>(a.stride[1]);
  d.ph = static_cast<I>(a.padding[0]);
  d.pw = static_cast<I>(a.padding[1]);
  d.dh = static_cast<I>(a.dilation[0]);
  d.dw = static_cast<I>(a.dilation[1]);
  d.divisor_override = a.divisor_override;
  d.count_include_pad = a.count_include_pad;
  return d;
}

// Adaptive windows: output i of `out` covers [floor(i in / out), ceil((i + 1) in / out)). The
// same formulas with in and out swapped give the outputs covering input i. 64-bit products
// (i * in may pass 2^31 even when every tensor is small).
template <class I>
__device__ __forceinline__ I adaptive_start(I i, I out, I in) {
  return static_cast<I>((static_cast<int64_t>(i) * in) / out);
}
template <class I>
__device__ __forceinline__ I adaptive_end(I i, I out, I in) {
  return static_cast<I>(((static_cast<int64_t>(i) + 1) * in + out - 1) / out);
}

// The first tap of a dilated window at or after 0 (start may be negative by the padding).
template <class I>
__device__ __forceinline__ I first_tap(I start, I dilation) {
  return start >= 0 ? start : start + ((-start + dilation - 1) / dilation) * dilation;
}

template <class I>
__device__ __forceinline__ I lo(I a, I b) {
  return a < b ? a : b;
}
template <class I>
__device__ __forceinline__ I hi(I a, I b) {
  return a < b ? b : a;
}

template <class T>
__device__ __forceinline__ bool is_nan(T v) {
  return v != v;
}

// ---- max pooling ----

// in [NC, H, W]; out, indices [NC, OH, OW] (total = NC * OH * OW). indices: the winner's
// h * W + w in its plane; the first maximum wins ties, a NaN wins over numbers (the last NaN
// over earlier ones, as PyTorch's `v > best || isnan(v)`). Taps in the padding are skipped.
template <class T, class I, bool kAdaptive>
__global__ void max_pool_forward(const T* __restrict__ in, T* __restrict__ out,
                                 int64_t* __restrict__ indices, I total, Dims<I> d) {
  const I step = static_cast<I>(blockDim.x) * static_cast<I>(gridDim.x);
  for (I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
       i < total; i += step) {
    const I ow = i % d.ow;
    const I t = i / d.ow;
    const I oh = t % d.oh;
    const I plane = t / d.oh;
    const T* src = in + plane * (d.h * d.w);
    I hstart, hend, wstart, wend, hstep, wstep;
    if constexpr (kAdaptive) {
      hstart = adaptive_start(oh, d.oh, d.h);
      hend = adaptive_end(oh, d.oh, d.h);
      wstart = adaptive_start(ow, d.ow, d.w);
      wend = adaptive_end(ow, d.ow, d.w);
      hstep = 1;
      wstep = 1;
    } else {
      hstart = oh * d.sh - d.ph;
      wstart = ow * d.sw - d.pw;
      hend = lo(hstart + (d.kh - 1) * d.dh + 1, d.h);
      wend = lo(wstart + (d.kw - 1) * d.dw + 1, d.w);
      hstart = first_tap(hstart, d.dh);
      wstart = first_tap(wstart, d.dw);
      hstep = d.dh;
      wstep = d.dw;
    }
    T best = -INFINITY;
    I best_index = hstart * d.w + wstart;  // PyTorch's choice for a window of padding only
    for (I h = hstart; h < hend; h += hstep) {
      for (I w = wstart; w < wend; w += wstep) {
        const T v = src[h * d.w + w];
        if (v > best || is_nan(v)) {
          best = v;
          best_index = h * d.w + w;
        }
      }
    }
    out[i] = best;
    indices[i] = best_index;
  }
}

// grad_out, indices [NC, OH, OW]; grad_in [NC, H, W] (total = NC * H * W): each input element
// sums grad_out over the outputs whose window covers it and whose index names it. A gather in
// a fixed order: deterministic, and for non-overlapping windows (2x2, stride 2) one output per
// input, so no zero-fill and no atomics are needed.
template <class T, class I, bool kAdaptive>
__global__ void max_pool_backward(const T* __restrict__ grad_out,
                                  const int64_t* __restrict__ indices, T* __restrict__ grad_in,
                                  I total, Dims<I> d) {
  const I step = static_cast<I>(blockDim.x) * static_cast<I>(gridDim.x);
  for (I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
       i < total; i += step) {
    const I w = i % d.w;
    const I t = i / d.w;
    const I h = t % d.h;
    const I plane = t / d.h;
    I ohstart, ohend, owstart, owend;
    if constexpr (kAdaptive) {
      ohstart = adaptive_start(h, d.h, d.oh);
      ohend = adaptive_end(h, d.h, d.oh);
      owstart = adaptive_start(w, d.w, d.ow);
      owend = adaptive_end(w, d.w, d.ow);
    } else {
      const I extent_h = (d.kh - 1) * d.dh + 1, extent_w = (d.kw - 1) * d.dw + 1;
      ohstart = h + d.ph < extent_h ? 0 : (h + d.ph - extent_h) / d.sh + 1;
      owstart = w + d.pw < extent_w ? 0 : (w + d.pw - extent_w) / d.sw + 1;
      ohend = lo((h + d.ph) / d.sh + 1, d.oh);
      owend = lo((w + d.pw) / d.sw + 1, d.ow);
    }
    const I offset = plane * (d.oh * d.ow);
    const int64_t me = h * d.w + w;
    T sum = 0;
    for (I oh = ohstart; oh < ohend; ++oh) {
      for (I ow = owstart; ow < owend; ++ow) {
        const I o = offset + oh * d.ow + ow;
        if (indices[o] == me) sum += grad_out[o];
      }
    }
    grad_in[i] = sum;
  }
}

// ---- average pooling ----

// PyTorch's window and divisor for fixed windows: the window is clipped to the padded input
// (H + pad) for pool_size, then to the input for the sum; the divisor is divisor_override, or
// pool_size with count_include_pad, or the clipped area. Returns false for a window that holds
// no input element (possible only in ceil mode).
template <class I>
struct AvgWindow {
  I hstart, hend, wstart, wend;
  int64_t divisor;
};

template <class I>
__device__ __forceinline__ bool avg_window(I oh, I ow, const Dims<I>& d, AvgWindow<I>& win) {
  I hstart = oh * d.sh - d.ph, wstart = ow * d.sw - d.pw;
  I hend = lo(hstart + d.kh, d.h + d.ph), wend = lo(wstart + d.kw, d.w + d.pw);
  const int64_t pool_size = static_cast<int64_t>(hend - hstart) * (wend - wstart);
  hstart = hi(hstart, I(0));
  wstart = hi(wstart, I(0));
  hend = lo(hend, d.h);
  wend = lo(wend, d.w);
  if (hstart >= hend || wstart >= wend) return false;
  win.hstart = hstart;
  win.hend = hend;
  win.wstart = wstart;
  win.wend = wend;
  win.divisor = d.divisor_override != 0
                    ? d.divisor_override
                    : (d.count_include_pad ? pool_size
                                           : static_cast<int64_t>(hend - hstart) * (wend - wstart));
  return true;
}

// in [NC, H, W]; out [NC, OH, OW] (total = NC * OH * OW). Adaptive: the window's mean, divided
// as PyTorch does (sum / kh / kw).
template <class T, class I, bool kAdaptive>
__global__ void avg_pool_forward(const T* __restrict__ in, T* __restrict__ out, I total,
                                 Dims<I> d) {
  const I step = static_cast<I>(blockDim.x) * static_cast<I>(gridDim.x);
  for (I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
       i < total; i += step) {
    const I ow = i % d.ow;
    const I t = i / d.ow;
    const I oh = t % d.oh;
    const I plane = t / d.oh;
    const T* src = in + plane * (d.h * d.w);
    T sum = 0;
    if constexpr (kAdaptive) {
      const I hstart = adaptive_start(oh, d.oh, d.h), hend = adaptive_end(oh, d.oh, d.h);
      const I wstart = adaptive_start(ow, d.ow, d.w), wend = adaptive_end(ow, d.ow, d.w);
      for (I h = hstart; h < hend; ++h) {
        for (I w = wstart; w < wend; ++w) sum += src[h * d.w + w];
      }
      out[i] = sum / static_cast<T>(hend - hstart) / static_cast<T>(wend - wstart);
    } else {
      AvgWindow<I> win;
      if (!avg_window(oh, ow, d, win)) {
        out[i] = 0;
        continue;
      }
      for (I h = win.hstart; h < win.hend; ++h) {
        for (I w = win.wstart; w < win.wend; ++w) sum += src[h * d.w + w];
      }
      out[i] = sum / static_cast<T>(win.divisor);
    }
  }
}

// grad_out [NC, OH, OW]; grad_in [NC, H, W] (total = NC * H * W): each input element gathers
// grad_out / divisor from every window that covers it.
template <class T, class I, bool kAdaptive>
__global__ void avg_pool_backward(const T* __restrict__ grad_out, T* __restrict__ grad_in, I total,
                                  Dims<I> d) {
  const I step = static_cast<I>(blockDim.x) * static_cast<I>(gridDim.x);
  for (I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
       i < total; i += step) {
    const I w = i % d.w;
    const I t = i / d.w;
    const I h = t % d.h;
    const I plane = t / d.h;
    const T* g = grad_out + plane * (d.oh * d.ow);
    T sum = 0;
    if constexpr (kAdaptive) {
      const I ohstart = adaptive_start(h, d.h, d.oh), ohend = adaptive_end(h, d.h, d.oh);
      const I owstart = adaptive_start(w, d.w, d.ow), owend = adaptive_end(w, d.w, d.ow);
      for (I oh = ohstart; oh < ohend; ++oh) {
        const T kh = static_cast<T>(adaptive_end(oh, d.oh, d.h) - adaptive_start(oh, d.oh, d.h));
        for (I ow = owstart; ow < owend; ++ow) {
          const T kw = static_cast<T>(adaptive_end(ow, d.ow, d.w) - adaptive_start(ow, d.ow, d.w));
          sum += g[oh * d.ow + ow] / kh / kw;
        }
      }
    } else {
      const I ohstart = h + d.ph < d.kh ? 0 : (h + d.ph - d.kh) / d.sh + 1;
      const I owstart = w + d.pw < d.kw ? 0 : (w + d.pw - d.kw) / d.sw + 1;
      const I ohend = lo((h + d.ph) / d.sh + 1, d.oh);
      const I owend = lo((w + d.pw) / d.sw + 1, d.ow);
      for (I oh = ohstart; oh < ohend; ++oh) {
        for (I ow = owstart; ow < owend; ++ow) {
          AvgWindow<I> win;
          if (!avg_window(oh, ow, d, win)) continue;
          sum += g[oh * d.ow + ow] / static_cast<T>(win.divisor);
        }
      }
    }
    grad_in[i] = sum;
  }
}

// ---- launchers ----

bool fits_32bit(const Tensor& a, const Tensor& b) {
  return a.numel() < kMax32 && b.numel() < kMax32;
}

void check_pool_inputs(const char* op, const Tensor& in, const Tensor& out) {
  EMBER_CHECK(in.dim() == 4 && out.dim() == 4 && in.is_contiguous() && out.is_contiguous(), op,
              ": the CUDA kernel expects contiguous [N, C, H, W] tensors");
}

// out [N, C, OH, OW], indices (int64, out's shape) from in [N, C, H, W].
void max_pool2d_kernel(const Tensor& out, const Tensor& indices, const Tensor& in,
                       const PoolArgs& args) {
  check_pool_inputs("max_pool2d", in, out);
  if (out.numel() == 0) return;
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "max_pool2d", [&] {
    const scalar_t* src = in.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    int64_t* idx = indices.data_ptr<int64_t>();
    cudaStream_t stream = current_stream();
    const int64_t total = out.numel();
    auto launch = [&](auto index_tag) {
      using I = decltype(index_tag);
      const Dims<I> d = make_dims<I>(in, out, args);
      if (args.adaptive) {
        max_pool_forward<scalar_t, I, true>
            <<<blocks_for(total), kBlock, 0, stream>>>(src, dst, idx, static_cast<I>(total), d);
      } else {
        max_pool_forward<scalar_t, I, false>
            <<<blocks_for(total), kBlock, 0, stream>>>(src, dst, idx, static_cast<I>(total), d);
      }
    };
    if (fits_32bit(in, out)) {
      launch(int32_t{});
    } else {
      launch(int64_t{});
    }
    EMBER_CUDA_KERNEL_CHECK("max_pool2d");
  });
}

// grad_in [N, C, H, W] from grad_out and indices [N, C, OH, OW].
void max_pool2d_backward_kernel(const Tensor& grad_in, const Tensor& grad_out,
                                const Tensor& indices, const PoolArgs& args) {
  check_pool_inputs("max_pool2d_backward", grad_in, grad_out);
  if (grad_in.numel() == 0) return;
  DeviceGuard guard(grad_in.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(grad_in.dtype(), "max_pool2d_backward", [&] {
    const scalar_t* g = grad_out.data_ptr<scalar_t>();
    const int64_t* idx = indices.data_ptr<int64_t>();
    scalar_t* dst = grad_in.data_ptr<scalar_t>();
    cudaStream_t stream = current_stream();
    const int64_t total = grad_in.numel();
    auto launch = [&](auto index_tag) {
      using I = decltype(index_tag);
      const Dims<I> d = make_dims<I>(grad_in, grad_out, args);
      if (args.adaptive) {
        max_pool_backward<scalar_t, I, true>
            <<<blocks_for(total), kBlock, 0, stream>>>(g, idx, dst, static_cast<I>(total), d);
      } else {
        max_pool_backward<scalar_t, I, false>
            <<<blocks_for(total), kBlock, 0, stream>>>(g, idx, dst, static_cast<I>(total), d);
      }
    };
    if (fits_32bit(grad_in, grad_out)) {
      launch(int32_t{});
    } else {
      launch(int64_t{});
    }
    EMBER_CUDA_KERNEL_CHECK("max_pool2d_backward");
  });
}

// out [N, C, OH, OW] from in [N, C, H, W]; indices is undefined.
void avg_pool2d_kernel(const Tensor& out, const Tensor& indices, const Tensor& in,
                       const PoolArgs& args) {
  check_pool_inputs("avg_pool2d", in, out);
  if (out.numel() == 0) return;
  DeviceGuard guard(out.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "avg_pool2d", [&] {
    const scalar_t* src = in.data_ptr<scalar_t>();
    scalar_t* dst = out.data_ptr<scalar_t>();
    cudaStream_t stream = current_stream();
    const int64_t total = out.numel();
    auto launch = [&](auto index_tag) {
      using I = decltype(index_tag);
      const Dims<I> d = make_dims<I>(in, out, args);
      if (args.adaptive) {
        avg_pool_forward<scalar_t, I, true>
            <<<blocks_for(total), kBlock, 0, stream>>>(src, dst, static_cast<I>(total), d);
      } else {
        avg_pool_forward<scalar_t, I, false>
            <<<blocks_for(total), kBlock, 0, stream>>>(src, dst, static_cast<I>(total), d);
      }
    };
    if (fits_32bit(in, out)) {
      launch(int32_t{});
    } else {
      launch(int64_t{});
    }
    EMBER_CUDA_KERNEL_CHECK("avg_pool2d");
  });
}

// grad_in [N, C, H, W] from grad_out [N, C, OH, OW]; indices is undefined.
void avg_pool2d_backward_kernel(const Tensor& grad_in, const Tensor& grad_out,
                                const Tensor& indices, const PoolArgs& args) {
  check_pool_inputs("avg_pool2d_backward", grad_in, grad_out);
  if (grad_in.numel() == 0) return;
  DeviceGuard guard(grad_in.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(grad_in.dtype(), "avg_pool2d_backward", [&] {
    const scalar_t* g = grad_out.data_ptr<scalar_t>();
    scalar_t* dst = grad_in.data_ptr<scalar_t>();
    cudaStream_t stream = current_stream();
    const int64_t total = grad_in.numel();
    auto launch = [&](auto index_tag) {
      using I = decltype(index_tag);
      const Dims<I> d = make_dims<I>(grad_in, grad_out, args);
      if (args.adaptive) {
        avg_pool_backward<scalar_t, I, true>
            <<<blocks_for(total), kBlock, 0, stream>>>(g, dst, static_cast<I>(total), d);
      } else {
        avg_pool_backward<scalar_t, I, false>
            <<<blocks_for(total), kBlock, 0, stream>>>(g, dst, static_cast<I>(total), d);
      }
    };
    if (fits_32bit(grad_in, grad_out)) {
      launch(int32_t{});
    } else {
      launch(int64_t{});
    }
    EMBER_CUDA_KERNEL_CHECK("avg_pool2d_backward");
  });
}

}  // namespace

void register_pool_kernels() {
  register_kernel<Op::max_pool2d>(kCUDA, max_pool2d_kernel);
  register_kernel<Op::max_pool2d_backward>(kCUDA, max_pool2d_backward_kernel);
  register_kernel<Op::avg_pool2d>(kCUDA, avg_pool2d_kernel);
  register_kernel<Op::avg_pool2d_backward>(kCUDA, avg_pool2d_backward_kernel);
}

}  // namespace cuda
}  // namespace ember
