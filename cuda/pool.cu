// CUDA max/avg pooling over [N, C, H, W] (fixed and adaptive windows) and their backward,
// with ember's own kernels: cuDNN's pooling cannot return the max indices (PyTorch uses its own
// kernels too). Forward: one thread per output element. Backward: one thread per input element
// gathering from the outputs whose window covers it (no atomics, so results are deterministic
// and every element of grad_in is written). Semantics are PyTorch's (see core/ops.def).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <ember/core/dispatch.h>
#include <ember/core/dtype.h>
#include <ember/core/error.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 1 << 16;  // grid-stride beyond that

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

// Element i of a contiguous [planes, rows, cols] tensor: its plane, row and column.
template <class I>
struct PlanePos {
  I plane, row, col;
};

// The grid-stride loop of every pooling kernel, in index type I: f(i, position of i) for this
// thread's elements i of the contiguous [planes, rows, cols] tensor it writes (total elements).
template <class I, class F>
__device__ __forceinline__ void for_each_position(I total, I rows, I cols, const F& f) {
  const I step = static_cast<I>(blockDim.x) * static_cast<I>(gridDim.x);
  for (I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
       i < total; i += step) {
    const I t = i / cols;
    f(i, PlanePos<I>{t / rows, t % rows, i % cols});
  }
}

// Rows [h0, h1) and columns [w0, w1) of a plane.
template <class I>
struct Rect {
  I h0, h1, w0, w1;
};

// Output (oh, ow)'s adaptive window in the input.
template <class I>
__device__ __forceinline__ Rect<I> adaptive_window(I oh, I ow, const Dims<I>& d) {
  return {adaptive_start(oh, d.oh, d.h), adaptive_end(oh, d.oh, d.h), adaptive_start(ow, d.ow, d.w),
          adaptive_end(ow, d.ow, d.w)};
}

// The outputs whose windows cover input (h, w): adaptive windows, or fixed ones that span
// extent_h x extent_w input elements (from the first tap to the last).
template <bool kAdaptive, class I>
__device__ __forceinline__ Rect<I> covering_outputs(I h, I w, const Dims<I>& d, I extent_h,
                                                    I extent_w) {
  if constexpr (kAdaptive) {
    return {adaptive_start(h, d.h, d.oh), adaptive_end(h, d.h, d.oh), adaptive_start(w, d.w, d.ow),
            adaptive_end(w, d.w, d.ow)};
  } else {
    return {h + d.ph < extent_h ? I(0) : (h + d.ph - extent_h) / d.sh + 1,
            lo((h + d.ph) / d.sh + 1, d.oh),
            w + d.pw < extent_w ? I(0) : (w + d.pw - extent_w) / d.sw + 1,
            lo((w + d.pw) / d.sw + 1, d.ow)};
  }
}

// ---- max pooling ----

// in [NC, H, W]; out, indices [NC, OH, OW] (total = NC * OH * OW). indices: the winner's
// h * W + w in its plane; the first maximum wins ties, a NaN wins over numbers (the last NaN
// over earlier ones, as PyTorch's `v > best || isnan(v)`). Taps in the padding are skipped.
template <class T, class I, bool kAdaptive>
__global__ void max_pool_forward(const T* __restrict__ in, T* __restrict__ out,
                                 int64_t* __restrict__ indices, I total, Dims<I> d) {
  for_each_position(total, d.oh, d.ow, [&](I i, const PlanePos<I> o) {
    const T* src = in + o.plane * (d.h * d.w);
    Rect<I> r;  // the taps: rows r.h0, r.h0 + hstep, ... below r.h1; columns likewise
    I hstep = 1, wstep = 1;
    if constexpr (kAdaptive) {
      r = adaptive_window(o.row, o.col, d);
    } else {
      const I hstart = o.row * d.sh - d.ph, wstart = o.col * d.sw - d.pw;
      r = {first_tap(hstart, d.dh), lo(hstart + (d.kh - 1) * d.dh + 1, d.h),
           first_tap(wstart, d.dw), lo(wstart + (d.kw - 1) * d.dw + 1, d.w)};
      hstep = d.dh;
      wstep = d.dw;
    }
    T best = -INFINITY;
    I best_index = r.h0 * d.w + r.w0;  // PyTorch's choice for a window of padding only
    for (I h = r.h0; h < r.h1; h += hstep) {
      for (I w = r.w0; w < r.w1; w += wstep) {
        const T v = src[h * d.w + w];
        if (v > best || is_nan(v)) {
          best = v;
          best_index = h * d.w + w;
        }
      }
    }
    out[i] = best;
    indices[i] = best_index;
  });
}

