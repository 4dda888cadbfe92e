// The CPU pooling kernels (cpu/pool.cpp) called directly through the dispatcher, against naive
// references written here in double: max and avg, fixed (padding, dilation, ceil-mode shapes,
// count_include_pad, divisor_override) and adaptive (non-divisible sizes) windows, NaN and
// ties, values printed by LibTorch, both float dtypes, and adjoint identities.
#include "nn_kernel_helpers.h"

namespace {

using namespace kernel_test;

struct PoolCase {
  int64_t n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil = false;
  int64_t adaptive_oh = 0, adaptive_ow = 0;  // adaptive when nonzero
  bool count_include_pad = true;
  int64_t divisor_override = 0;

  bool adaptive() const { return adaptive_oh > 0; }
  // PyTorch's pooling_output_shape, with the ceil-mode rule that the last window starts inside
  // the input or the left padding.
  static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
    const int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t out = span / s + 1;
    if (ceil && (out - 1) * s >= in + p) --out;
    return out;
  }
  int64_t oh() const { return adaptive() ? adaptive_oh : out_size(h, kh, sh, ph, dh, ceil); }
  int64_t ow() const { return adaptive() ? adaptive_ow : out_size(w, kw, sw, pw, dw, ceil); }
  PoolArgs args() const {
    PoolArgs a;
    a.kernel[0] = kh, a.kernel[1] = kw, a.stride[0] = sh, a.stride[1] = sw;
    a.padding[0] = ph, a.padding[1] = pw, a.dilation[0] = dh, a.dilation[1] = dw;
    a.adaptive = adaptive(), a.count_include_pad = count_include_pad;
    a.divisor_override = divisor_override;
    return a;
  }
  std::string str() const {
    if (adaptive())
      return std::to_string(h) + "x" + std::to_string(w) + " adaptive -> " +
             std::to_string(adaptive_oh) + "x" + std::to_string(adaptive_ow);
    return std::to_string(h) + "x" + std::to_string(w) + " k" + std::to_string(kh) + "x" +
           std::to_string(kw) + " s" + std::to_string(sh) + "," + std::to_string(sw) + " p" +
           std::to_string(ph) + "," + std::to_string(pw) + " d" + std::to_string(dh) + "," +
           std::to_string(dw) + (ceil ? " ceil" : "") + (count_include_pad ? "" : " no-pad") +
           (divisor_override ? " div" + std::to_string(divisor_override) : "");
  }
};

// Window of output i along a dim: adaptive [floor(i n / on), ceil((i + 1) n / on)).
void adaptive_window(int64_t i, int64_t n, int64_t on, int64_t& b, int64_t& e) {
  b = static_cast<int64_t>(std::floor(static_cast<double>(i * n) / on));
  e = static_cast<int64_t>(std::ceil(static_cast<double>((i + 1) * n) / on));
}

// Max pool: the first in-range tap in scan order starts as the winner at -inf; a tap wins when
// it is larger or NaN.
void max_pool_ref(const PoolCase& k, const Values& x, Values& y, std::vector<int64_t>& idx) {
  const int64_t oh = k.oh(), ow = k.ow();
  y.assign(static_cast<size_t>(k.n * k.c * oh * ow), 0);
  idx.assign(y.size(), -1);
  for (int64_t p = 0; p < k.n * k.c; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        std::vector<int64_t> rows, cols;
        if (k.adaptive()) {
          int64_t b, e;
          adaptive_window(i, k.h, oh, b, e);
          for (int64_t r = b; r < e; ++r) rows.push_back(r);
          adaptive_window(j, k.w, ow, b, e);
          for (int64_t c = b; c < e; ++c) cols.push_back(c);
        } else {
          for (int64_t t = 0; t < k.kh; ++t) {
            const int64_t r = i * k.sh - k.ph + t * k.dh;
            if (r >= 0 && r < k.h) rows.push_back(r);
          }
          for (int64_t t = 0; t < k.kw; ++t) {
            const int64_t c = j * k.sw - k.pw + t * k.dw;
            if (c >= 0 && c < k.w) cols.push_back(c);
          }
        }
        ASSERT_FALSE(rows.empty() || cols.empty()) << "a window of padding only";
        double m = -kInf;
        int64_t best = rows[0] * k.w + cols[0];
        for (int64_t r : rows)
          for (int64_t c : cols) {
            const double v = x[p * k.h * k.w + r * k.w + c];
            if (v > m || std::isnan(v)) m = v, best = r * k.w + c;
          }
        const size_t at = static_cast<size_t>((p * oh + i) * ow + j);
        y[at] = m;
        idx[at] = best;
      }
}

