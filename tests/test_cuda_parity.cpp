// CPU/CUDA parity sweep: the ops of core/ops.def (each non-differentiable one at least; the
// differentiable ones are also checked by their tests/gradcheck entries) run through the public
// front-end on random inputs (0-dim, size-1, empty, strided, broadcast; every dtype) on both
// devices and the results must agree. This file: the op table and its coverage check, and the
// elementwise, memory and random ops; test_cuda_parity_more.cpp has the rest.
#include <optional>
#include <set>
#include <utility>

#include "cuda_parity.h"

namespace parity {
namespace {

using namespace ember;
using UnaryFn = std::function<Tensor(const Tensor&)>;
using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;
using ScalarFn = std::function<Tensor(const Tensor&, const Scalar&)>;

// ---- unary ----
template <class D>  // Domain or Range
void unary_sweep(const std::string& op, const UnaryFn& f, D d) {
  Sweep sw(op);
  auto fn = [&](const Tensors& in) { return f(in[0]); };
  for (const Shape& s : shapes()) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : ref::all_dtypes()) {
        sw.run(label(op, s, t, l), fn, {make_pair(s, t, l, d)}, elementwise_tol());
      }
    }
  }
  for (ScalarType t : ref::float_dtypes()) {  // NaN, infinities, signed zeros, denormals
    for (Layout l : {Layout::kContiguous, Layout::kStepped}) {
      sw.run(label(op + " specials", {257}, t, l), fn, {make_pair({257}, t, l, Domain::kSpecial)},
             elementwise_tol());
    }
  }
}

// ---- binary (tensor, tensor) ----
// The second operand takes the next layout of the list, so layouts mix.
template <class D>  // Domain or Range
void binary_sweep(const std::string& op, const BinaryFn& f, D da, D db) {
  Sweep sw(op);
  auto fn = [&](const Tensors& in) { return f(in[0], in[1]); };
  for (const Shape& s : shapes()) {
    const std::vector<Layout> ls = layouts_for(s, false);
    for (size_t i = 0; i < ls.size(); ++i) {
      for (ScalarType t : ref::all_dtypes()) {
        sw.run(label(op, s, t, ls[i]), fn,
               {make_pair(s, t, ls[i], da), make_pair(s, t, ls[(i + 1) % ls.size()], db)},
               elementwise_tol());
      }
    }
  }
  const std::vector<std::pair<Shape, Shape>> broadcasts = {
      {{3, 1}, {1, 4}}, {{2, 3, 4}, {4}}, {{2, 3, 4}, {}},        {{}, {5}},
      {{}, {}},         {{0, 3}, {1, 3}}, {{5, 1, 3}, {5, 2, 1}}, {{129, 1}, {1, 130}}};
  for (const auto& [sa, sb] : broadcasts) {
    for (ScalarType t : ref::all_dtypes()) {
      sw.run(label(op, sa, t, Layout::kContiguous) + " with " + ref::str(sb), fn,
             {make_pair(sa, t, Layout::kContiguous, da), make_pair(sb, t, Layout::kContiguous, db)},
             elementwise_tol());
    }
  }
  const std::vector<std::pair<ScalarType, ScalarType>> mixed = {
      {kInt32, kFloat32}, {kUInt8, kInt64}, {kBool, kFloat64},
      {kInt64, kFloat32}, {kBool, kUInt8},  {kFloat32, kFloat64}};
  for (const auto& [ta, tb] : mixed) {
    sw.run(label(op, {4, 5}, ta, Layout::kTransposed) + " with " + dtype_name(tb), fn,
           {make_pair({4, 5}, ta, Layout::kTransposed, da),
            make_pair({4, 5}, tb, Layout::kContiguous, db)},
           elementwise_tol());
  }
  for (ScalarType t : ref::float_dtypes()) {
    sw.run(label(op + " specials", {257}, t, Layout::kContiguous), fn,
           {make_pair({257}, t, Layout::kContiguous, Domain::kSpecial),
            make_pair({257}, t, Layout::kStepped, Domain::kSpecial)},
           elementwise_tol());
  }
}

