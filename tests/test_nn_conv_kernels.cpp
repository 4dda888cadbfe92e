// The CPU conv2d kernels (cpu/conv.cpp: im2col + GEMM and the direct kernels) called directly
// through the dispatcher, against naive references written here in double: many geometries
// (stride, asymmetric padding, dilation, groups, depthwise, 1x1, kernels as large as the padded
// input), both float dtypes, every output element, adjoint identities, non-finite inputs.
#include "nn_kernel_helpers.h"

namespace {

using namespace kernel_test;

struct ConvCase {
  int64_t n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias;
  int64_t oh() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
  ConvArgs args() const {
    ConvArgs a;
    a.stride[0] = sh, a.stride[1] = sw, a.padding[0] = ph, a.padding[1] = pw;
    a.dilation[0] = dh, a.dilation[1] = dw, a.groups = groups;
    return a;
  }
  std::string str() const {
    return "N" + std::to_string(n) + " C" + std::to_string(c) + " " + std::to_string(h) + "x" +
           std::to_string(w) + " O" + std::to_string(o) + " k" + std::to_string(kh) + "x" +
           std::to_string(kw) + " s" + std::to_string(sh) + "," + std::to_string(sw) + " p" +
           std::to_string(ph) + "," + std::to_string(pw) + " d" + std::to_string(dh) + "," +
           std::to_string(dw) + " g" + std::to_string(groups) + (bias ? " bias" : "");
  }
};

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases = {
      // n  c   h   w   o kh kw sh sw ph pw dh dw  g  bias
      {1, 1, 5, 5, 1, 3, 3, 1, 1, 0, 0, 1, 1, 1, false},
      {3, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},      // non-square input
      {2, 4, 9, 8, 6, 3, 2, 2, 1, 2, 0, 1, 1, 2, true},      // asymmetric stride/pad, groups 2
      {3, 6, 10, 11, 6, 3, 3, 3, 2, 1, 2, 2, 1, 6, true},    // depthwise, stride 3, dilation 2
      {3, 6, 9, 7, 12, 3, 3, 1, 1, 1, 1, 1, 1, 6, false},    // depthwise with multiplier 2
      {2, 8, 6, 5, 12, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},     // 1x1 pointwise
      {2, 8, 6, 5, 4, 1, 1, 2, 2, 0, 0, 1, 1, 2, false},     // 1x1 strided, groups
      {3, 4, 5, 5, 6, 1, 1, 1, 1, 1, 0, 1, 1, 1, true},      // 1x1 padded
      {1, 2, 4, 5, 3, 6, 7, 1, 1, 1, 1, 1, 1, 1, true},      // kernel == padded input: 1x1 out
      {3, 4, 8, 8, 8, 3, 3, 2, 2, 1, 1, 2, 2, 4, true},      // dilation 2, stride 2, groups 4
      {1, 3, 5, 7, 2, 2, 3, 1, 3, 0, 1, 2, 1, 1, false},     // stride 3 in W only
      {2, 2, 11, 4, 3, 3, 1, 3, 1, 2, 0, 1, 1, 1, true},     // tall input, 3x1 kernel
      {2, 1, 28, 28, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},    // the benchmark's conv1 shape
      {3, 32, 10, 10, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},  // K = 288: SGEMM k blocks
      {8, 16, 12, 12, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},  // several backward-weight parts
      {1, 16, 12, 12, 24, 3, 3, 1, 1, 1, 1, 1, 1, 2, true},  // one sample: GEMMs split
      {2, 2, 9, 10, 4, 2, 3, 2, 1, 1, 2, 2, 3, 2, true},     // direct: stride, dilation 2/3
      {2, 8, 9, 10, 6, 3, 3, 1, 1, 2, 3, 2, 3, 1, true},     // GEMM path, dilation 2/3
      {1, 4, 5, 40, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, false},    // wide rows: col2im, 6 vectors
      {1, 2, 3, 70, 2, 3, 3, 1, 1, 0, 1, 1, 1, 1, false},    // wider: col2im's plain loop
      {2, 2, 4, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},      // rows narrower than a vector
      {1, 5, 3, 1, 4, 3, 1, 1, 1, 1, 0, 1, 1, 1, false},     // one column
      {2, 6, 5, 3, 8, 2, 2, 1, 1, 0, 0, 1, 1, 1, true},      // 3 columns, GEMM path
  };
  return cases;
}

