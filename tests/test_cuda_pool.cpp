// CUDA max/avg pooling and their backward (cuda/pool.cu), called through the dispatcher, against
// naive double-precision references written as PyTorch defines the ops (the backward ones as
// scatters, the kernels gather) and ember's CPU kernels when registered: fixed windows with
// stride, padding, dilation, ceil-mode sizes, count_include_pad, divisor_override, adaptive
// windows (overlapping, upsampling, global), ties and NaNs. Part of the test_cuda_conv program.
#include "cuda_conv_common.h"

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace ember;
using namespace conv_test;

struct PoolCase {
  const char* name;
  int64_t n, c, h, w;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil_mode = false;
  bool adaptive = false;
  int64_t aoh = 0, aow = 0;  // adaptive output size
  bool count_include_pad = true;
  int64_t divisor_override = 0;
};

// PyTorch's pooling_output_shape.
int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t out = (in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

int64_t out_h(const PoolCase& k) {
  return k.adaptive ? k.aoh : pool_out(k.h, k.kh, k.sh, k.ph, k.dh, k.ceil_mode);
}
int64_t out_w(const PoolCase& k) {
  return k.adaptive ? k.aow : pool_out(k.w, k.kw, k.sw, k.pw, k.dw, k.ceil_mode);
}

PoolArgs args_of(const PoolCase& k) {
  PoolArgs a;
  a.kernel[0] = k.kh;
  a.kernel[1] = k.kw;
  a.stride[0] = k.sh;
  a.stride[1] = k.sw;
  a.padding[0] = k.ph;
  a.padding[1] = k.pw;
  a.dilation[0] = k.dh;
  a.dilation[1] = k.dw;
  a.adaptive = k.adaptive;
  a.count_include_pad = k.count_include_pad;
  a.divisor_override = k.divisor_override;
  return a;
}

std::string describe(const PoolCase& k, ScalarType dtype) {
  std::ostringstream os;
  os << k.name << " " << dtype_name(dtype) << ": in [" << k.n << ", " << k.c << ", " << k.h << ", "
     << k.w << "] -> [" << out_h(k) << ", " << out_w(k) << "]";
  if (!k.adaptive) {
    os << ", kernel (" << k.kh << ", " << k.kw << "), stride (" << k.sh << ", " << k.sw
       << "), padding (" << k.ph << ", " << k.pw << "), dilation (" << k.dh << ", " << k.dw << ")"
       << (k.ceil_mode ? ", ceil sizes" : "")
       << (k.count_include_pad ? "" : ", count_include_pad false");
    if (k.divisor_override) os << ", divisor_override " << k.divisor_override;
  } else {
    os << ", adaptive";
  }
  return os.str();
}

int64_t adaptive_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t adaptive_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

// The input rows (or columns) of output position o: the taps of a fixed window inside the
// input, or an adaptive window.
std::vector<int64_t> taps(const PoolCase& k, int64_t o, bool rows) {
  const int64_t in = rows ? k.h : k.w, out = rows ? out_h(k) : out_w(k);
  std::vector<int64_t> t;
  if (k.adaptive) {
    for (int64_t i = adaptive_start(o, out, in); i < adaptive_end(o, out, in); ++i) t.push_back(i);
    return t;
  }
  const int64_t kk = rows ? k.kh : k.kw, s = rows ? k.sh : k.sw, p = rows ? k.ph : k.pw,
                d = rows ? k.dh : k.dw;
  for (int64_t j = 0; j < kk; ++j) {
    const int64_t i = o * s - p + j * d;
    if (i >= 0 && i < in) t.push_back(i);
  }
  return t;
}

struct MaxRef {
  std::vector<double> out, indices;
};

MaxRef max_reference(const PoolCase& k, const std::vector<double>& x) {
  const int64_t oh_n = out_h(k), ow_n = out_w(k);
  MaxRef r;
  for (int64_t p = 0; p < k.n * k.c; ++p) {
    for (int64_t oh = 0; oh < oh_n; ++oh) {
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        double best = -std::numeric_limits<double>::infinity();
        int64_t at = -1;
        for (int64_t h : taps(k, oh, true)) {
          for (int64_t w : taps(k, ow, false)) {
            const double v = x[static_cast<size_t>((p * k.h + h) * k.w + w)];
            if (v > best || std::isnan(v)) {
              best = v;
              at = h * k.w + w;
            }
          }
        }
        r.out.push_back(best);
        r.indices.push_back(static_cast<double>(at));
      }
    }
  }
  return r;
}

