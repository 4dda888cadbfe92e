// Creation functions: empty zeros ones full arange linspace eye rand randn randint randperm
// tensor from_blob scalar_tensor *_like, TensorOptions forms and manual_seed reproducibility.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "reference.h"

using namespace ember;
using ref::Shape;

namespace {

std::vector<double> constant(int64_t n, double v) {
  return std::vector<double>(static_cast<size_t>(n), v);
}

TEST(Creation, ZerosOnesFullEveryDtypeAndShape) {
  ref::Rng rng(1);
  for (int rep = 0; rep < 6; ++rep) {
    Shape s = ref::random_shape(rng);
    for (ScalarType dt : ref::all_dtypes()) {
      SCOPED_TRACE(ref::str(s) + " " + ref::name(dt));
      Tensor z = zeros(s, dt), o = ones(s, dt);
      EXPECT_TRUE(ref::matches(z, dt, s, constant(ref::numel(s), 0)));
      EXPECT_TRUE(ref::matches(o, dt, s, constant(ref::numel(s), 1)));
      EXPECT_TRUE(z.is_contiguous());
      EXPECT_TRUE(z.is_cpu());
      Tensor f = full(s, 3, dt);
      EXPECT_TRUE(ref::matches(f, dt, s, constant(ref::numel(s), ref::cast_to(dt, 3))));
      Tensor e = empty(s, dt);
      EXPECT_EQ(ref::shape_of(e), s);
      EXPECT_EQ(e.dtype(), dt);
    }
  }
}

TEST(Creation, DefaultDtypes) {
  EXPECT_EQ(zeros({2}).dtype(), kFloat32);
  EXPECT_EQ(empty({2}).dtype(), kFloat32);
  EXPECT_EQ(ones({2}).dtype(), kFloat32);
  // full: the dtype follows the value, as in PyTorch
  EXPECT_EQ(full({2}, 1.5).dtype(), kFloat32);
  EXPECT_EQ(full({2}, 7).dtype(), kInt64);
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_TRUE(ref::matches(full({2, 1}, 1.5), kFloat32, {2, 1}, {1.5, 1.5}));
  EXPECT_TRUE(ref::matches(full({3}, 7), kInt64, {3}, {7, 7, 7}));
  EXPECT_EQ(arange(5).dtype(), kInt64);
  EXPECT_EQ(arange(0.0, 1.0, 0.25).dtype(), kFloat32);
  EXPECT_EQ(linspace(0, 1, 5).dtype(), kFloat32);
  EXPECT_EQ(eye(3).dtype(), kFloat32);
  EXPECT_EQ(rand({2}).dtype(), kFloat32);
  EXPECT_EQ(randn({2}).dtype(), kFloat32);
  EXPECT_EQ(randint(5, {2}).dtype(), kInt64);
  EXPECT_EQ(randperm(4).dtype(), kInt64);
}

TEST(Creation, TensorOptionsForms) {
  // builder, bare dtype, dtype() helper, device string and device type
  Tensor a = zeros({2, 3}, TensorOptions().dtype(kFloat64).device(kCPU));
  EXPECT_EQ(a.dtype(), kFloat64);
  EXPECT_TRUE(a.is_cpu());
  EXPECT_EQ(ones({2}, kInt32).dtype(), kInt32);
  EXPECT_EQ(ones({2}, dtype(kUInt8)).dtype(), kUInt8);
  EXPECT_EQ(ones({2}, "cpu").device(), Device(kCPU));
  EXPECT_EQ(ones({2}, kCPU).dtype(), kFloat32);
  EXPECT_EQ(ones({2}, Device("cpu")).device().type(), kCPU);
  Tensor g = zeros({2}, TensorOptions().requires_grad(true));
  EXPECT_TRUE(g.requires_grad());
  EXPECT_TRUE(randn({2}, requires_grad()).requires_grad());
  EXPECT_FALSE(zeros({2}).requires_grad());
}

TEST(Creation, Arange) {
  EXPECT_TRUE(ref::matches(arange(5), kInt64, {5}, {0, 1, 2, 3, 4}));
  EXPECT_TRUE(ref::matches(arange(2, 7), kInt64, {5}, {2, 3, 4, 5, 6}));
  EXPECT_TRUE(ref::matches(arange(10, 0, -3), kInt64, {4}, {10, 7, 4, 1}));
  EXPECT_TRUE(ref::matches(arange(0.0, 1.0, 0.25), kFloat32, {4}, {0, 0.25, 0.5, 0.75}));
  EXPECT_TRUE(ref::matches(arange(0, 1, 0.3), kFloat32, {4}, {0, 0.3, 0.6, 0.9}, 1e-6));
  EXPECT_TRUE(ref::matches(arange(5, kFloat64), kFloat64, {5}, {0, 1, 2, 3, 4}));
  EXPECT_TRUE(ref::matches(arange(3, 3), kInt64, {0}, {}));
  // float steps: PyTorch sizes the result as ceil((end - start) / step)
  for (double step : {0.1, 0.7, 1.3}) {
    Tensor t = arange(-1.0, 2.0, step, kFloat64);
    int64_t n = static_cast<int64_t>(std::ceil(3.0 / step));
    std::vector<double> want(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) want[static_cast<size_t>(i)] = -1.0 + step * i;
    EXPECT_TRUE(ref::matches(t, kFloat64, {n}, want, 1e-12, 1e-12)) << "step " << step;
  }
}

TEST(Creation, Linspace) {
  EXPECT_TRUE(ref::matches(linspace(0, 1, 5), kFloat32, {5}, {0, 0.25, 0.5, 0.75, 1}));
  EXPECT_TRUE(ref::matches(linspace(-2, 2, 1), kFloat32, {1}, {-2}));
  EXPECT_TRUE(ref::matches(linspace(0, 1, 0), kFloat32, {0}, {}));
  Tensor t = linspace(3, -7, 11, kFloat64);
  std::vector<double> want;
  for (int i = 0; i <= 10; ++i) want.push_back(3.0 - i);
  EXPECT_TRUE(ref::matches(t, kFloat64, {11}, want, 1e-12, 1e-12));
  // integer dtype: values are computed in floating point, then truncated as PyTorch does
  EXPECT_TRUE(ref::matches(linspace(0, 10, 5, kInt64), kInt64, {5}, {0, 2, 5, 7, 10}));
}

TEST(Creation, Eye) {
  for (auto nm : std::vector<std::pair<int64_t, int64_t>>{{3, 3}, {2, 4}, {4, 2}, {0, 3}, {1, 1}}) {
    for (ScalarType dt : ref::all_dtypes()) {
      Tensor e = eye(nm.first, nm.second, dt);
      std::vector<double> want;
      for (int64_t i = 0; i < nm.first; ++i)
        for (int64_t j = 0; j < nm.second; ++j) want.push_back(i == j ? 1 : 0);
      EXPECT_TRUE(ref::matches(e, dt, {nm.first, nm.second}, want));
    }
  }
  EXPECT_TRUE(ref::matches(eye(2), kFloat32, {2, 2}, {1, 0, 0, 1}));
}

TEST(Creation, TensorFromValues) {
  EXPECT_TRUE(ref::matches(tensor({1.0f, 2.5f}), kFloat32, {2}, {1, 2.5}));
  // As LibTorch: floating literals take the default dtype, integer ones int64.
  EXPECT_TRUE(ref::matches(tensor({1.0, -2.0}), kFloat32, {2}, {1, -2}));
  EXPECT_TRUE(ref::matches(tensor({1.0, -2.0}, kFloat64), kFloat64, {2}, {1, -2}));
  EXPECT_TRUE(ref::matches(tensor({int64_t(5), int64_t(-6)}), kInt64, {2}, {5, -6}));
  EXPECT_TRUE(ref::matches(tensor({int32_t(5)}), kInt64, {1}, {5}));
  EXPECT_TRUE(ref::matches(tensor({int32_t(5)}, kInt32), kInt32, {1}, {5}));
  EXPECT_TRUE(ref::matches(tensor({uint8_t(250)}), kUInt8, {1}, {250}));
  EXPECT_TRUE(ref::matches(tensor({true, false}), kBool, {2}, {1, 0}));
  std::vector<float> v = {3, 4, 5};
  Tensor t = tensor(v);
  v[0] = 100;  // tensor() copies
  EXPECT_TRUE(ref::matches(t, kFloat32, {3}, {3, 4, 5}));
  EXPECT_TRUE(ref::matches(tensor(v, kFloat64), kFloat64, {3}, {100, 4, 5}));
  EXPECT_TRUE(ref::matches(tensor(std::vector<float>{}), kFloat32, {0}, {}));
  Tensor s = scalar_tensor(2.5);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_DOUBLE_EQ(s.item<double>(), 2.5);
  EXPECT_EQ(scalar_tensor(3, kInt64).item<int64_t>(), 3);
}

TEST(Creation, FromBlobWrapsWithoutCopy) {
  float buf[6] = {0, 1, 2, 3, 4, 5};
  Tensor t = from_blob(buf, {2, 3}, kFloat32);
  EXPECT_EQ(t.data_ptr<float>(), buf);
  EXPECT_TRUE(ref::matches(t, kFloat32, {2, 3}, {0, 1, 2, 3, 4, 5}));
  buf[4] = 40;  // the tensor sees the caller's memory
  EXPECT_FLOAT_EQ(t[1][1].item<float>(), 40);
  t.fill_(2);  // and writes to it
  EXPECT_EQ(buf[0], 2);
  // strides: a transposed view of the same buffer
  Tensor tt = from_blob(buf, {3, 2}, {1, 3}, kFloat32);
  buf[1] = 9;
  EXPECT_TRUE(ref::matches(tt, kFloat32, {3, 2}, {2, 2, 9, 2, 2, 2}));
  EXPECT_FALSE(tt.is_contiguous());
  int64_t ib[3] = {7, 8, 9};
  EXPECT_TRUE(ref::matches(from_blob(ib, {3}, kInt64), kInt64, {3}, {7, 8, 9}));
  // default dtype float32
  EXPECT_EQ(from_blob(buf, {6}).dtype(), kFloat32);
}

int g_deleted = 0;
void count_delete(void*) { ++g_deleted; }

TEST(Creation, FromBlobDeleterRunsWhenLastViewDies) {
  g_deleted = 0;
  double buf[4] = {1, 2, 3, 4};
  {
    Tensor t = from_blob(buf, {4}, count_delete, kFloat64);
    Tensor v = t.slice(0, 1, 3);
    t = Tensor();
    EXPECT_EQ(g_deleted, 0);
    EXPECT_TRUE(ref::matches(v, kFloat64, {2}, {2, 3}));
  }
  EXPECT_EQ(g_deleted, 1);
}

TEST(Creation, LikeFunctions) {
  Tensor base = zeros({2, 3}, kFloat64).t();  // a transposed view: only shape and type matter
  for (Tensor t : {empty_like(base), zeros_like(base), ones_like(base), full_like(base, 4),
                   rand_like(base), randn_like(base)}) {
    EXPECT_EQ(ref::shape_of(t), Shape({3, 2}));
    EXPECT_EQ(t.dtype(), kFloat64);
  }
  EXPECT_TRUE(ref::matches(ones_like(base), kFloat64, {3, 2}, constant(6, 1)));
  EXPECT_TRUE(ref::matches(zeros_like(base), kFloat64, {3, 2}, constant(6, 0)));
  EXPECT_TRUE(ref::matches(full_like(base, 4), kFloat64, {3, 2}, constant(6, 4)));
  EXPECT_TRUE(ref::matches(zeros_like(base, kInt32), kInt32, {3, 2}, constant(6, 0)));
  Tensor ri = randint_like(zeros({50}, kInt32), 3, 6);
  EXPECT_EQ(ri.dtype(), kInt32);
  for (double v : ref::values(ri)) {
    EXPECT_GE(v, 3);
    EXPECT_LT(v, 6);
  }
  // *_like of an int tensor keeps its dtype
  EXPECT_EQ(ones_like(arange(3)).dtype(), kInt64);
}

TEST(Random, ManualSeedRepeats) {
  manual_seed(123);
  Tensor a = rand({100}), b = randn({7, 3}, kFloat64), c = randint(0, 100, {20}), d = randperm(30);
  manual_seed(123);
  Tensor a2 = rand({100}), b2 = randn({7, 3}, kFloat64), c2 = randint(0, 100, {20}),
         d2 = randperm(30);
  EXPECT_EQ(ref::values(a), ref::values(a2));
  EXPECT_EQ(ref::values(b), ref::values(b2));
  EXPECT_EQ(ref::values(c), ref::values(c2));
  EXPECT_EQ(ref::values(d), ref::values(d2));
  // consecutive draws differ, and another seed gives other numbers
  EXPECT_NE(ref::values(rand({100})), ref::values(a));
  manual_seed(124);
  EXPECT_NE(ref::values(rand({100})), ref::values(a));
}

TEST(Random, RandIsUniformInUnitInterval) {
  manual_seed(7);
  for (ScalarType dt : ref::float_dtypes()) {
    const int64_t n = 200000;
    std::vector<double> v = ref::values(rand({n}, dt));
    double mn = *std::min_element(v.begin(), v.end());
    double mx = *std::max_element(v.begin(), v.end());
    double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
    double var = 0;
    for (double x : v) var += (x - mean) * (x - mean);
    var /= n;
    EXPECT_GE(mn, 0.0);
    EXPECT_LT(mx, 1.0);
    EXPECT_NEAR(mean, 0.5, 0.005);
    EXPECT_NEAR(var, 1.0 / 12, 0.002);
    // spread over the whole interval: every tenth holds about 10%
    std::vector<int> bins(10, 0);
    for (double x : v) ++bins[static_cast<size_t>(x * 10)];
    for (int b : bins) EXPECT_NEAR(b / static_cast<double>(n), 0.1, 0.005);
  }
}

TEST(Random, RandnMeanAndStd) {
  manual_seed(8);
  for (ScalarType dt : ref::float_dtypes()) {
    const int64_t n = 200000;
    std::vector<double> v = ref::values(randn({n}, dt));
    double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
    double var = 0, within1 = 0;
    for (double x : v) {
      var += (x - mean) * (x - mean);
      within1 += std::abs(x) < 1;
    }
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(std::sqrt(var / n), 1.0, 0.01);
    EXPECT_NEAR(within1 / n, 0.6827, 0.005);  // the bell shape, not just two moments
  }
  // odd sizes and multi-dim shapes are filled completely (no leftover zeros)
  Tensor t = randn({3, 5, 7});
  for (double x : ref::values(t)) EXPECT_NE(x, 0.0);
}

TEST(Random, RandintRange) {
  manual_seed(9);
  for (ScalarType dt : {kInt64, kInt32, kUInt8, kFloat32, kFloat64}) {
    int64_t lo = dt == kUInt8 ? 2 : -3, hi = dt == kUInt8 ? 9 : 4;
    Tensor t = randint(lo, hi, {5000}, dt);
    EXPECT_EQ(t.dtype(), dt);
    std::set<double> seen;
    for (double x : ref::values(t)) {
      EXPECT_GE(x, lo);
      EXPECT_LT(x, hi);
      EXPECT_EQ(x, std::floor(x));
      seen.insert(x);
    }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), hi - lo) << "every value is drawn";
  }
  Tensor t = randint(10, {2, 3});
  EXPECT_EQ(ref::shape_of(t), Shape({2, 3}));
  for (double x : ref::values(t)) EXPECT_TRUE(x >= 0 && x < 10);
}

TEST(Random, RandpermIsAPermutation) {
  manual_seed(10);
  for (int64_t n : {0, 1, 2, 17, 1000}) {
    Tensor p = randperm(n);
    EXPECT_EQ(ref::shape_of(p), Shape({n}));
    std::vector<double> v = ref::values(p);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(sorted[static_cast<size_t>(i)], i);
    if (n >= 17) {
      std::vector<double> id(static_cast<size_t>(n));
      std::iota(id.begin(), id.end(), 0.0);
      EXPECT_NE(v, id) << "shuffled";
    }
  }
  EXPECT_EQ(randperm(5, kInt32).dtype(), kInt32);
}

}  // namespace