// Avg pool window per PyTorch: the end clipped at in + pad for the count_include_pad size,
// then both ends clipped to the input.
struct Window {
  int64_t h0, h1, w0, w1;
  double divisor;
};
Window avg_window_ref(const PoolCase& k, int64_t i, int64_t j) {
  Window win;
  if (k.adaptive()) {
    adaptive_window(i, k.h, k.oh(), win.h0, win.h1);
    adaptive_window(j, k.w, k.ow(), win.w0, win.w1);
    win.divisor = static_cast<double>((win.h1 - win.h0) * (win.w1 - win.w0));
    return win;
  }
  const int64_t hs = i * k.sh - k.ph, ws = j * k.sw - k.pw;
  const int64_t he = std::min(hs + k.kh, k.h + k.ph), we = std::min(ws + k.kw, k.w + k.pw);
  win.h0 = std::max<int64_t>(hs, 0), win.h1 = std::min(he, k.h);
  win.w0 = std::max<int64_t>(ws, 0), win.w1 = std::min(we, k.w);
  if (k.divisor_override) {
    win.divisor = static_cast<double>(k.divisor_override);
  } else if (k.count_include_pad) {
    win.divisor = static_cast<double>((he - hs) * (we - ws));
  } else {
    win.divisor = static_cast<double>((win.h1 - win.h0) * (win.w1 - win.w0));
  }
  return win;
}

Values avg_pool_ref(const PoolCase& k, const Values& x) {
  const int64_t oh = k.oh(), ow = k.ow();
  Values y(static_cast<size_t>(k.n * k.c * oh * ow), 0);
  for (int64_t p = 0; p < k.n * k.c; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const Window win = avg_window_ref(k, i, j);
        double s = 0;
        for (int64_t r = win.h0; r < win.h1; ++r)
          for (int64_t c = win.w0; c < win.w1; ++c) s += x[p * k.h * k.w + r * k.w + c];
        y[static_cast<size_t>((p * oh + i) * ow + j)] =
            win.h0 < win.h1 && win.w0 < win.w1 ? s / win.divisor : 0;
      }
  return y;
}

Values avg_pool_backward_ref(const PoolCase& k, const Values& gy) {
  const int64_t oh = k.oh(), ow = k.ow();
  Values gx(static_cast<size_t>(k.n * k.c * k.h * k.w), 0);
  for (int64_t p = 0; p < k.n * k.c; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const Window win = avg_window_ref(k, i, j);
        for (int64_t r = win.h0; r < win.h1; ++r)
          for (int64_t c = win.w0; c < win.w1; ++c)
            gx[p * k.h * k.w + r * k.w + c] += gy[(p * oh + i) * ow + j] / win.divisor;
      }
  return gx;
}

const std::vector<PoolCase>& max_cases() {
  static const std::vector<PoolCase> cases = {
      // n c  h  w kh kw sh sw ph pw dh dw
      {2, 3, 8, 8, 2, 2, 2, 2, 0, 0, 1, 1},               // the 2x2 fast path
      {2, 3, 7, 9, 2, 2, 2, 2, 0, 0, 1, 1},               // odd sizes: a row and a column dropped
      {1, 2, 7, 9, 2, 2, 2, 2, 0, 0, 1, 1, true},         // ceil mode: partial last windows
      {2, 2, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, true},         // padding + ceil
      {1, 3, 10, 9, 3, 2, 3, 2, 1, 1, 2, 3},              // dilation
      {1, 2, 6, 11, 3, 3, 1, 2, 1, 0, 2, 1, true},        // dilation + ceil
      {2, 2, 5, 5, 5, 5, 1, 1, 2, 2, 1, 1},               // kernel covering the padded input
      {1, 1, 4, 6, 1, 1, 2, 3, 0, 0, 1, 1},               // 1x1 strided
      {2, 3, 7, 7, 0, 0, 0, 0, 0, 0, 1, 1, false, 3, 3},  // adaptive 7 -> 3
      {1, 2, 5, 3, 0, 0, 0, 0, 0, 0, 1, 1, false, 2, 5},  // adaptive 5 -> 2, 3 -> 5
      {1, 1, 6, 4, 0, 0, 0, 0, 0, 0, 1, 1, false, 6, 1},  // adaptive identity rows, global cols
  };
  return cases;
}

