// CPU batch-norm kernels (core/ops.def's batch_norm family) over a contiguous [N, C, S] input:
// per-channel sums in double (channels split over the thread pool), and the elementwise passes
// of the forward and backward with per-channel coefficients (planes split over the pool).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/error.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {
namespace {

struct Geometry {
  int64_t n, c, s;
  explicit Geometry(const Tensor& in) : n(in.size(0)), c(in.size(1)), s(in.size(2)) {}
  int64_t channel_grain() const { return std::max<int64_t>(1, kParallelGrain / (n * s + 1)); }
  int64_t plane_grain() const { return std::max<int64_t>(1, kParallelGrain / (s + 1)); }
};

void check_geometry(const char* op, const Tensor& in) {
  EMBER_CHECK(in.dim() == 3 && in.is_contiguous(), op,
              ": the CPU kernel expects a contiguous [N, C, S] input, got ", shape_str(in.sizes()));
}

// Two per-channel sums over N and S in double: a += f(x), b += g(x), from eight independent
// lanes each (so that the inner loop vectorizes without reassociating one sum).
template <class F>
void channel_sums(const Geometry& g, int64_t c, const F& f, double* a_out, double* b_out) {
  double a[8] = {}, b[8] = {};
  for (int64_t n = 0; n < g.n; ++n) {
    const int64_t base = (n * g.c + c) * g.s;
    int64_t i = 0;
    for (; i + 8 <= g.s; i += 8) {
      for (int k = 0; k < 8; ++k) f(base + i + k, a[k], b[k]);
    }
    for (; i < g.s; ++i) f(base + i, a[0], b[0]);
  }
  double sa = 0, sb = 0;
  for (int k = 0; k < 8; ++k) {
    sa += a[k];
    sb += b[k];
  }
  *a_out = sa;
  *b_out = sb;
}

// Per-channel value of an optional [C] tensor (weight: 1, bias: 0 when undefined).
template <class T>
inline T channel_value(const T* p, int64_t c, T fallback) {
  return p != nullptr ? p[c] : fallback;
}
template <class T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

void batch_norm_stats_kernel(const Tensor& mean, const Tensor& var, const Tensor& invstd,
                             const Tensor& in, double eps) {
  check_geometry("batch_norm_stats", in);
  const Geometry g(in);
  if (g.n * g.s == 0) return;
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "batch_norm_stats", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* m = mean.data_ptr<scalar_t>();
    scalar_t* v = var.data_ptr<scalar_t>();
    scalar_t* is = invstd.data_ptr<scalar_t>();
    const double count = static_cast<double>(g.n * g.s);
    parallel_range(g.c, g.channel_grain(), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        // Sums of (x - pivot): one pass, no cancellation for data far from zero.
        const double pivot = static_cast<double>(x[c * g.s]);
        double s1, s2;
        channel_sums(
            g, c,
            [&](int64_t i, double& a, double& b) {
              const double d = static_cast<double>(x[i]) - pivot;
              a += d;
              b += d * d;
            },
            &s1, &s2);
        const double d = s1 / count;
        const double biased = std::max(s2 / count - d * d, 0.0);
        m[c] = static_cast<scalar_t>(pivot + d);
        v[c] = static_cast<scalar_t>(biased);
        is[c] = static_cast<scalar_t>(1.0 / std::sqrt(biased + eps));
      }
    });
  });
}

