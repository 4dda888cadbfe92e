// CPU conv2d and its two backward kernels as im2col + GEMM (cpu/im2col.h): float32 products go
// to the packed SGEMM (cpu/sgemm.h), float64 ones to Eigen. A batch is split over the thread
// pool one sample at a time (each thread im2cols into its own buffer and runs a single-threaded
// GEMM); a batch smaller than the pool runs its samples in turn, each GEMM split over threads.
// Convolutions with few taps per output (a first layer's 1-channel 3x3) or few outputs per group
// (depthwise) skip the GEMM: direct kernels accumulate in registers (forward, backward-weight).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/cpu/conv_direct.h>
#include <ember/cpu/eigen_gemm.h>
#include <ember/cpu/im2col.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>
#include <ember/cpu/sgemm.h>

namespace ember {
namespace cpu {
namespace {

// Below this many multiply-adds per chunk of samples the pool is not worth waking.
constexpr int64_t kConvParallelMacs = int64_t(1) << 20;
// A column buffer larger than this is freed after the call instead of kept for the next.
constexpr size_t kKeepBytes = size_t(32) << 20;

// A matrix by element strides: (i, j) at p[i * rs + j * cs]; one of rs, cs is 1.
template <class T>
struct Mat {
  const T* p;
  int64_t rs, cs;
};

// c[m, n] (row stride ldc) = a @ b, or += when accumulate. `parallel`: the product may be
// split over the pool (the packed SGEMM's tiles; the Eigen path stays on one thread).
template <class T>
void gemm(int64_t m, int64_t n, int64_t k, Mat<T> a, Mat<T> b, bool accumulate, T* c, int64_t ldc,
          bool parallel) {
  if constexpr (std::is_same<T, float>::value && kHasPackedSgemm) {
    sgemm_packed(m, n, k, 1.f, StridedMatrix{a.p, a.rs, a.cs}, StridedMatrix{b.p, b.rs, b.cs},
                 accumulate ? 1.f : 0.f, c, ldc, parallel);
  } else {
    OutMap<T> out(c, m, n, Eigen::OuterStride<>(ldc));
    auto body = [&](auto ta, auto tb) {
      using MA = typename decltype(ta)::type;
      using MB = typename decltype(tb)::type;
      const bool ra = std::is_same<MA, RowMajor<T>>::value;
      const bool rb = std::is_same<MB, RowMajor<T>>::value;
      ConstMap<MA> am(a.p, m, k, Eigen::OuterStride<>(ra ? a.rs : a.cs));
      ConstMap<MB> bm(b.p, k, n, Eigen::OuterStride<>(rb ? b.rs : b.cs));
      if (accumulate) {
        out.noalias() += am * bm;
      } else {
        out.noalias() = am * bm;
      }
    };
    with_layouts<T>(a.cs == 1, b.cs == 1, body);
  }
}

// One thread's scratch (im2col's columns and padded plane, or the direct kernels' padded
// planes), kept between calls unless it grew past kKeepBytes. At most one per thread at a time.
template <class T>
class Scratch {
 public:
  explicit Scratch(int64_t n) : buf_(storage()) {
    if (buf_.size() < static_cast<size_t>(n)) buf_.resize(static_cast<size_t>(n));
  }
  ~Scratch() {
    if (buf_.size() * sizeof(T) > kKeepBytes) std::vector<T>().swap(buf_);
  }
  T* data() { return buf_.data(); }

 private:
  static std::vector<T>& storage() {
    thread_local std::vector<T> b;
    return b;
  }
  std::vector<T>& buf_;
};

// im2col's scratch: the columns, then the padded plane.
template <class T>
class ColumnBuffer {
 public:
  explicit ColumnBuffer(const ConvGeometry& g) : s_(g.pointwise ? 0 : g.scratch_size()) {
    plane_ = g.pointwise ? nullptr : s_.data() + g.k * g.l + ConvGeometry::kSlack;
  }
  T* data() { return s_.data(); }
  T* plane() { return plane_; }