const std::vector<PoolCase>& avg_cases() {
  static const std::vector<PoolCase> cases = {
      // n c  h  w kh kw sh sw ph pw dh dw ceil  adaptive  include_pad  divisor
      {2, 3, 8, 8, 2, 2, 2, 2, 0, 0, 1, 1},
      {2, 2, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, false, 0, 0, true},
      {2, 2, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, false, 0, 0, false},
      {1, 3, 7, 9, 3, 2, 2, 3, 1, 1, 1, 1, true, 0, 0, true},  // ceil: windows past H + pad
      {1, 3, 7, 9, 3, 2, 2, 3, 1, 1, 1, 1, true, 0, 0, false},
      {1, 2, 6, 5, 4, 3, 3, 2, 2, 1, 1, 1, true, 0, 0, true},
      {1, 2, 6, 5, 3, 3, 2, 2, 1, 1, 1, 1, false, 0, 0, true, 7},  // divisor_override
      {1, 2, 6, 5, 3, 3, 2, 2, 1, 1, 1, 1, true, 0, 0, false, 2},
      {2, 3, 7, 7, 0, 0, 0, 0, 0, 0, 1, 1, false, 3, 3},  // adaptive 7 -> 3
      {1, 2, 5, 3, 0, 0, 0, 0, 0, 0, 1, 1, false, 2, 5},  // adaptive 5 -> 2, 3 -> 5
      {1, 2, 9, 4, 0, 0, 0, 0, 0, 0, 1, 1, false, 1, 1},  // global average
  };
  return cases;
}

