// Linear algebra and softmax against naive loops: matmul (1-D to N-D, batch broadcasting),
// mm bmm addmm linear with transposed/strided/expanded operands; softmax, log_softmax.
#include <ember/cpu/sgemm.h>
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "reference.h"

using namespace ember;
using ref::Layout;
using ref::Operand;
using ref::random_layout;
using ref::Shape;

namespace {

// Random values in a random layout; for 2+ dims, sometimes a transpose of the last two dims
// of a contiguous tensor (the BLAS "transposed operand" case), or a stride-0 batch dim.
Operand operand(ref::Rng& rng, const Shape& s, ScalarType dt) {
  Operand o{Tensor(), ref::random_values(rng, ref::numel(s), dt, -1, 1), s};
  int64_t nd = static_cast<int64_t>(s.size());
  int64_t pick = ref::randint(rng, 0, 5);
  if (nd >= 2 && pick == 4) {
    // contiguous [..., n, m] viewed as [..., m, n]
    Shape ts = s;
    std::swap(ts[static_cast<size_t>(nd - 1)], ts[static_cast<size_t>(nd - 2)]);
    std::vector<double> tv(o.v.size());
    for (int64_t k = 0; k < ref::numel(s); ++k) {
      Shape idx = ref::unravel(k, s);
      std::swap(idx[static_cast<size_t>(nd - 1)], idx[static_cast<size_t>(nd - 2)]);
      tv[static_cast<size_t>(ref::ravel(idx, ts))] = o.v[static_cast<size_t>(k)];
    }
    o.t = ref::make(tv, ts, dt).transpose(-1, -2);
  } else if (nd >= 3 && pick == 5) {
    // the first batch dim broadcast with stride 0
    Shape small = s;
    small[0] = 1;
    std::vector<double> sv = ref::random_values(rng, ref::numel(small), dt, -1, 1);
    o.t = ref::make(sv, small, dt).expand(s);
    for (int64_t k = 0; k < ref::numel(s); ++k)
      o.v[static_cast<size_t>(k)] = ref::at_broadcast(sv, small, ref::unravel(k, s));
  } else {
    o.t = ref::make_layout(o.v, s, dt, random_layout(rng));
  }
  return o;
}

// Naive matmul with PyTorch's rules: 1-D operands get a dim added then removed, batch dims
// broadcast.
std::vector<double> ref_matmul(const Operand& a, const Operand& b, Shape* out_shape) {
  Shape sa = a.s, sb = b.s;
  bool a1 = sa.size() == 1, b1 = sb.size() == 1;
  if (a1) sa.insert(sa.begin(), 1);
  if (b1) sb.push_back(1);
  int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  Shape batch = ref::broadcast(ba, bb);
  Shape full = batch;
  full.push_back(m);
  full.push_back(n);
  std::vector<double> out(static_cast<size_t>(ref::numel(full)));
  for (int64_t f = 0; f < ref::numel(full); ++f) {
    Shape idx = ref::unravel(f, full);
    double acc = 0;
    for (int64_t p = 0; p < k; ++p) {
      Shape ia = idx, ib = idx;
      ia[ia.size() - 1] = p;
      ib[ib.size() - 2] = p;
      acc += ref::at_broadcast(a.v, sa, ia) * ref::at_broadcast(b.v, sb, ib);
    }
    out[static_cast<size_t>(f)] = acc;
  }
  *out_shape = batch;
  if (!a1) out_shape->push_back(m);
  if (!b1) out_shape->push_back(n);
  return out;
}

double mm_rtol(ScalarType t) { return t == kFloat32 ? 1e-4 : 1e-12; }
double mm_atol(ScalarType t, int64_t k) {
  return (t == kFloat32 ? 1e-5 : 1e-13) * static_cast<double>(k + 1);
}

TEST(Matmul, AllRanksWithBatchBroadcasting) {
  ref::Rng rng(61);
  for (int rep = 0; rep < 120; ++rep) {
    ScalarType dt = ref::float_dtypes()[static_cast<size_t>(rep % 2)];
    int64_t m = ref::randint(rng, 1, 6), k = ref::randint(rng, 0, 6), n = ref::randint(rng, 1, 6);
    if (rep % 10 == 7) m = 0;
    int ra = static_cast<int>(ref::randint(rng, 1, 4)),
        rb = static_cast<int>(ref::randint(rng, 1, 4));
    // batch dims: suffixes of one batch shape with some 1s, so they broadcast
    Shape batch = ref::random_shape(rng, 2, 2, 3, false);
    auto batch_for = [&](int r) {
      Shape s(batch.end() - std::max(0, r - 2), batch.end());
      for (auto& d : s)
        if (ref::randint(rng, 0, 2) == 0) d = 1;
      return s;
    };
    Shape sa = ra == 1 ? Shape{k} : batch_for(ra), sb = rb == 1 ? Shape{k} : batch_for(rb);
    if (ra >= 2) {
      sa.push_back(m);
      sa.push_back(k);
    }
    if (rb >= 2) {
      sb.push_back(k);
      sb.push_back(n);
    }
    Operand a = operand(rng, sa, dt), b = operand(rng, sb, dt);
    SCOPED_TRACE(ref::name(dt) + " " + ref::str(sa) + " @ " + ref::str(sb));
    Shape os;
    std::vector<double> want = ref_matmul(a, b, &os);
    EXPECT_TRUE(ref::matches(matmul(a.t, b.t), dt, os, want, mm_rtol(dt), mm_atol(dt, k)));
    EXPECT_TRUE(ref::matches(a.t.matmul(b.t), dt, os, want, mm_rtol(dt), mm_atol(dt, k)));
  }
}

TEST(Matmul, MmBmmWithTransposedAndStridedOperands) {
  ref::Rng rng(62);
  for (int rep = 0; rep < 40; ++rep) {
    ScalarType dt = ref::float_dtypes()[static_cast<size_t>(rep % 2)];
    int64_t m = ref::randint(rng, 0, 9), k = ref::randint(rng, 0, 9), n = ref::randint(rng, 1, 9);
    Operand a = operand(rng, {m, k}, dt), b = operand(rng, {k, n}, dt);
    SCOPED_TRACE(ref::name(dt) + " mm " + ref::str(a.s) + " " + ref::str(b.s));
    Shape os;
    std::vector<double> want = ref_matmul(a, b, &os);
    EXPECT_TRUE(ref::matches(mm(a.t, b.t), dt, {m, n}, want, mm_rtol(dt), mm_atol(dt, k)));
    EXPECT_TRUE(ref::matches(a.t.mm(b.t), dt, {m, n}, want, mm_rtol(dt), mm_atol(dt, k)));
    int64_t bs = ref::randint(rng, 0, 4);
    Operand ba = operand(rng, {bs, m, k}, dt), bb = operand(rng, {bs, k, n}, dt);
    want = ref_matmul(ba, bb, &os);
    EXPECT_TRUE(ref::matches(bmm(ba.t, bb.t), dt, {bs, m, n}, want, mm_rtol(dt), mm_atol(dt, k)))
        << "bmm " << ref::str(ba.s) << " " << ref::str(bb.s);
    EXPECT_TRUE(ref::matches(ba.t.bmm(bb.t), dt, {bs, m, n}, want, mm_rtol(dt), mm_atol(dt, k)));
  }
}

TEST(Matmul, LargerShapesAndTransposes) {
  // big enough for blocked/threaded GEMM paths; the four transpose combinations and a view with
  // non-unit strides in both dims (which must be copied, not passed to BLAS)
  ref::Rng rng(63);
  for (ScalarType dt : ref::float_dtypes()) {
    const int64_t m = 67, k = 130, n = 45;
    for (int ta = 0; ta < 2; ++ta) {
      for (int tb = 0; tb < 3; ++tb) {
        Operand a{Tensor(), ref::random_values(rng, m * k, dt, -1, 1), {m, k}};
        Operand b{Tensor(), ref::random_values(rng, k * n, dt, -1, 1), {k, n}};
        a.t = ta ? ref::make_layout(a.v, a.s, dt, Layout::Transposed) : ref::make(a.v, a.s, dt);
        b.t = tb == 0   ? ref::make(b.v, b.s, dt)
              : tb == 1 ? ref::make_layout(b.v, b.s, dt, Layout::Transposed)
                        : ref::make_layout(b.v, b.s, dt, Layout::Stepped);
        Shape os;
        std::vector<double> want = ref_matmul(a, b, &os);
        EXPECT_TRUE(ref::matches(matmul(a.t, b.t), dt, {m, n}, want, mm_rtol(dt), mm_atol(dt, k)))
            << ref::name(dt) << " ta " << ta << " tb " << tb;
      }
    }
  }
}

TEST(Matmul, Addmm) {
  ref::Rng rng(64);
  for (int rep = 0; rep < 40; ++rep) {
    ScalarType dt = ref::float_dtypes()[static_cast<size_t>(rep % 2)];
    int64_t m = ref::randint(rng, 1, 7), k = ref::randint(rng, 0, 7), n = ref::randint(rng, 1, 7);
    Operand a = operand(rng, {m, k}, dt), b = operand(rng, {k, n}, dt);
    // self broadcasts to [m, n]: full, a bias row [n], a column [m, 1], or 0-dim
    std::vector<Shape> self_shapes = {{m, n}, {n}, {m, 1}, {}, {1, n}};
    Shape ss = self_shapes[static_cast<size_t>(rep % 5)];
    Operand c = operand(rng, ss, dt);
    double beta = rep % 3 == 0 ? 1.0 : 0.5, alpha = rep % 4 == 0 ? 1.0 : -2.0;
    SCOPED_TRACE(ref::name(dt) + " addmm self " + ref::str(ss) + " " + ref::str(a.s) + " " +
                 ref::str(b.s) + " beta " + std::to_string(beta) + " alpha " +
                 std::to_string(alpha));
    Shape os;
    std::vector<double> ab = ref_matmul(a, b, &os), want(ab.size());
    for (int64_t f = 0; f < m * n; ++f)
      want[static_cast<size_t>(f)] = beta * ref::at_broadcast(c.v, ss, ref::unravel(f, {m, n})) +
                                     alpha * ab[static_cast<size_t>(f)];
    EXPECT_TRUE(ref::matches(addmm(c.t, a.t, b.t, beta, alpha), dt, {m, n}, want, mm_rtol(dt),
                             mm_atol(dt, k)));
    EXPECT_TRUE(ref::matches(c.t.addmm(a.t, b.t, beta, alpha), dt, {m, n}, want, mm_rtol(dt),
                             mm_atol(dt, k)));
    EXPECT_TRUE(ref::matches(c.t, dt, ss, c.v)) << "self is not modified";
  }
  // beta = 0: self is ignored, even NaN (PyTorch's rule)
  Tensor nan_self = full({2, 2}, NAN);
  Tensor r = addmm(nan_self, eye(2), full({2, 2}, 3.0), 0, 1);
  EXPECT_TRUE(ref::matches(r, kFloat32, {2, 2}, {3, 3, 3, 3}));
  // defaults beta = alpha = 1
  EXPECT_TRUE(ref::matches(addmm(ones({2, 2}), eye(2), eye(2)), kFloat32, {2, 2}, {2, 1, 1, 2}));
}

TEST(Matmul, Linear) {
  ref::Rng rng(65);
  for (int rep = 0; rep < 30; ++rep) {
    ScalarType dt = ref::float_dtypes()[static_cast<size_t>(rep % 2)];
    int64_t in = ref::randint(rng, 1, 7), out = ref::randint(rng, 1, 7);
    Shape xs = ref::random_shape(rng, 0, 2, 4);
    xs.push_back(in);
    Operand x = operand(rng, xs, dt), w = operand(rng, {out, in}, dt), b = operand(rng, {out}, dt);
    Shape os = xs;
    os.back() = out;
    std::vector<double> want(static_cast<size_t>(ref::numel(os))), want_nb(want.size());
    for (int64_t f = 0; f < ref::numel(os); ++f) {
      Shape idx = ref::unravel(f, os);
      int64_t j = idx.back();
      double acc = 0;
      for (int64_t p = 0; p < in; ++p) {
        Shape xi = idx;
        xi.back() = p;
        acc += x.v[static_cast<size_t>(ref::ravel(xi, xs))] * w.v[static_cast<size_t>(j * in + p)];
      }
      want_nb[static_cast<size_t>(f)] = acc;
      want[static_cast<size_t>(f)] = acc + b.v[static_cast<size_t>(j)];
    }
    SCOPED_TRACE(ref::name(dt) + " linear " + ref::str(xs) + " -> " + std::to_string(out));
    EXPECT_TRUE(ref::matches(linear(x.t, w.t, b.t), dt, os, want, mm_rtol(dt), mm_atol(dt, in)));
    EXPECT_TRUE(ref::matches(linear(x.t, w.t), dt, os, want_nb, mm_rtol(dt), mm_atol(dt, in)));
  }
}

// The packed float32 kernels available on this CPU ("avx2", and "avx512" where the CPU runs
// it): each test below runs once per kernel, forced with cpu::set_sgemm_kernel.
std::vector<std::string> sgemm_kernels() {
  std::vector<std::string> names;
  for (const char* k : {"avx2", "avx512"}) {
    if (cpu::set_sgemm_kernel(k)) names.push_back(k);
  }
  cpu::set_sgemm_kernel("auto");
  return names;
}

// Restores the automatic kernel choice when a test ends, even by a failed assertion.
struct AutoSgemmKernel {
  ~AutoSgemmKernel() { cpu::set_sgemm_kernel("auto"); }
};

// The packed float32 kernels' edges: ragged row slivers (m % 6, m % 12) and column slivers
// (n % 16, n % 32), several k blocks (k > 256), several row blocks (m > 288) and column
// panels (n > 2048), both layouts of each operand, beta 0 / 1 / other, alpha != 1, and the
// per-thread tiling on 1, 2 and 3 threads; for each kernel the CPU runs.
TEST(Matmul, PackedSgemmEdgesLayoutsAndThreads) {
  std::vector<std::string> kernels = sgemm_kernels();
  if (kernels.empty()) kernels.push_back("none");  // a build without them: Eigen only
  if (kernels.size() == 1)
    std::printf("note: this CPU runs only the %s kernel\n", kernels[0].c_str());
  AutoSgemmKernel restore;
  ref::Rng rng(66);
  const int saved_threads = get_num_threads();
  const int64_t shapes[][3] = {{40, 520, 70}, {6, 64, 96},    {7, 300, 17}, {13, 80, 33},
                               {64, 260, 10}, {130, 20, 100}, {25, 40, 65}, {12, 64, 32},
                               {23, 300, 63}, {300, 24, 40},  {8, 16, 2100}};
  int rep = 0;
  for (const auto& s : shapes) {
    const int64_t m = s[0], k = s[1], n = s[2];
    Operand a{Tensor(), ref::random_values(rng, m * k, kFloat32, -1, 1), {m, k}};
    Operand b{Tensor(), ref::random_values(rng, k * n, kFloat32, -1, 1), {k, n}};
    Operand c{Tensor(), ref::random_values(rng, n, kFloat32, -1, 1), {n}};
    c.t = ref::make(c.v, c.s, kFloat32);
    std::vector<double> ab(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc += a.v[static_cast<size_t>(i * k + p)] * b.v[static_cast<size_t>(p * n + j)];
        }
        ab[static_cast<size_t>(i * n + j)] = acc;
      }
    }
    for (int ta = 0; ta < 2; ++ta) {
      for (int tb = 0; tb < 2; ++tb, ++rep) {
        a.t = ref::make_layout(a.v, a.s, kFloat32, ta ? Layout::Transposed : Layout::Contiguous);
        b.t = ref::make_layout(b.v, b.s, kFloat32, tb ? Layout::Transposed : Layout::Contiguous);
        const double beta = rep % 3 == 0 ? 0.0 : rep % 3 == 1 ? 1.0 : 0.5;
        const double alpha = rep % 2 == 0 ? 1.0 : -2.0;
        std::vector<double> want(ab.size());
        for (int64_t f = 0; f < m * n; ++f) {
          want[static_cast<size_t>(f)] =
              beta * c.v[static_cast<size_t>(f % n)] + alpha * ab[static_cast<size_t>(f)];
        }
        for (const std::string& kernel : kernels) {
          ASSERT_TRUE(kernel == "none" || cpu::set_sgemm_kernel(kernel.c_str()));
          for (int threads : {1, 2, 3}) {
            set_num_threads(threads);
            SCOPED_TRACE(kernel + ": " + ref::str(a.s) + " @ " + ref::str(b.s) + " ta " +
                         std::to_string(ta) + " tb " + std::to_string(tb) + " threads " +
                         std::to_string(threads));
            EXPECT_TRUE(ref::matches(addmm(c.t, a.t, b.t, beta, alpha), kFloat32, {m, n}, want,
                                     mm_rtol(kFloat32), mm_atol(kFloat32, k)));
          }
        }
      }
    }
  }
  set_num_threads(saved_threads);
}