// In-place forms write into a strided self; the whole base is compared, so writes outside
// the view show. `other` may broadcast.
using InplaceFn = std::function<void(Tensor&, const Tensor&)>;
void inplace_sweep(const std::string& op, const InplaceFn& f, Domain d) {
  Sweep sw(op);
  auto fn = [&](const Tensors& in) {
    Tensor self = in[0];
    f(self, in[1]);
    return Tensors{in[2]};
  };
  for (const Shape& s : {Shape{}, Shape{5}, Shape{2, 3}, Shape{7, 9, 5}, Shape{3, 0}}) {
    for (Layout l : layouts_for(s, true)) {
      for (ScalarType t : ref::all_dtypes()) {
        Pair self = make_pair(s, t, l, d);
        Shape os = s.empty() ? s : Shape(s.begin() + 1, s.end());  // broadcast over dim 0
        Pair other = make_pair(os, t, Layout::kContiguous, d);
        sw.run(label(op, s, t, l), fn, {self.cpu, other.cpu, self.cpu_base},
               {self.gpu, other.gpu, self.gpu_base}, elementwise_tol());
      }
    }
  }
}

// ---- tensor-scalar ----
void scalar_sweep(const std::string& op, const ScalarFn& f, const std::vector<Scalar>& scalars,
                  Domain d) {
  Sweep sw(op);
  for (const Scalar& sc : scalars) {
    auto fn = [&](const Tensors& in) { return f(in[0], sc); };
    const std::string with = " scalar " + std::to_string(sc.toDouble());
    for (const Shape& s : shapes()) {
      if (ref::numel(s) > kLarge && &sc != &scalars.front()) continue;  // large: one scalar
      for (Layout l : layouts_for(s, false)) {
        for (ScalarType t : ref::all_dtypes()) {
          sw.run(label(op, s, t, l) + with, fn, {make_pair(s, t, l, d)}, elementwise_tol());
        }
      }
    }
  }
}

void inplace_scalar_sweep(const std::string& op, const std::function<void(Tensor&)>& f) {
  Sweep sw(op);
  auto fn = [&](const Tensors& in) {
    Tensor self = in[0];
    f(self);
    return Tensors{in[1]};
  };
  for (const Shape& s : {Shape{}, Shape{6}, Shape{4, 5}, Shape{2, 3, 4}}) {
    for (Layout l : layouts_for(s, true)) {
      for (ScalarType t : ref::all_dtypes()) {
        Pair self = make_pair(s, t, l);
        sw.run(label(op, s, t, l), fn, {self.cpu, self.cpu_base}, {self.gpu, self.gpu_base},
               elementwise_tol());
      }
    }
  }
}

const std::vector<Scalar> kArith = {Scalar(2), Scalar(-3), Scalar(2.5), Scalar(true)};
const std::vector<Scalar> kCompare = {Scalar(0), Scalar(3), Scalar(-1.5), Scalar(true)};

