// Tests of random ops: bernoulli, random_, exponential_, multinomial.
// Each compares with a naive reference or LibTorch's values and asserts.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "reference.h"

using namespace ember;

namespace {

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double var_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

// Fraction of v equal to x.
double freq(const std::vector<double>& v, double x) {
  return static_cast<double>(std::count(v.begin(), v.end(), x)) / static_cast<double>(v.size());
}

// Five standard errors of a frequency p over n draws: a fixed seed makes the test
// deterministic, and a wrong distribution misses it by far.
double five_se(double p, int64_t n) { return 5 * std::sqrt(p * (1 - p) / static_cast<double>(n)); }

bool all_integers(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == std::floor(x); });
}

}  // namespace

// ---- bernoulli ----

TEST(Bernoulli, IsUniformDrawBelowProbability) {
  // The scheme: bernoulli(p) is (rand < p) from the same words; a naive reference.
  Tensor p = rand({3, 1000}, kFloat64);
  manual_seed(5);
  std::vector<double> u = ref::values(rand({3, 1000}, kFloat64));
  manual_seed(5);
  Tensor b = bernoulli(p);
  EXPECT_EQ(b.dtype(), kFloat64);
  EXPECT_TRUE(b.sizes() == p.sizes());
  std::vector<double> pv = ref::values(p), bv = ref::values(b);
  for (size_t i = 0; i < pv.size(); ++i) ASSERT_EQ(bv[i], u[i] < pv[i] ? 1.0 : 0.0) << i;
}

TEST(Bernoulli, Frequencies) {
  manual_seed(11);
  const int64_t n = 200000;
  for (double p : {0.0, 0.03, 0.3, 0.5, 0.97, 1.0}) {
    std::vector<double> v = ref::values(bernoulli(full({n}, p)));
    EXPECT_NEAR(mean_of(v), p, five_se(p, n) + 1e-12) << p;
    EXPECT_NEAR(freq(v, 0) + freq(v, 1), 1.0, 1e-12);
    std::vector<double> w = ref::values(bernoulli(zeros({n}, kInt32), p));
    EXPECT_NEAR(mean_of(w), p, five_se(p, n) + 1e-12) << p;
  }
}

TEST(Bernoulli, FormsAndDtypes) {
  manual_seed(12);
  const int64_t n = 100000;
  Tensor x = zeros({n}, kInt64);
  x.bernoulli_();  // p = 0.5
  EXPECT_EQ(x.dtype(), kInt64);
  EXPECT_NEAR(mean_of(ref::values(x)), 0.5, five_se(0.5, n));
  Tensor bools = zeros({n}, kBool);
  bools.bernoulli_(0.2);
  EXPECT_EQ(bools.dtype(), kBool);
  EXPECT_NEAR(mean_of(ref::values(bools)), 0.2, five_se(0.2, n));
  // p broadcast over self: column j is drawn with probability p[j]
  Tensor m = zeros({n, 3}, kUInt8);
  m.bernoulli_(tensor({0.1, 0.6, 1.0}));
  for (int64_t j = 0; j < 3; ++j) {
    const double p = j == 0 ? 0.1 : j == 1 ? 0.6 : 1.0;
    EXPECT_NEAR(mean_of(ref::values(m.select(1, j))), p, five_se(p, n) + 1e-12);
  }
  // the method forms, a view, bernoulli(self, p_tensor)
  Tensor q = full({2, 500}, 0.25);
  EXPECT_NEAR(mean_of(ref::values(q.bernoulli())), 0.25, five_se(0.25, 1000));
  EXPECT_NEAR(mean_of(ref::values(q.bernoulli(0.75))), 0.75, five_se(0.75, 1000));
  Tensor base = zeros({40, 50}, kFloat64);
  base.t().bernoulli_(1.0);
  EXPECT_EQ(base.sum().item<double>(), 2000);
  Tensor r = bernoulli(zeros({4, 5}, kInt32), full({5}, 1.0));
  EXPECT_EQ(r.dtype(), kInt32);
  EXPECT_EQ(r.sum().item<int64_t>(), 20);
}

TEST(Bernoulli, SeedRepeatsAndAdvances) {
  manual_seed(3);
  std::vector<double> a = ref::values(bernoulli(full({500}, 0.5)));
  std::vector<double> a2 = ref::values(bernoulli(full({500}, 0.5)));
  manual_seed(3);
  EXPECT_EQ(ref::values(bernoulli(full({500}, 0.5))), a);
  EXPECT_NE(a, a2);
}

