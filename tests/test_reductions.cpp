// Reductions against naive references: sum mean prod max min amax amin argmax argmin var std
// norm all any, over everything and over dims (negative, several, keepdim), every dtype.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "reference.h"

using namespace ember;
using ref::Layout;
using ref::Shape;

namespace {

// The elements that fall into each output position of a reduction over dims, in row-major
// order (so a group's position i is index i along a single reduced dim).
struct Groups {
  Shape shape;  // the result shape (keepdim or not)
  std::vector<std::vector<double>> g;
};
Groups group(const std::vector<double>& v, const Shape& s, const Shape& dims, bool keepdim) {
  Shape keep = s;
  for (int64_t d : dims) keep[static_cast<size_t>(d)] = 1;
  Groups r;
  r.g.resize(static_cast<size_t>(ref::numel(keep)));
  for (int64_t k = 0; k < ref::numel(s); ++k) {
    Shape idx = ref::unravel(k, s);
    for (int64_t d : dims) idx[static_cast<size_t>(d)] = 0;
    r.g[static_cast<size_t>(ref::ravel(idx, keep))].push_back(v[static_cast<size_t>(k)]);
  }
  for (size_t d = 0; d < s.size(); ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
    if (!reduced || keepdim) r.shape.push_back(reduced ? 1 : s[d]);
  }
  return r;
}

Shape all_dims(const Shape& s) {
  Shape d(s.size());
  std::iota(d.begin(), d.end(), 0);
  return d;
}

// A random non-empty sorted subset of s's dims (empty when s is 0-dim).
Shape random_dims(ref::Rng& rng, const Shape& s) {
  Shape d;
  for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i)
    if (ref::randint(rng, 0, 1)) d.push_back(i);
  if (d.empty() && !s.empty())
    d.push_back(ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1));
  return d;
}

// The same dims written with negative numbers where a coin says so.
Shape maybe_negative(ref::Rng& rng, const Shape& dims, int64_t ndim) {
  Shape out = dims;
  for (auto& d : out)
    if (ref::randint(rng, 0, 1)) d -= ndim;
  return out;
}

double kahan_sum(const std::vector<double>& g) {
  long double s = 0;
  for (double x : g) s += x;
  return static_cast<double>(s);
}
double mean_of(const std::vector<double>& g) {
  return kahan_sum(g) / static_cast<double>(g.size());
}
double var_of(const std::vector<double>& g, int64_t correction) {
  double m = mean_of(g), ss = 0;
  for (double x : g) ss += (x - m) * (x - m);
  return ss / static_cast<double>(static_cast<int64_t>(g.size()) - correction);
}

std::vector<double> per_group(const Groups& gr,
                              std::function<double(const std::vector<double>&)> f) {
  std::vector<double> out;
  for (const auto& g : gr.g) out.push_back(f(g));
  return out;
}

Layout random_layout(ref::Rng& rng) {
  return ref::all_layouts()[static_cast<size_t>(ref::randint(rng, 0, 3))];
}

double red_rtol(ScalarType t) { return t == kFloat32 ? 1e-5 : 1e-12; }
double red_atol(ScalarType t) { return t == kFloat32 ? 1e-4 : 1e-11; }