// ---- where, masked_fill ----
void where_sweep() {
  Sweep sw("where");
  for (const Shape& s : shapes()) {
    const std::vector<Layout> ls = layouts_for(s, false);
    for (size_t i = 0; i < ls.size(); ++i) {
      for (ScalarType t : ref::all_dtypes()) {
        Pair cond = make_pair(s, kBool, ls[(i + 1) % ls.size()]);
        sw.run(
            label("where", s, t, ls[i]),
            [](const Tensors& in) { return ember::where(in[0], in[1], in[2]); },
            {cond, make_pair(s, t, ls[i]), make_pair(s, t, Layout::kContiguous)},
            elementwise_tol());
      }
    }
  }
  for (ScalarType t : ref::all_dtypes()) {  // broadcast condition, scalar branches, method form
    const std::vector<Pair> in = {make_pair({3, 1}, kBool, Layout::kContiguous),
                                  make_pair({1, 4}, t, Layout::kContiguous),
                                  make_pair({3, 4}, t, Layout::kTransposed)};
    sw.run(
        label("where broadcast", {3, 4}, t, Layout::kContiguous),
        [](const Tensors& x) { return ember::where(x[0], x[1], x[2]); }, in, elementwise_tol());
    sw.run(
        label("where scalar a", {3, 4}, t, Layout::kContiguous),
        [](const Tensors& x) { return ember::where(x[0], Scalar(2.5), x[2]); }, in,
        elementwise_tol());
    sw.run(
        label("where scalar b", {3, 4}, t, Layout::kContiguous),
        [](const Tensors& x) { return ember::where(x[0], x[1], Scalar(7)); }, in,
        elementwise_tol());
    sw.run(
        label("Tensor::where", {3, 4}, t, Layout::kContiguous),
        [](const Tensors& x) { return x[2].where(x[0], x[1]); }, in, elementwise_tol());
  }
}

void masked_fill_sweep() {
  Sweep sw("masked_fill");
  for (const Shape& s : shapes()) {
    for (Layout l : layouts_for(s, true)) {
      for (ScalarType t : ref::all_dtypes()) {
        Pair self = make_pair(s, t, l);
        Pair mask = make_pair(s, kBool, Layout::kContiguous);
        sw.run(
            label("masked_fill", s, t, l),
            [](const Tensors& in) { return in[0].masked_fill(in[1], Scalar(-2)); }, {self, mask},
            elementwise_tol());
        // in place, with the mask broadcast over dim 0; the whole base is compared
        Shape ms = s.empty() ? s : Shape(s.begin() + 1, s.end());
        Pair bmask = make_pair(ms, kBool, Layout::kContiguous);
        sw.run(
            label("masked_fill_", s, t, l),
            [](const Tensors& in) {
              Tensor self = in[0];
              self.masked_fill_(in[1], Scalar(1.5));
              return Tensors{in[2]};
            },
            {self.cpu, bmask.cpu, self.cpu_base}, {self.gpu, bmask.gpu, self.gpu_base},
            elementwise_tol());
      }
    }
  }
}

// ---- clamp ----
void clamp_sweep() {
  Sweep sw("clamp");
  using Bounds = std::pair<std::optional<Scalar>, std::optional<Scalar>>;
  const std::vector<Bounds> bounds = {{Scalar(-1), Scalar(2)},   {Scalar(0.5), std::nullopt},
                                      {std::nullopt, Scalar(1)}, {Scalar(-1.5), Scalar(1.5)},
                                      {Scalar(2), Scalar(-1)},   {Scalar(3), Scalar(200)}};
  for (const Bounds& b : bounds) {
    auto fn = [&](const Tensors& in) { return ember::clamp(in[0], b.first, b.second); };
    for (const Shape& s : shapes()) {
      for (Layout l : layouts_for(s, false)) {
        for (ScalarType t : ref::numeric_dtypes()) {
          sw.run(label("clamp", s, t, l), fn, {make_pair(s, t, l)}, elementwise_tol());
        }
      }
    }
    for (ScalarType t : ref::float_dtypes()) {
      sw.run(label("clamp specials", {257}, t, Layout::kContiguous), fn,
             {make_pair({257}, t, Layout::kContiguous, Domain::kSpecial)}, elementwise_tol());
    }
  }
  inplace_scalar_sweep("clamp_", [](Tensor& t) { t.clamp_(Scalar(-2), Scalar(2)); });
}

