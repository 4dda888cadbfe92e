// Elementwise ops against naive references over random shapes, layouts (transposed, stepped,
// offset, expanded) and dtypes: unary, binary, tensor-scalar and their operator forms.
// where, masked_fill, clamp and the in-place forms are in test_elementwise_inplace.cpp.
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

// ---- unary ----

enum class Result { Same, Float, Bool };  // result dtype: input's, float (ints -> float32), bool

struct UnaryCase {
  const char* name;
  Tensor (*fn)(const Tensor&);
  Tensor (Tensor::*method)() const;
  std::function<double(double)> ref;
  Result result;
  bool ints;  // int inputs supported (PyTorch semantics)
  bool bools;
  double lo, hi;
};

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"neg", ember::neg, &Tensor::neg, [](double x) { return -x; }, Result::Same, true, false, -3,
       3},
      {"abs", ember::abs, &Tensor::abs, [](double x) { return std::abs(x); }, Result::Same, true,
       false, -3, 3},
      {"relu", ember::relu, &Tensor::relu, [](double x) { return x > 0 ? x : 0; }, Result::Same,
       true, false, -3, 3},
// the rows of core/elementwise.def: the row's std:: reference in double and its domain
#define EMBER_UNARY_FLOAT(name, formula, reference, node, saved, derivative, lo, hi, gap)         \
  {#name,                                                                                         \
   ember::name,                                                                                   \
   &Tensor::name,                                                                                 \
   [](double x) { return reference; },                                                            \
   Result::Float,                                                                                 \
   /* LibTorch's gelu refuses integers (a test of its own below) */ std::string(#name) != "gelu", \
   std::string(#name) != "gelu",                                                                  \
   lo,                                                                                            \
   hi},
// the rows that keep their dtype (floor, ...): integers in, the same integers out
#define EMBER_UNARY_SAME(name, formula, reference, node, saved, derivative, lo, hi, gap) \
  {#name, ember::name, &Tensor::name, [](double x) { return reference; }, Result::Same, true, false,       \
   lo,    hi},
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_UNARY_SAME
      {"logical_not", ember::logical_not, &Tensor::logical_not,
       [](double x) { return x == 0 ? 1 : 0; }, Result::Bool, true, true, -2, 2},
      // the operator forms: unary minus and operator!
      {"unary -", [](const Tensor& t) { return -t; }, &Tensor::neg, [](double x) { return -x; },
       Result::Same, true, false, -3, 3},
      {"operator!", [](const Tensor& t) { return !t; }, &Tensor::logical_not,
       [](double x) { return x == 0 ? 1 : 0; }, Result::Bool, true, true, -2, 2},
  };
  return cases;
}

TEST(Unary, AgainstReferenceAllDtypesAndLayouts) {
  ref::Rng rng(31);
  for (const UnaryCase& c : unary_cases()) {
    for (ScalarType dt : ref::all_dtypes()) {
      if (!ref::is_float(dt) && !c.ints) continue;
      if (dt == kBool && !c.bools) continue;
      for (int rep = 0; rep < 12; ++rep) {
        Shape s = ref::random_shape(rng);
        Operand x = operand(rng, s, dt, c.lo, c.hi);
        ScalarType out_dt = c.result == Result::Same   ? dt
                            : c.result == Result::Bool ? kBool
                                                       : ref::to_float(dt);
        SCOPED_TRACE(std::string(c.name) + " " + ref::name(dt) + " " + ref::str(s));
        std::vector<double> want;
        for (double e : x.v) want.push_back(ref::cast_to(out_dt, c.ref(e)));
        EXPECT_TRUE(ref::matches(c.fn(x.t), out_dt, s, want, rtol_for(out_dt), atol_for(out_dt)));
        EXPECT_TRUE(
            ref::matches((x.t.*c.method)(), out_dt, s, want, rtol_for(out_dt), atol_for(out_dt)));
        EXPECT_TRUE(ref::matches(x.t, dt, s, x.v)) << "the input is untouched";
      }
    }
  }
}

// LibTorch 2.15's outputs: gelu refuses integers ("GeluKernelImpl" not implemented for 'Long');
// 0.5 - int64 [1, 2] is int64 [-1, -2]; 1 / int64 [2, 4] throws (the cast of div_).
TEST(Unary, GeluRefusesIntegersAsLibTorch) {
  EXPECT_THROW(gelu(tensor({1, 2})), Error);
  EXPECT_THROW(gelu(tensor({true})), Error);
  EXPECT_TRUE(ref::matches(0.5 - tensor({1, 2}), kInt64, {2}, {-1, -2}));
  EXPECT_THROW(1 / tensor({2, 4}), Error);
  EXPECT_TRUE(ref::matches(1 / tensor({2.0, 4.0}), kFloat32, {2}, {0.5, 0.25}));
}