// The forward as its definition: out[n, o, y, x] = bias[o] + sum over the group's channels and
// taps; `scale` gets the sum of |terms| (for the tolerance).
Values conv_ref(const ConvCase& k, const Values& x, const Values& w, const Values& b,
                Values* scale) {
  const int64_t oh = k.oh(), ow = k.ow(), cg = k.c / k.groups, og = k.o / k.groups;
  Values out(static_cast<size_t>(k.n * k.o * oh * ow));
  scale->assign(out.size(), 0);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.o; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          const size_t at = static_cast<size_t>(((n * k.o + o) * oh + y) * ow + xo);
          double s = k.bias ? b[o] : 0, a = k.bias ? std::abs(b[o]) : 0;
          const int64_t grp = o / og;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                const int64_t ih = y * k.sh - k.ph + i * k.dh, iw = xo * k.sw - k.pw + j * k.dw;
                if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w) continue;
                const double t = x[((n * k.c + grp * cg + c) * k.h + ih) * k.w + iw] *
                                 w[((o * cg + c) * k.kh + i) * k.kw + j];
                s += t, a += std::abs(t);
              }
          out[at] = s;
          (*scale)[at] = a;
        }
  return out;
}

// grad_input [N, C, gh, gw] (gh >= H, gw >= W allowed) by scattering each grad_out element
// back over its taps: the transpose, written the other way round from conv_ref.
Values conv_backward_input_ref(const ConvCase& k, int64_t gh, int64_t gwid, const Values& gy,
                               const Values& w, Values* scale) {
  const int64_t oh = k.oh(), ow = k.ow(), cg = k.c / k.groups, og = k.o / k.groups;
  Values gx(static_cast<size_t>(k.n * k.c * gh * gwid), 0);
  scale->assign(gx.size(), 0);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.o; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          const double g = gy[((n * k.o + o) * oh + y) * ow + xo];
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                const int64_t ih = y * k.sh - k.ph + i * k.dh, iw = xo * k.sw - k.pw + j * k.dw;
                if (ih < 0 || ih >= gh || iw < 0 || iw >= gwid) continue;
                const size_t at =
                    static_cast<size_t>(((n * k.c + (o / og) * cg + c) * gh + ih) * gwid + iw);
                const double t = g * w[((o * cg + c) * k.kh + i) * k.kw + j];
                gx[at] += t, (*scale)[at] += std::abs(t);
              }
        }
  return gx;
}

Values conv_backward_weight_ref(const ConvCase& k, const Values& gy, const Values& x,
                                Values* scale) {
  const int64_t oh = k.oh(), ow = k.ow(), cg = k.c / k.groups, og = k.o / k.groups;
  Values gw(static_cast<size_t>(k.o * cg * k.kh * k.kw), 0);
  scale->assign(gw.size(), 0);
  for (int64_t o = 0; o < k.o; ++o)
    for (int64_t c = 0; c < cg; ++c)
      for (int64_t i = 0; i < k.kh; ++i)
        for (int64_t j = 0; j < k.kw; ++j) {
          const size_t at = static_cast<size_t>(((o * cg + c) * k.kh + i) * k.kw + j);
          for (int64_t n = 0; n < k.n; ++n)
            for (int64_t y = 0; y < oh; ++y)
              for (int64_t xo = 0; xo < ow; ++xo) {
                const int64_t ih = y * k.sh - k.ph + i * k.dh, iw = xo * k.sw - k.pw + j * k.dw;
                if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w) continue;
                const double t = gy[((n * k.o + o) * oh + y) * ow + xo] *
                                 x[((n * k.c + (o / og) * cg + c) * k.h + ih) * k.w + iw];
                gw[at] += t, (*scale)[at] += std::abs(t);
              }
        }
  return gw;
}

// Forward, backward-input and backward-weight of one case against the references.
void check_conv(const ConvCase& k, ScalarType dt, std::mt19937& rng) {
  SCOPED_TRACE(k.str() + " " + ember::dtype_name(dt));
  const int64_t oh = k.oh(), ow = k.ow(), cg = k.c / k.groups;
  Values x, w, b, gy, scale;
  Tensor tx = random({k.n, k.c, k.h, k.w}, dt, x, rng);
  Tensor tw = random({k.o, cg, k.kh, k.kw}, dt, w, rng);
  Tensor tb = k.bias ? random({k.o}, dt, b, rng) : Tensor();
  Tensor tgy = random({k.n, k.o, oh, ow}, dt, gy, rng);
  const ConvArgs args = k.args();

  Tensor out = garbage({k.n, k.o, oh, ow}, dt);
  ember::kernel<Op::conv2d>(kCPU)(out, tx, tw, tb, args);
  Values ref = conv_ref(k, x, w, b, &scale);
  expect_close(read(out), ref, scale, tolerance(dt), "conv2d");

  Tensor gx = garbage({k.n, k.c, k.h, k.w}, dt);
  ember::kernel<Op::conv2d_backward_input>(kCPU)(gx, tgy, tw, args);
  ref = conv_backward_input_ref(k, k.h, k.w, gy, w, &scale);
  expect_close(read(gx), ref, scale, tolerance(dt), "conv2d_backward_input");

  Tensor gw = garbage({k.o, cg, k.kh, k.kw}, dt);
  ember::kernel<Op::conv2d_backward_weight>(kCPU)(gw, tgy, tx, args);
  ref = conv_backward_weight_ref(k, gy, x, &scale);
  expect_close(read(gw), ref, scale, tolerance(dt), "conv2d_backward_weight");
}

