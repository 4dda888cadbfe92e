// CPU max and average pooling (fixed and adaptive windows) and their backward kernels: plain
// loops over [H, W] planes, the planes split over the thread pool. The window arithmetic,
// tie and NaN rules and avg divisors are PyTorch's (aten/src/ATen/native/cpu/*PoolKernel.cpp).
// The common 2x2 stride-2 max and avg pools have vectorized loops (cpu/conv_simd.h): a scalar
// max with NaN checks compiles to data-dependent branches, mispredicted half the time.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <ember/core/dispatch.h>
#include <ember/cpu/conv_simd.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {
namespace {

// in [planes, H, W] -> out [planes, OH, OW]
struct PoolGeometry {
  int64_t planes, h, w, oh, ow;
  PoolArgs a;
  PoolGeometry(IntArrayRef in, IntArrayRef out, const PoolArgs& args)
      : planes(in[0] * in[1]), h(in[2]), w(in[3]), oh(out[2]), ow(out[3]), a(args) {}
  int64_t grain() const { return std::max<int64_t>(1, kParallelGrain / (h * w + oh * ow + 1)); }
};

// Taps of output i along one dim of input size n, out size on: [begin, end) step `step`, the
// taps outside the input dropped (max pools; avg pools have their own rule, avg_window).
struct Taps {
  int64_t begin, end, step;
};
inline Taps max_taps(int64_t i, int64_t n, int64_t on, const PoolArgs& a, int d) {
  if (a.adaptive) return {i * n / on, ((i + 1) * n + on - 1) / on, 1};
  int64_t b = i * a.stride[d] - a.padding[d];
  const int64_t e = std::min(b + (a.kernel[d] - 1) * a.dilation[d] + 1, n);
  while (b < 0) b += a.dilation[d];
  return {b, e, a.dilation[d]};
}

// max_pool2d of one plane: the first maximum in scan order, NaN replacing anything.
template <class T>
void max_plane(T* y, int64_t* idx, const T* x, const PoolGeometry& g) {
  for (int64_t i = 0; i < g.oh; ++i) {
    const Taps th = max_taps(i, g.h, g.oh, g.a, 0);
    for (int64_t j = 0; j < g.ow; ++j) {
      const Taps tw = max_taps(j, g.w, g.ow, g.a, 1);
      int64_t best = th.begin * g.w + tw.begin;
      T m = -std::numeric_limits<T>::infinity();
      for (int64_t r = th.begin; r < th.end; r += th.step) {
        for (int64_t c = tw.begin; c < tw.end; c += tw.step) {
          const T v = x[r * g.w + c];
          const bool take = v > m || std::isnan(v);
          m = take ? v : m;
          best = take ? r * g.w + c : best;
        }
      }
      y[i * g.ow + j] = m;
      idx[i * g.ow + j] = best;
    }
  }
}

// The same for 2x2 windows, stride 2, no padding, every window inside the plane, a vector of
// outputs at a time: the window's taps a b / c d are the even and odd lanes of two rows.
// Starting from a is max_plane's rule (from -inf, a is taken unless it is -inf, and then the
// result is -inf at a's index either way). Indices are computed in MaskV<T> lanes (32 bits for
// float: the caller checks that a plane's indices fit).
template <class T>
void max_plane_2x2(T* y, int64_t* idx, const T* x, const T* x_end, const PoolGeometry& g) {
  constexpr int64_t VL = kVecLanes<T>;
  using M = MaskV<T>;
  using I = LaneInt<T>;
  M lane2;
  for (int64_t u = 0; u < VL; ++u) lane2[u] = static_cast<I>(2 * u);
  // VL outputs from the 2 * VL taps at s0 (top row) and s1, the first a at plane index base.
  auto block = [&](const T* s0, const T* s1, int64_t base, T* yo, int64_t* io) {
    V<T> a, b, c, d;
    deinterleave<T>(load(s0), load(s0 + VL), a, b);
    deinterleave<T>(load(s1), load(s1 + VL), c, d);
    const M ka = lane2 + static_cast<I>(base);
    V<T> m = a;
    M k = ka;
    auto step = [&](V<T> v, M kv) {
      const M take = (v > m) | (v != v);  // v != v: isnan
      m = select<T>(take, v, m);
      k = select_int(take, kv, k);
    };
    step(b, ka + static_cast<I>(1));
    step(c, ka + static_cast<I>(g.w));
    step(d, ka + static_cast<I>(g.w + 1));
    store(yo, m);
    for (int64_t u = 0; u < VL; ++u) io[u] = k[u];
  };
  for (int64_t i = 0; i < g.oh; ++i) {
    const T* r0 = x + 2 * i * g.w;
    const T* r1 = r0 + g.w;
    T* yr = y + i * g.ow;
    int64_t* ir = idx + i * g.ow;
    const int64_t base = 2 * i * g.w;
    int64_t j = 0;
    for (; j + VL <= g.ow; j += VL) block(r0 + 2 * j, r1 + 2 * j, base + 2 * j, yr + j, ir + j);
    if (j == g.ow) continue;
    if (g.ow >= VL) {  // a last vector overlapping the one before
      j = g.ow - VL;
      block(r0 + 2 * j, r1 + 2 * j, base + 2 * j, yr + j, ir + j);
    } else {  // a row shorter than a vector: its lanes past the row are dropped
      T yt[VL];
      int64_t it[VL];
      const int64_t n = g.ow - j;
      if (r1 + 2 * j + 2 * VL <= x_end) {  // reading past the row stays inside the input
        block(r0 + 2 * j, r1 + 2 * j, base + 2 * j, yt, it);
      } else {
        T t0[2 * VL] = {}, t1[2 * VL] = {};
        for (int64_t u = 0; u < 2 * n; ++u) t0[u] = r0[2 * j + u], t1[u] = r1[2 * j + u];
        block(t0, t1, base + 2 * j, yt, it);
      }
      for (int64_t u = 0; u < VL; ++u) {
        if (u < n) yr[j + u] = yt[u], ir[j + u] = it[u];
      }
    }
  }
}

// avg_pool2d with 2x2 windows, stride 2, no padding, every window inside the plane: the sum in
// PyTorch's order ((a + b) + c) + d over the divisor (4 unless overridden).
template <class T>
void avg_plane_2x2(T* y, const T* x, const PoolGeometry& g, T divisor) {
  constexpr int64_t VL = kVecLanes<T>;
  for (int64_t i = 0; i < g.oh; ++i) {
    const T* r0 = x + 2 * i * g.w;
    const T* r1 = r0 + g.w;
    T* yr = y + i * g.ow;
    auto block = [&](int64_t j0) {
      V<T> a, b, c, d;
      deinterleave<T>(load(r0 + 2 * j0), load(r0 + 2 * j0 + VL), a, b);
      deinterleave<T>(load(r1 + 2 * j0), load(r1 + 2 * j0 + VL), c, d);
      store(yr + j0, (((a + b) + c) + d) / divisor);
    };
    int64_t j = 0;
    for (; j + VL <= g.ow; j += VL) block(j);
    if (j < g.ow && g.ow >= VL) {
      block(g.ow - VL);
      j = g.ow;
    }
    for (; j < g.ow; ++j) {
      yr[j] = (((r0[2 * j] + r0[2 * j + 1]) + r1[2 * j]) + r1[2 * j + 1]) / divisor;
    }
  }
}

// Whether the 2x2 stride-2 loops apply: no padding or dilation, every window inside the plane,
// and plane indices that fit in the index lanes.
inline bool is_two_by_two(const PoolGeometry& g) {
  const PoolArgs& a = g.a;
  return !a.adaptive && a.kernel[0] == 2 && a.kernel[1] == 2 && a.stride[0] == 2 &&
         a.stride[1] == 2 && a.padding[0] == 0 && a.padding[1] == 0 && a.dilation[0] == 1 &&
         a.dilation[1] == 1 && 2 * g.oh <= g.h && 2 * g.ow <= g.w && g.h * g.w < (int64_t(1) << 31);
}

template <class T>
void max_pool(const Tensor& out, const Tensor& indices, const Tensor& in, const PoolArgs& args) {
  const PoolGeometry g(in.sizes(), out.sizes(), args);
  const T* x = in.data_ptr<T>();
  T* y = out.data_ptr<T>();
  int64_t* idx = indices.data_ptr<int64_t>();
  const bool two_by_two = is_two_by_two(g);
  parallel_range(g.planes, g.grain(), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * g.h * g.w;
      T* yp = y + p * g.oh * g.ow;
      int64_t* ip = idx + p * g.oh * g.ow;
      two_by_two ? max_plane_2x2(yp, ip, xp, x + g.planes * g.h * g.w, g)
                 : max_plane(yp, ip, xp, g);
    }
  });
}