TEST(Unary, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = tensor({0.0, -0.0, inf, -inf, 1e-300, 1000.0, -1000.0}, kFloat64);
  EXPECT_TRUE(ref::matches(exp(x), kFloat64, {7}, {1, 1, inf, 0, 1, inf, 0}));
  EXPECT_TRUE(ref::matches(sigmoid(x), kFloat64, {7}, {0.5, 0.5, 1, 0, 0.5, 1, 0}, 1e-15));
  EXPECT_TRUE(ref::matches(tanh(x), kFloat64, {7}, {0, 0, 1, -1, 1e-300, 1, -1}, 1e-15));
  EXPECT_TRUE(ref::matches(relu(x), kFloat64, {7}, {0, 0, inf, 0, 1e-300, 1000, 0}));
  EXPECT_TRUE(ref::matches(log(tensor({0.0f, -1.0f})), kFloat32, {2}, {-inf, NAN}));
  EXPECT_TRUE(ref::matches(sqrt(tensor({-1.0f})), kFloat32, {1}, {NAN}));
  EXPECT_TRUE(ref::matches(rsqrt(tensor({0.0f})), kFloat32, {1}, {inf}));
  EXPECT_TRUE(
      ref::matches(log1p(tensor({1e-10}, kFloat64)), kFloat64, {1}, {std::log1p(1e-10)}, 1e-14));
  EXPECT_TRUE(ref::matches(abs(tensor({int64_t(-5), int64_t(5)})), kInt64, {2}, {5, 5}));
  // uint8 wraps, as in PyTorch
  EXPECT_TRUE(ref::matches(neg(tensor({uint8_t(1), uint8_t(0)})), kUInt8, {2}, {255, 0}));
  // large-magnitude float32 sigmoid: no overflow to NaN
  EXPECT_TRUE(ref::matches(sigmoid(tensor({-100.0f, 100.0f})), kFloat32, {2}, {0, 1}, 0, 1e-30));
}

// ---- binary tensor-tensor ----

// Which dtypes a binary op takes: any; integer and bool only (bitwise); integers only
// (shifts); any but with a nonzero divisor when it is an integer (fmod, remainder, ...).
enum class Accepts { Any, Bits, Integer, NonzeroIntDivisor };

struct BinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  std::function<double(double, double)> ref;
  Result result;  // Same: promoted type; Float: promoted, ints -> float32; Bool
  bool bools;     // bool inputs allowed (PyTorch semantics)
  Accepts accepts = Accepts::Any;
};

enum class RowTypes { All, Numeric, Float, Bits, Integer };  // core/elementwise.def's
constexpr Result row_result(RowTypes t) {
  return t == RowTypes::Float ? Result::Float : Result::Same;
}
constexpr bool row_bools(RowTypes t) {
  return t == RowTypes::All || t == RowTypes::Float || t == RowTypes::Bits;
}
// The Numeric rows divide (fmod, remainder, floor_divide): they refuse an integer divisor of
// 0 (ZeroDivisionError, as LibTorch's CPU).
constexpr Accepts row_accepts(RowTypes t) {
  return t == RowTypes::Bits      ? Accepts::Bits
         : t == RowTypes::Integer ? Accepts::Integer
         : t == RowTypes::Numeric ? Accepts::NonzeroIntDivisor
                                  : Accepts::Any;
}

const std::vector<BinaryCase>& binary_cases() {
  auto eqf = [](double a, double b) -> double { return a == b; };
  static const std::vector<BinaryCase> cases = {
      {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); },
       [](double a, double b) { return a + b; }, Result::Same, true},
      {"operator+", [](const Tensor& a, const Tensor& b) { return a + b; },
       [](double a, double b) { return a + b; }, Result::Same, true},
      {"add(alpha=2)", [](const Tensor& a, const Tensor& b) { return a.add(b, 2); },
       [](double a, double b) { return a + 2 * b; }, Result::Same, false},
      {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); },
       [](double a, double b) { return a - b; }, Result::Same, false},
      {"operator-", [](const Tensor& a, const Tensor& b) { return a - b; },
       [](double a, double b) { return a - b; }, Result::Same, false},
      {"sub(alpha=3)", [](const Tensor& a, const Tensor& b) { return a.sub(b, 3); },
       [](double a, double b) { return a - 3 * b; }, Result::Same, false},
      {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); },
       [](double a, double b) { return a * b; }, Result::Same, true},
      {"operator*", [](const Tensor& a, const Tensor& b) { return a * b; },
       [](double a, double b) { return a * b; }, Result::Same, true},
      {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); },
       [](double a, double b) { return a / b; }, Result::Float, true},
      {"operator/", [](const Tensor& a, const Tensor& b) { return a / b; },
       [](double a, double b) { return a / b; }, Result::Float, true},