 private:
  Scratch<T> s_;
  T* plane_;
};

// Runs fn(n, parallel_gemm) for every sample n: over the pool when the batch can fill it,
// else in turn with each GEMM free to split.
template <class Fn>
void for_each_sample(const ConvGeometry& g, const Fn& fn) {
  const int64_t macs = std::max<int64_t>(1, g.groups * g.og * g.k * g.l);
  if (g.n < get_num_threads()) {
    for (int64_t i = 0; i < g.n; ++i) fn(i, true);
    return;
  }
  parallel_range(g.n, std::max<int64_t>(1, kConvParallelMacs / macs), [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) fn(i, false);
  });
}

// out [N, O, OH, OW] = conv(input [N, C, H, W], weight [O, Cg, KH, KW]) + bias [O] (optional).
template <class T>
void forward(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
             const ConvArgs& args) {
  const ConvGeometry g(input.sizes(), out.sizes(), weight.sizes(), args);
  const T* x = input.data_ptr<T>();
  const T* w = weight.data_ptr<T>();
  const T* b = bias.defined() ? bias.data_ptr<T>() : nullptr;
  T* y = out.data_ptr<T>();
  if (direct::use_direct(g)) {  // over (sample, group) pairs
    const std::vector<int64_t> off = direct::tap_offsets(g);
    const int64_t macs = std::max<int64_t>(1, g.og * g.k * g.l);
    parallel_range(g.n * g.groups, std::max<int64_t>(1, kConvParallelMacs / macs),
                   [&](int64_t b0, int64_t b1) {
                     Scratch<T> planes(direct::scratch_size<T>(g));
                     for (int64_t item = b0; item < b1; ++item) {
                       const int64_t i = item / g.groups, grp = item % g.groups;
                       direct::forward(y + (i * g.o + grp * g.og) * g.l,
                                       x + (i * g.c + grp * g.cg) * g.hw(), w + grp * g.og * g.k,
                                       b ? b + grp * g.og : nullptr, off.data(), planes.data(), g);
                     }
                   });
    return;
  }
  for_each_sample(g, [&](int64_t i, bool parallel) {
    ColumnBuffer<T> col(g);
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* in_g = x + (i * g.c + grp * g.cg) * g.hw();
      T* out_g = y + (i * g.o + grp * g.og) * g.l;
      const T* cols = in_g;
      if (!g.pointwise) {
        im2col(col.data(), col.plane(), in_g, g);
        cols = col.data();
      }
      if (b) {
        for (int64_t o = 0; o < g.og; ++o) {
          std::fill(out_g + o * g.l, out_g + (o + 1) * g.l, b[grp * g.og + o]);
        }
      }
      gemm<T>(g.og, g.l, g.k, {w + grp * g.og * g.k, g.k, 1}, {cols, g.l, 1}, b != nullptr, out_g,
              g.l, parallel);
    }
  });
}

// grad_input [N, C, H, W] = the transpose of the forward applied to grad_out [N, O, OH, OW]:
// per group, columns = weight^T @ grad_out, then col2im.
template <class T>
void backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                    const ConvArgs& args) {
  const ConvGeometry g(grad_input.sizes(), grad_out.sizes(), weight.sizes(), args);
  const T* gy = grad_out.data_ptr<T>();
  const T* w = weight.data_ptr<T>();
  T* gx = grad_input.data_ptr<T>();
  for_each_sample(g, [&](int64_t i, bool parallel) {
    ColumnBuffer<T> col(g);
    T* gx_i = gx + i * g.c * g.hw();
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const Mat<T> wt{w + grp * g.og * g.k, 1, g.k};  // [K, Og]
      const Mat<T> gy_g{gy + (i * g.o + grp * g.og) * g.l, g.l, 1};
      T* gx_g = gx_i + grp * g.cg * g.hw();
      if (g.pointwise) {
        gemm<T>(g.k, g.l, g.og, wt, gy_g, false, gx_g, g.l, parallel);
      } else {
        gemm<T>(g.k, g.l, g.og, wt, gy_g, false, col.data(), g.l, parallel);
        col2im(gx_g, col.plane(), col.data(), g);
      }
    }
  });
}