TEST(Reductions, SumMeanProd) {
  ref::Rng rng(51);
  for (int rep = 0; rep < 40; ++rep) {
    for (ScalarType dt : ref::all_dtypes()) {
      Shape s = ref::random_shape(rng, 0, 4);
      std::vector<double> v = ref::random_values(rng, ref::numel(s), dt, -2, 2);
      Tensor x = ref::make_layout(v, s, dt, random_layout(rng));
      bool fl = ref::is_float(dt);
      ScalarType acc = fl ? dt : kInt64;  // PyTorch: sum/prod of ints and bools give int64
      Shape dims = random_dims(rng, s);
      Shape ndims = maybe_negative(rng, dims, static_cast<int64_t>(s.size()));
      bool keep = ref::randint(rng, 0, 1);
      SCOPED_TRACE(ref::name(dt) + ref::str(s) + " dims " + ref::str(ndims) +
                   (keep ? " keepdim" : ""));
      Groups whole = group(v, s, all_dims(s), false);
      Groups gd = group(v, s, dims, keep);
      double rt = red_rtol(acc), at = red_atol(acc);
      // over everything: a 0-dim result
      EXPECT_TRUE(ref::matches(x.sum(), acc, {}, per_group(whole, kahan_sum), rt, at));
      EXPECT_TRUE(ref::matches(sum(x), acc, {}, per_group(whole, kahan_sum), rt, at));
      EXPECT_TRUE(
          ref::matches(x.sum(ndims, keep), acc, gd.shape, per_group(gd, kahan_sum), rt, at));
      EXPECT_TRUE(ref::matches(sum(x, ndims, keep, kFloat64), kFloat64, gd.shape,
                               per_group(gd, kahan_sum), 1e-12, 1e-11));
      if (fl) {
        EXPECT_TRUE(ref::matches(x.mean(), dt, {}, per_group(whole, mean_of), rt, at));
        EXPECT_TRUE(
            ref::matches(mean(x, ndims, keep), dt, gd.shape, per_group(gd, mean_of), rt, at));
      }
      EXPECT_TRUE(ref::matches(x.mean(ndims, keep, kFloat64), kFloat64, gd.shape,
                               per_group(gd, mean_of), 1e-12, 1e-11))
          << "mean with dtype= works for any input";
      auto prod_of = [&](const std::vector<double>& g) {
        double p = 1;
        for (double e : g) p *= e;
        return p;
      };
      // prod: small integers (|e| <= 2) so that int64 cannot overflow; full products only of
      // small tensors
      std::vector<double> pv = v;
      if (!fl)
        for (auto& e : pv) e = ref::cast_to(dt, std::fmod(e, 3));
      Tensor px = ref::make_layout(pv, s, dt, random_layout(rng));
      if (ref::numel(s) <= 40) {
        EXPECT_TRUE(ref::matches(px.prod(), acc, {},
                                 per_group(group(pv, s, all_dims(s), false), prod_of), 1e-5, 1e-5));
      }
      if (!s.empty()) {
        int64_t d = dims[0];
        Groups g1 = group(pv, s, {d}, keep);
        EXPECT_TRUE(ref::matches(prod(px, d - (rep % 2) * static_cast<int64_t>(s.size()), keep),
                                 acc, g1.shape, per_group(g1, prod_of), 1e-5, 1e-5));
      }
    }
  }
  // empty reductions: sum 0, prod 1, mean NaN, as PyTorch
  EXPECT_TRUE(ref::matches(zeros({0}).sum(), kFloat32, {}, {0}));
  EXPECT_TRUE(ref::matches(zeros({0}).prod(), kFloat32, {}, {1}));
  EXPECT_TRUE(ref::matches(zeros({0}).mean(), kFloat32, {}, {NAN}));
  EXPECT_TRUE(ref::matches(zeros({2, 0}).sum({1}), kFloat32, {2}, {0, 0}));
  EXPECT_TRUE(ref::matches(zeros({0, 3}).sum({0}, true), kFloat32, {1, 3}, {0, 0, 0}));
  // a 0-dim input: dims 0 and -1 name its only "dim"
  EXPECT_TRUE(ref::matches(full({}, 2.5).sum({0}), kFloat32, {}, {2.5}));
  EXPECT_TRUE(ref::matches(full({}, 2.5).sum({-1}, true), kFloat32, {}, {2.5}));
  // bool sums count
  EXPECT_TRUE(ref::matches(tensor({true, true, false}).sum(), kInt64, {}, {2}));
}