// the binary rows of core/elementwise.def, as functions and as methods
#define EMBER_BINARY(name, types, formula, reference, ...)             \
  {#name,                                                              \
   [](const Tensor& a, const Tensor& b) { return ember::name(a, b); }, \
   [](double a, double b) -> double { return reference; },             \
   row_result(RowTypes::types),                                        \
   row_bools(RowTypes::types),                                         \
   row_accepts(RowTypes::types)},                                      \
      {#name " method",                                                \
       [](const Tensor& a, const Tensor& b) { return a.name(b); },     \
       [](double a, double b) -> double { return reference; },         \
       row_result(RowTypes::types),                                    \
       row_bools(RowTypes::types),                                     \
       row_accepts(RowTypes::types)},
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
      {"eq", [](const Tensor& a, const Tensor& b) { return eq(a, b); }, eqf, Result::Bool, true},
      {"operator==", [](const Tensor& a, const Tensor& b) { return a == b; }, eqf, Result::Bool,
       true},
      {"ne", [](const Tensor& a, const Tensor& b) { return a != b; },
       [](double a, double b) -> double { return a != b; }, Result::Bool, true},
      {"lt", [](const Tensor& a, const Tensor& b) { return lt(a, b); },
       [](double a, double b) -> double { return a < b; }, Result::Bool, true},
      {"le", [](const Tensor& a, const Tensor& b) { return a <= b; },
       [](double a, double b) -> double { return a <= b; }, Result::Bool, true},
      {"gt", [](const Tensor& a, const Tensor& b) { return a.gt(b); },
       [](double a, double b) -> double { return a > b; }, Result::Bool, true},
      {"ge", [](const Tensor& a, const Tensor& b) { return ge(a, b); },
       [](double a, double b) -> double { return a >= b; }, Result::Bool, true},
      {"operator>", [](const Tensor& a, const Tensor& b) { return a > b; },
       [](double a, double b) -> double { return a > b; }, Result::Bool, true},
      {"operator<", [](const Tensor& a, const Tensor& b) { return a < b; },
       [](double a, double b) -> double { return a < b; }, Result::Bool, true},
      {"operator>=", [](const Tensor& a, const Tensor& b) { return a >= b; },
       [](double a, double b) -> double { return a >= b; }, Result::Bool, true},
      {"logical_and", [](const Tensor& a, const Tensor& b) { return logical_and(a, b); },
       [](double a, double b) -> double { return a != 0 && b != 0; }, Result::Bool, true},
      {"operator&&", [](const Tensor& a, const Tensor& b) { return a && b; },
       [](double a, double b) -> double { return a != 0 && b != 0; }, Result::Bool, true},
      {"logical_or", [](const Tensor& a, const Tensor& b) { return a.logical_or(b); },
       [](double a, double b) -> double { return a != 0 || b != 0; }, Result::Bool, true},
      {"operator||", [](const Tensor& a, const Tensor& b) { return a || b; },
       [](double a, double b) -> double { return a != 0 || b != 0; }, Result::Bool, true},
  };
  return cases;
}

ScalarType binary_result(Result r, const Tensor& a, const Tensor& b) {
  ScalarType p = ref::result_type(a, b);
  return r == Result::Bool ? kBool : r == Result::Float ? ref::to_float(p) : p;
}