TEST(Bernoulli, Errors) {
  EXPECT_THROW(bernoulli(tensor({0.5, 1.5})), Error);
  EXPECT_THROW(bernoulli(tensor({-0.1})), Error);
  EXPECT_THROW(bernoulli(tensor({std::nan("")})), Error);
  EXPECT_THROW(bernoulli(tensor({1, 0})), Error);  // integer probabilities
  EXPECT_THROW(bernoulli(zeros({3}), 1.5), Error);
  EXPECT_THROW(zeros({3}).bernoulli_(-0.1), Error);
  EXPECT_THROW(zeros({3}).bernoulli_(tensor({2.0})), Error);
  EXPECT_THROW(zeros({3}).bernoulli_(tensor({0.5, 0.5})), Error);  // no broadcast to [3]
  Tensor leaf = zeros({3}, requires_grad());
  EXPECT_THROW(leaf.bernoulli_(0.5), Error);  // in place on a leaf that requires grad
}

// ---- random_ ----

TEST(Random, FromToIsRandint) {
  // random_(from, to) and randint(from, to) read the same words the same way.
  for (ScalarType t : {kInt32, kInt64, kFloat32, kFloat64}) {
    manual_seed(21);
    std::vector<double> want = ref::values(randint(-7, 13, {2001}, t));
    manual_seed(21);
    Tensor x = empty({2001}, t);
    x.random_(-7, 13);
    EXPECT_EQ(ref::values(x), want) << t;
  }
  manual_seed(22);
  std::vector<double> want = ref::values(randint(0, 9, {300}, kInt64));
  manual_seed(22);
  EXPECT_EQ(ref::values(empty({300}, kInt64).random_(9)), want);
}

TEST(Random, UniformOverRange) {
  manual_seed(23);
  const int64_t n = 100000;
  std::vector<double> v = ref::values(empty({n}, kInt32).random_(-5, 5));
  for (int k = -5; k < 5; ++k) EXPECT_NEAR(freq(v, k), 0.1, five_se(0.1, n)) << k;
  EXPECT_NEAR(freq(v, 5), 0.0, 0.0);
  std::vector<double> b = ref::values(empty({n}, kBool).random_());
  EXPECT_NEAR(freq(b, 1), 0.5, five_se(0.5, n));
  std::vector<double> u8 = ref::values(empty({n}, kUInt8).random_());
  EXPECT_EQ(*std::min_element(u8.begin(), u8.end()), 0);
  EXPECT_EQ(*std::max_element(u8.begin(), u8.end()), 255);
  EXPECT_NEAR(mean_of(u8), 127.5, 5 * std::sqrt((256.0 * 256 - 1) / 12 / n));
}

TEST(Random, DefaultRanges) {
  manual_seed(24);
  const int64_t n = 100000;
  // float32: integers in [0, 2^24], float64: [0, 2^53]
  for (ScalarType t : {kFloat32, kFloat64}) {
    const double top = t == kFloat32 ? 16777216.0 : 9007199254740992.0;
    std::vector<double> v = ref::values(empty({n}, t).random_());
    EXPECT_TRUE(all_integers(v));
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0);
    EXPECT_LE(*std::max_element(v.begin(), v.end()), top);
    EXPECT_NEAR(mean_of(v) / top, 0.5, 5 / std::sqrt(12.0 * n));
  }
  // int32: [0, 2^31 - 1]; int64: [0, 2^63 - 1]
  std::vector<double> i32 = ref::values(empty({n}, kInt32).random_());
  EXPECT_GE(*std::min_element(i32.begin(), i32.end()), 0);
  EXPECT_NEAR(mean_of(i32) / 2147483648.0, 0.5, 5 / std::sqrt(12.0 * n));
  Tensor i64 = empty({n}, kInt64).random_();
  EXPECT_GE(i64.min().item<int64_t>(), 0);
  EXPECT_GT(i64.max().item<int64_t>(), int64_t(1) << 62);
  // from without to: [from, the dtype's max]; from = INT64_MIN: every int64
  Tensor hi = empty({n}, kInt64).random_(std::numeric_limits<int64_t>::max() - 2, std::nullopt);
  EXPECT_GE(hi.min().item<int64_t>(), std::numeric_limits<int64_t>::max() - 2);
  Tensor all = empty({n}, kInt64).random_(std::numeric_limits<int64_t>::lowest(), std::nullopt);
  EXPECT_LT(all.min().item<int64_t>(), -(int64_t(1) << 62));
  EXPECT_GT(all.max().item<int64_t>(), int64_t(1) << 62);
  Tensor u8 = empty({1000}, kUInt8).random_(250, std::nullopt);
  EXPECT_EQ(u8.min().item<int64_t>(), 250);
  EXPECT_EQ(u8.max().item<int64_t>(), 255);
}