TEST(Reductions, MaxMinAmaxAmin) {
  ref::Rng rng(52);
  for (int rep = 0; rep < 40; ++rep) {
    for (ScalarType dt : ref::all_dtypes()) {
      Shape s = ref::random_shape(rng, 0, 4, 5, /*allow_zero=*/false);
      // few distinct values: ties happen, and the first index must win
      std::vector<double> v = ref::random_values(rng, ref::numel(s), dt);
      if (!ref::is_float(dt))
        for (auto& e : v) e = ref::cast_to(dt, std::fmod(e, 3));
      Tensor x = ref::make_layout(v, s, dt, random_layout(rng));
      bool keep = ref::randint(rng, 0, 1);
      SCOPED_TRACE(ref::name(dt) + ref::str(s) + (keep ? " keepdim" : ""));
      auto mx = [](const std::vector<double>& g) { return *std::max_element(g.begin(), g.end()); };
      auto mn = [](const std::vector<double>& g) { return *std::min_element(g.begin(), g.end()); };
      auto amx = [](const std::vector<double>& g) {
        return static_cast<double>(std::max_element(g.begin(), g.end()) - g.begin());
      };
      auto amn = [](const std::vector<double>& g) {
        return static_cast<double>(std::min_element(g.begin(), g.end()) - g.begin());
      };
      Groups whole = group(v, s, all_dims(s), false);
      EXPECT_TRUE(ref::matches(x.max(), dt, {}, per_group(whole, mx)));
      EXPECT_TRUE(ref::matches(min(x), dt, {}, per_group(whole, mn)));
      bool args = dt != kBool;  // PyTorch: argmax/argmin do not take bool input
      if (args) {
        EXPECT_TRUE(ref::matches(x.argmax(), kInt64, {}, per_group(whole, amx)));
      }
      if (args) {
        EXPECT_TRUE(ref::matches(argmin(x), kInt64, {}, per_group(whole, amn)));
      }
      if (s.empty()) continue;
      int64_t d = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
      int64_t nd = rep % 2 ? d - static_cast<int64_t>(s.size()) : d;
      Groups g1 = group(v, s, {d}, keep);
      Tensor values, indices;
      std::tie(values, indices) = x.max(nd, keep);
      EXPECT_TRUE(ref::matches(values, dt, g1.shape, per_group(g1, mx))) << "max(" << nd << ")";
      EXPECT_TRUE(ref::matches(indices, kInt64, g1.shape, per_group(g1, amx)));
      std::tie(values, indices) = min(x, nd, keep);
      EXPECT_TRUE(ref::matches(values, dt, g1.shape, per_group(g1, mn))) << "min(" << nd << ")";
      EXPECT_TRUE(ref::matches(indices, kInt64, g1.shape, per_group(g1, amn)));
      if (args) {
        EXPECT_TRUE(ref::matches(x.argmax(nd, keep), kInt64, g1.shape, per_group(g1, amx)));
      }
      if (args) {
        EXPECT_TRUE(ref::matches(argmin(x, nd, keep), kInt64, g1.shape, per_group(g1, amn)));
      }
      Shape dims = random_dims(rng, s);
      Groups gd = group(v, s, dims, keep);
      EXPECT_TRUE(ref::matches(x.amax(dims, keep), dt, gd.shape, per_group(gd, mx)));
      EXPECT_TRUE(
          ref::matches(amin(x, maybe_negative(rng, dims, static_cast<int64_t>(s.size())), keep), dt,
                       gd.shape, per_group(gd, mn)));
    }
  }
  // ties: the first index wins (PyTorch documents this for argmax/argmin)
  Tensor t = tensor({int64_t(1), int64_t(5), int64_t(5), int64_t(0), int64_t(0)});
  EXPECT_EQ(t.argmax().item<int64_t>(), 1);
  EXPECT_EQ(t.argmin().item<int64_t>(), 3);
  EXPECT_EQ(std::get<1>(t.max(0)).item<int64_t>(), 1);
}