// ---- memory: copy (conversions, strided both sides, across devices) and fill ----
void copy_sweep() {
  Sweep sw("copy");
  for (const Shape& s :
       {Shape{}, Shape{0}, Shape{7}, Shape{4, 5}, Shape{7, 9, 5}, Shape{1000, 67}}) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType from : ref::all_dtypes()) {
        Pair x = make_pair(s, from, l, Domain::kWide);
        // Negative floats to uint8 are undefined in C++ (see the case below): kept apart.
        Pair nonneg = make_pair(s, from, l, Domain::kPositive);
        for (ScalarType to : ref::all_dtypes()) {
          const bool ub = to == kUInt8 && is_floating_point(from);
          sw.run(
              label("to", s, from, l) + " -> " + dtype_name(to),
              [to](const Tensors& in) { return in[0].to(to); }, {ub ? nonneg : x}, exact());
        }
        sw.run(
            label("clone", s, from, l), [](const Tensors& in) { return in[0].clone(); }, {x},
            exact());
        sw.run(
            label("contiguous", s, from, l), [](const Tensors& in) { return in[0].contiguous(); },
            {x}, exact());
        // across devices, both directions, strided sources, blocking and not
        EXPECT_TRUE(same_values(x.cpu.contiguous(), x.cpu.to(kCUDA), exact()))
            << label("cpu -> cuda", s, from, l);
        EXPECT_TRUE(same_values(x.cpu.contiguous(), x.gpu.cpu(), exact(), false))
            << label("cuda -> cpu", s, from, l);
        Tensor async = x.cpu.to(Device(kCUDA), /*non_blocking=*/true);
        cuda::synchronize();
        EXPECT_TRUE(same_values(x.cpu.contiguous(), async, exact()))
            << label("cpu -> cuda non_blocking", s, from, l);
      }
    }
  }
  // PyTorch converts negative floats to uint8 through int64 (-5.7 -> 251) on both devices;
  // a plain static_cast is undefined there (x86 wraps, CUDA's cvt saturates to 0).
  for (ScalarType from : ref::float_dtypes()) {
    sw.run(
        label("to uint8 from negative floats", {9}, from, Layout::kContiguous),
        [](const Tensors& in) { return in[0].to(kUInt8); },
        {from_values({-5.7, -1, -0.5, -255, -256.5, 0, 3.9, 255, 300}, {9}, from)}, exact());
  }
  // copy_ into a strided destination (the whole base is compared), converting
  for (const Shape& s : {Shape{5}, Shape{4, 5}, Shape{2, 3, 4}}) {
    for (Layout l : layouts_for(s, true)) {
      for (ScalarType to : ref::all_dtypes()) {
        for (ScalarType from : {kFloat32, kInt64, kBool, to}) {
          Pair dst = make_pair(s, to, l);
          const Layout src_layout = s.size() < 2               ? Layout::kStepped
                                    : l == Layout::kTransposed ? Layout::kOffset
                                                               : Layout::kTransposed;
          Pair src = make_pair(s, from, src_layout);
          sw.run(
              label("copy_", s, to, l) + " from " + dtype_name(from),
              [](const Tensors& in) {
                Tensor d = in[0];
                d.copy_(in[1]);
                return Tensors{in[2]};
              },
              {dst.cpu, src.cpu, dst.cpu_base}, {dst.gpu, src.gpu, dst.gpu_base}, exact());
        }
      }
    }
  }
}

