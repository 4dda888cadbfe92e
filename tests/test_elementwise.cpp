// Elementwise ops against naive references over random shapes, layouts (transposed, stepped,
// offset, expanded) and dtypes: unary, binary, tensor-scalar, where, masked_fill, clamp,
// operators, compound assignment and the in-place forms.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "reference.h"

using namespace ember;
using ref::Layout;
using ref::Shape;

namespace {

double rtol_for(ScalarType t) { return t == kFloat32 ? 1e-5 : t == kFloat64 ? 1e-12 : 0; }
double atol_for(ScalarType t) { return t == kFloat32 ? 1e-6 : t == kFloat64 ? 1e-13 : 0; }

Layout random_layout(ref::Rng& rng) {
  return ref::all_layouts()[static_cast<size_t>(ref::randint(rng, 0, 3))];
}

// An operand with logical shape s: either a random layout of its own values, or (sometimes)
// a stride-0 expand of a smaller tensor, so broadcast views are inputs too.
struct Operand {
  Tensor t;
  std::vector<double> v;
  Shape s;
};
Operand operand(ref::Rng& rng, const Shape& s, ScalarType dt, double lo = -3, double hi = 3) {
  Operand o{Tensor(), {}, s};
  if (!s.empty() && ref::randint(rng, 0, 3) == 0) {
    Shape small = s;
    small[static_cast<size_t>(ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1))] = 1;
    std::vector<double> sv = ref::random_values(rng, ref::numel(small), dt, lo, hi);
    o.t = ref::make_layout(sv, small, dt, random_layout(rng)).expand(s);
    o.v.resize(static_cast<size_t>(ref::numel(s)));
    for (int64_t k = 0; k < ref::numel(s); ++k)
      o.v[static_cast<size_t>(k)] = ref::at_broadcast(sv, small, ref::unravel(k, s));
    return o;
  }
  o.v = ref::random_values(rng, ref::numel(s), dt, lo, hi);
  o.t = ref::make_layout(o.v, s, dt, random_layout(rng));
  return o;
}

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

double gelu_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"neg", ember::neg, &Tensor::neg, [](double x) { return -x; }, Result::Same, true, false, -3,
       3},
      {"abs", ember::abs, &Tensor::abs, [](double x) { return std::abs(x); }, Result::Same, true,
       false, -3, 3},
      {"exp", ember::exp, &Tensor::exp, [](double x) { return std::exp(x); }, Result::Float, true,
       true, -5, 5},
      {"log", ember::log, &Tensor::log, [](double x) { return std::log(x); }, Result::Float, true,
       true, 0.01, 5},
      {"log1p", ember::log1p, &Tensor::log1p, [](double x) { return std::log1p(x); }, Result::Float,
       true, true, -0.9, 5},
      {"sqrt", ember::sqrt, &Tensor::sqrt, [](double x) { return std::sqrt(x); }, Result::Float,
       true, true, 0, 9},
      {"rsqrt", ember::rsqrt, &Tensor::rsqrt, [](double x) { return 1 / std::sqrt(x); },
       Result::Float, true, true, 0.01, 9},
      {"sin", ember::sin, &Tensor::sin, [](double x) { return std::sin(x); }, Result::Float, true,
       true, -6, 6},
      {"cos", ember::cos, &Tensor::cos, [](double x) { return std::cos(x); }, Result::Float, true,
       true, -6, 6},
      {"tanh", ember::tanh, &Tensor::tanh, [](double x) { return std::tanh(x); }, Result::Float,
       true, true, -5, 5},
      {"sigmoid", ember::sigmoid, &Tensor::sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); },
       Result::Float, true, true, -8, 8},
      {"relu", ember::relu, &Tensor::relu, [](double x) { return x > 0 ? x : 0; }, Result::Same,
       true, false, -3, 3},
      {"gelu", ember::gelu, &Tensor::gelu, gelu_ref, Result::Float, false, false, -4, 4},
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

TEST(Unary, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = tensor({0.0, -0.0, inf, -inf, 1e-300, 1000.0, -1000.0});
  EXPECT_TRUE(ref::matches(exp(x), kFloat64, {7}, {1, 1, inf, 0, 1, inf, 0}));
  EXPECT_TRUE(ref::matches(sigmoid(x), kFloat64, {7}, {0.5, 0.5, 1, 0, 0.5, 1, 0}, 1e-15));
  EXPECT_TRUE(ref::matches(tanh(x), kFloat64, {7}, {0, 0, 1, -1, 1e-300, 1, -1}, 1e-15));
  EXPECT_TRUE(ref::matches(relu(x), kFloat64, {7}, {0, 0, inf, 0, 1e-300, 1000, 0}));
  EXPECT_TRUE(ref::matches(log(tensor({0.0f, -1.0f})), kFloat32, {2}, {-inf, NAN}));
  EXPECT_TRUE(ref::matches(sqrt(tensor({-1.0f})), kFloat32, {1}, {NAN}));
  EXPECT_TRUE(ref::matches(rsqrt(tensor({0.0f})), kFloat32, {1}, {inf}));
  EXPECT_TRUE(ref::matches(log1p(tensor({1e-10})), kFloat64, {1}, {std::log1p(1e-10)}, 1e-14));
  EXPECT_TRUE(ref::matches(abs(tensor({int64_t(-5), int64_t(5)})), kInt64, {2}, {5, 5}));
  // uint8 wraps, as in PyTorch
  EXPECT_TRUE(ref::matches(neg(tensor({uint8_t(1), uint8_t(0)})), kUInt8, {2}, {255, 0}));
  // large-magnitude float32 sigmoid: no overflow to NaN
  EXPECT_TRUE(ref::matches(sigmoid(tensor({-100.0f, 100.0f})), kFloat32, {2}, {0, 1}, 0, 1e-30));
}

// ---- binary tensor-tensor ----

struct BinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;
  std::function<double(double, double)> ref;
  Result result;  // Same: promoted type; Float: promoted, ints -> float32; Bool
  bool bools;     // bool inputs allowed (PyTorch semantics)
};

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
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); },
       [](double a, double b) { return std::max(a, b); }, Result::Same, true},
      {"minimum", [](const Tensor& a, const Tensor& b) { return a.minimum(b); },
       [](double a, double b) { return std::min(a, b); }, Result::Same, true},
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
          ScalarType st = scalar_result(dt, sc);
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