// grad_out, indices [NC, OH, OW]; grad_in [NC, H, W] (total = NC * H * W): each input element
// sums grad_out over the outputs whose window covers it and whose index names it. A gather in
// a fixed order: deterministic, and for non-overlapping windows (2x2, stride 2) one output per
// input, so no zero-fill and no atomics are needed.
template <class T, class I, bool kAdaptive>
__global__ void max_pool_backward(const T* __restrict__ grad_out,
                                  const int64_t* __restrict__ indices, T* __restrict__ grad_in,
                                  I total, Dims<I> d) {
  for_each_position(total, d.h, d.w, [&](I i, const PlanePos<I> p) {
    const Rect<I> outs =
        covering_outputs<kAdaptive>(p.row, p.col, d, (d.kh - 1) * d.dh + 1, (d.kw - 1) * d.dw + 1);
    const I offset = p.plane * (d.oh * d.ow);
    const int64_t me = p.row * d.w + p.col;
    T sum = 0;
    for (I oh = outs.h0; oh < outs.h1; ++oh) {
      for (I ow = outs.w0; ow < outs.w1; ++ow) {
        const I o = offset + oh * d.ow + ow;
        if (indices[o] == me) sum += grad_out[o];
      }
    }
    grad_in[i] = sum;
  });
}

// The same for windows that tile the input (stride = kernel, no padding, dilation 1, at least
// one output per dim), one thread per output (total = NC * OH * OW): the thread writes its
// window's inputs, grad_out where the index names one and 0 elsewhere; the last row and
// column of windows also zero the inputs that no window covers. Each input is written once,
// with no divisions per input (the gather above spends most of its time in them).
template <class T, class I>
__global__ void max_pool_backward_tiles(const T* __restrict__ grad_out,
                                        const int64_t* __restrict__ indices,
                                        T* __restrict__ grad_in, I total, Dims<I> d) {
  for_each_position(total, d.oh, d.ow, [&](I i, const PlanePos<I> o) {
    const I h0 = o.row * d.kh, w0 = o.col * d.kw;
    const I h1 = o.row + 1 == d.oh ? d.h : lo(h0 + d.kh, d.h);
    const I w1 = o.col + 1 == d.ow ? d.w : lo(w0 + d.kw, d.w);
    const int64_t winner = indices[i];
    const T g = grad_out[i];
    T* dst = grad_in + o.plane * (d.h * d.w);
    for (I h = h0; h < h1; ++h) {
      for (I w = w0; w < w1; ++w) dst[h * d.w + w] = (h * d.w + w == winner) ? g : T(0);
    }
  });
}

// True when max_pool_backward_tiles applies to args and out [N, C, OH, OW].
bool windows_tile(const PoolArgs& a, const Tensor& out) {
  return !a.adaptive && a.stride[0] == a.kernel[0] && a.stride[1] == a.kernel[1] &&
         a.padding[0] == 0 && a.padding[1] == 0 && a.dilation[0] == 1 && a.dilation[1] == 1 &&
         out.sizes()[2] > 0 && out.sizes()[3] > 0;
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
  for_each_position(total, d.oh, d.ow, [&](I i, const PlanePos<I> o) {
    const T* src = in + o.plane * (d.h * d.w);
    T sum = 0;
    if constexpr (kAdaptive) {
      const Rect<I> r = adaptive_window(o.row, o.col, d);
      for (I h = r.h0; h < r.h1; ++h) {
        for (I w = r.w0; w < r.w1; ++w) sum += src[h * d.w + w];
      }
      out[i] = sum / static_cast<T>(r.h1 - r.h0) / static_cast<T>(r.w1 - r.w0);
    } else {
      AvgWindow<I> win;
      if (!avg_window(o.row, o.col, d, win)) {
        out[i] = 0;
        return;  // the next element
      }
      for (I h = win.hstart; h < win.hend; ++h) {
        for (I w = win.wstart; w < win.wend; ++w) sum += src[h * d.w + w];
      }
      out[i] = sum / static_cast<T>(win.divisor);
    }
  });
}

// grad_out [NC, OH, OW]; grad_in [NC, H, W] (total = NC * H * W): each input element gathers
// grad_out / divisor from every window that covers it.
template <class T, class I, bool kAdaptive>
__global__ void avg_pool_backward(const T* __restrict__ grad_out, T* __restrict__ grad_in, I total,
                                  Dims<I> d) {
  for_each_position(total, d.h, d.w, [&](I i, const PlanePos<I> p) {
    const T* g = grad_out + p.plane * (d.oh * d.ow);
    const Rect<I> outs = covering_outputs<kAdaptive>(p.row, p.col, d, d.kh, d.kw);
    T sum = 0;
    if constexpr (kAdaptive) {
      for (I oh = outs.h0; oh < outs.h1; ++oh) {
        const T kh = static_cast<T>(adaptive_end(oh, d.oh, d.h) - adaptive_start(oh, d.oh, d.h));
        for (I ow = outs.w0; ow < outs.w1; ++ow) {
          const T kw = static_cast<T>(adaptive_end(ow, d.ow, d.w) - adaptive_start(ow, d.ow, d.w));
          sum += g[oh * d.ow + ow] / kh / kw;
        }
      }
    } else {
      for (I oh = outs.h0; oh < outs.h1; ++oh) {
        for (I ow = outs.w0; ow < outs.w1; ++ow) {
          AvgWindow<I> win;
          if (!avg_window(oh, ow, d, win)) continue;
          sum += g[oh * d.ow + ow] / static_cast<T>(win.divisor);
        }
      }
    }
    grad_in[i] = sum;
  });
}