TEST(Reductions, OfBroadcastViews) {
  // stride-0 inputs: every reduction reads the repeated elements as many times as they appear
  ref::Rng rng(56);
  for (int rep = 0; rep < 30; ++rep) {
    Shape s = ref::random_shape(rng, 1, 4, 5, false);
    Shape small = s;
    for (auto& d : small)
      if (ref::randint(rng, 0, 1)) d = 1;
    ScalarType dt = ref::float_dtypes()[static_cast<size_t>(rep % 2)];
    std::vector<double> sv = ref::random_values(rng, ref::numel(small), dt);
    Tensor x = ref::make(sv, small, dt).expand(s);
    std::vector<double> v = ref::values(x);  // read through the stride-0 view
    Shape dims = random_dims(rng, s);
    bool keep = ref::randint(rng, 0, 1);
    SCOPED_TRACE(ref::name(dt) + ref::str(small) + " -> " + ref::str(s) + " dims " +
                 ref::str(dims));
    Groups gd = group(v, s, dims, keep), whole = group(v, s, all_dims(s), false);
    auto mx = [](const std::vector<double>& g) { return *std::max_element(g.begin(), g.end()); };
    EXPECT_TRUE(
        ref::matches(x.sum(), dt, {}, per_group(whole, kahan_sum), red_rtol(dt), red_atol(dt)));
    EXPECT_TRUE(ref::matches(x.sum(dims, keep), dt, gd.shape, per_group(gd, kahan_sum),
                             red_rtol(dt), red_atol(dt)));
    EXPECT_TRUE(ref::matches(x.mean(dims, keep), dt, gd.shape, per_group(gd, mean_of), red_rtol(dt),
                             red_atol(dt)));
    EXPECT_TRUE(ref::matches(x.amax(dims, keep), dt, gd.shape, per_group(gd, mx)));
    EXPECT_TRUE(ref::matches(
        x.var(dims, true, keep), dt, gd.shape,
        per_group(gd, [](const std::vector<double>& g) { return var_of(g, 1); }), 1e-4, 1e-5));
  }
  EXPECT_TRUE(
      ref::matches(tensor({1.0f, 2.0f, 3.0f}).expand({4, 3}).sum({0}), kFloat32, {3}, {4, 8, 12}));
}

TEST(Reductions, MaxPropagatesNaN) {
  // PyTorch: max/min/amax propagate NaN and argmax points at it
  Tensor t = tensor({1.0f, NAN, 3.0f});
  EXPECT_TRUE(std::isnan(t.max().item<float>()));
  EXPECT_TRUE(std::isnan(t.min().item<float>()));
  EXPECT_TRUE(std::isnan(t.amax({0}).item<float>()));
  EXPECT_EQ(t.argmax().item<int64_t>(), 1);
  EXPECT_TRUE(std::isnan(std::get<0>(t.max(0)).item<float>()));
}

TEST(Reductions, VarStd) {
  ref::Rng rng(53);
  for (int rep = 0; rep < 40; ++rep) {
    for (ScalarType dt : ref::float_dtypes()) {
      Shape s = ref::random_shape(rng, 0, 4, 6, false);
      std::vector<double> v = ref::random_values(rng, ref::numel(s), dt, -1, 5);
      Tensor x = ref::make_layout(v, s, dt, random_layout(rng));
      bool keep = ref::randint(rng, 0, 1), unbiased = ref::randint(rng, 0, 1);
      int64_t corr = unbiased ? 1 : 0;
      Shape dims = random_dims(rng, s);
      SCOPED_TRACE(ref::name(dt) + ref::str(s) + " dims " + ref::str(dims) +
                   (unbiased ? " unbiased" : " biased") + (keep ? " keepdim" : ""));
      Groups whole = group(v, s, all_dims(s), false), gd = group(v, s, dims, keep);
      auto vf = [&](const std::vector<double>& g) { return var_of(g, corr); };
      auto sf = [&](const std::vector<double>& g) { return std::sqrt(var_of(g, corr)); };
      double rt = dt == kFloat32 ? 1e-4 : 1e-10, at = dt == kFloat32 ? 1e-5 : 1e-12;
      EXPECT_TRUE(ref::matches(x.var(unbiased), dt, {}, per_group(whole, vf), rt, at));
      EXPECT_TRUE(ref::matches(ember::std(x, unbiased), dt, {}, per_group(whole, sf), rt, at));
      EXPECT_TRUE(
          ref::matches(var(x, dims, unbiased, keep), dt, gd.shape, per_group(gd, vf), rt, at));
      EXPECT_TRUE(
          ref::matches(x.std(dims, unbiased, keep), dt, gd.shape, per_group(gd, sf), rt, at));
    }
  }
  // default is unbiased; a single element has no unbiased variance (NaN, as PyTorch)
  EXPECT_TRUE(ref::matches(tensor({1.0, 2.0, 3.0, 4.0}, kFloat64).var(), kFloat64, {}, {5.0 / 3}, 1e-14));
  EXPECT_TRUE(ref::matches(tensor({1.0, 2.0, 3.0, 4.0}, kFloat64).var(false), kFloat64, {}, {1.25}, 1e-14));
  EXPECT_TRUE(ref::matches(tensor({2.0}, kFloat64).var(), kFloat64, {}, {NAN}));
  // large offset: a one-pass E[x^2]-E[x]^2 formula would lose everything here
  Tensor big = tensor({1e8 + 1, 1e8 + 2, 1e8 + 3}, kFloat64);
  EXPECT_TRUE(ref::matches(big.var(), kFloat64, {}, {1.0}, 1e-9));
  Tensor bigf = tensor({10000.0f, 10001.0f, 10002.0f, 10003.0f});
  EXPECT_TRUE(ref::matches(bigf.var(), kFloat32, {}, {5.0 / 3}, 1e-4));
}

