// The elementwise composites and the integer rules of the division and bitwise rows, against
// naive references in double and LibTorch 2.15's documented values: rounding modes, remainder
// signs, shifts past the width, predicates, nan_to_num, isclose, lerp, addcmul, in-place forms.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <cmath>
#include <limits>
#include <vector>

#include "reference.h"

using namespace ember;
using ref::Shape;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Python's a // b and a % b on integers, written out.
int64_t py_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t py_mod(int64_t a, int64_t b) { return a - py_floordiv(a, b) * b; }

TEST(ElementwiseComposite, IntegerDivisionRoundingModes) {
  std::vector<double> as, bs, fl, tr, rem, fm;
  for (int64_t a = -9; a <= 9; ++a) {
    for (int64_t b : {-4, -3, -1, 1, 2, 5}) {
      as.push_back(double(a));
      bs.push_back(double(b));
      fl.push_back(double(py_floordiv(a, b)));
      tr.push_back(double(a / b));
      rem.push_back(double(py_mod(a, b)));
      fm.push_back(double(a % b));
    }
  }
  const Shape s = {int64_t(as.size())};
  for (ScalarType dt : {kInt64, kInt32}) {
    Tensor a = ref::make(as, s, dt), b = ref::make(bs, s, dt);
    EXPECT_TRUE(ref::matches(floor_divide(a, b), dt, s, fl));
    EXPECT_TRUE(ref::matches(div(a, b, "floor"), dt, s, fl));
    EXPECT_TRUE(ref::matches(div(a, b, "trunc"), dt, s, tr));
    EXPECT_TRUE(ref::matches(remainder(a, b), dt, s, rem));
    EXPECT_TRUE(ref::matches(a % b, dt, s, rem));
    EXPECT_TRUE(ref::matches(fmod(a, b), dt, s, fm));
  }
  // LibTorch: div([7, -7], 2, "floor") = [3, -4]; remainder([-7, 7, -3], 3) = [2, 1, 0];
  // fmod([-7, 7, -3], 3) = [-1, 1, 0]; tensor([-5, 5]) % 3 = [1, 2].
  EXPECT_TRUE(ref::matches(div(tensor({7, -7}), 2, "floor"), kInt64, {2}, {3, -4}));
  EXPECT_TRUE(ref::matches(remainder(tensor({-7, 7, -3}), 3), kInt64, {3}, {2, 1, 0}));
  EXPECT_TRUE(ref::matches(fmod(tensor({-7, 7, -3}), 3), kInt64, {3}, {-1, 1, 0}));
  EXPECT_TRUE(ref::matches(tensor({-5, 5}) % 3, kInt64, {2}, {1, 2}));
  EXPECT_TRUE(ref::matches(7 % tensor({2, -3}), kInt64, {2}, {1, -2}));
  // uint8 and the wrapping corner: INT64_MIN // -1 wraps instead of trapping.
  EXPECT_TRUE(
      ref::matches(floor_divide(tensor({uint8_t(200)}), tensor({uint8_t(7)})), kUInt8, {1}, {28}));
  const int64_t lo = std::numeric_limits<int64_t>::min();
  Tensor m = floor_divide(tensor({lo}), tensor({int64_t(-1)}));
  EXPECT_EQ(m.item<int64_t>(), lo);
  EXPECT_EQ(fmod(tensor({lo}), tensor({int64_t(-1)})).item<int64_t>(), 0);
}