// The backward kernels' walk over the planes (split over the thread pool): grad_in's plane p
// zeroed, then spread(p, that plane, grad_out's plane p) adds grad_out into it.
template <class T, class Spread>
void spread_planes(const Tensor& grad_in, const Tensor& grad_out, const PoolGeometry& g,
                   const Spread& spread) {
  const T* gy = grad_out.data_ptr<T>();
  T* gx = grad_in.data_ptr<T>();
  parallel_range(g.planes, g.grain(), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* gxp = gx + p * g.h * g.w;
      std::fill(gxp, gxp + g.h * g.w, T(0));
      spread(p, gxp, gy + p * g.oh * g.ow);
    }
  });
}

// grad_in[winner] += grad_out, per plane.
template <class T>
void max_pool_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                       const PoolArgs& args) {
  const PoolGeometry g(grad_in.sizes(), grad_out.sizes(), args);
  const int64_t* idx = indices.data_ptr<int64_t>();
  spread_planes<T>(grad_in, grad_out, g, [&](int64_t p, T* gxp, const T* gyp) {
    const int64_t* ip = idx + p * g.oh * g.ow;
    // An index outside the plane (not max_pool2d's) is dropped rather than written through.
    const int64_t hw = g.h * g.w;
    for (int64_t j = 0; j < g.oh * g.ow; ++j) {
      if (ip[j] >= 0 && ip[j] < hw) gxp[ip[j]] += gyp[j];
    }
  });
}