// grad_in[winner] += grad_out, with the given indices.
std::vector<double> max_backward_reference(const PoolCase& k, const std::vector<double>& gout,
                                           const std::vector<double>& indices) {
  std::vector<double> gin(static_cast<size_t>(k.n * k.c * k.h * k.w), 0.0);
  const int64_t plane_out = out_h(k) * out_w(k);
  for (size_t i = 0; i < gout.size(); ++i) {
    const int64_t p = static_cast<int64_t>(i) / plane_out;
    gin[static_cast<size_t>(p * k.h * k.w + static_cast<int64_t>(indices[i]))] += gout[i];
  }
  return gin;
}

// PyTorch's avg window: [start, end) clipped to the padded input for pool_size, then to the
// input; the divisor from divisor_override, count_include_pad or the clipped area. Adaptive:
// the window's size.
struct Window {
  int64_t h0, h1, w0, w1;
  double divisor;
  bool empty;
};

Window avg_window(const PoolCase& k, int64_t oh, int64_t ow) {
  Window win;
  if (k.adaptive) {
    win.h0 = adaptive_start(oh, k.aoh, k.h);
    win.h1 = adaptive_end(oh, k.aoh, k.h);
    win.w0 = adaptive_start(ow, k.aow, k.w);
    win.w1 = adaptive_end(ow, k.aow, k.w);
    win.divisor = static_cast<double>((win.h1 - win.h0) * (win.w1 - win.w0));
    win.empty = false;
    return win;
  }
  int64_t h0 = oh * k.sh - k.ph, w0 = ow * k.sw - k.pw;
  int64_t h1 = std::min(h0 + k.kh, k.h + k.ph), w1 = std::min(w0 + k.kw, k.w + k.pw);
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, k.h);
  w1 = std::min(w1, k.w);
  win = {h0, h1, w0, w1, 0.0, h0 >= h1 || w0 >= w1};
  win.divisor = static_cast<double>(
      k.divisor_override ? k.divisor_override
                         : (k.count_include_pad ? pool_size : (h1 - h0) * (w1 - w0)));
  return win;
}

std::vector<double> avg_reference(const PoolCase& k, const std::vector<double>& x) {
  std::vector<double> out;
  for (int64_t p = 0; p < k.n * k.c; ++p) {
    for (int64_t oh = 0; oh < out_h(k); ++oh) {
      for (int64_t ow = 0; ow < out_w(k); ++ow) {
        const Window win = avg_window(k, oh, ow);
        double sum = 0;
        for (int64_t h = win.h0; !win.empty && h < win.h1; ++h) {
          for (int64_t w = win.w0; w < win.w1; ++w)
            sum += x[static_cast<size_t>((p * k.h + h) * k.w + w)];
        }
        out.push_back(win.empty ? 0.0 : sum / win.divisor);
      }
    }
  }
  return out;
}

std::vector<double> avg_backward_reference(const PoolCase& k, const std::vector<double>& gout) {
  std::vector<double> gin(static_cast<size_t>(k.n * k.c * k.h * k.w), 0.0);
  size_t i = 0;
  for (int64_t p = 0; p < k.n * k.c; ++p) {
    for (int64_t oh = 0; oh < out_h(k); ++oh) {
      for (int64_t ow = 0; ow < out_w(k); ++ow, ++i) {
        const Window win = avg_window(k, oh, ow);
        for (int64_t h = win.h0; !win.empty && h < win.h1; ++h) {
          for (int64_t w = win.w0; w < win.w1; ++w) {
            gin[static_cast<size_t>((p * k.h + h) * k.w + w)] += gout[i] / win.divisor;
          }
        }
      }
    }
  }
  return gin;
}