// The packed kernels called directly, for what addmm never sends them: k of 1 to 3, operands
// with no unit stride, an output row stride wider than n (the gap must stay untouched), and a
// narrow output (n < 16, solved transposed); against a double loop, for each kernel.
TEST(Matmul, PackedSgemmDirectTinyKAndStrides) {
  const std::vector<std::string> kernels = sgemm_kernels();
  if (kernels.empty()) GTEST_SKIP() << "no packed SGEMM kernel in this build";
  AutoSgemmKernel restore;
  ref::Rng rng(67);
  // m, k, n and the layouts of a and b: 1 row-major, -1 column-major, 2 every other column
  // of every other row (no unit stride).
  const int64_t cases[][5] = {{37, 1, 70, 1, 1},   {13, 2, 33, -1, -1}, {25, 3, 65, 2, 2},
                              {30, 40, 50, 2, -1}, {12, 9, 32, -1, 2},  {70, 20, 9, 1, -1}};
  for (const auto& t : cases) {
    const int64_t m = t[0], k = t[1], n = t[2];
    const int64_t ldc = n + 5;
    // Element strides of a [rows, cols] operand; the buffers hold 4 * rows * cols floats.
    auto strides = [](int64_t layout, int64_t rows, int64_t cols, int64_t* rs, int64_t* cs) {
      if (layout < 0) {
        *rs = 1, *cs = rows;
      } else if (layout == 1) {
        *rs = cols, *cs = 1;
      } else {
        *rs = 4 * cols, *cs = 2;
      }
    };
    int64_t ars, acs, brs, bcs;
    strides(t[3], m, k, &ars, &acs);
    strides(t[4], k, n, &brs, &bcs);
    std::vector<double> av = ref::random_values(rng, 4 * m * k, kFloat32, -1, 1);
    std::vector<double> bv = ref::random_values(rng, 4 * k * n, kFloat32, -1, 1);
    std::vector<double> cv = ref::random_values(rng, m * ldc, kFloat32, -1, 1);
    std::vector<float> a(av.begin(), av.end()), b(bv.begin(), bv.end());
    for (const std::string& kernel : kernels) {
      ASSERT_TRUE(cpu::set_sgemm_kernel(kernel.c_str()));
      for (const float beta : {0.f, 1.f, -0.5f}) {
        const float alpha = beta == 1.f ? 1.f : 1.5f;
        std::vector<float> c(cv.begin(), cv.end());
        cpu::sgemm_packed(m, n, k, alpha, {a.data(), ars, acs}, {b.data(), brs, bcs}, beta,
                          c.data(), ldc, /*parallel=*/true);
        SCOPED_TRACE(kernel + ": m " + std::to_string(m) + " k " + std::to_string(k) + " n " +
                     std::to_string(n) + " beta " + std::to_string(beta));
        double worst = 0;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            double want = cv[static_cast<size_t>(i * ldc + j)];  // the gap past n: untouched
            if (j < n) {
              double acc = 0;
              for (int64_t p = 0; p < k; ++p) {
                acc += static_cast<double>(a[static_cast<size_t>(i * ars + p * acs)]) *
                       b[static_cast<size_t>(p * brs + j * bcs)];
              }
              want = alpha * acc + (beta == 0.f ? 0.0 : beta * want);
            }
            const double err = std::fabs(c[static_cast<size_t>(i * ldc + j)] - want) /
                               (mm_atol(kFloat32, k) + mm_rtol(kFloat32) * std::fabs(want));
            worst = std::max(worst, err);
          }
        }
        EXPECT_LE(worst, 1.0);
      }
    }
  }
}