TEST(Random, ViewsAndErrors) {
  Tensor base = zeros({30, 40}, kInt64);
  base.t().narrow(0, 0, 20).random_(1, 2);  // columns 0..19 become 1
  EXPECT_EQ(base.narrow(1, 0, 20).min().item<int64_t>(), 1);
  EXPECT_EQ(base.narrow(1, 20, 20).max().item<int64_t>(), 0);
  EXPECT_THROW(empty({3}, kInt32).random_(5, 5), Error);
  EXPECT_THROW(empty({3}, kInt32).random_(0), Error);
  EXPECT_THROW(empty({3}, kUInt8).random_(-1, 5), Error);   // from out of uint8
  EXPECT_THROW(empty({3}, kUInt8).random_(0, 300), Error);  // to - 1 out of uint8
  EXPECT_THROW(empty({3}, kBool).random_(0, 3), Error);
  EXPECT_THROW(empty({3}, kInt32).random_(int64_t(1) << 40, std::nullopt), Error);
  EXPECT_THROW(zeros({3}, requires_grad()).random_(), Error);
  EXPECT_EQ(empty({0}, kInt64).random_(4).numel(), 0);
}

// ---- exponential_, geometric_, log_normal_, cauchy_ ----

TEST(Exponential, IsMinusLog1pOfUniform) {
  for (ScalarType t : {kFloat32, kFloat64}) {
    manual_seed(31);
    std::vector<double> u = ref::values(rand({5000}, t));
    manual_seed(31);
    std::vector<double> e = ref::values(empty({5000}, t).exponential_(2.5));
    const double tol = t == kFloat32 ? 1e-5 : 1e-13;
    for (size_t i = 0; i < u.size(); ++i) {
      const double want = -std::log1p(-u[i]) / 2.5;
      ASSERT_NEAR(e[i], want, tol * (1 + want)) << i;
    }
  }
}

TEST(Exponential, Moments) {
  manual_seed(32);
  const int64_t n = 200000;
  for (double lambd : {0.5, 2.0}) {
    std::vector<double> v = ref::values(empty({n}, kFloat64).exponential_(lambd));
    const double m = 1 / lambd;
    EXPECT_GE(*std::min_element(v.begin(), v.end()), 0);
    EXPECT_NEAR(mean_of(v), m, 5 * m / std::sqrt(n));
    EXPECT_NEAR(var_of(v), m * m, 5 * std::sqrt(8.0 / n) * m * m);  // Var(s^2) = 8 m^4 / n
    // the CDF at 1/lambd: 1 - 1/e
    double below = 0;
    for (double x : v) below += x <= m;
    EXPECT_NEAR(below / n, 1 - std::exp(-1.0), five_se(0.632, n));
  }
  std::vector<double> f = ref::values(empty({n}, kFloat32).exponential_());
  EXPECT_NEAR(mean_of(f), 1.0, 5 / std::sqrt(n));
}

TEST(Exponential, Errors) {
  EXPECT_THROW(empty({3}).exponential_(0), Error);
  EXPECT_THROW(empty({3}).exponential_(-1), Error);
  EXPECT_THROW(empty({3}, kInt64).exponential_(), Error);
}