TEST(Reductions, Norm) {
  ref::Rng rng(54);
  for (int rep = 0; rep < 30; ++rep) {
    for (ScalarType dt : ref::float_dtypes()) {
      Shape s = ref::random_shape(rng, 0, 4);
      std::vector<double> v = ref::random_values(rng, ref::numel(s), dt);
      Tensor x = ref::make_layout(v, s, dt, random_layout(rng));
      bool keep = ref::randint(rng, 0, 1);
      Shape dims = random_dims(rng, s);
      Groups whole = group(v, s, all_dims(s), false), gd = group(v, s, dims, keep);
      for (double p : {2.0, 1.0, 3.0}) {
        SCOPED_TRACE(ref::name(dt) + ref::str(s) + " p=" + std::to_string(p));
        auto nf = [p](const std::vector<double>& g) {
          double a = 0;
          for (double e : g) a += std::pow(std::abs(e), p);
          return std::pow(a, 1 / p);
        };
        double rt = dt == kFloat32 ? 1e-5 : 1e-12, at = dt == kFloat32 ? 1e-5 : 1e-12;
        EXPECT_TRUE(ref::matches(x.norm(p), dt, {}, per_group(whole, nf), rt, at));
        EXPECT_TRUE(ref::matches(norm(x, p, dims, keep), dt, gd.shape, per_group(gd, nf), rt, at));
      }
    }
  }
  EXPECT_TRUE(ref::matches(tensor({3.0f, -4.0f}).norm(), kFloat32, {}, {5}));
  EXPECT_TRUE(ref::matches(norm(tensor({3.0f, -4.0f}), 1), kFloat32, {}, {7}));
  EXPECT_TRUE(ref::matches(zeros({0}).norm(), kFloat32, {}, {0}));
  // p = inf: the largest magnitude
  EXPECT_TRUE(ref::matches(tensor({3.0, -7.0, 1.0}, kFloat64).norm(INFINITY), kFloat64, {}, {7}));
}

TEST(Reductions, AllAny) {
  ref::Rng rng(55);
  for (int rep = 0; rep < 30; ++rep) {
    for (ScalarType dt : ref::all_dtypes()) {
      Shape s = ref::random_shape(rng, 0, 4);
      std::vector<double> v = ref::random_values(rng, ref::numel(s), dt);
      for (auto& e : v)  // mostly nonzero, so that all() is sometimes true
        if (ref::randint(rng, 0, 3)) e = ref::cast_to(dt, 1);
      Tensor x = ref::make_layout(v, s, dt, random_layout(rng));
      // values here; the uint8 result dtype has its own test below
      ScalarType out = kBool;
      if (dt == kUInt8) x = x.to(kBool);
      bool keep = ref::randint(rng, 0, 1);
      SCOPED_TRACE(ref::name(dt) + ref::str(s) + (keep ? " keepdim" : ""));
      auto allf = [](const std::vector<double>& g) -> double {
        return std::all_of(g.begin(), g.end(), [](double e) { return e != 0; });
      };
      auto anyf = [](const std::vector<double>& g) -> double {
        return std::any_of(g.begin(), g.end(), [](double e) { return e != 0; });
      };
      Groups whole = group(v, s, all_dims(s), false);
      EXPECT_TRUE(ref::matches(x.all(), out, {}, per_group(whole, allf)));
      EXPECT_TRUE(ref::matches(any(x), out, {}, per_group(whole, anyf)));
      if (s.empty()) continue;
      int64_t d = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
      Groups g1 = group(v, s, {d}, keep);
      EXPECT_TRUE(ref::matches(all(x, d, keep), out, g1.shape, per_group(g1, allf)));
      EXPECT_TRUE(ref::matches(x.any(d - static_cast<int64_t>(s.size()), keep), out, g1.shape,
                               per_group(g1, anyf)));
    }
  }
  EXPECT_TRUE(zeros({0}, kBool).all().item<bool>());
  EXPECT_TRUE(ones({0}).all().item<bool>());
  EXPECT_FALSE(zeros({3}, kInt32).any().item<bool>());
}