TEST(ElementwiseComposite, IntegerDivisionByZeroThrowsOnTheCpu) {
  for (auto f : {+[](const Tensor&a, const Tensor&b) { return floor_divide(a, b); },
                 +[](const Tensor&a, const Tensor&b) { return remainder(a, b); },
                 +[](const Tensor&a, const Tensor&b) { return fmod(a, b); },
                 +[](const Tensor&a, const Tensor&b) { return div(a, b, "trunc"); }}) {
    EXPECT_THROW(f(tensor({1, 2}), tensor({0, 1})), Error);
  }
  EXPECT_THROW(div(tensor({1, 2}), 0, "trunc"), Error);
  EXPECT_THROW(tensor({1}) % 0, Error);
  // floats divide by zero as IEEE does
  Tensor q = floor_divide(tensor({1.0, -1.0, 0.0}), 0.0);
  EXPECT_TRUE(ref::matches(q, kFloat32, {3}, {kInf, -kInf, kNaN}));
  EXPECT_THROW(div(tensor({1.0}), tensor({2.0}), "round"), Error);
}

TEST(ElementwiseComposite, FloatRoundingModesAndRemainder) {
  ref::Rng rng(7);
  std::vector<double> a = ref::random_values(rng, 200, kFloat64, -20, 20);
  std::vector<double> b = ref::random_values(rng, 200, kFloat64, -4, 4);
  for (double& v : b)
    if (std::abs(v) < 0.1) v = 0.5;
  std::vector<double> tr, rem, fm;
  for (size_t i = 0; i < a.size(); ++i) {
    tr.push_back(std::trunc(a[i] / b[i]));
    const double f = std::fmod(a[i], b[i]);
    fm.push_back(f);
    rem.push_back(f != 0 && ((b[i] < 0) != (f < 0)) ? f + b[i] : f);
  }
  Tensor ta = ref::make(a, {200}, kFloat64), tb = ref::make(b, {200}, kFloat64);
  EXPECT_TRUE(ref::matches(div(ta, tb, "trunc"), kFloat64, {200}, tr));
  EXPECT_TRUE(ref::matches(fmod(ta, tb), kFloat64, {200}, fm));
  EXPECT_TRUE(ref::matches(remainder(ta, tb), kFloat64, {200}, rem, 1e-12, 1e-12));
  // floor_divide equals floor(a / b) away from ties
  Tensor fd = floor_divide(ta, tb);
  std::vector<double> got = ref::values(fd);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(got[i], std::floor(a[i] / b[i])) << i;
  // LibTorch: tensor([7.5, -7.5]).div(2, "floor") = [3, -4]; remainder([7, -7], -3.0) = [-2, -1]
  EXPECT_TRUE(ref::matches(tensor({7.5, -7.5}).div(2, "floor"), kFloat32, {2}, {3, -4}));
  EXPECT_TRUE(ref::matches(remainder(tensor({7.0, -7.0}), -3.0), kFloat32, {2}, {-2, -1}));
  // an integer tensor with a float scalar divisor promotes to the default float dtype
  EXPECT_TRUE(ref::matches(fmod(tensor({5, -5}), 1.5), kFloat32, {2}, {0.5, -0.5}));
}