TEST(Geometric, Moments) {
  manual_seed(33);
  const int64_t n = 200000;
  const double p = 0.25;
  for (ScalarType t : {kFloat32, kInt64}) {
    std::vector<double> v = ref::values(empty({n}, t).geometric_(p));
    EXPECT_TRUE(all_integers(v));
    EXPECT_EQ(*std::min_element(v.begin(), v.end()), 1);
    EXPECT_NEAR(freq(v, 1), p, five_se(p, n));
    EXPECT_NEAR(freq(v, 3), (1 - p) * (1 - p) * p, five_se(0.14, n));
    EXPECT_NEAR(mean_of(v), 1 / p, 5 * std::sqrt((1 - p) / (p * p) / n));
  }
  EXPECT_THROW(empty({3}).geometric_(0), Error);
  EXPECT_THROW(empty({3}).geometric_(1), Error);
  EXPECT_THROW(empty({3}, kBool).geometric_(0.5), Error);
}

TEST(LogNormal, LogIsNormal) {
  manual_seed(34);
  const int64_t n = 200000;
  Tensor x = empty({n}, kFloat64).log_normal_(1, 0.5);
  EXPECT_GT(x.min().item<double>(), 0);
  std::vector<double> l = ref::values(x.log());
  EXPECT_NEAR(mean_of(l), 1, 5 * 0.5 / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(var_of(l)), 0.5, 5 * 0.5 / std::sqrt(2.0 * n));
  std::vector<double> d = ref::values(empty({n}).log_normal_().log());  // mean 1, std 2
  EXPECT_NEAR(mean_of(d), 1, 5 * 2 / std::sqrt(n));
  EXPECT_THROW(empty({3}).log_normal_(0, 0), Error);
  EXPECT_THROW(empty({3}, kInt32).log_normal_(), Error);
}

TEST(Cauchy, MedianAndQuartiles) {
  manual_seed(35);
  const int64_t n = 200000;
  for (ScalarType t : {kFloat32, kFloat64}) {
    std::vector<double> v = ref::values(empty({n}, t).cauchy_(2, 3));
    std::nth_element(v.begin(), v.begin() + n / 2, v.end());
    // the median's standard error is pi sigma / (2 sqrt(n)); P(|X - median| < sigma) = 1/2
    EXPECT_NEAR(v[n / 2], 2, 5 * M_PI * 3 / (2 * std::sqrt(n)));
    double inside = 0;
    for (double x : v) inside += std::fabs(x - 2) < 3;
    EXPECT_NEAR(inside / n, 0.5, five_se(0.5, n));
  }
  EXPECT_THROW(empty({3}).cauchy_(0, 0), Error);
  EXPECT_THROW(empty({3}, kInt64).cauchy_(), Error);
}

// ---- multinomial ----

namespace {
// Counts of each category in v.
std::map<int64_t, int64_t> counts(const std::vector<double>& v) {
  std::map<int64_t, int64_t> c;
  for (double x : v) ++c[static_cast<int64_t>(x)];
  return c;
}
}  // namespace

TEST(Multinomial, WithReplacementFrequencies) {
  manual_seed(41);
  const int64_t n = 200000;
  Tensor p = tensor({1.0, 0.0, 2.0, 3.0, 4.0});  // unnormalized; category 1 never drawn
  Tensor s = multinomial(p, n, true);
  EXPECT_EQ(s.dtype(), kInt64);
  EXPECT_TRUE(s.sizes() == std::vector<int64_t>({n}));
  auto c = counts(ref::values(s));
  EXPECT_EQ(c.count(1), 0u);
  for (int64_t k : {0, 2, 3, 4}) {
    const double want = ref::values(p)[k] / 10;
    EXPECT_NEAR(static_cast<double>(c[k]) / n, want, five_se(want, n)) << k;
  }
}

TEST(Multinomial, WithReplacementMatchesNaiveInverseCdf) {
  // Sample e reads the words of rand(kFloat64)'s element e: the first k with cdf[k] > u * total.
  Tensor p = rand({6, 700}, kFloat64) * (rand({6, 700}) > 0.3).to(kFloat64);
  manual_seed(42);
  std::vector<double> u = ref::values(rand({6 * 40}, kFloat64));
  manual_seed(42);
  std::vector<double> got = ref::values(p.multinomial(40, true));
  for (int64_t r = 0; r < 6; ++r) {
    std::vector<double> w = ref::values(p.select(0, r)), cdf(w.size());
    double s = 0;
    for (size_t k = 0; k < w.size(); ++k) cdf[k] = s += w[k];
    for (int64_t j = 0; j < 40; ++j) {
      const double target = u[r * 40 + j] * s;
      const int64_t want = std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
      ASSERT_EQ(got[r * 40 + j], want) << r << " " << j;
      ASSERT_GT(w[want], 0);
    }
  }
}