// An avg-pool window, clipped to the input, and what its sum is divided by.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
};
inline AvgWindow avg_window(int64_t i, int64_t j, const PoolGeometry& g) {
  const PoolArgs& a = g.a;
  if (a.adaptive) {
    const int64_t h0 = i * g.h / g.oh, h1 = ((i + 1) * g.h + g.oh - 1) / g.oh;
    const int64_t w0 = j * g.w / g.ow, w1 = ((j + 1) * g.w + g.ow - 1) / g.ow;
    return {h0, h1, w0, w1, (h1 - h0) * (w1 - w0)};
  }
  int64_t h0 = i * a.stride[0] - a.padding[0], w0 = j * a.stride[1] - a.padding[1];
  int64_t h1 = std::min(h0 + a.kernel[0], g.h + a.padding[0]);
  int64_t w1 = std::min(w0 + a.kernel[1], g.w + a.padding[1]);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.h), w1 = std::min(w1, g.w);
  int64_t divisor = a.divisor_override;
  if (divisor == 0) divisor = a.count_include_pad ? pool_size : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, divisor};
}

template <class T>
void avg_pool(const Tensor& out, const Tensor& /*indices*/, const Tensor& in,
              const PoolArgs& args) {
  const PoolGeometry g(in.sizes(), out.sizes(), args);
  const T* x = in.data_ptr<T>();
  T* y = out.data_ptr<T>();
  const bool two_by_two = is_two_by_two(g);
  const T divisor = static_cast<T>(args.divisor_override ? args.divisor_override : 4);
  parallel_range(g.planes, g.grain(), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * g.h * g.w;
      T* yp = y + p * g.oh * g.ow;
      if (two_by_two) {
        avg_plane_2x2(yp, xp, g, divisor);
        continue;
      }
      for (int64_t i = 0; i < g.oh; ++i) {
        for (int64_t j = 0; j < g.ow; ++j) {
          const AvgWindow win = avg_window(i, j, g);
          if (win.h0 >= win.h1 || win.w0 >= win.w1) {  // only padding: 0, as PyTorch
            yp[i * g.ow + j] = T(0);
            continue;
          }
          T sum = 0;
          for (int64_t r = win.h0; r < win.h1; ++r) {
            for (int64_t c = win.w0; c < win.w1; ++c) sum += xp[r * g.w + c];
          }
          yp[i * g.ow + j] = sum / static_cast<T>(win.divisor);
        }
      }
    }
  });
}

// grad_in = each grad_out / divisor spread over its (clipped) window.
template <class T>
void avg_pool_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& /*indices*/,
                       const PoolArgs& args) {
  const PoolGeometry g(grad_in.sizes(), grad_out.sizes(), args);
  spread_planes<T>(grad_in, grad_out, g, [&](int64_t, T* gxp, const T* gyp) {
    for (int64_t i = 0; i < g.oh; ++i) {
      for (int64_t j = 0; j < g.ow; ++j) {
        const AvgWindow win = avg_window(i, j, g);
        const T d = gyp[i * g.ow + j] / static_cast<T>(win.divisor);
        for (int64_t r = win.h0; r < win.h1; ++r) {
          for (int64_t c = win.w0; c < win.w1; ++c) gxp[r * g.w + c] += d;
        }
      }
    }
  });
}

// The registered kernels: op##_kernel runs step<T> for its first tensor's (the output's) dtype.
#define EMBER_POOL_KERNEL(op, step)                                                           \
  void op##_kernel(const Tensor& a, const Tensor& b, const Tensor& c, const PoolArgs& args) { \
    EMBER_DISPATCH_FLOATING_TYPES(a.dtype(), #op, [&] { step<scalar_t>(a, b, c, args); });    \
  }
EMBER_POOL_KERNEL(max_pool2d, max_pool)
EMBER_POOL_KERNEL(max_pool2d_backward, max_pool_backward)
EMBER_POOL_KERNEL(avg_pool2d, avg_pool)
EMBER_POOL_KERNEL(avg_pool2d_backward, avg_pool_backward)
#undef EMBER_POOL_KERNEL

}  // namespace

void register_pool_kernels() {
  register_kernel<Op::max_pool2d>(kCPU, max_pool2d_kernel);
  register_kernel<Op::max_pool2d_backward>(kCPU, max_pool2d_backward_kernel);
  register_kernel<Op::avg_pool2d>(kCPU, avg_pool2d_kernel);
  register_kernel<Op::avg_pool2d_backward>(kCPU, avg_pool2d_backward_kernel);
}

}  // namespace cpu
}  // namespace ember