// grad_weight [O, Cg, KH, KW] = sum over samples of grad_out_g @ columns^T (or the direct
// kernel's sums). Groups are disjoint slices of grad_weight, so with at least as many groups as
// threads they go over the pool; otherwise the batch is cut into parts, each summing its samples
// into its own partial, added in part order afterwards; a batch smaller than the pool runs in
// turn with each GEMM split.
template <class T>
void backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                     const ConvArgs& args) {
  const ConvGeometry g(input.sizes(), grad_out.sizes(), grad_weight.sizes(), args);
  const T* gy = grad_out.data_ptr<T>();
  const T* x = input.data_ptr<T>();
  T* gw = grad_weight.data_ptr<T>();
  const int64_t wsize = g.o * g.k;
  if (g.n == 0 || g.l == 0) {
    std::fill(gw, gw + wsize, T(0));
    return;
  }
  const bool direct = direct::use_direct(g);
  const std::vector<int64_t> off = direct ? direct::tap_offsets(g) : std::vector<int64_t>();
  // Samples [s0, s1) of groups [g0, g1) summed into dst (laid out as grad_weight), which they
  // overwrite; each GEMM split if `parallel`.
  auto run = [&](int64_t s0, int64_t s1, int64_t g0, int64_t g1, T* dst, bool parallel) {
    if (direct) {
      Scratch<T> scratch(direct::scratch_size<T>(g));
      std::fill(dst + g0 * g.og * g.k, dst + g1 * g.og * g.k, T(0));
      for (int64_t i = s0; i < s1; ++i) {
        for (int64_t grp = g0; grp < g1; ++grp) {
          direct::backward_weight(dst + grp * g.og * g.k, gy + (i * g.o + grp * g.og) * g.l,
                                  x + (i * g.c + grp * g.cg) * g.hw(), off.data(), scratch.data(),
                                  g);
        }
      }
      return;
    }
    ColumnBuffer<T> col(g);
    for (int64_t i = s0; i < s1; ++i) {
      for (int64_t grp = g0; grp < g1; ++grp) {
        const T* in_g = x + (i * g.c + grp * g.cg) * g.hw();
        const T* cols = in_g;
        if (!g.pointwise) {
          im2col(col.data(), col.plane(), in_g, g);
          cols = col.data();
        }
        gemm<T>(g.og, g.k, g.l, {gy + (i * g.o + grp * g.og) * g.l, g.l, 1}, {cols, 1, g.l}, i > s0,
                dst + grp * g.og * g.k, g.k, parallel);
      }
    }
  };
  const int64_t threads = get_num_threads();
  const int64_t macs = std::max<int64_t>(1, g.groups * g.og * g.k * g.l);  // per sample
  if (threads > 1 && g.groups >= threads && g.n * macs >= 2 * kConvParallelMacs) {
    parallel_for(0, g.groups, 1, [&](int64_t g0, int64_t g1) { run(0, g.n, g0, g1, gw, false); });
    return;
  }
  // A few parts per thread, so that a thread slowed by other load hands its share to the rest.
  const int64_t parts =
      std::min({g.n, 4 * threads, std::max<int64_t>(1, g.n * macs / kConvParallelMacs)});
  if (threads == 1 || g.n < threads || parts <= 1) {
    run(0, g.n, 0, g.groups, gw, g.n < threads);
    return;
  }
  std::vector<T> partial(static_cast<size_t>((parts - 1) * wsize));
  const int64_t per = g.n / parts, extra = g.n % parts;  // part p: per samples, +1 if p < extra
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t s0 = p * per + std::min(p, extra);
      const int64_t s1 = s0 + per + (p < extra ? 1 : 0);
      run(s0, s1, 0, g.groups, p == 0 ? gw : partial.data() + (p - 1) * wsize, false);
    }
  });
  for (int64_t p = 1; p < parts; ++p) {
    const T* src = partial.data() + (p - 1) * wsize;
    for (int64_t j = 0; j < wsize; ++j) gw[j] += src[j];
  }
}

void conv2d_kernel(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const ConvArgs& args) {
  EMBER_DISPATCH_FLOATING_TYPES(out.dtype(), "conv2d",
                                [&] { forward<scalar_t>(out, input, weight, bias, args); });
}

void conv2d_backward_input_kernel(const Tensor& grad_input, const Tensor& grad_out,
                                  const Tensor& weight, const ConvArgs& args) {
  EMBER_DISPATCH_FLOATING_TYPES(grad_input.dtype(), "conv2d_backward_input", [&] {
    backward_input<scalar_t>(grad_input, grad_out, weight, args);
  });
}

void conv2d_backward_weight_kernel(const Tensor& grad_weight, const Tensor& grad_out,
                                   const Tensor& input, const ConvArgs& args) {
  EMBER_DISPATCH_FLOATING_TYPES(grad_weight.dtype(), "conv2d_backward_weight", [&] {
    backward_weight<scalar_t>(grad_weight, grad_out, input, args);
  });
}

}  // namespace

void register_conv_kernels() {
  register_kernel<Op::conv2d>(kCPU, conv2d_kernel);
  register_kernel<Op::conv2d_backward_input>(kCPU, conv2d_backward_input_kernel);
  register_kernel<Op::conv2d_backward_weight>(kCPU, conv2d_backward_weight_kernel);
}

}  // namespace cpu
}  // namespace ember