TEST(Multinomial, WithoutReplacementDistinctAndDistributed) {
  manual_seed(43);
  const int64_t n = 100000;
  // weights 1:2:3:4; two draws per row: P(first = k) = p_k, P(3 then 2) = 0.4 * 0.3 / 0.6
  Tensor p = tensor({1.0f, 2.0f, 3.0f, 4.0f}).expand({n, 4});
  std::vector<double> v = ref::values(multinomial(p, 2));
  int64_t first3 = 0, pair32 = 0, first0 = 0;
  for (int64_t r = 0; r < n; ++r) {
    ASSERT_NE(v[2 * r], v[2 * r + 1]);
    first3 += v[2 * r] == 3;
    first0 += v[2 * r] == 0;
    pair32 += v[2 * r] == 3 && v[2 * r + 1] == 2;
  }
  EXPECT_NEAR(static_cast<double>(first3) / n, 0.4, five_se(0.4, n));
  EXPECT_NEAR(static_cast<double>(first0) / n, 0.1, five_se(0.1, n));
  EXPECT_NEAR(static_cast<double>(pair32) / n, 0.2, five_se(0.2, n));
  // all categories: a permutation per row
  Tensor perm = multinomial(rand({20, 300}), 300);
  EXPECT_TRUE(perm.sizes() == std::vector<int64_t>({20, 300}));
  for (int64_t r = 0; r < 20; ++r) {
    std::vector<double> row = ref::values(perm.select(0, r));
    std::sort(row.begin(), row.end());
    for (int64_t k = 0; k < 300; ++k) ASSERT_EQ(row[k], k);
  }
}

TEST(Multinomial, ZeroWeightsComeLastWithoutReplacement) {
  manual_seed(44);
  // Positive weights first (in a random order), then the zero ones by index.
  std::vector<double> v = ref::values(multinomial(tensor({0.0, 1.0, 0.0, 5.0, 0.0}), 5));
  EXPECT_TRUE((v[0] == 1 && v[1] == 3) || (v[0] == 3 && v[1] == 1));
  EXPECT_EQ(v[2], 0);
  EXPECT_EQ(v[3], 2);
  EXPECT_EQ(v[4], 4);
  // n_sample 1 never gives a zero weight
  std::vector<double> one =
      ref::values(multinomial(tensor({0.0, 0.0, 1e-30}).expand({1000, 3}), 1));
  EXPECT_EQ(counts(one)[2], 1000);
}

TEST(Multinomial, SeedRepeatsAndAdvances) {
  Tensor p = rand({3, 50});
  manual_seed(45);
  std::vector<double> a = ref::values(multinomial(p, 10));
  std::vector<double> a2 = ref::values(multinomial(p, 10));
  manual_seed(45);
  EXPECT_EQ(ref::values(p.multinomial(10)), a);
  EXPECT_NE(a, a2);
  EXPECT_TRUE(multinomial(zeros({0, 4}), 2).sizes() == std::vector<int64_t>({0, 2}));
}

TEST(Multinomial, Errors) {
  EXPECT_THROW(multinomial(ones({2, 2, 2}), 1), Error);
  EXPECT_THROW(multinomial(ones({}), 1), Error);
  EXPECT_THROW(multinomial(ones({4}, kInt64), 1), Error);
  EXPECT_THROW(multinomial(ones({4}), 0), Error);
  EXPECT_THROW(multinomial(ones({4}), 5), Error);  // without replacement
  EXPECT_NO_THROW(multinomial(ones({4}), 5, true));
  EXPECT_THROW(multinomial(tensor({1.0, -1.0, 1.0}), 1), Error);
  EXPECT_THROW(multinomial(tensor({1.0, std::numeric_limits<double>::infinity()}), 1), Error);
  EXPECT_THROW(multinomial(tensor({1.0, std::nan("")}), 1, true), Error);
  EXPECT_THROW(multinomial(tensor({0.0, 0.0}), 1), Error);
  EXPECT_THROW(multinomial(tensor({1.0, 1.0, 0.0, 0.0}).view({2, 2}), 1, true), Error);
  EXPECT_THROW(multinomial(zeros({2, 0}), 1, true), Error);
}