TEST(Binary, AgainstReferenceWithBroadcastingLayoutsAndDtypes) {
  ref::Rng rng(32);
  const auto& dts = ref::all_dtypes();
  for (int rep = 0; rep < 60; ++rep) {
    auto shapes = ref::broadcastable_shapes(rng);
    Shape out = ref::broadcast(shapes.first, shapes.second);
    ScalarType da = dts[static_cast<size_t>(rep % 6)];
    // two thirds same dtype, one third a mixed pair
    ScalarType db = rep % 3 ? da : dts[static_cast<size_t>(ref::randint(rng, 0, 5))];
    Operand a = operand(rng, shapes.first, da), b = operand(rng, shapes.second, db);
    for (const BinaryCase& c : binary_cases()) {
      if ((da == kBool || db == kBool) && !c.bools) continue;
      const bool floats = ref::is_float(da) || ref::is_float(db);
      if (c.accepts == Accepts::Bits || c.accepts == Accepts::Integer) {
        if (floats) {
          EXPECT_THROW(c.fn(a.t, b.t), Error) << c.name << " of floats";
          continue;
        }
        if (c.accepts == Accepts::Integer && (da == kBool || db == kBool)) continue;
      }
      if (c.accepts == Accepts::NonzeroIntDivisor && !floats &&
          std::count(b.v.begin(), b.v.end(), 0.0)) {
        EXPECT_THROW(c.fn(a.t, b.t), Error) << c.name << ": integer division by zero";
        continue;
      }
      ScalarType rt = binary_result(c.result, a.t, b.t);
      ScalarType compute = c.result == Result::Bool ? ref::result_type(a.t, b.t) : rt;
      SCOPED_TRACE(std::string(c.name) + " " + ref::name(da) + ref::str(shapes.first) + ", " +
                   ref::name(db) + ref::str(shapes.second));
      std::vector<double> want(static_cast<size_t>(ref::numel(out)));
      for (int64_t k = 0; k < ref::numel(out); ++k) {
        Shape idx = ref::unravel(k, out);
        double x = ref::cast_to(compute, ref::at_broadcast(a.v, a.s, idx));
        double y = ref::cast_to(compute, ref::at_broadcast(b.v, b.s, idx));
        want[static_cast<size_t>(k)] = ref::cast_to(rt, c.ref(x, y));
      }
      EXPECT_TRUE(ref::matches(c.fn(a.t, b.t), rt, out, want, rtol_for(rt), atol_for(rt)));
    }
  }
}

TEST(Binary, Pow) {
  ref::Rng rng(33);
  for (ScalarType dt : ref::numeric_dtypes()) {
    for (int rep = 0; rep < 10; ++rep) {
      auto shapes = ref::broadcastable_shapes(rng);
      Shape out = ref::broadcast(shapes.first, shapes.second);
      bool fl = ref::is_float(dt);
      // float: positive bases, any exponent; int: nonnegative exponents (PyTorch rejects
      // negative integer powers of integers)
      Operand a = operand(rng, shapes.first, dt, 0.1, 3);
      Operand b = fl ? operand(rng, shapes.second, dt, -2, 2) : operand(rng, shapes.second, dt);
      if (!fl)
        for (auto& e : b.v) e = std::abs(e) > 3 ? 2 : std::abs(e);
      if (!fl) b.t = ref::make_layout(b.v, b.s, dt, random_layout(rng));
      SCOPED_TRACE(ref::name(dt) + ref::str(shapes.first) + " ** " + ref::str(shapes.second));
      std::vector<double> want(static_cast<size_t>(ref::numel(out)));
      for (int64_t k = 0; k < ref::numel(out); ++k) {
        Shape idx = ref::unravel(k, out);
        want[static_cast<size_t>(k)] = ref::cast_to(
            dt, std::pow(ref::at_broadcast(a.v, a.s, idx), ref::at_broadcast(b.v, b.s, idx)));
      }
      EXPECT_TRUE(ref::matches(pow(a.t, b.t), dt, out, want, rtol_for(dt), atol_for(dt)));
      EXPECT_TRUE(ref::matches(a.t.pow(b.t), dt, out, want, rtol_for(dt), atol_for(dt)));
    }
  }
  // uint8 wraps like PyTorch: 20^3 = 8000 = 64 (mod 256)
  EXPECT_TRUE(ref::matches(pow(tensor({uint8_t(20)}), tensor({uint8_t(3)})), kUInt8, {1}, {64}));
}

// ---- tensor-scalar ----

// PyTorch's rule: a scalar of a higher category (bool < int < float) than the tensor gives the
// default type of its category (int64, float32); otherwise the tensor's dtype wins.
ScalarType scalar_result(ScalarType t, const Scalar& s) {
  int ct = t == kBool ? 0 : ref::is_float(t) ? 2 : 1;
  int cs = s.isBoolean() ? 0 : s.isIntegral() ? 1 : 2;
  if (cs > ct) return cs == 1 ? kInt64 : kFloat32;
  return t;
}

struct ScalarCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Scalar&)> fn;
  std::function<double(double, double)> ref;  // (tensor element, scalar)
  Result result;
  bool bools;
};