TEST(ElementwiseComposite, BitwiseAndShifts) {
  Tensor a = tensor({12, 10, -3}), b = tensor({10, 6, 5});
  EXPECT_TRUE(ref::matches(a & b, kInt64, {3}, {12 & 10, 10 & 6, -3 & 5}));
  EXPECT_TRUE(ref::matches(a | b, kInt64, {3}, {12 | 10, 10 | 6, -3 | 5}));
  EXPECT_TRUE(ref::matches(a ^ b, kInt64, {3}, {12 ^ 10, 10 ^ 6, -3 ^ 5}));
  EXPECT_TRUE(ref::matches(~a, kInt64, {3}, {~12, ~10, ~-3}));
  EXPECT_TRUE(ref::matches(~tensor({uint8_t(0), uint8_t(200)}), kUInt8, {2}, {255, 55}));
  Tensor t = tensor({true, false});
  EXPECT_TRUE(ref::matches(~t, kBool, {2}, {0, 1}));
  EXPECT_TRUE(ref::matches(t & tensor({true, true}), kBool, {2}, {1, 0}));
  EXPECT_TRUE(ref::matches(bitwise_xor(t, true), kBool, {2}, {0, 1}));
  EXPECT_THROW(bitwise_and(tensor({1.0}), tensor({1.0})), Error);
  EXPECT_THROW(~tensor({1.0}), Error);
  // shifts: past the width give 0 (left) or the sign (right), as LibTorch's
  Tensor x = tensor({1, 8, -8}, kInt32);
  EXPECT_TRUE(ref::matches(bitwise_left_shift(x, 2), kInt32, {3}, {4, 32, -32}));
  EXPECT_TRUE(ref::matches(bitwise_right_shift(x, 1), kInt32, {3}, {0, 4, -4}));
  EXPECT_TRUE(ref::matches(bitwise_left_shift(x, 40), kInt32, {3}, {0, 0, 0}));
  EXPECT_TRUE(ref::matches(bitwise_right_shift(x, 40), kInt32, {3}, {0, 0, -1}));
  EXPECT_TRUE(ref::matches(bitwise_left_shift(tensor({uint8_t(3)}), tensor({uint8_t(7)})), kUInt8,
                           {1}, {128}));
  EXPECT_THROW(bitwise_left_shift(tensor({true}), tensor({true})), Error);
  Tensor y = tensor({5, 3});
  y &= tensor({4, 2});
  EXPECT_TRUE(ref::matches(y, kInt64, {2}, {4, 2}));
}

TEST(ElementwiseComposite, Predicates) {
  Tensor x = tensor({1.0, kNaN, kInf, -kInf, 0.0}, kFloat64);
  EXPECT_TRUE(ref::matches(isnan(x), kBool, {5}, {0, 1, 0, 0, 0}));
  EXPECT_TRUE(ref::matches(x.isinf(), kBool, {5}, {0, 0, 1, 1, 0}));
  EXPECT_TRUE(ref::matches(isposinf(x), kBool, {5}, {0, 0, 1, 0, 0}));
  EXPECT_TRUE(ref::matches(isneginf(x), kBool, {5}, {0, 0, 0, 1, 0}));
  EXPECT_TRUE(ref::matches(x.isfinite(), kBool, {5}, {1, 0, 0, 0, 1}));
  Tensor i = tensor({1, 2});
  EXPECT_TRUE(ref::matches(isnan(i), kBool, {2}, {0, 0}));
  EXPECT_TRUE(ref::matches(isinf(i), kBool, {2}, {0, 0}));
  EXPECT_TRUE(ref::matches(isfinite(i), kBool, {2}, {1, 1}));
  EXPECT_TRUE(ref::matches(logical_xor(tensor({true, true, false}), tensor({1.0, 0.0, 0.0})), kBool,
                           {3}, {0, 1, 0}));
}

TEST(ElementwiseComposite, NanToNum) {
  Tensor x = tensor({kNaN, kInf, -kInf, 1.0});
  const double big = std::numeric_limits<float>::max();
  EXPECT_TRUE(ref::matches(nan_to_num(x), kFloat32, {4}, {0, big, -big, 1}));
  EXPECT_TRUE(ref::matches(x.nan_to_num(0.5, 100, -100), kFloat32, {4}, {0.5, 100, -100, 1}));
  EXPECT_TRUE(ref::matches(
      nan_to_num(x.to(kFloat64)), kFloat64, {4},
      {0, std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 1}));
  EXPECT_TRUE(ref::matches(nan_to_num(tensor({3, 4})), kInt64, {2}, {3, 4}));
  // the gradient is 0 where a value was replaced
  Tensor v = tensor({kNaN, 2.0, kInf}, kFloat64).requires_grad_();
  nan_to_num(v).sum().backward();
  EXPECT_TRUE(ref::matches(v.grad(), kFloat64, {3}, {0, 1, 0}));
}