double pool_tol(ScalarType dtype) { return dtype == kFloat64 ? 1e-12 : 1e-5; }

// Random values, rounded to halves when `ties` (so that windows often hold equal maxima).
Tensor pool_input(const PoolCase& k, ScalarType dtype, bool ties) {
  Tensor x = random({k.n, k.c, k.h, k.w}, dtype);
  if (ties) x = (x * 2.0).to(kInt64).to(dtype) * 0.5;
  return x.contiguous();
}

void check_max(const PoolCase& k, ScalarType dtype, const Tensor& x) {
  SCOPED_TRACE(describe(k, dtype));
  const PoolArgs a = args_of(k);
  const std::vector<int64_t> osz = {k.n, k.c, out_h(k), out_w(k)};
  ASSERT_GT(osz[2], 0);
  ASSERT_GT(osz[3], 0);
  const MaxRef ref = max_reference(k, values(x));
  Tensor out = nan_filled(osz, dtype, kCUDA);
  Tensor idx = full(osz, -7, opts(kInt64, kCUDA));
  kernel<Op::max_pool2d>(kCUDA)(out, idx, x.cuda(), a);
  EXPECT_TRUE(close_to(out, ref.out, 0.0)) << "max_pool2d values";
  EXPECT_TRUE(close_to(idx, ref.indices, 0.0)) << "max_pool2d indices";
  Tensor gout = random(osz, dtype);
  const std::vector<double> gref = max_backward_reference(k, values(gout), values(idx));
  Tensor gin = nan_filled(x.sizes(), dtype, kCUDA);
  kernel<Op::max_pool2d_backward>(kCUDA)(gin, gout.cuda(), idx, a);
  EXPECT_TRUE(close_to(gin, gref, pool_tol(dtype))) << "max_pool2d_backward";
  if (has_kernel(Op::max_pool2d, kCPU)) {
    Tensor cout = nan_filled(osz, dtype, kCPU), cidx = full(osz, -7, opts(kInt64, kCPU));
    kernel<Op::max_pool2d>(kCPU)(cout, cidx, x, a);
    EXPECT_TRUE(close_to(out, values(cout), 0.0)) << "max_pool2d vs the CPU kernel";
    EXPECT_TRUE(close_to(idx, values(cidx), 0.0)) << "max_pool2d indices vs the CPU kernel";
  }
  if (has_kernel(Op::max_pool2d_backward, kCPU)) {
    Tensor cgin = nan_filled(x.sizes(), dtype, kCPU);
    kernel<Op::max_pool2d_backward>(kCPU)(cgin, gout, idx.cpu(), a);
    EXPECT_TRUE(close_to(gin, values(cgin), pool_tol(dtype)))
        << "max_pool2d_backward vs the CPU kernel";
  }
}

void check_avg(const PoolCase& k, ScalarType dtype) {
  SCOPED_TRACE(describe(k, dtype));
  const PoolArgs a = args_of(k);
  const std::vector<int64_t> osz = {k.n, k.c, out_h(k), out_w(k)};
  ASSERT_GT(osz[2], 0);
  ASSERT_GT(osz[3], 0);
  Tensor x = pool_input(k, dtype, false);
  Tensor out = nan_filled(osz, dtype, kCUDA);
  kernel<Op::avg_pool2d>(kCUDA)(out, Tensor(), x.cuda(), a);
  EXPECT_TRUE(close_to(out, avg_reference(k, values(x)), pool_tol(dtype))) << "avg_pool2d";
  Tensor gout = random(osz, dtype);
  Tensor gin = nan_filled(x.sizes(), dtype, kCUDA);
  kernel<Op::avg_pool2d_backward>(kCUDA)(gin, gout.cuda(), Tensor(), a);
  EXPECT_TRUE(close_to(gin, avg_backward_reference(k, values(gout)), pool_tol(dtype)))
      << "avg_pool2d_backward";
  if (has_kernel(Op::avg_pool2d, kCPU)) {
    Tensor cout = nan_filled(osz, dtype, kCPU);
    kernel<Op::avg_pool2d>(kCPU)(cout, Tensor(), x, a);
    EXPECT_TRUE(close_to(out, values(cout), pool_tol(dtype))) << "avg_pool2d vs the CPU kernel";
  }
  if (has_kernel(Op::avg_pool2d_backward, kCPU)) {
    Tensor cgin = nan_filled(x.sizes(), dtype, kCPU);
    kernel<Op::avg_pool2d_backward>(kCPU)(cgin, gout, Tensor(), a);
    EXPECT_TRUE(close_to(gin, values(cgin), pool_tol(dtype)))
        << "avg_pool2d_backward vs the CPU kernel";
  }
}