void fill_sweep() {
  Sweep sw("fill");
  const std::vector<Scalar> values = {Scalar(0), Scalar(1), Scalar(-2.5), Scalar(true),
                                      Scalar(255)};
  for (const Scalar& v : values) {
    const std::string with = " value " + std::to_string(v.toDouble());
    for (ScalarType t : ref::all_dtypes()) {
      for (const Shape& s : {Shape{}, Shape{0}, Shape{1}, Shape{1001}, Shape{3, 5, 7}}) {
        sw.run(
            label("full", s, t, Layout::kContiguous) + with,
            [&](const Tensors& in) { return ember::full(s, v, in[0].options().dtype(t)); },
            {make_pair({1}, t, Layout::kContiguous)}, exact());
      }
      for (Layout l : layouts_for({4, 6}, true)) {  // fill_ into views; compare the base
        Pair x = make_pair({4, 6}, t, l);
        sw.run(
            label("fill_", {4, 6}, t, l) + with,
            [&](const Tensors& in) {
              Tensor self = in[0];
              self.fill_(v);
              return Tensors{in[1]};
            },
            {x.cpu, x.cpu_base}, {x.gpu, x.gpu_base}, exact());
      }
    }
  }
  inplace_scalar_sweep("zero_", [](Tensor& t) { t.zero_(); });
  for (ScalarType t : ref::all_dtypes()) {
    sw.run(
        label("zeros/ones/arange", {5}, t, Layout::kContiguous),
        [t](const Tensors& in) {
          const TensorOptions o = in[0].options().dtype(t);
          return Tensors{ember::zeros({3, 4}, o), ember::ones({5}, o), ember::eye(4, o),
                         ember::arange(0, 9, 2, o)};
        },
        {make_pair({1}, t, Layout::kContiguous).cpu}, {make_pair({1}, t, Layout::kContiguous).gpu},
        exact());
  }
}

// ---- random: the same seed gives the same numbers on both devices ----
// f(options) draws on the device of `options`; drawing twice in a row checks that the
// generator's offset advances the same way on both.
using DrawFn = std::function<Tensors(const TensorOptions&)>;
void random_sweep(const std::string& op, const DrawFn& f, const std::vector<ScalarType>& dtypes,
                  const Tol& tol) {
  Sweep sw(op);
  for (ScalarType t : dtypes) {
    auto fn = [&](const Tensors& in) {
      manual_seed(1234);
      const TensorOptions o = in[0].options().dtype(t);
      Tensors out = f(o);
      for (const Tensor& again : f(o)) out.push_back(again);
      return out;
    };
    sw.run(op + " " + dtype_name(t), fn, {ember::zeros({1})}, {ember::zeros({1}, kCUDA)}, tol);
  }
}

// Odd numel (normal's last pair), 0-dim, empty, 3-D, large.
DrawFn over_shapes(const std::function<Tensor(IntArrayRef, const TensorOptions&)>& make) {
  return [make](const TensorOptions& o) {
    return Tensors{make({1001}, o), make({}, o), make({0}, o), make({3, 5, 7}, o),
                   make({1 << 18}, o)};
  };
}

void random_cases(CaseList* cases) {
  const Tol normal_tol = {1e-5, 2e-6, 1e-12, 1e-12};
  cases->push_back({"uniform", [] {
                      random_sweep("uniform",
                                   over_shapes([](IntArrayRef s, const TensorOptions& o) {
                                     return ember::rand(s, o);
                                   }),
                                   ref::float_dtypes(), exact());
                    }});
  cases->push_back({"normal", [=] {
                      random_sweep("normal", over_shapes([](IntArrayRef s, const TensorOptions& o) {
                                     return ember::randn(s, o);
                                   }),
                                   ref::float_dtypes(), normal_tol);
                      random_sweep(
                          "randn_like",
                          [](const TensorOptions& o) {
                            return Tensors{ember::randn_like(ember::zeros({5, 7}, o))};
                          },
                          ref::float_dtypes(), normal_tol);
                    }});
  cases->push_back({"randint", [] {
                      random_sweep("randint",
                                   over_shapes([](IntArrayRef s, const TensorOptions& o) {
                                     const bool b = o.dtype() == kBool, u8 = o.dtype() == kUInt8;
                                     return ember::randint(b || u8 ? 0 : -1000, b ? 2 : 200, s, o);
                                   }),
                                   ref::all_dtypes(), exact());
                      random_sweep(
                          "randint int64 wide",
                          [](const TensorOptions& o) {
                            const int64_t r = int64_t(1) << 40;
                            return Tensors{ember::randint(-r, r, {4097}, o)};
                          },
                          {kInt64}, exact());
                      random_sweep(
                          "randperm",
                          [](const TensorOptions& o) {
                            return Tensors{ember::randperm(1000, o), ember::randperm(1, o),
                                           ember::randperm(0, o)};
                          },
                          {kInt64, kInt32, kFloat32}, exact());
                    }});
}

}  // namespace