TEST(ElementwiseComposite, IsClose) {
  ref::Rng rng(9);
  std::vector<double> a = ref::random_values(rng, 100, kFloat64, -2, 2), b = a;
  for (size_t i = 0; i < b.size(); ++i) b[i] += (i % 3 == 0 ? 1e-3 : i % 3 == 1 ? 1e-9 : 0.0);
  a[5] = kNaN, b[5] = kNaN, a[6] = kInf, b[6] = kInf, a[7] = kInf, b[7] = -kInf;
  std::vector<double> want, want_nan;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool close = a[i] == b[i] || (std::isfinite(std::abs(a[i] - b[i])) &&
                                        std::abs(a[i] - b[i]) <= 1e-8 + 1e-5 * std::abs(b[i]));
    want.push_back(close);
    want_nan.push_back(close || (std::isnan(a[i]) && std::isnan(b[i])));
  }
  Tensor ta = ref::make(a, {100}, kFloat64), tb = ref::make(b, {100}, kFloat64);
  EXPECT_TRUE(ref::matches(isclose(ta, tb), kBool, {100}, want));
  EXPECT_TRUE(ref::matches(ta.isclose(tb, 1e-5, 1e-8, true), kBool, {100}, want_nan));
  EXPECT_TRUE(ref::matches(isclose(tensor({1, 2}), tensor({1, 3}), 0, 0), kBool, {2}, {1, 0}));
  EXPECT_THROW(isclose(tensor({1.0}), tensor({1})), Error);
  // allclose and its method take equal_nan as LibTorch's (default false: NaN is close to nothing)
  Tensor n1 = tensor({1.0, kNaN}), n2 = tensor({1.0 + 1e-9, kNaN});
  EXPECT_FALSE(allclose(n1, n2));
  EXPECT_TRUE(allclose(n1, n2, 1e-5, 1e-8, true));
  EXPECT_TRUE(n1.allclose(n2, 1e-5, 1e-8, true));
  EXPECT_FALSE(n1.allclose(tensor({2.0, kNaN}), 1e-5, 1e-8, true));
  EXPECT_TRUE(tensor({1, 2}).equal(tensor({1, 2})));
  EXPECT_FALSE(tensor({1, 2}).equal(tensor({1, 3})));
}

TEST(ElementwiseComposite, LerpAddcmulAddcdiv) {
  // LibTorch: lerp([0, 10], [10, 20], 0.25) = [2.5, 12.5]; zeros(3).lerp(ones(3), [0, .5, 2])
  // = [0, .5, 2]; addcmul(ones(3), arange(3.), [2, 3, 4], 0.5) = [1, 2.5, 5];
  // ones(2).addcdiv([1, 2], [4, 8], 2) = [1.5, 1.5].
  EXPECT_TRUE(ref::matches(lerp(tensor({0.0, 10.0}), tensor({10.0, 20.0}), 0.25), kFloat32, {2},
                           {2.5, 12.5}));
  EXPECT_TRUE(ref::matches(zeros({3}).lerp(ones({3}), tensor({0.0, 0.5, 2.0})), kFloat32, {3},
                           {0, 0.5, 2}));
  EXPECT_TRUE(ref::matches(addcmul(ones({3}), arange(3.), tensor({2.0, 3.0, 4.0}), 0.5), kFloat32,
                           {3}, {1, 2.5, 5}));
  EXPECT_TRUE(ref::matches(ones({2}).addcdiv(tensor({1.0, 2.0}), tensor({4.0, 8.0}), 2), kFloat32,
                           {2}, {1.5, 1.5}));
  // lerp is exact at both ends, for weights on both sides of 0.5
  Tensor s = tensor({0.1, -3.7}, kFloat64), e = tensor({2.9, 1e-3}, kFloat64);
  EXPECT_TRUE(ref::matches(lerp(s, e, 0.0), kFloat64, {2}, {0.1, -3.7}, 0, 0));
  EXPECT_TRUE(ref::matches(lerp(s, e, 1.0), kFloat64, {2}, {2.9, 1e-3}, 0, 0));
  EXPECT_THROW(lerp(tensor({1}), tensor({2}), 0.5), Error);
  EXPECT_THROW(addcdiv(ones({2}), tensor({1, 2}), tensor({1, 2})), Error);
}