// Few distinct values (ties), a sprinkle of NaN and -inf (all of them in some windows).
Values max_pool_input(int64_t n, std::mt19937& rng, bool specials) {
  std::uniform_int_distribution<int> level(-2, 2), pick(0, 19);
  Values v(static_cast<size_t>(n));
  for (double& x : v) {
    x = level(rng) * 0.5;
    if (!specials) continue;
    const int r = pick(rng);
    if (r == 0) x = kNaN;
    if (r == 1) x = -kInf;
  }
  return v;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

TEST(PoolKernels, MaxPoolMatchesReference) {
  std::mt19937 rng(6);
  for (ScalarType dt : {ember::kFloat32, ember::kFloat64}) {
    for (const PoolCase& k : max_cases()) {
      for (bool specials : {false, true}) {
        SCOPED_TRACE(k.str() + " " + ember::dtype_name(dt) + (specials ? " NaN/-inf" : ""));
        Values x = max_pool_input(k.n * k.c * k.h * k.w, rng, specials);
        if (specials) std::fill(x.begin(), x.begin() + std::min<int64_t>(k.w + 2, x.size()), -kInf);
        Tensor tx = make({k.n, k.c, k.h, k.w}, dt, x);
        Tensor y = garbage({k.n, k.c, k.oh(), k.ow()}, dt);
        Tensor idx = ember::full({k.n, k.c, k.oh(), k.ow()}, -7,
                                 ember::TensorOptions().dtype(ember::kInt64));
        ember::kernel<Op::max_pool2d>(kCPU)(y, idx, tx, k.args());
        Values ry;
        std::vector<int64_t> ridx;
        max_pool_ref(k, x, ry, ridx);
        const Values gy = read(y);
        const int64_t* gi = idx.data_ptr<int64_t>();
        for (size_t i = 0; i < ry.size(); ++i) {
          ASSERT_TRUE(same(gy[i], ry[i])) << "element " << i << ": " << gy[i] << " vs " << ry[i];
          ASSERT_EQ(gi[i], ridx[i]) << "index of element " << i;
        }
        // Backward: grad_in[winner] += grad_out, every other element 0.
        Values g;
        Tensor tg = random({k.n, k.c, k.oh(), k.ow()}, dt, g, rng);
        Tensor gx = garbage({k.n, k.c, k.h, k.w}, dt);
        ember::kernel<Op::max_pool2d_backward>(kCPU)(gx, tg, idx, k.args());
        Values ref(static_cast<size_t>(k.n * k.c * k.h * k.w), 0);
        const int64_t plane_out = k.oh() * k.ow();
        for (size_t i = 0; i < g.size(); ++i) ref[(i / plane_out) * k.h * k.w + ridx[i]] += g[i];
        expect_close(read(gx), ref, Values(ref.size(), 1), tolerance(dt), "max_pool2d_backward");
      }
    }
  }
}

TEST(PoolKernels, AvgPoolMatchesReference) {
  std::mt19937 rng(7);
  for (ScalarType dt : {ember::kFloat32, ember::kFloat64}) {
    for (const PoolCase& k : avg_cases()) {
      SCOPED_TRACE(k.str() + " " + ember::dtype_name(dt));
      Values x, g;
      Tensor tx = random({k.n, k.c, k.h, k.w}, dt, x, rng);
      Tensor y = garbage({k.n, k.c, k.oh(), k.ow()}, dt);
      ember::kernel<Op::avg_pool2d>(kCPU)(y, Tensor(), tx, k.args());
      Values ref = avg_pool_ref(k, x);
      expect_close(read(y), ref, Values(ref.size(), 1), tolerance(dt), "avg_pool2d");
      Tensor tg = random({k.n, k.c, k.oh(), k.ow()}, dt, g, rng);
      Tensor gx = garbage({k.n, k.c, k.h, k.w}, dt);
      ember::kernel<Op::avg_pool2d_backward>(kCPU)(gx, tg, Tensor(), k.args());
      ref = avg_pool_backward_ref(k, g);
      expect_close(read(gx), ref, Values(ref.size(), 1), tolerance(dt), "avg_pool2d_backward");
    }
  }
}

// Values printed by LibTorch 1.13 for the calls in the comments (x = arange(20.).view(1,1,4,5)).
TEST(PoolKernels, PyTorchValues) {
  Values x(20);
  for (int i = 0; i < 20; ++i) x[i] = i;
  Tensor tx = make({1, 1, 4, 5}, ember::kFloat64, x);
  auto avg = [&](PoolCase k) {
    Tensor y = garbage({1, 1, k.oh(), k.ow()}, ember::kFloat64);
    ember::kernel<Op::avg_pool2d>(kCPU)(y, Tensor(), tx, k.args());
    return read(y);
  };
  auto expect_values = [](const Values& got, const Values& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;
  };
  PoolCase k{1, 1, 4, 5, 3, 3, 2, 2, 1, 1, 1, 1, true};
  ASSERT_EQ(k.oh(), 3);
  ASSERT_EQ(k.ow(), 3);
  // avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=True)
  expect_values(avg(k), {1.3333, 3.0, 2.6667, 7.0, 12.0, 9.0, 5.1667, 8.5, 6.1667});
  k.count_include_pad = false;  // count_include_pad=False
  expect_values(avg(k), {3.0, 4.5, 6.0, 10.5, 12.0, 13.5, 15.5, 17.0, 18.5});
  // avg_pool2d(x, (3, 2), (2, 3), 1, ceil_mode=True, count_include_pad=False, divisor_override=4)
  PoolCase d{1, 1, 4, 5, 3, 2, 2, 3, 1, 1, 1, 1, true, 0, 0, false, 4};
  ASSERT_EQ(d.oh(), 3);
  ASSERT_EQ(d.ow(), 2);
  expect_values(avg(d), {1.25, 5.0, 7.5, 18.75, 3.75, 8.75});
  // adaptive_avg_pool2d(arange(15.).view(1,1,5,3), (2, 5))
  Values x15(15);
  for (int i = 0; i < 15; ++i) x15[i] = i;
  Tensor t15 = make({1, 1, 5, 3}, ember::kFloat64, x15);
  PoolCase a{1, 1, 5, 3, 0, 0, 0, 0, 0, 0, 1, 1, false, 2, 5};
  Tensor ya = garbage({1, 1, 2, 5}, ember::kFloat64);
  ember::kernel<Op::avg_pool2d>(kCPU)(ya, Tensor(), t15, a.args());
  expect_values(read(ya), {3.0, 3.5, 4.0, 4.5, 5.0, 9.0, 9.5, 10.0, 10.5, 11.0});

  auto max = [&](const Tensor& in, const PoolCase& c, const Values& want,
                 const std::vector<int64_t>& want_idx) {
    Tensor y = garbage({1, 1, c.oh(), c.ow()}, ember::kFloat64);
    Tensor idx = ember::empty(y.sizes(), ember::TensorOptions().dtype(ember::kInt64));
    ember::kernel<Op::max_pool2d>(kCPU)(y, idx, in, c.args());
    const Values got = read(y);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(same(got[i], want[i])) << i << ": " << got[i];
      EXPECT_EQ(idx.data_ptr<int64_t>()[i], want_idx[i]) << i;
    }
  };
  // max_pool2d_with_indices(-x, 3, 2, 1, 1, ceil_mode=True)
  Values nx(20);
  for (int i = 0; i < 20; ++i) nx[i] = -i;
  max(make({1, 1, 4, 5}, ember::kFloat64, nx), k, {-0., -1, -3, -5, -6, -8, -15, -16, -18},
      {0, 1, 3, 5, 6, 8, 15, 16, 18});
  // max_pool2d_with_indices(tensor([1, nan, 3, nan, 2, 2, 5, 5, 0]).view(1,1,3,3), 2, 1):
  // the last NaN of a window wins, a NaN beats what follows, ties keep the first
  Values xn = {1., kNaN, 3., kNaN, 2., 2., 5., 5., 0.};
  max(make({1, 1, 3, 3}, ember::kFloat64, xn), PoolCase{1, 1, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
      {kNaN, kNaN, kNaN, 5.}, {3, 1, 3, 7});
  // adaptive_max_pool2d(tensor([1, 3, 3, 2, 7, 7, 0, 1, 7]).view(1,1,1,9), (1, 4))
  Values xa = {1., 3., 3., 2., 7., 7., 0., 1., 7.};
  max(make({1, 1, 1, 9}, ember::kFloat64, xa),
      PoolCase{1, 1, 1, 9, 0, 0, 0, 0, 0, 0, 1, 1, false, 1, 4}, {3., 7., 7., 7.}, {1, 4, 4, 8});
}

// <pool(x), g> == <x, pool_backward(g)> for both pools (max: with its own indices), in double.
TEST(PoolKernels, AdjointIdentities) {
  std::mt19937 rng(8);
  auto check = [&](const PoolCase& k, Op fwd) {
    SCOPED_TRACE(k.str());
    Values x, g;
    Tensor tx = random({k.n, k.c, k.h, k.w}, ember::kFloat64, x, rng);
    Tensor tg = random({k.n, k.c, k.oh(), k.ow()}, ember::kFloat64, g, rng);
    Tensor y = garbage({k.n, k.c, k.oh(), k.ow()}, ember::kFloat64);
    Tensor gx = garbage({k.n, k.c, k.h, k.w}, ember::kFloat64);
    if (fwd == Op::max_pool2d) {
      Tensor idx = ember::empty(y.sizes(), ember::TensorOptions().dtype(ember::kInt64));
      ember::kernel<Op::max_pool2d>(kCPU)(y, idx, tx, k.args());
      ember::kernel<Op::max_pool2d_backward>(kCPU)(gx, tg, idx, k.args());
    } else {
      ember::kernel<Op::avg_pool2d>(kCPU)(y, Tensor(), tx, k.args());
      ember::kernel<Op::avg_pool2d_backward>(kCPU)(gx, tg, Tensor(), k.args());
    }
    const double lhs = dot(read(y), g);
    EXPECT_NEAR(lhs, dot(x, read(gx)), 1e-12 * (1 + std::abs(lhs)));
  };
  for (const PoolCase& k : max_cases()) check(k, Op::max_pool2d);
  for (const PoolCase& k : avg_cases()) check(k, Op::avg_pool2d);
}

// Many planes, so that the planes are split over the pool.
TEST(PoolKernels, ManyPlanes) {
  std::mt19937 rng(9);
  const PoolCase mk{4, 64, 14, 14, 2, 2, 2, 2, 0, 0, 1, 1};
  Values x = max_pool_input(numel({4, 64, 14, 14}), rng, true);
  Tensor tx = make({4, 64, 14, 14}, ember::kFloat32, x);
  Tensor y = garbage({4, 64, 7, 7}, ember::kFloat32);
  Tensor idx = ember::empty({4, 64, 7, 7}, ember::TensorOptions().dtype(ember::kInt64));
  ember::kernel<Op::max_pool2d>(kCPU)(y, idx, tx, mk.args());
  Values ry;
  std::vector<int64_t> ridx;
  max_pool_ref(mk, x, ry, ridx);
  const Values gy = read(y);
  for (size_t i = 0; i < ry.size(); ++i) {
    ASSERT_TRUE(same(gy[i], ry[i])) << i;
    ASSERT_EQ(idx.data_ptr<int64_t>()[i], ridx[i]) << i;
  }
  Tensor avg = garbage({4, 64, 7, 7}, ember::kFloat32);
  Values xa;
  Tensor txa = random({4, 64, 14, 14}, ember::kFloat32, xa, rng);
  ember::kernel<Op::avg_pool2d>(kCPU)(avg, Tensor(), txa, mk.args());
  const Values ref = avg_pool_ref(mk, xa);
  expect_close(read(avg), ref, Values(ref.size(), 1), 1e-6, "avg_pool2d");
}

}  // namespace
