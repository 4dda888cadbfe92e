// Elementwise ops, part two (same executable as test_elementwise.cpp): where, masked_fill,
// clamp, in-place and compound assignment on views, and large tensors, against naive loops.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "reference.h"

using namespace ember;
using ref::atol_for;
using ref::Layout;
using ref::operand;
using ref::Operand;
using ref::random_layout;
using ref::rtol_for;
using ref::Shape;

namespace {

// ---- where, masked_fill, clamp ----

TEST(Where, BroadcastsAllThreeAndPromotes) {
  ref::Rng rng(36);
  for (int rep = 0; rep < 40; ++rep) {
    auto s1 = ref::broadcastable_shapes(rng);
    Shape out = ref::broadcast(s1.first, s1.second);
    // the condition: a suffix of out with some dims set to 1
    Shape cs(out.end() - ref::randint(rng, 0, static_cast<int64_t>(out.size())), out.end());
    for (auto& d : cs)
      if (ref::randint(rng, 0, 1)) d = 1;
    ScalarType da = ref::all_dtypes()[static_cast<size_t>(ref::randint(rng, 0, 5))];
    ScalarType db = rep % 2 ? da : ref::all_dtypes()[static_cast<size_t>(ref::randint(rng, 0, 5))];
    Operand c = operand(rng, cs, kBool), a = operand(rng, s1.first, da),
            b = operand(rng, s1.second, db);
    ScalarType rt = ref::result_type(a.t, b.t);
    SCOPED_TRACE(ref::str(cs) + " " + ref::name(da) + ref::str(s1.first) + " " + ref::name(db) +
                 ref::str(s1.second));
    std::vector<double> want(static_cast<size_t>(ref::numel(out)));
    for (int64_t k = 0; k < ref::numel(out); ++k) {
      Shape idx = ref::unravel(k, out);
      want[static_cast<size_t>(k)] =
          ref::cast_to(rt, ref::at_broadcast(c.v, cs, idx) != 0 ? ref::at_broadcast(a.v, a.s, idx)
                                                                : ref::at_broadcast(b.v, b.s, idx));
    }
    EXPECT_TRUE(ref::matches(where(c.t, a.t, b.t), rt, out, want));
    EXPECT_TRUE(ref::matches(a.t.where(c.t, b.t), rt, out, want));
  }
  Tensor cond = tensor({true, false, true});
  EXPECT_TRUE(
      ref::matches(where(cond, 1.5, tensor({0.0f, 0.0f, 0.0f})), kFloat32, {3}, {1.5, 0, 1.5}));
  EXPECT_TRUE(ref::matches(where(cond, arange(3), -1), kInt64, {3}, {0, -1, 2}));
  EXPECT_TRUE(ref::matches(where(cond, arange(3, kInt32), 0.5), kFloat32, {3}, {0, 0.5, 2}));
}

TEST(MaskedFill, OutOfPlaceAndInPlace) {
  ref::Rng rng(37);
  for (ScalarType dt : ref::all_dtypes()) {
    for (int rep = 0; rep < 8; ++rep) {
      auto shapes = ref::broadcastable_shapes(rng);
      Shape s = ref::broadcast(shapes.first, shapes.second);
      Shape ms = shapes.second;
      Operand x = operand(rng, s, dt), m = operand(rng, ms, kBool);
      double value = dt == kBool ? 1 : dt == kUInt8 ? 9 : -7;
      Scalar sval = dt == kBool         ? Scalar(true)
                    : ref::is_float(dt) ? Scalar(value)
                                        : Scalar(static_cast<int64_t>(value));
      SCOPED_TRACE(ref::name(dt) + ref::str(s) + " mask " + ref::str(ms));
      std::vector<double> want(static_cast<size_t>(ref::numel(s)));
      for (int64_t k = 0; k < ref::numel(s); ++k)
        want[static_cast<size_t>(k)] = ref::at_broadcast(m.v, ms, ref::unravel(k, s)) != 0
                                           ? value
                                           : x.v[static_cast<size_t>(k)];
      EXPECT_TRUE(ref::matches(masked_fill(x.t, m.t, sval), dt, s, want));
      EXPECT_TRUE(ref::matches(x.t, dt, s, x.v)) << "out of place leaves the input alone";
      EXPECT_TRUE(ref::matches(x.t.masked_fill(m.t, sval), dt, s, want));
      Tensor y = ref::make_layout(x.v, s, dt, random_layout(rng));
      Tensor& r = y.masked_fill_(m.t, sval);
      EXPECT_TRUE(r.is_same(y));
      EXPECT_TRUE(ref::matches(y, dt, s, want));
    }
  }
  // a float value into a float tensor, -inf for attention-style masks
  Tensor t = zeros({2, 2});
  t.masked_fill_(tensor({false, true}), -INFINITY);
  EXPECT_TRUE(ref::matches(t, kFloat32, {2, 2}, {0, -INFINITY, 0, -INFINITY}));
}

TEST(Clamp, BoundsAndDtypes) {
  ref::Rng rng(38);
  for (ScalarType dt : ref::numeric_dtypes()) {
    for (int rep = 0; rep < 6; ++rep) {
      Shape s = ref::random_shape(rng);
      Operand x = operand(rng, s, dt);
      bool fl = ref::is_float(dt);
      double lo = fl ? -1.25 : dt == kUInt8 ? 4 : -2, hi = fl ? 0.5 : dt == kUInt8 ? 12 : 3;
      Scalar slo = fl ? Scalar(lo) : Scalar(static_cast<int64_t>(lo));
      Scalar shi = fl ? Scalar(hi) : Scalar(static_cast<int64_t>(hi));
      SCOPED_TRACE(ref::name(dt) + ref::str(s));
      std::vector<double> both, only_lo, only_hi;
      for (double e : x.v) {
        both.push_back(std::min(std::max(e, lo), hi));
        only_lo.push_back(std::max(e, lo));
        only_hi.push_back(std::min(e, hi));
      }
      EXPECT_TRUE(ref::matches(clamp(x.t, slo, shi), dt, s, both));
      EXPECT_TRUE(ref::matches(x.t.clamp(slo, shi), dt, s, both));
      EXPECT_TRUE(ref::matches(clamp(x.t, slo), dt, s, only_lo));
      EXPECT_TRUE(ref::matches(x.t.clamp(std::nullopt, shi), dt, s, only_hi));
      EXPECT_TRUE(ref::matches(x.t.clamp_min(slo), dt, s, only_lo));
      EXPECT_TRUE(ref::matches(x.t.clamp_max(shi), dt, s, only_hi));
      Tensor y = ref::make_layout(x.v, s, dt, random_layout(rng));
      EXPECT_TRUE(y.clamp_(slo, shi).is_same(y));
      EXPECT_TRUE(ref::matches(y, dt, s, both));
    }
  }
}

// ---- in place and compound assignment ----

struct InplaceCase {
  const char* name;
  std::function<void(Tensor&, const Tensor&)> fn;
  std::function<double(double, double)> ref;
  bool bools = true;  // a bool `other` is allowed (not for subtraction, PyTorch rejects it)
  bool div = false;   // true division: int selves cannot hold the result
};

TEST(Inplace, TensorFormsOnViewsWithBroadcastOther) {
  const std::vector<InplaceCase> cases = {
      {"add_", [](Tensor& s, const Tensor& o) { EXPECT_TRUE(s.add_(o).is_same(s)); },
       [](double a, double b) { return a + b; }},
      {"add_(alpha=2)", [](Tensor& s, const Tensor& o) { s.add_(o, 2); },
       [](double a, double b) { return a + 2 * b; }, false},
      {"sub_", [](Tensor& s, const Tensor& o) { EXPECT_TRUE(s.sub_(o).is_same(s)); },
       [](double a, double b) { return a - b; }, false},
      {"mul_", [](Tensor& s, const Tensor& o) { EXPECT_TRUE(s.mul_(o).is_same(s)); },
       [](double a, double b) { return a * b; }},
      {"div_", [](Tensor& s, const Tensor& o) { EXPECT_TRUE(s.div_(o).is_same(s)); },
       [](double a, double b) { return a / b; }, true, true},
      {"+=", [](Tensor& s, const Tensor& o) { s += o; }, [](double a, double b) { return a + b; }},
      {"-=", [](Tensor& s, const Tensor& o) { s -= o; }, [](double a, double b) { return a - b; },
       false},
      {"*=", [](Tensor& s, const Tensor& o) { s *= o; }, [](double a, double b) { return a * b; }},
      {"/=", [](Tensor& s, const Tensor& o) { s /= o; }, [](double a, double b) { return a / b; },
       true, true},
  };
  ref::Rng rng(39);
  for (int rep = 0; rep < 30; ++rep) {
    auto shapes = ref::broadcastable_shapes(rng);
    Shape s = ref::broadcast(shapes.first, shapes.second);
    // self: float32/float64 (any other may convert into it) or an int type with int others
    ScalarType sd = ref::numeric_dtypes()[static_cast<size_t>(rep % 5)];
    ScalarType od = ref::is_float(sd) ? ref::all_dtypes()[static_cast<size_t>(rep % 6)] : sd;
    Operand o = operand(rng, shapes.second, od, 0.5, 3);
    std::vector<double> sv = ref::random_values(rng, ref::numel(s), sd);
    for (const InplaceCase& c : cases) {
      bool is_div = c.div;
      if (is_div && !ref::is_float(sd)) continue;  // int self cannot hold a true division
      if (od == kBool && !c.bools) continue;
      SCOPED_TRACE(std::string(c.name) + " self " + ref::name(sd) + ref::str(s) + " other " +
                   ref::name(od) + ref::str(shapes.second));
      // self is a view into a bigger tensor: the write must land in the base's storage
      Tensor self = ref::make_layout(sv, s, sd, random_layout(rng));
      Tensor alias = self.detach();  // another handle on the same memory
      void* ptr = self.data_ptr();
      ScalarType compute = ref::result_type(self, o.t);
      if (is_div) compute = ref::to_float(compute);
      c.fn(self, o.t);
      std::vector<double> want(sv.size());
      for (int64_t k = 0; k < ref::numel(s); ++k)
        want[static_cast<size_t>(k)] = ref::cast_to(
            sd, c.ref(ref::cast_to(compute, sv[static_cast<size_t>(k)]),
                      ref::cast_to(compute, ref::at_broadcast(o.v, o.s, ref::unravel(k, s)))));
      EXPECT_TRUE(ref::matches(self, sd, s, want, rtol_for(sd), atol_for(sd)));
      EXPECT_EQ(self.data_ptr(), ptr) << "in place keeps the memory";
      EXPECT_TRUE(ref::matches(alias, sd, s, want, rtol_for(sd), atol_for(sd)));
    }
  }
}

TEST(Inplace, ScalarFormsFillZeroCopy) {
  ref::Rng rng(40);
  for (ScalarType dt : ref::numeric_dtypes()) {
    Shape s = ref::random_shape(rng, 1, 4);
    std::vector<double> v = ref::random_values(rng, ref::numel(s), dt, 0.5, 3);
    auto check = [&](const char* what, std::function<void(Tensor&)> f,
                     std::function<double(double)> r) {
      Tensor t = ref::make_layout(v, s, dt, random_layout(rng));
      f(t);
      std::vector<double> want;
      for (double e : v) want.push_back(ref::cast_to(dt, r(e)));
      EXPECT_TRUE(ref::matches(t, dt, s, want, rtol_for(dt), atol_for(dt)))
          << what << " " << ref::name(dt) << ref::str(s);
    };
    check(
        "add_(2)", [](Tensor& t) { EXPECT_TRUE(t.add_(2).is_same(t)); },
        [](double e) { return e + 2; });
    check(
        "add_(1, alpha=3)", [](Tensor& t) { t.add_(1, 3); }, [](double e) { return e + 3; });
    check(
        "sub_(1)", [](Tensor& t) { t.sub_(1); }, [](double e) { return e - 1; });
    check(
        "mul_(3)", [](Tensor& t) { t.mul_(3); }, [](double e) { return e * 3; });
    check(
        "+= 2", [](Tensor& t) { t += 2; }, [](double e) { return e + 2; });
    check(
        "-= 1", [](Tensor& t) { t -= 1; }, [](double e) { return e - 1; });
    check(
        "*= 2", [](Tensor& t) { t *= 2; }, [](double e) { return e * 2; });
    check(
        "fill_(5)", [](Tensor& t) { EXPECT_TRUE(t.fill_(5).is_same(t)); },
        [](double) { return 5; });
    check(
        "zero_()", [](Tensor& t) { EXPECT_TRUE(t.zero_().is_same(t)); }, [](double) { return 0; });
    if (ref::is_float(dt)) {
      check(
          "div_(4)", [](Tensor& t) { t.div_(4); }, [](double e) { return e / 4; });
      check(
          "/= 2", [](Tensor& t) { t /= 2; }, [](double e) { return e / 2; });
      check(
          "mul_(0.5)", [](Tensor& t) { t.mul_(0.5); }, [](double e) { return e * 0.5; });
      check(
          "add_(0.25)", [](Tensor& t) { t.add_(0.25); }, [](double e) { return e + 0.25; });
    }
  }
  // fill_ with a float into an int tensor converts (truncates), as PyTorch does
  Tensor i = zeros({2}, kInt32);
  i.fill_(2.7);
  EXPECT_TRUE(ref::matches(i, kInt32, {2}, {2, 2}));
  // fill_ with a 0-dim tensor value through copy_ of an expanded source
  Tensor f = zeros({2, 3});
  f.copy_(full({}, 4.0));
  EXPECT_TRUE(ref::matches(f, kFloat32, {2, 3}, {4, 4, 4, 4, 4, 4}));
  // bool self with bool other: add_ is logical or
  Tensor b = tensor({true, false, false});
  b.add_(tensor({false, false, true}));
  EXPECT_TRUE(ref::matches(b, kBool, {3}, {1, 0, 1}));
}

TEST(Inplace, SelfAliasingOther) {
  // x += x and x.mul_(x.t()) read what they write: results must match out-of-place math
  Tensor x = arange(9, kFloat64).view({3, 3});
  x += x;
  EXPECT_TRUE(ref::matches(x, kFloat64, {3, 3}, {0, 2, 4, 6, 8, 10, 12, 14, 16}));
  Tensor y = arange(4, kFloat64).view({2, 2});
  Tensor want = y * y.t();
  y.mul_(y.t().clone());
  EXPECT_TRUE(equal(y, want));
}

TEST(Elementwise, LargeTensorsUseTheFastPathsCorrectly) {
  // sizes past any threading/vectorization threshold, contiguous and strided
  ref::Rng rng(41);
  const int64_t n = 300007;  // odd: exercises vector tails
  std::vector<double> av = ref::random_values(rng, n, kFloat32),
                      bv = ref::random_values(rng, n, kFloat32);
  Tensor a = ref::make(av, {n}, kFloat32), b = ref::make(bv, {n}, kFloat32);
  std::vector<double> sum, prod, ex, gt;
  for (int64_t i = 0; i < n; ++i) {
    sum.push_back(static_cast<float>(av[static_cast<size_t>(i)] + bv[static_cast<size_t>(i)]));
    prod.push_back(static_cast<float>(av[static_cast<size_t>(i)] * bv[static_cast<size_t>(i)]));
    ex.push_back(std::exp(av[static_cast<size_t>(i)]));
    gt.push_back(av[static_cast<size_t>(i)] > bv[static_cast<size_t>(i)]);
  }
  EXPECT_TRUE(ref::matches(a + b, kFloat32, {n}, sum));
  EXPECT_TRUE(ref::matches(a * b, kFloat32, {n}, prod));
  EXPECT_TRUE(ref::matches(exp(a), kFloat32, {n}, ex, 1e-5));
  EXPECT_TRUE(ref::matches(a > b, kBool, {n}, gt));
  // a big strided case: every other element of a [2n] tensor, plus a broadcast row
  Tensor big = ref::make_layout(av, {n}, kFloat32, Layout::Stepped);
  EXPECT_TRUE(ref::matches(big + b, kFloat32, {n}, sum));
  Tensor m = arange(1000 * 301, kFloat32).view({1000, 301});
  Tensor row = arange(301, kFloat32);
  Tensor r = m.t() - row.unsqueeze(1);
  std::vector<double> want(1000 * 301);
  for (int64_t i = 0; i < 301; ++i)
    for (int64_t j = 0; j < 1000; ++j) want[static_cast<size_t>(i * 1000 + j)] = j * 301.0;
  EXPECT_TRUE(ref::matches(r, kFloat32, {301, 1000}, want));
}

}  // namespace