const std::vector<ScalarCase>& scalar_cases() {
  static const std::vector<ScalarCase> cases = {
      {"add", [](const Tensor& a, const Scalar& s) { return add(a, s); },
       [](double a, double s) { return a + s; }, Result::Same, true},
      {"t + s", [](const Tensor& a, const Scalar& s) { return a + s; },
       [](double a, double s) { return a + s; }, Result::Same, true},
      {"s + t", [](const Tensor& a, const Scalar& s) { return s + a; },
       [](double a, double s) { return s + a; }, Result::Same, true},
      {"add(alpha=2)", [](const Tensor& a, const Scalar& s) { return a.add(s, 2); },
       [](double a, double s) { return a + 2 * s; }, Result::Same, false},
      {"sub", [](const Tensor& a, const Scalar& s) { return sub(a, s); },
       [](double a, double s) { return a - s; }, Result::Same, false},
      {"t - s", [](const Tensor& a, const Scalar& s) { return a - s; },
       [](double a, double s) { return a - s; }, Result::Same, false},
      {"s - t", [](const Tensor& a, const Scalar& s) { return s - a; },
       [](double a, double s) { return s - a; }, Result::Same, false},
      {"mul", [](const Tensor& a, const Scalar& s) { return a.mul(s); },
       [](double a, double s) { return a * s; }, Result::Same, true},
      {"s * t", [](const Tensor& a, const Scalar& s) { return s * a; },
       [](double a, double s) { return s * a; }, Result::Same, true},
      {"div", [](const Tensor& a, const Scalar& s) { return div(a, s); },
       [](double a, double s) { return a / s; }, Result::Float, true},
      {"s / t", [](const Tensor& a, const Scalar& s) { return s / a; },
       [](double a, double s) { return s / a; }, Result::Float, true},
      {"eq", [](const Tensor& a, const Scalar& s) { return a.eq(s); },
       [](double a, double s) -> double { return a == s; }, Result::Bool, true},
      {"t == s", [](const Tensor& a, const Scalar& s) { return a == s; },
       [](double a, double s) -> double { return a == s; }, Result::Bool, true},
      {"ne", [](const Tensor& a, const Scalar& s) { return ne(a, s); },
       [](double a, double s) -> double { return a != s; }, Result::Bool, true},
      {"lt", [](const Tensor& a, const Scalar& s) { return a < s; },
       [](double a, double s) -> double { return a < s; }, Result::Bool, true},
      {"le", [](const Tensor& a, const Scalar& s) { return le(a, s); },
       [](double a, double s) -> double { return a <= s; }, Result::Bool, true},
      {"gt", [](const Tensor& a, const Scalar& s) { return a > s; },
       [](double a, double s) -> double { return a > s; }, Result::Bool, true},
      {"ge", [](const Tensor& a, const Scalar& s) { return a.ge(s); },
       [](double a, double s) -> double { return a >= s; }, Result::Bool, true},
      {"t != s", [](const Tensor& a, const Scalar& s) { return a != s; },
       [](double a, double s) -> double { return a != s; }, Result::Bool, true},
      {"t <= s", [](const Tensor& a, const Scalar& s) { return a <= s; },
       [](double a, double s) -> double { return a <= s; }, Result::Bool, true},
      {"t >= s", [](const Tensor& a, const Scalar& s) { return a >= s; },
       [](double a, double s) -> double { return a >= s; }, Result::Bool, true},
  };
  return cases;
}

// LibTorch's Scalar::operator- and Scalar::equal (the alpha forms of add/sub and their
// backward use them).
TEST(Scalar, NegationAndEqualAsLibTorch) {
  EXPECT_TRUE((-Scalar(2.5)).isFloatingPoint());
  EXPECT_EQ((-Scalar(2.5)).toDouble(), -2.5);
  EXPECT_TRUE((-Scalar(3)).isIntegral());
  EXPECT_EQ((-Scalar(3)).toLong(), -3);
  EXPECT_EQ((-Scalar(int64_t(1) << 62)).toLong(), -(int64_t(1) << 62));  // no trip through double
  EXPECT_TRUE(Scalar(1).equal(1));
  EXPECT_TRUE(Scalar(1.0).equal(1));
  EXPECT_TRUE(Scalar(1).equal(1.0));
  EXPECT_FALSE(Scalar(1.5).equal(1));
  EXPECT_TRUE(Scalar(true).equal(1));
  EXPECT_FALSE(Scalar(false).equal(1));
  EXPECT_FALSE(Scalar((int64_t(1) << 53) + 1).equal(int64_t(1) << 53));  // integers exactly
  // sub with an alpha negates alpha * b: integer math stays exact.
  const Tensor a = ember::full({2}, int64_t(1) << 60, ember::kInt64);
  EXPECT_EQ(ember::sub(a, a, 1).sum().item<int64_t>(), 0);
  EXPECT_EQ(ember::sub(a, ember::ones({2}, ember::kInt64), -3)[0].item<int64_t>(),
            (int64_t(1) << 60) + 3);
}