PoolCase adaptive(const char* name, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh,
                  int64_t ow) {
  PoolCase k{name, n, c, h, w, 1, 1, 1, 1, 0, 0, 1, 1};
  k.adaptive = true;
  k.aoh = oh;
  k.aow = ow;
  return k;
}

PoolCase ceil_sized(PoolCase k) {
  k.ceil_mode = true;
  return k;
}

PoolCase excluding_pad(PoolCase k) {
  k.count_include_pad = false;
  return k;
}

PoolCase with_divisor(PoolCase k, int64_t d) {
  k.divisor_override = d;
  return k;
}

const std::vector<PoolCase>& max_cases() {
  static const std::vector<PoolCase> cases = {
      // name                     n  c   h   w  kh kw sh sw ph pw dh dw
      {"2x2 stride 2", 2, 3, 8, 8, 2, 2, 2, 2, 0, 0, 1, 1},
      {"2x2 stride 2, odd size", 1, 3, 7, 7, 2, 2, 2, 2, 0, 0, 1, 1},
      {"3x3 stride 2 pad 1", 2, 2, 9, 7, 3, 3, 2, 2, 1, 1, 1, 1},
      {"3x3 stride 1 pad 1", 1, 2, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1},
      {"dilation 2 pad 1", 1, 2, 10, 9, 3, 3, 1, 1, 1, 1, 2, 2},
      {"dilation (2, 3) stride 2", 1, 2, 11, 12, 2, 3, 2, 2, 1, 1, 2, 3},
      {"rect kernel", 2, 2, 7, 9, 2, 3, 1, 2, 1, 1, 1, 1},
      ceil_sized({"ceil sizes", 1, 2, 8, 8, 3, 3, 2, 2, 0, 0, 1, 1}),
      ceil_sized({"ceil sizes pad 1", 1, 2, 9, 10, 3, 2, 2, 2, 1, 1, 1, 1}),
      adaptive("adaptive 7x9 -> 3x4", 2, 3, 7, 9, 3, 4),
      adaptive("adaptive 5x5 -> 4x3 (overlapping)", 1, 2, 5, 5, 4, 3),
      adaptive("adaptive global", 2, 2, 6, 7, 1, 1),
      adaptive("adaptive 3x3 -> 5x4 (upsampling)", 1, 2, 3, 3, 5, 4),
      {"CNN pool1 shape (batch 4)", 4, 32, 28, 28, 2, 2, 2, 2, 0, 0, 1, 1},
      // windows that tile the input (the backward's one-thread-per-window kernel), with rows
      // and columns no window covers, and ceil mode's clipped last windows
      {"2x3 tiles, uncovered edges", 2, 3, 9, 11, 2, 3, 2, 3, 0, 0, 1, 1},
      ceil_sized({"2x2 tiles, ceil sizes", 1, 2, 7, 9, 2, 2, 2, 2, 0, 0, 1, 1}),
      {"1x1 tiles", 1, 2, 3, 4, 1, 1, 1, 1, 0, 0, 1, 1},
  };
  return cases;
}