TEST(ConvKernels, MatchReferenceFloat32) {
  std::mt19937 rng(1);
  for (const ConvCase& k : conv_cases()) check_conv(k, ember::kFloat32, rng);
}

TEST(ConvKernels, MatchReferenceFloat64) {
  std::mt19937 rng(2);
  for (const ConvCase& k : conv_cases()) check_conv(k, ember::kFloat64, rng);
}

// One thread (every loop inline) and three (an odd split of the batch and its parts).
TEST(ConvKernels, AnyThreadCount) {
  const int saved = ember::get_num_threads();
  std::mt19937 rng(3);
  for (int threads : {1, 3}) {
    ember::set_num_threads(threads);
    SCOPED_TRACE("threads " + std::to_string(threads));
    for (size_t i : {1, 5, 13, 14, 15}) check_conv(conv_cases()[i], ember::kFloat32, rng);
    check_conv(conv_cases()[14], ember::kFloat64, rng);
  }
  ember::set_num_threads(saved);
}

// <conv(x), g> == <x, backward_input(g)> and == <w, backward_weight(g)> (no bias), in double.
TEST(ConvKernels, AdjointIdentities) {
  std::mt19937 rng(4);
  for (ConvCase k : conv_cases()) {
    k.bias = false;
    SCOPED_TRACE(k.str());
    const int64_t oh = k.oh(), ow = k.ow(), cg = k.c / k.groups;
    Values x, w, g;
    Tensor tx = random({k.n, k.c, k.h, k.w}, ember::kFloat64, x, rng);
    Tensor tw = random({k.o, cg, k.kh, k.kw}, ember::kFloat64, w, rng);
    Tensor tg = random({k.n, k.o, oh, ow}, ember::kFloat64, g, rng);
    Tensor y = garbage({k.n, k.o, oh, ow}, ember::kFloat64);
    Tensor gx = garbage({k.n, k.c, k.h, k.w}, ember::kFloat64);
    Tensor gw = garbage({k.o, cg, k.kh, k.kw}, ember::kFloat64);
    ember::kernel<Op::conv2d>(kCPU)(y, tx, tw, Tensor(), k.args());
    ember::kernel<Op::conv2d_backward_input>(kCPU)(gx, tg, tw, k.args());
    ember::kernel<Op::conv2d_backward_weight>(kCPU)(gw, tg, tx, k.args());
    const double lhs = dot(read(y), g);
    EXPECT_NEAR(lhs, dot(x, read(gx)), 1e-10 * (1 + std::abs(lhs)));
    EXPECT_NEAR(lhs, dot(w, read(gw)), 1e-10 * (1 + std::abs(lhs)));
  }
}

// conv_transpose2d's output_padding: grad_input larger than the forward needs; rows and columns
// no tap reaches come out 0.
TEST(ConvKernels, BackwardInputLargerThanNeeded) {
  const std::vector<std::pair<ConvCase, Shape>> cases = {
      {{2, 3, 6, 6, 4, 2, 2, 3, 3, 0, 0, 1, 1, 1, false}, {7, 7}},  // stride 3: gaps, extra 1
      {{1, 4, 7, 5, 2, 3, 3, 2, 2, 1, 1, 1, 1, 2, false}, {8, 6}},
      {{2, 2, 5, 5, 2, 3, 3, 2, 2, 0, 0, 2, 2, 1, false}, {6, 5}},  // dilation 2
      {{1, 2, 3, 3, 3, 1, 1, 2, 2, 0, 0, 1, 1, 1, false}, {4, 4}},  // 1x1 stride 2
  };
  std::mt19937 rng(5);
  for (ScalarType dt : {ember::kFloat32, ember::kFloat64}) {
    for (const auto& [k, hw] : cases) {
      SCOPED_TRACE(k.str() + " grad_input " + std::to_string(hw[0]) + "x" + std::to_string(hw[1]));
      ASSERT_EQ(k.oh(), (hw[0] + 2 * k.ph - k.dh * (k.kh - 1) - 1) / k.sh + 1);
      ASSERT_EQ(k.ow(), (hw[1] + 2 * k.pw - k.dw * (k.kw - 1) - 1) / k.sw + 1);
      Values w, gy, scale;
      Tensor tw = random({k.o, k.c / k.groups, k.kh, k.kw}, dt, w, rng);
      Tensor tgy = random({k.n, k.o, k.oh(), k.ow()}, dt, gy, rng);
      Tensor gx = garbage({k.n, k.c, hw[0], hw[1]}, dt);
      ember::kernel<Op::conv2d_backward_input>(kCPU)(gx, tgy, tw, k.args());
      const Values ref = conv_backward_input_ref(k, hw[0], hw[1], gy, w, &scale);
      expect_close(read(gx), ref, scale, tolerance(dt), "conv2d_backward_input");
      // Elements no tap reaches are exactly 0 (the first case has whole rows and columns).
      const Values got = read(gx);
      int untouched = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        if (scale[i] != 0) continue;
        ++untouched;
        EXPECT_EQ(got[i], 0.0) << i;
      }
      if (k.sh == 3) {
        EXPECT_GT(untouched, 0);
      }
    }
  }
}