// The composites of core/ops_elementwise_more.cpp over every dtype (both devices throw alike
// where a dtype is refused): rounding modes, predicates, nan_to_num, isclose, lerp, addcmul,
// bitwise not and the scalar forms.
void composite_cases(CaseList* cases) {
  using F = std::function<Tensor(const Tensors&)>;
  const std::vector<std::pair<std::string, F>> fns = {
      {"div_trunc", [](const Tensors& in) { return ember::div(in[0], in[1], "trunc"); }},
      {"div_floor", [](const Tensors& in) { return ember::div(in[0], in[1], "floor"); }},
      {"remainder_scalar", [](const Tensors& in) { return in[0] % 3; }},
      {"bitwise_not", [](const Tensors& in) { return ~in[0]; }},
      {"isnan", [](const Tensors& in) { return ember::isnan(in[0] / in[1]); }},
      {"isinf", [](const Tensors& in) { return ember::isinf(in[0] / in[1]); }},
      {"isfinite", [](const Tensors& in) { return ember::isfinite(in[0] / in[1]); }},
      {"nan_to_num", [](const Tensors& in) { return ember::nan_to_num(in[0] / in[1], 0.5); }},
      {"isclose", [](const Tensors& in) { return ember::isclose(in[0], in[1] + in[0] * 1e-6); }},
      {"lerp", [](const Tensors& in) { return ember::lerp(in[0], in[1], 0.7); }},
      {"lerp_tensor", [](const Tensors& in) { return ember::lerp(in[0], in[1], in[1] * 0.2); }},
      {"addcmul", [](const Tensors& in) { return ember::addcmul(in[0], in[1], in[0], 0.5); }},
      {"addcdiv", [](const Tensors& in) { return ember::addcdiv(in[0], in[0], in[1], 2); }},
      {"round_decimals", [](const Tensors& in) { return ember::round(in[0] * 7.3, 1); }},
      {"clamp_tensor", [](const Tensors& in) { return ember::clamp(in[0], in[1], in[1] + 1); }},
      {"logical_xor", [](const Tensors& in) { return ember::logical_xor(in[0], in[1]); }},
  };
  for (const auto& [name, f] : fns) {
    cases->push_back({"composite_" + name, [name = name, f = f] {
                        Sweep sw("composite_" + name);
                        for (const Shape& s : {Shape{257}, Shape{3, 4}, Shape{}}) {
                          for (Layout l : layouts_for(s, false)) {
                            for (ScalarType t : ref::all_dtypes()) {
                              sw.run(label(name, s, t, l), f,
                                     {make_pair(s, t, l, Range{-9, 9}),
                                      make_pair(s, t, Layout::kContiguous, Domain::kPositive)},
                                     elementwise_tol());
                            }
                          }
                        }
                      }});
  }
}