TEST(ElementwiseComposite, RoundDecimalsSignAndFriends) {
  // LibTorch: round([0.5, 1.5, 2.5, -0.5, -2.5]) = [0, 2, 2, -0, -2] (half to even);
  // tensor([1.2345, -2.5678]).round(2) = [1.23, -2.57]; round(1234.5, -2) = 1200.
  EXPECT_TRUE(
      ref::matches(round(tensor({0.5, 1.5, 2.5, -0.5, -2.5})), kFloat32, {5}, {0, 2, 2, -0.0, -2}));
  EXPECT_TRUE(ref::matches(tensor({1.2345, -2.5678}).round(2), kFloat32, {2}, {1.23, -2.57}, 1e-6));
  EXPECT_TRUE(ref::matches(round(tensor({1234.5}), -2), kFloat32, {1}, {1200}));
  EXPECT_TRUE(ref::matches(tensor({-4, 0, 7}).sign(), kInt64, {3}, {-1, 0, 1}));
  EXPECT_TRUE(ref::matches(sgn(tensor({-2.5, 0.0, 3.0})), kFloat32, {3}, {-1, 0, 1}));
  EXPECT_TRUE(ref::matches(floor(tensor({3, -3})), kInt64, {2}, {3, -3}));
  EXPECT_TRUE(ref::matches(tensor({-1.75, 2.25}).frac(), kFloat32, {2}, {-0.75, 0.25}));
  EXPECT_TRUE(ref::matches(square(tensor({-3, 4})), kInt64, {2}, {9, 16}));
  EXPECT_TRUE(ref::matches(tensor({2, 4}).reciprocal(), kFloat32, {2}, {0.5, 0.25}));
  EXPECT_TRUE(ref::matches(rsub(tensor({1.0, 2.0}), 5), kFloat32, {2}, {4, 3}));
  EXPECT_TRUE(ref::matches(true_divide(tensor({3}), tensor({2})), kFloat32, {1}, {1.5}));
  EXPECT_TRUE(ref::matches(max(tensor({1, 5}), tensor({3, 2})), kInt64, {2}, {3, 5}));
  EXPECT_TRUE(ref::matches(logspace(0, 3, 4, 2.0), kFloat32, {4}, {1, 2, 4, 8}));
  EXPECT_TRUE(
      ref::matches(clamp(arange(4.), tensor({1.0, 0.0, 0.0, 0.0}), tensor({3.0, 3.0, 1.0, 2.0})),
                   kFloat32, {4}, {1, 1, 1, 2}));
  // erfinv inverts erf
  Tensor p = tensor({-0.999, -0.5, 0.0, 0.3, 0.9}, kFloat64);
  EXPECT_TRUE(ref::matches(erf(erfinv(p)), kFloat64, {5}, ref::values(p), 1e-12, 1e-14));
}

TEST(ElementwiseComposite, InPlaceForms) {
  Tensor x = tensor({4.0, 9.0});
  x.sqrt_();
  EXPECT_TRUE(ref::matches(x, kFloat32, {2}, {2, 3}));
  x.pow_(2).relu_();
  EXPECT_TRUE(ref::matches(x, kFloat32, {2}, {4, 9}));
  EXPECT_THROW(tensor({4, 9}).sqrt_(), Error);  // float result into int64
  Tensor i = tensor({4, -9});
  i.abs().floor_();
  i.remainder_(4);
  EXPECT_TRUE(ref::matches(i, kInt64, {2}, {0, 3}));
  Tensor c = arange(4.);
  c.gt_(1.5);
  EXPECT_TRUE(ref::matches(c, kFloat32, {4}, {0, 0, 1, 1}));
  Tensor leaf = tensor({1.0}, TensorOptions().requires_grad(true));
  EXPECT_THROW(leaf.exp_(), Error);  // a leaf that requires grad
}

}  // namespace