// ---- softmax ----

void ref_softmax(const std::vector<double>& v, const Shape& s, int64_t dim, bool log,
                 std::vector<double>* out) {
  out->assign(v.size(), 0);
  int64_t n = s[static_cast<size_t>(dim)];
  for (int64_t f = 0; f < ref::numel(s); ++f) {
    Shape idx = ref::unravel(f, s);
    if (idx[static_cast<size_t>(dim)] != 0) continue;
    double mx = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
      idx[static_cast<size_t>(dim)] = i;
      mx = std::max(mx, v[static_cast<size_t>(ref::ravel(idx, s))]);
    }
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      idx[static_cast<size_t>(dim)] = i;
      sum += std::exp(v[static_cast<size_t>(ref::ravel(idx, s))] - mx);
    }
    for (int64_t i = 0; i < n; ++i) {
      idx[static_cast<size_t>(dim)] = i;
      double x = v[static_cast<size_t>(ref::ravel(idx, s))];
      (*out)[static_cast<size_t>(ref::ravel(idx, s))] =
          log ? x - mx - std::log(sum) : std::exp(x - mx) / sum;
    }
  }
}

TEST(Softmax, AgainstReferenceAnyDimAnyLayout) {
  ref::Rng rng(66);
  for (int rep = 0; rep < 60; ++rep) {
    ScalarType dt = ref::float_dtypes()[static_cast<size_t>(rep % 2)];
    Shape s = ref::random_shape(rng, 1, 4, 7);
    // some rows far from zero: a naive exp would overflow
    double scale = rep % 4 == 0 ? 1000 : 4;
    Operand x = operand(rng, s, dt);
    for (auto& e : x.v) e = ref::cast_to(dt, e * scale);
    x.t = ref::make_layout(x.v, s, dt, random_layout(rng));
    int64_t dim = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
    int64_t ndim = rep % 2 ? dim - static_cast<int64_t>(s.size()) : dim;
    SCOPED_TRACE(ref::name(dt) + ref::str(s) + " dim " + std::to_string(ndim) + " scale " +
                 std::to_string(scale));
    std::vector<double> sm, lsm;
    ref_softmax(x.v, s, dim, false, &sm);
    ref_softmax(x.v, s, dim, true, &lsm);
    double rt = dt == kFloat32 ? 1e-5 : 1e-12, at = dt == kFloat32 ? 1e-6 : 1e-14;
    EXPECT_TRUE(ref::matches(softmax(x.t, ndim), dt, s, sm, rt, at));
    EXPECT_TRUE(ref::matches(x.t.softmax(ndim), dt, s, sm, rt, at));
    // log_softmax: absolute error scales with the magnitude of the inputs
    double lat = (dt == kFloat32 ? 1e-6 : 1e-13) * scale * 4;
    EXPECT_TRUE(ref::matches(log_softmax(x.t, ndim), dt, s, lsm, rt, lat));
    EXPECT_TRUE(ref::matches(x.t.log_softmax(ndim), dt, s, lsm, rt, lat));
    // dtype= computes and returns in that type
    EXPECT_TRUE(ref::matches(softmax(x.t, ndim, kFloat64), kFloat64, s, sm, 1e-6, 1e-7));
  }
}