CaseList elementwise_cases() {
  CaseList c;
  auto unary = [&](const char* op, UnaryFn f, Domain d = Domain::kAny) {
    c.push_back({op, [=] { unary_sweep(op, f, d); }});
  };
  unary("neg", [](const Tensor& t) { return -t; });
  unary("abs", [](const Tensor& t) { return t.abs(); });
  unary("relu", [](const Tensor& t) { return t.relu(); });
  unary("logical_not", [](const Tensor& t) { return !t; });
  // the rows of core/elementwise.def, over each row's domain
#define EMBER_UNARY_FLOAT(name, formula, reference, node, saved, derivative, lo, hi, gap) \
  c.push_back({#name, [] {                                                                \
                 unary_sweep(                                                             \
                     #name, [](const Tensor& t) { return t.name(); }, Range{lo, hi});     \
               }});
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
  c.push_back({"clamp", clamp_sweep});

  auto binary = [&](const char* op, BinaryFn f, Domain da = Domain::kAny, Domain db = Domain::kAny,
                    InplaceFn inplace = nullptr) {
    c.push_back({op, [=] {
                   binary_sweep(op, f, da, db);
                   if (inplace) inplace_sweep(std::string(op) + "_", inplace, db);
                 }});
  };
  binary(
      "add", [](const Tensor& a, const Tensor& b) { return a + b; }, Domain::kAny, Domain::kAny,
      [](Tensor& s, const Tensor& o) { s.add_(o, 2); });
  binary(
      "sub", [](const Tensor& a, const Tensor& b) { return ember::sub(a, b, 3); }, Domain::kAny,
      Domain::kAny, [](Tensor& s, const Tensor& o) { s -= o; });
  binary(
      "mul", [](const Tensor& a, const Tensor& b) { return a * b; }, Domain::kAny, Domain::kAny,
      [](Tensor& s, const Tensor& o) { s *= o; });
  binary(
      "div", [](const Tensor& a, const Tensor& b) { return a / b; }, Domain::kAny,
      Domain::kPositive, [](Tensor& s, const Tensor& o) { s /= o; });
  binary(
      "pow", [](const Tensor& a, const Tensor& b) { return a.pow(b); }, Domain::kAny,
      Domain::kExponent);
  // the binary rows of core/elementwise.def, over each row's domain
#define EMBER_BINARY(name, types, formula, reference, node, grad_a, grad_b, lo, hi, gap) \
  c.push_back({#name, [] {                                                               \
                 binary_sweep(                                                           \
                     #name, [](const Tensor& a, const Tensor& b) { return a.name(b); },  \
                     Range{lo, hi}, Range{lo, hi});                                      \
               }});
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
  binary("eq", [](const Tensor& a, const Tensor& b) { return a == b; });
  binary("ne", [](const Tensor& a, const Tensor& b) { return a != b; });
  binary("lt", [](const Tensor& a, const Tensor& b) { return a < b; });
  binary("le", [](const Tensor& a, const Tensor& b) { return a <= b; });
  binary("gt", [](const Tensor& a, const Tensor& b) { return a > b; });
  binary("ge", [](const Tensor& a, const Tensor& b) { return a >= b; });
  binary("logical_and", [](const Tensor& a, const Tensor& b) { return a && b; });
  binary("logical_or", [](const Tensor& a, const Tensor& b) { return a || b; });

  auto scalar = [&](const char* op, ScalarFn f, std::vector<Scalar> s, Domain d,
                    std::function<void(Tensor&)> inplace = nullptr) {
    c.push_back({op, [=] {
                   scalar_sweep(op, f, s, d);
                   if (inplace) inplace_scalar_sweep(std::string(op) + " in place", inplace);
                 }});
  };
  c.push_back({"add_scalar", [] {  // sub by a scalar and alpha also end in add_scalar
                 scalar_sweep(
                     "add_scalar", [](const Tensor& t, const Scalar& s) { return t + s; }, kArith,
                     Domain::kAny);
                 scalar_sweep(
                     "sub scalar", [](const Tensor& t, const Scalar& s) { return t - s; }, kArith,
                     Domain::kAny);
                 scalar_sweep(
                     "add scalar alpha",
                     [](const Tensor& t, const Scalar& s) { return t.add(s, 2); }, kArith,
                     Domain::kAny);
                 inplace_scalar_sweep("add_ scalar", [](Tensor& t) { t.add_(3, 2); });
               }});
  scalar(
      "mul_scalar", [](const Tensor& t, const Scalar& s) { return t * s; }, kArith, Domain::kAny,
      [](Tensor& t) { t.mul_(3); });
  scalar(
      "div_scalar", [](const Tensor& t, const Scalar& s) { return t / s; }, kArith, Domain::kAny,
      [](Tensor& t) { t.div_(2.0); });
  scalar(
      "pow_scalar", [](const Tensor& t, const Scalar& s) { return t.pow(s); },
      {Scalar(2), Scalar(3), Scalar(0.5), Scalar(-1), Scalar(0), Scalar(-2.5)}, Domain::kAny);
  scalar(
      "rpow_scalar", [](const Tensor& t, const Scalar& s) { return ember::pow(s, t); },
      {Scalar(2), Scalar(2.5), Scalar(-3)}, Domain::kExponent);
  scalar(
      "eq_scalar", [](const Tensor& t, const Scalar& s) { return t == s; }, kCompare, Domain::kAny);
  scalar(
      "ne_scalar", [](const Tensor& t, const Scalar& s) { return t != s; }, kCompare, Domain::kAny);
  scalar(
      "lt_scalar", [](const Tensor& t, const Scalar& s) { return t < s; }, kCompare, Domain::kAny);
  scalar(
      "le_scalar", [](const Tensor& t, const Scalar& s) { return t <= s; }, kCompare, Domain::kAny);
  scalar(
      "gt_scalar", [](const Tensor& t, const Scalar& s) { return t > s; }, kCompare, Domain::kAny);
  scalar(
      "ge_scalar", [](const Tensor& t, const Scalar& s) { return t >= s; }, kCompare, Domain::kAny);

  c.push_back({"where", where_sweep});
  c.push_back({"masked_fill", masked_fill_sweep});
  c.push_back({"copy", copy_sweep});
  c.push_back({"fill", fill_sweep});
  random_cases(&c);
  composite_cases(&c);
  return c;
}