TEST(Reductions, AllAnyOfUInt8KeepUInt8) {
  // PyTorch documents it: "For uint8 the dtype of output is uint8 itself"
  Tensor u = tensor({uint8_t(0), uint8_t(7), uint8_t(1), uint8_t(3)}).view({2, 2});
  EXPECT_TRUE(ref::matches(u.all(), kUInt8, {}, {0}));
  EXPECT_TRUE(ref::matches(u.any(), kUInt8, {}, {1}));
  EXPECT_TRUE(ref::matches(u.all(1), kUInt8, {2}, {0, 1}));
  EXPECT_TRUE(ref::matches(any(u, 0, true), kUInt8, {1, 2}, {1, 1}));
  EXPECT_FALSE(zeros({0}, kBool).any().item<bool>());
}

TEST(Reductions, LargeInputsParallelPaths) {
  // sizes past the threading threshold, contiguous and not, against exact integer sums
  const int64_t n = 1 << 21;
  Tensor a = arange(n, kFloat64);
  double want = static_cast<double>(n) * (n - 1) / 2;
  EXPECT_DOUBLE_EQ(a.sum().item<double>(), want);
  EXPECT_DOUBLE_EQ(a.mean().item<double>(), (n - 1) / 2.0);
  EXPECT_DOUBLE_EQ(a.max().item<double>(), n - 1);
  EXPECT_EQ(a.argmin().item<int64_t>(), 0);
  EXPECT_EQ(arange(n, kInt64).sum().item<int64_t>(), static_cast<int64_t>(want));
  // float32: 2^21 ones sum exactly; a pairwise or blocked sum keeps 0.1s accurate
  EXPECT_FLOAT_EQ(ones({n}).sum().item<float>(), static_cast<float>(n));
  EXPECT_NEAR(full({n}, 0.1f).sum().item<float>(), n * 0.1, n * 0.1 * 1e-4);
  // over dims of a large matrix, both directions and transposed
  Tensor m = arange(1024 * 1024, kFloat64).view({1024, 1024});
  std::vector<double> rows, cols;
  for (int64_t i = 0; i < 1024; ++i) {
    rows.push_back(1024.0 * 1024 * i + 1024.0 * 1023 / 2);
    cols.push_back(1024.0 * 1024 * 1023 / 2 + 1024.0 * i);
  }
  EXPECT_TRUE(ref::matches(m.sum({1}), kFloat64, {1024}, rows));
  EXPECT_TRUE(ref::matches(m.sum({0}), kFloat64, {1024}, cols));
  EXPECT_TRUE(ref::matches(m.t().sum({0}), kFloat64, {1024}, rows));
  std::vector<double> rowmax;
  for (int64_t i = 0; i < 1024; ++i) rowmax.push_back(1024.0 * i + 1023);
  EXPECT_TRUE(ref::matches(std::get<0>(m.max(1)), kFloat64, {1024}, rowmax));
  EXPECT_TRUE(
      ref::matches(std::get<1>(m.t().max(0)), kInt64, {1024}, std::vector<double>(1024, 1023)));
}

}  // namespace