void batch_norm_backward_reduce_kernel(const Tensor& sum_dy, const Tensor& sum_dy_xmu,
                                       const Tensor& grad_out, const Tensor& in,
                                       const Tensor& mean) {
  check_geometry("batch_norm_backward_reduce", in);
  const Geometry g(in);
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "batch_norm_backward_reduce", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    const scalar_t* dy = grad_out.data_ptr<scalar_t>();
    const scalar_t* m = mean.data_ptr<scalar_t>();
    scalar_t* sd = sum_dy.data_ptr<scalar_t>();
    scalar_t* sdx = sum_dy_xmu.data_ptr<scalar_t>();
    parallel_range(g.c, g.channel_grain(), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const double mc = static_cast<double>(m[c]);
        double s1, s2;
        channel_sums(
            g, c,
            [&](int64_t i, double& a, double& b) {
              const double d = static_cast<double>(dy[i]);
              a += d;
              b += d * (static_cast<double>(x[i]) - mc);
            },
            &s1, &s2);
        sd[c] = static_cast<scalar_t>(s1);
        sdx[c] = static_cast<scalar_t>(s2);
      }
    });
  });
}

void batch_norm_apply_kernel(const Tensor& out, const Tensor& in, const Tensor& mean,
                             const Tensor& invstd, const Tensor& weight, const Tensor& bias) {
  check_geometry("batch_norm_apply", in);
  const Geometry g(in);
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "batch_norm_apply", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    const scalar_t* m = mean.data_ptr<scalar_t>();
    const scalar_t* is = invstd.data_ptr<scalar_t>();
    const scalar_t* w = data_or_null<scalar_t>(weight);
    const scalar_t* b = data_or_null<scalar_t>(bias);
    scalar_t* y = out.data_ptr<scalar_t>();
    parallel_range(g.n * g.c, g.plane_grain(), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % g.c;
        const scalar_t mc = m[c], a = is[c] * channel_value(w, c, scalar_t(1));
        const scalar_t shift = channel_value(b, c, scalar_t(0));
        const scalar_t* xp = x + p * g.s;
        scalar_t* yp = y + p * g.s;
        for (int64_t i = 0; i < g.s; ++i) yp[i] = (xp[i] - mc) * a + shift;
      }
    });
  });
}

void batch_norm_backward_apply_kernel(const Tensor& grad_in, const Tensor& grad_out,
                                      const Tensor& in, const Tensor& mean, const Tensor& invstd,
                                      const Tensor& weight, const Tensor& sum_dy,
                                      const Tensor& sum_dy_xmu) {
  check_geometry("batch_norm_backward_apply", in);
  const Geometry g(in);
  EMBER_DISPATCH_FLOATING_TYPES(in.dtype(), "batch_norm_backward_apply", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    const scalar_t* dy = grad_out.data_ptr<scalar_t>();
    const scalar_t* m = mean.data_ptr<scalar_t>();
    const scalar_t* is = invstd.data_ptr<scalar_t>();
    const scalar_t* w = data_or_null<scalar_t>(weight);
    const scalar_t* sd = sum_dy.data_ptr<scalar_t>();
    const scalar_t* sdx = sum_dy_xmu.data_ptr<scalar_t>();
    scalar_t* gi = grad_in.data_ptr<scalar_t>();
    const scalar_t inv_count = scalar_t(1) / static_cast<scalar_t>(g.n * g.s);
    parallel_range(g.n * g.c, g.plane_grain(), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % g.c;
        const scalar_t mc = m[c], md = sd[c] * inv_count;
        const scalar_t k = is[c] * is[c] * sdx[c] * inv_count;
        const scalar_t a = is[c] * channel_value(w, c, scalar_t(1));
        const int64_t off = p * g.s;
        for (int64_t i = 0; i < g.s; ++i) {
          gi[off + i] = (dy[off + i] - md - (x[off + i] - mc) * k) * a;
        }
      }
    });
  });
}

}  // namespace

void register_batch_norm_kernels() {
  register_kernel<Op::batch_norm_stats>(kCPU, batch_norm_stats_kernel);
  register_kernel<Op::batch_norm_apply>(kCPU, batch_norm_apply_kernel);
  register_kernel<Op::batch_norm_backward_reduce>(kCPU, batch_norm_backward_reduce_kernel);
  register_kernel<Op::batch_norm_backward_apply>(kCPU, batch_norm_backward_apply_kernel);
}

}  // namespace cpu
}  // namespace ember