const std::vector<PoolCase>& avg_cases() {
  static const std::vector<PoolCase> cases = {
      {"2x2 stride 2", 2, 3, 8, 8, 2, 2, 2, 2, 0, 0, 1, 1},
      {"3x3 stride 2 pad 1", 2, 2, 9, 7, 3, 3, 2, 2, 1, 1, 1, 1},
      excluding_pad({"3x3 stride 2 pad 1", 2, 2, 9, 7, 3, 3, 2, 2, 1, 1, 1, 1}),
      {"3x3 stride 1 pad 1", 1, 2, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1},
      excluding_pad({"3x3 stride 1 pad 1", 1, 2, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1}),
      ceil_sized({"ceil sizes", 1, 2, 8, 8, 3, 3, 2, 2, 0, 0, 1, 1}),
      ceil_sized({"ceil sizes pad 1", 1, 2, 9, 10, 3, 3, 2, 2, 1, 1, 1, 1}),
      excluding_pad(ceil_sized({"ceil sizes pad 1", 1, 2, 9, 10, 3, 3, 2, 2, 1, 1, 1, 1})),
      with_divisor({"divisor_override 3", 2, 2, 8, 8, 2, 2, 2, 2, 0, 0, 1, 1}, 3),
      with_divisor({"divisor_override 5, pad 1", 1, 2, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1}, 5),
      {"rect kernel", 2, 2, 7, 9, 2, 3, 1, 2, 1, 1, 1, 1},
      adaptive("adaptive 7x9 -> 3x4", 2, 3, 7, 9, 3, 4),
      adaptive("adaptive 5x5 -> 4x3 (overlapping)", 1, 2, 5, 5, 4, 3),
      adaptive("adaptive global", 2, 2, 6, 6, 1, 1),
      adaptive("adaptive 3x3 -> 5x4 (upsampling)", 1, 2, 3, 3, 5, 4),
  };
  return cases;
}

class CudaPool : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    manual_seed(4321);
  }
};

TEST_F(CudaPool, MaxPool) {
  if (!has_kernel(Op::max_pool2d, kCPU)) {
    std::printf("note: no CPU pool kernels registered; comparing with the naive reference only\n");
  }
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    for (const PoolCase& k : max_cases()) check_max(k, dtype, pool_input(k, dtype, false));
  }
}

// Values rounded to halves tie often: the first maximum in the window (row-major) wins, and in
// overlapping windows one input collects several gradients.
TEST_F(CudaPool, MaxPoolTies) {
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    for (const PoolCase& k : max_cases()) check_max(k, dtype, pool_input(k, dtype, true));
  }
  // All equal, with padding: every index is the window's first tap inside the input.
  const PoolCase k = {"all zeros, pad 1", 1, 1, 4, 5, 3, 3, 1, 1, 1, 1, 1, 1};
  check_max(k, kFloat32, zeros({1, 1, 4, 5}));
}

// A NaN wins its window (PyTorch's `v > best || isnan(v)`), in the values and the indices.
TEST_F(CudaPool, MaxPoolNaNWins) {
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    for (const PoolCase& k : {max_cases()[0], max_cases()[2], max_cases()[10]}) {
      Tensor x = pool_input(k, dtype, false);
      std::vector<double> v = values(x);
      for (size_t i = 3; i < v.size(); i += 17) v[i] = std::nan("");
      Tensor xn = tensor(v).to(dtype).view({k.n, k.c, k.h, k.w}).contiguous();
      check_max(k, dtype, xn);
    }
  }
}

TEST_F(CudaPool, AvgPool) {
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    for (const PoolCase& k : avg_cases()) check_avg(k, dtype);
  }
}

// Empty batches write nothing and must not fail.
TEST_F(CudaPool, EmptyBatch) {
  PoolArgs a;
  a.kernel[0] = a.kernel[1] = a.stride[0] = a.stride[1] = 2;
  Tensor in = empty({0, 3, 4, 4}, kCUDA), out = empty({0, 3, 2, 2}, kCUDA);
  Tensor idx = empty({0, 3, 2, 2}, opts(kInt64, kCUDA));
  kernel<Op::max_pool2d>(kCUDA)(out, idx, in, a);
  kernel<Op::max_pool2d_backward>(kCUDA)(in, out, idx, a);
  kernel<Op::avg_pool2d>(kCUDA)(out, Tensor(), in, a);
  kernel<Op::avg_pool2d_backward>(kCUDA)(in, out, Tensor(), a);
  cuda::synchronize();
}

}  // namespace