TEST(Scalar, AgainstReferenceEveryDtypeAndScalarKind) {
  ref::Rng rng(34);
  const std::vector<Scalar> scalars = {Scalar(true), Scalar(3), Scalar(-2), Scalar(2.5),
                                       Scalar(-0.75)};
  for (ScalarType dt : ref::all_dtypes()) {
    for (int rep = 0; rep < 4; ++rep) {
      Shape s = ref::random_shape(rng);
      Operand a = operand(rng, s, dt);
      for (const Scalar& sc : scalars) {
        for (const ScalarCase& c : scalar_cases()) {
          bool any_bool = dt == kBool || sc.isBoolean();
          if (any_bool && !c.bools) continue;
          if (dt == kUInt8 && sc.isIntegral() && sc.toLong() < 0) continue;  // out of range
          const std::string name = c.name;
          if (name == "s / t" && !ref::is_float(dt)) {  // LibTorch: fill_(s).div_(t) in t's dtype
            EXPECT_THROW(c.fn(a.t, sc), Error);
            continue;
          }
          // LibTorch's C++ s - t is empty_like(t).fill_(s).sub_(t): t's dtype, s converted.
          ScalarType st = name == "s - t" ? dt : scalar_result(dt, sc);
          ScalarType rt = c.result == Result::Bool    ? kBool
                          : c.result == Result::Float ? ref::to_float(st)
                                                      : st;
          ScalarType compute = c.result == Result::Bool ? st : rt;
          std::string sname = std::to_string(sc.toDouble()) + (sc.isBoolean() ? " (bool)" : "");
          SCOPED_TRACE(std::string(c.name) + " " + ref::name(dt) + ref::str(s) + " " + sname);
          double sv = ref::cast_to(compute, sc.toDouble());
          std::vector<double> want;
          for (double e : a.v)
            want.push_back(ref::cast_to(rt, c.ref(ref::cast_to(compute, e), sv)));
          EXPECT_TRUE(ref::matches(c.fn(a.t, sc), rt, s, want, rtol_for(rt), atol_for(rt)));
        }
      }
    }
  }
}

TEST(Scalar, PowForms) {
  ref::Rng rng(35);
  for (ScalarType dt : ref::numeric_dtypes()) {
    Shape s = ref::random_shape(rng, 1, 3);
    bool fl = ref::is_float(dt);
    Operand a = operand(rng, s, dt, 0.1, 3);
    for (Scalar e : {Scalar(2), Scalar(0), Scalar(3), Scalar(0.5), Scalar(-1.5)}) {
      if (!fl && e.isFloatingPoint() && e.toDouble() < 0) continue;
      ScalarType rt = scalar_result(dt, e);
      std::vector<double> want;
      for (double x : a.v) want.push_back(ref::cast_to(rt, std::pow(x, e.toDouble())));
      EXPECT_TRUE(ref::matches(pow(a.t, e), rt, s, want, rtol_for(rt), atol_for(rt)))
          << ref::name(dt) << " ** " << e.toDouble();
      EXPECT_TRUE(ref::matches(a.t.pow(e), rt, s, want, rtol_for(rt), atol_for(rt)));
    }
    // scalar base: 2 ** t
    Operand b = operand(rng, s, dt, -2, 2);
    if (!fl)
      for (auto& x : b.v) x = std::abs(x) > 5 ? 5 : std::abs(x);
    if (!fl) b.t = ref::make_layout(b.v, s, dt, random_layout(rng));
    for (Scalar base : {Scalar(2), Scalar(1.5)}) {
      ScalarType rt = scalar_result(dt, base);
      std::vector<double> want;
      for (double x : b.v) want.push_back(ref::cast_to(rt, std::pow(base.toDouble(), x)));
      EXPECT_TRUE(ref::matches(pow(base, b.t), rt, s, want, rtol_for(rt), atol_for(rt)))
          << base.toDouble() << " ** " << ref::name(dt);
    }
  }
}

}  // namespace