TEST(Softmax, StableWithLargeValuesAndInfinities) {
  Tensor x = tensor({1000.0f, 1000.0f, -1000.0f});
  EXPECT_TRUE(ref::matches(softmax(x, 0), kFloat32, {3}, {0.5, 0.5, 0}, 1e-6));
  EXPECT_TRUE(ref::matches(log_softmax(x, 0), kFloat32, {3},
                           {-std::log(2.0), -std::log(2.0), -2000 - std::log(2.0)}, 1e-5));
  Tensor y = tensor({1000.0, 0.0}, kFloat64);
  EXPECT_TRUE(ref::matches(log_softmax(y, 0), kFloat64, {2}, {0, -1000}, 1e-14));
  // -inf entries (masked attention) get probability 0; finite ones share the rest
  Tensor m = tensor({0.0f, -INFINITY, 0.0f});
  EXPECT_TRUE(ref::matches(softmax(m, -1), kFloat32, {3}, {0.5, 0, 0.5}));
  EXPECT_TRUE(ref::matches(log_softmax(m, -1), kFloat32, {3},
                           {-std::log(2.0), -INFINITY, -std::log(2.0)}, 1e-6));
  // rows sum to one over a long dim (vectorized path with a tail)
  Tensor r = softmax(randn({3, 1001}), 1).sum({1});
  EXPECT_TRUE(ref::matches(r, kFloat32, {3}, {1, 1, 1}, 1e-5));
  // size-0 dims pass through
  EXPECT_EQ(ref::shape_of(softmax(zeros({0, 3}), 1)), Shape({0, 3}));
  EXPECT_EQ(ref::shape_of(softmax(zeros({2, 0}), 1)), Shape({2, 0}));
  // an int input with dtype= is converted first (PyTorch allows this)
  EXPECT_TRUE(ref::matches(softmax(tensor({int64_t(0), int64_t(0)}), 0, kFloat32), kFloat32, {2},
                           {0.5, 0.5}));
}

}  // namespace