namespace {

const std::map<std::string, CaseFn>& op_cases() {
  static const std::map<std::string, CaseFn> table = [] {
    std::map<std::string, CaseFn> m;
    for (auto& list : {elementwise_cases(), other_cases(), conv_cases_list(), indexing_cases(),
                       sort_cases(), shape_cases(), linalg_scatter_cases(), random_more_cases()}) {
      for (auto& [name, fn] : list) m[name] = fn;
    }
    return m;
  }();
  return table;
}

// core/ops.def's ops, and whether each is differentiable (its GRAD column).
std::vector<std::pair<std::string, bool>> ops_def_rows() {
  return {
#define GRAD(...) true
#define NO_GRAD(why) false
#define EMBER_OP(name, sig, grad) {#name, grad},
#include <ember/core/ops.def>
#undef EMBER_OP
#undef NO_GRAD
#undef GRAD
  };
}

// A new op in core/ops.def without a parity check fails here (no GPU needed). A
// differentiable op's check is its tests/gradcheck entry (which test_gradcheck requires), run
// on both devices in float64 and float32; a case here adds the other dtypes and layouts. A
// non-differentiable op has no gradcheck entry, so it needs a case here.
TEST(CudaParity, EveryOpHasACase) {
  const auto& table = op_cases();
  std::set<std::string> declared;
  for (const auto& [op, differentiable] : ops_def_rows()) {
    declared.insert(op);
    EXPECT_TRUE(differentiable || table.count(op))
        << "core/ops.def's op '" << op
        << "' is not differentiable (so tests/gradcheck does not cover it) and has no case in "
           "tests/test_cuda_parity*.cpp";
  }
  for (const auto& [name, fn] : table) {
    const bool extra = name.rfind("composite_", 0) == 0 || name.rfind("autograd_", 0) == 0;
    EXPECT_TRUE(declared.count(name) || extra) << "case '" << name << "' names no op of ops.def";
  }
}

class OpParity : public ::testing::TestWithParam<std::string> {};

TEST_P(OpParity, Sweep) {
  PARITY_REQUIRE_GPU();
  op_cases().at(GetParam())();
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : op_cases()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Ops, OpParity, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace parity