// ---- launchers ----

void check_pool_inputs(const char* op, const Tensor& in, const Tensor& out) {
  EMBER_CHECK(in.dim() == 4 && out.dim() == 4 && in.is_contiguous() && out.is_contiguous(), op,
              ": the CUDA kernel expects contiguous [N, C, H, W] tensors");
}

// One pooling launch: the geometry in the index type I, the number of threads (one per element
// of the tensor the kernel writes) and the grid for them, on stream.
template <class I>
struct PoolLaunch {
  Dims<I> d;
  I total;
  unsigned blocks;
  cudaStream_t stream;

  // kernel<<<blocks, kBlock, 0, stream>>>(pointers..., total, d).
  template <class... Params, class... Pointers>
  void run(void (*kernel)(Params...), Pointers... pointers) const {
    kernel<<<blocks, kBlock, 0, stream>>>(pointers..., total, d);
  }
};

// What the four pooling kernels share: checks in [N, C, H, W] and out [N, C, OH, OW]; unless
// `threads` (the tensor the kernel writes, one thread per element) is empty, calls
// launch(T{}, adaptive, PoolLaunch<I>) on its device, with T in's dtype (float32 or float64),
// adaptive a std::bool_constant of args.adaptive and I the index type for in and out
// (cuda/launch.h); then checks the launch.
template <class Launch>
void launch_pool(const char* op, const Tensor& in, const Tensor& out, const Tensor& threads,
                 const PoolArgs& args, const Launch& launch) {
  check_pool_inputs(op, in, out);
  const int64_t n = threads.numel();
  if (n == 0) return;
  DeviceGuard guard(threads.device().index());
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), op, [&] {
    cudaStream_t stream = current_stream();
    with_index_type(std::max(in.numel(), out.numel()), [&](auto index_tag) {
      using I = decltype(index_tag);
      const PoolLaunch<I> l{make_dims<I>(in, out, args), static_cast<I>(n),
                            grid_blocks(n, kBlock, kMaxBlocks), stream};
      if (args.adaptive) {
        launch(scalar_t{}, std::true_type{}, l);
      } else {
        launch(scalar_t{}, std::false_type{}, l);
      }
    });
    EMBER_CUDA_KERNEL_CHECK(op);
  });
}

// The four registered kernels. Forward (a = out, b = indices, c = in): out [N, C, OH, OW] and,
// for max pools, indices (int64, out's shape) from in [N, C, H, W]. Backward (a = grad_in,
// b = grad_out, c = indices): grad_in [N, C, H, W] from grad_out and, for max pools, indices
// [N, C, OH, OW]. indices is undefined for avg pools.
template <bool kMax, bool kBackward>
void pool_kernel(const Tensor& a, const Tensor& b, const Tensor& c, const PoolArgs& args) {
  const Tensor& planes = kBackward ? a : c;  // [N, C, H, W]: in, or grad_in
  const Tensor& pooled = kBackward ? b : a;  // [N, C, OH, OW]: out, or grad_out
  const Tensor& indices = kBackward ? c : b;
  const char* op = kMax ? (kBackward ? "max_pool2d_backward" : "max_pool2d")
                        : (kBackward ? "avg_pool2d_backward" : "avg_pool2d");
  launch_pool(op, planes, pooled, a, args, [&](auto t, auto adaptive, const auto& l) {
    using T = decltype(t);
    using I = decltype(l.total);
    constexpr bool kAdaptive = decltype(adaptive)::value;
    if constexpr (kMax && !kBackward) {
      l.run(max_pool_forward<T, I, kAdaptive>, planes.data_ptr<T>(), pooled.data_ptr<T>(),
            indices.data_ptr<int64_t>());
    } else if constexpr (kMax) {
      if (!kAdaptive && windows_tile(args, pooled)) {
        const I n = static_cast<I>(pooled.numel());
        max_pool_backward_tiles<T, I><<<grid_blocks(n, kBlock, kMaxBlocks), kBlock, 0, l.stream>>>(
            pooled.data_ptr<T>(), indices.data_ptr<int64_t>(), planes.data_ptr<T>(), n, l.d);
      } else {
        l.run(max_pool_backward<T, I, kAdaptive>, pooled.data_ptr<T>(),
              indices.data_ptr<int64_t>(), planes.data_ptr<T>());
      }
    } else if constexpr (!kBackward) {
      l.run(avg_pool_forward<T, I, kAdaptive>, planes.data_ptr<T>(), pooled.data_ptr<T>());
    } else {
      l.run(avg_pool_backward<T, I, kAdaptive>, pooled.data_ptr<T>(), planes.data_ptr<T>());
    }
  });
}

}  // namespace

void register_pool_kernels() {
  register_kernel<Op::max_pool2d>(kCUDA, pool_kernel<true, false>);
  register_kernel<Op::max_pool2d_backward>(kCUDA, pool_kernel<true, true>);
  register_kernel<Op::avg_pool2d>(kCUDA, pool_kernel<false, false>);
  register_kernel<Op::avg_pool2d_backward>(kCUDA, pool_kernel<false, true>);
}

}  // namespace cuda
}  // namespace ember
