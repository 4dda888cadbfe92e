// Gradcheck entries of the elementwise ops: arithmetic (tensor and scalar forms, the scalar
// operators), pow, maximum/minimum, the unary math, clamp, where, masked_fill, and the
// in-place forms (add_ ... fill_/zero_), which start from a non-leaf.
#include "op_table.h"

namespace optable {
namespace {

using ember::kFloat64;
using ember::Tensor;
using ember::TensorOptions;

// A float64 leaf with the given values, reshaped to `shape`.
Tensor leaf(const std::vector<double>& v, const Shape& shape, Device d) {
  Tensor t = ember::tensor(v, TensorOptions().dtype(kFloat64).device(d)).reshape(shape);
  return t.detach().requires_grad_(true);
}

// Samples of a unary op with values in [lo, hi) kept `gap` away from 0.
std::function<std::vector<Sample>(Device)> unary(double lo = -2, double hi = 2, double gap = 0) {
  return [=](Device d) {
    return std::vector<Sample>{
        {"[2, 3]", {input({2, 3}, d, Layout::Contiguous, lo, hi, gap)}},
        {"transposed [3, 4]", {input({3, 4}, d, Layout::Transposed, lo, hi, gap)}},
        {"stepped [2, 1, 3]", {input({2, 1, 3}, d, Layout::Stepped, lo, hi, gap)}},
        {"0-dim", {input({}, d, Layout::Contiguous, lo, hi, gap)}}};
  };
}

// Samples of a broadcasting binary op; the second input lies in [lo, hi) away from 0 by gap.
std::function<std::vector<Sample>(Device)> binary(double lo = -2, double hi = 2, double gap = 0) {
  return [=](Device d) {
    return std::vector<Sample>{
        {"same shape", {input({2, 3}, d), input({2, 3}, d, Layout::Transposed, lo, hi, gap)}},
        {"broadcast [2, 3] x [3]",
         {input({2, 3}, d, Layout::Stepped), input({3}, d, Layout::Contiguous, lo, hi, gap)}},
        {"broadcast [3, 1] x [1, 4]",
         {input({3, 1}, d), input({1, 4}, d, Layout::Stepped, lo, hi, gap)}},
        {"broadcast [4] x [2, 1, 4]",
         {input({4}, d), input({2, 1, 4}, d, Layout::Contiguous, lo, hi, gap)}},
        {"0-dim x [4]", {input({}, d), input({4}, d, Layout::Stepped, lo, hi, gap)}},
        {"[2, 2] x 0-dim",
         {input({2, 2}, d, Layout::Transposed), input({}, d, Layout::Contiguous, lo, hi, gap)}}};
  };
}

// Samples of an in-place binary op: self [2, 3] (made a non-leaf by the entry), other
// of self's shape or broadcasting to it.
std::function<std::vector<Sample>(Device)> inplace_binary(double lo = -2, double hi = 2,
                                                          double gap = 0) {
  return [=](Device d) {
    return std::vector<Sample>{
        {"same shape",
         {input({2, 3}, d, Layout::Transposed), input({2, 3}, d, Layout::Contiguous, lo, hi, gap)}},
        {"broadcast other [3]", {input({2, 3}, d), input({3}, d, Layout::Stepped, lo, hi, gap)}},
        {"broadcast other [2, 1]",
         {input({2, 3}, d, Layout::Stepped), input({2, 1}, d, Layout::Contiguous, lo, hi, gap)}},
        {"0-dim other", {input({2, 3}, d), input({}, d, Layout::Contiguous, lo, hi, gap)}}};
  };
}

Register reg({
    // ---- add / sub ----
    {"add", fn1([](const tensor_list& x) { return x[0] + x[1]; }), binary()},
    {"add/alpha", fn1([](const tensor_list& x) { return ember::add(x[0], x[1], 2.5); }), binary()},
    {"add/scalar", fn1([](const tensor_list& x) { return x[0] + 1.5; }), unary()},
    {"add/scalar alpha", fn1([](const tensor_list& x) { return x[0].add(2, -3); }), unary()},
    {"add/scalar + tensor", fn1([](const tensor_list& x) { return 0.5 + x[0]; }), unary()},
    {"sub", fn1([](const tensor_list& x) { return x[0] - x[1]; }), binary()},
    {"sub/alpha", fn1([](const tensor_list& x) { return x[0].sub(x[1], -1.5); }), binary()},
    {"sub/alpha int", fn1([](const tensor_list& x) { return ember::sub(x[0], x[1], 3); }),
     binary()},
    {"sub/scalar", fn1([](const tensor_list& x) { return x[0] - 2.0; }), unary()},
    {"sub/scalar alpha", fn1([](const tensor_list& x) { return x[0].sub(1.5, 2); }), unary()},
    {"sub/scalar - tensor", fn1([](const tensor_list& x) { return 2.0 - x[0]; }), unary()},
    {"sub/int scalar - tensor", fn1([](const tensor_list& x) { return 3 - x[0]; }), unary()},
    {"sub/same input", fn1([](const tensor_list& x) { return x[0] - x[0] * x[0]; }), unary()},

    // ---- mul / div ----
    {"mul", fn1([](const tensor_list& x) { return x[0] * x[1]; }), binary()},
    {"mul/same input", fn1([](const tensor_list& x) { return x[0] * x[0]; }), unary()},
    {"mul/scalar", fn1([](const tensor_list& x) { return x[0] * 1.5; }), unary()},
    {"mul/scalar * tensor", fn1([](const tensor_list& x) { return -2 * x[0]; }), unary()},
    {"div", fn1([](const tensor_list& x) { return x[0] / x[1]; }), binary(-2, 2, 0.5)},
    {"div/same input", fn1([](const tensor_list& x) { return (x[0] + 3) / x[0]; }),
     unary(-2, 2, 0.5)},
    {"div/scalar", fn1([](const tensor_list& x) { return x[0] / 0.75; }), unary()},
    {"div/int scalar", fn1([](const tensor_list& x) { return x[0].div(-4); }), unary()},
    {"div/scalar / tensor", fn1([](const tensor_list& x) { return 1.5 / x[0]; }),
     unary(-2, 2, 0.5)},

    // ---- pow ----
    {"pow/tensor tensor", fn1([](const tensor_list& x) { return x[0].pow(x[1]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"same shape",
            {input({2, 3}, d, Layout::Contiguous, 0.5, 2), input({2, 3}, d, Layout::Transposed)}},
           {"broadcast [2, 3] x [3]", {input({2, 3}, d, Layout::Stepped, 0.5, 2), input({3}, d)}},
           {"broadcast [3, 1] x [4]",
            {input({3, 1}, d, Layout::Contiguous, 0.5, 2), input({4}, d, Layout::Stepped)}},
           {"0-dim base", {input({}, d, Layout::Contiguous, 0.5, 2), input({2, 2}, d)}},
           {"0-dim exponent", {input({2, 2}, d, Layout::Transposed, 0.5, 2), input({}, d)}}};
     }},
    // Negative bases with integral exponents (held constant: only the base is checked).
    {"pow/tensor tensor negative base", fn1([](const tensor_list& x) {
       Tensor e = (x[0].detach() > 0).to(kFloat64) - 2;  // -2 or -1
       return x[0].pow(e * 3 + 5);                       // x^-1 or x^2
     }),
     unary(-2, 2, 0.3)},
    {"pow/scalar 3", fn1([](const tensor_list& x) { return x[0].pow(3); }), unary()},
    {"pow/scalar 2", fn1([](const tensor_list& x) { return x[0].pow(2); }), unary()},
    {"pow/scalar 1", fn1([](const tensor_list& x) { return x[0].pow(1); }), unary()},
    {"pow/scalar 0", fn1([](const tensor_list& x) { return x[0].pow(0) * x[0]; }), unary()},
    {"pow/scalar 0.0", fn1([](const tensor_list& x) { return ember::pow(x[0], 0.0) + x[0]; }),
     unary()},
    {"pow/scalar 2.5", fn1([](const tensor_list& x) { return x[0].pow(2.5); }), unary(0.5, 2)},
    {"pow/scalar -1.5", fn1([](const tensor_list& x) { return x[0].pow(-1.5); }), unary(0.5, 2)},
    {"pow/scalar -2", fn1([](const tensor_list& x) { return x[0].pow(-2); }), unary(-2, 2, 0.5)},
    {"pow/scalar base", fn1([](const tensor_list& x) { return ember::pow(2.5, x[0]); }), unary()},
    {"pow/scalar base 0.5", fn1([](const tensor_list& x) { return ember::pow(0.5, x[0]); }),
     unary()},
    {"pow/int scalar base", fn1([](const tensor_list& x) { return ember::pow(3, x[0]); }), unary()},
    // 0 ** x: the gradient is 0 for x >= 0 (as PyTorch); positive exponents only (0 ** -x is inf).
    {"pow/zero base", fn1([](const tensor_list& x) { return ember::pow(0.0, x[0]) + x[0]; }),
     unary(0.5, 2)},

// ---- maximum / minimum (no ties here; see test_autograd_elementwise for ties) ----
// The binary rows of core/elementwise.def, over each row's domain.
// (Bits and Integer rows, the bitwise ops, have no gradient.)
#define EMBER_BINARY(name, types, formula, reference, node, grad_a, grad_b, lo, hi, gap) \
  EMBER_GRADCHECK_##types(name, lo, hi, gap)
#define EMBER_GRADCHECK_ROW(name, lo, hi, gap) \
  {#name, fn1([](const tensor_list& x) { return ember::name(x[0], x[1]); }), binary(lo, hi, gap)},
#define EMBER_GRADCHECK_All EMBER_GRADCHECK_ROW
#define EMBER_GRADCHECK_Numeric EMBER_GRADCHECK_ROW
#define EMBER_GRADCHECK_Float EMBER_GRADCHECK_ROW
#define EMBER_GRADCHECK_Bits(...)
#define EMBER_GRADCHECK_Integer(...)
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
#undef EMBER_GRADCHECK_ROW
#undef EMBER_GRADCHECK_All
#undef EMBER_GRADCHECK_Numeric
#undef EMBER_GRADCHECK_Float
#undef EMBER_GRADCHECK_Bits
#undef EMBER_GRADCHECK_Integer

    // ---- unary ----
    {"neg", fn1([](const tensor_list& x) { return x[0].neg(); }), unary()},
    {"neg/operator", fn1([](const tensor_list& x) { return -x[0]; }), unary()},
    {"abs", fn1([](const tensor_list& x) { return ember::abs(x[0]); }), unary(-2, 2, 0.1)},
    {"relu", fn1([](const tensor_list& x) { return x[0].relu(); }), unary(-2, 2, 0.1)},
// The rows of core/elementwise.def, over each row's domain.
#define EMBER_UNARY_FLOAT(name, formula, reference, node, saved, derivative, lo, hi, gap) \
  {#name, fn1([](const tensor_list& x) { return x[0].name(); }), unary(lo, hi, gap)},
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
    // gelu near 0 (once the place where its backward switched to a series for Phi).
    {"gelu/near 0", fn1([](const tensor_list& x) { return ember::gelu(x[0]); }),
     [](Device d) {
       return std::vector<Sample>{
           {"[-0.3, 0.3)", {input({3, 4}, d, Layout::Transposed, -0.3, 0.3)}},
           {"[-0.05, 0.05)", {input({2, 3}, d, Layout::Contiguous, -0.05, 0.05)}},
           {"around the switch",
            {leaf({0.0, 1e-7, -1e-4, 0.0999, 0.1001, -0.0999, -0.1001, 0.1}, {8}, d)}}};
     }},

    // ---- clamp (values in [-2, 2]; the bounds are kinks, hit with probability ~0) ----
    {"clamp/min max", fn1([](const tensor_list& x) { return x[0].clamp(-1.0, 0.5); }), unary()},
    {"clamp/min", fn1([](const tensor_list& x) { return ember::clamp(x[0], -0.5); }), unary()},
    {"clamp/max", fn1([](const tensor_list& x) { return x[0].clamp(std::nullopt, 1); }), unary()},

    // ---- where / masked_fill ----
    {"where", fn1([](const tensor_list& x) { return ember::where(x[0] > 0.3, x[0], x[1]); }),
     binary()},
    {"where/constant condition", fn1([](const tensor_list& x) {
       Tensor c = ember::tensor({true, false, true}, TensorOptions().device(x[0].device()));
       return ember::where(c, x[0], x[1]);
     }),
     [](Device d) {
       return std::vector<Sample>{
           {"[2, 3] x [2, 1]", {input({2, 3}, d, Layout::Transposed), input({2, 1}, d)}},
           {"0-dim x [3]", {input({}, d), input({3}, d, Layout::Stepped)}}};
     }},
    {"where/scalar other",
     fn1([](const tensor_list& x) { return ember::where(x[0] < 0, x[0], 0.5); }), unary()},
    {"where/scalar self",
     fn1([](const tensor_list& x) { return ember::where(x[0] < 0, -1.5, x[0]); }), unary()},
    {"where/method", fn1([](const tensor_list& x) { return x[0].where(x[1] > 0, x[1]); }),
     binary()},
    {"masked_fill", fn1([](const tensor_list& x) { return x[0].masked_fill(x[0] > 0.5, 2.0); }),
     unary()},
    {"masked_fill/broadcast mask", fn1([](const tensor_list& x) {
       Tensor m = ember::tensor({false, true, true}, TensorOptions().device(x[0].device()));
       return ember::masked_fill(x[0], m, -1);
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"[2, 1, 3]", {input({2, 1, 3}, d, Layout::Stepped)}}};
     }},

    // ---- in place (on a non-leaf copy) ----
    {"add_", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.add_(x[1]);
       return y;
     }),
     inplace_binary()},
    {"add_/alpha", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.add_(x[1], -2);
       return y;
     }),
     inplace_binary()},
    {"add_/operator +=", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y += x[1];
       return y * y;
     }),
     inplace_binary()},
    {"add_/scalar", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 2;
       y.add_(1.5, 2);
       return y * x[0];
     }),
     unary()},
    // self doesn't require grad: it takes other's history.
    {"add_/into a constant", fn1([](const tensor_list& x) {
       Tensor y = ember::zeros({2, 3}, x[0].options());
       y.add_(x[0]);
       return y * y;
     }),
     [](Device d) {
       return std::vector<Sample>{{"[2, 3]", {input({2, 3}, d, Layout::Transposed)}},
                                  {"[3]", {input({3}, d)}}};
     }},
    {"sub_", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.sub_(x[1]);
       return y;
     }),
     inplace_binary()},
    {"sub_/alpha", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.sub_(x[1], 0.5);
       return y * y;
     }),
     inplace_binary()},
    {"sub_/scalar", fn1([](const tensor_list& x) {
       Tensor y = x[0].sin();
       y -= 1.0;
       return y;
     }),
     unary()},
    {"sub_/scalar alpha", fn1([](const tensor_list& x) {
       Tensor y = x[0] * x[0];
       y.sub_(1, 3);
       return y;
     }),
     unary()},
    {"mul_", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.mul_(x[1]);
       return y;
     }),
     inplace_binary()},
    {"mul_/operator *=", fn1([](const tensor_list& x) {
       Tensor y = x[0].sin();
       y *= x[1];
       return y;
     }),
     inplace_binary()},
    {"mul_/scalar", fn1([](const tensor_list& x) {
       Tensor y = x[0] * x[0];
       y.mul_(-1.5);
       return y;
     }),
     unary()},
    {"div_", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.div_(x[1]);
       return y;
     }),
     inplace_binary(-2, 2, 0.5)},
    {"div_/operator /=", fn1([](const tensor_list& x) {
       Tensor y = x[0] * x[0];
       y /= x[1];
       return y;
     }),
     inplace_binary(-2, 2, 0.5)},
    {"div_/scalar", fn1([](const tensor_list& x) {
       Tensor y = x[0].sin();
       y.div_(3);
       return y;
     }),
     unary()},
    {"clamp_", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1.5;
       y.clamp_(-1, 1.2);
       return y * x[0];
     }),
     unary()},
    {"clamp_/max", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.clamp_(std::nullopt, 0.3);
       return y;
     }),
     unary()},
    {"masked_fill_", fn1([](const tensor_list& x) {
       Tensor y = x[0] * x[1];
       y.masked_fill_(x[1] < 0, 0.25);
       return y;
     }),
     inplace_binary()},
    {"fill_", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.fill_(2.5);
       return y * x[1];
     }),
     inplace_binary()},
    {"fill_/zero_", fn1([](const tensor_list& x) {
       Tensor y = x[0].sin();
       Tensor z = y + x[0];  // y's old value still flows through z (add saves nothing)
       y.zero_();
       return z * (y + 1);
     }),
     unary()},
    {"fill_/then mul_", fn1([](const tensor_list& x) {
       Tensor y = x[0].clone();
       y.fill_(1.0);
       y.mul_(x[0]);
       return y;
     }),
     unary()},

    // ---- composites (core/ops_elementwise_more.cpp) ----
    {"lerp/scalar weight", fn1([](const tensor_list& x) { return ember::lerp(x[0], x[1], 0.3); }),
     binary()},
    {"lerp/weight above 0.5", fn1([](const tensor_list& x) { return x[0].lerp(x[1], 0.8); }),
     binary()},
    {"lerp/tensor weight",
     fn1([](const tensor_list& x) { return ember::lerp(x[0], x[1], x[0] * x[1]); }), binary()},
    {"addcmul", fn1([](const tensor_list& x) { return ember::addcmul(x[0], x[1], x[0], 0.5); }),
     binary()},
    {"addcdiv", fn1([](const tensor_list& x) { return x[0].addcdiv(x[0], x[1], 2); }),
     binary(-2, 2, 0.3)},
    {"clamp/tensor bounds",
     fn1([](const tensor_list& x) { return ember::clamp(x[0], x[1] - 1, x[1] + 0.5); }), binary()},
    {"nan_to_num", fn1([](const tensor_list& x) { return ember::nan_to_num(x[0] * 2); }), unary()},
    {"xlogy/scalar", fn1([](const tensor_list& x) { return ember::xlogy(x[0], 2.5); }), unary()},
    {"fmod/scalar", fn1([](const tensor_list& x) { return ember::fmod(x[0], 0.7); }), unary(-2, 2)},
    {"remainder/scalar", fn1([](const tensor_list& x) { return x[0].remainder(-0.7); }),
     unary(-2, 2)},
    {"round/decimals", fn1([](const tensor_list& x) { return ember::round(x[0], 2) + x[0]; }),
     unary()},
    {"div/trunc", fn1([](const tensor_list& x) { return ember::div(x[0], x[1], "trunc") + x[0]; }),
     binary(0.5, 2)},
    {"square", fn1([](const tensor_list& x) { return ember::square(x[0]); }), unary()},
    {"copysign/scalar", fn1([](const tensor_list& x) { return ember::copysign(x[0], -1.0); }),
     unary(-2, 2, 0.1)},
    {"exp_/in place", fn1([](const tensor_list& x) {
       Tensor y = x[0] * 1;
       y.exp_();
       return y;
     }),
     unary()},
});

}  // namespace
}  // namespace optable