// inf in the last input column (and in grad_out's): the products that include it are inf or
// NaN, as in the reference, and nothing else is; vector lanes past a row that read it (the
// direct kernels, col2im) must not leak 0 * inf = NaN into other outputs.
TEST(ConvKernels, NonFiniteValuesStayWhereTheyBelong) {
  auto match = [](const Values& got, const Values& ref, const Values& scale, double tol,
                  const std::string& what) {
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isfinite(ref[i])) {
        EXPECT_NEAR(got[i], ref[i], tol * std::max(1.0, scale[i])) << what << " " << i;
      } else {
        EXPECT_TRUE(got[i] == ref[i] || (std::isnan(got[i]) && std::isnan(ref[i])))
            << what << " " << i << ": " << got[i] << " vs " << ref[i];
      }
    }
  };
  std::mt19937 rng(10);
  for (ScalarType dt : {ember::kFloat32, ember::kFloat64}) {
    for (const ConvCase& k : {ConvCase{2, 1, 6, 28, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
                              ConvCase{2, 3, 5, 13, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}}) {
      SCOPED_TRACE(k.str() + " " + ember::dtype_name(dt));
      const int64_t cg = k.c / k.groups;
      Values x = random_values(k.n * k.c * k.h * k.w, rng), w, b, gy, scale;
      x[2 * k.w - 1] = kInf;  // sample 0, channel 0, row 1, last column
      Values gyv = random_values(k.n * k.o * k.oh() * k.ow(), rng);
      gyv[3 * k.ow() - 1] = -kInf;
      Tensor tx = make({k.n, k.c, k.h, k.w}, dt, x);
      Tensor tgy = make({k.n, k.o, k.oh(), k.ow()}, dt, gyv);
      Tensor tw = random({k.o, cg, k.kh, k.kw}, dt, w, rng);
      Tensor tb = random({k.o}, dt, b, rng);
      Tensor out = garbage({k.n, k.o, k.oh(), k.ow()}, dt);
      ember::kernel<Op::conv2d>(kCPU)(out, tx, tw, tb, k.args());
      Values ref = conv_ref(k, x, w, b, &scale);
      match(read(out), ref, scale, tolerance(dt), "conv2d");
      Tensor gx = garbage({k.n, k.c, k.h, k.w}, dt);
      ember::kernel<Op::conv2d_backward_input>(kCPU)(gx, tgy, tw, k.args());
      ref = conv_backward_input_ref(k, k.h, k.w, gyv, w, &scale);
      match(read(gx), ref, scale, tolerance(dt), "conv2d_backward_input");
      // grad_weight with a finite grad_out: only the taps that meet the inf are inf
      Tensor gw = garbage({k.o, cg, k.kh, k.kw}, dt);
      Values gf;
      Tensor tgf = random({k.n, k.o, k.oh(), k.ow()}, dt, gf, rng);
      ember::kernel<Op::conv2d_backward_weight>(kCPU)(gw, tgf, tx, k.args());
      ref = conv_backward_weight_ref(k, gf, x, &scale);
      int finite = 0;
      for (double v : ref) finite += std::isfinite(v);
      EXPECT_GT(finite, 0);
      match(read(gw), ref, scale, tolerance(dt), "conv2d_backward_weight");
    }
  }
}

TEST(ConvKernels, EmptyBatch) {
  const ConvCase k{0, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  Values b(3, 0.5);
  Tensor x = ember::empty({0, 2, 5, 5}), w = ember::ones({3, 2, 3, 3}),
         tb = make({3}, ember::kFloat32, b);
  Tensor out = ember::empty({0, 3, 5, 5}), gx = ember::empty({0, 2, 5, 5});
  Tensor gw = garbage({3, 2, 3, 3}, ember::kFloat32);
  ember::kernel<Op::conv2d>(kCPU)(out, x, w, tb, k.args());
  ember::kernel<Op::conv2d_backward_input>(kCPU)(gx, out, w, k.args());
  ember::kernel<Op::conv2d_backward_weight>(kCPU)(gw, out, x, k.args());
  for (double v : read(gw)) EXPECT_EQ(v, 0.0);
}

}  // namespace
