// CPU/CUDA parity sweep: bernoulli, random_, exponential_, multinomial.
// Cases are named after ops of core/ops.def, or composite_<name> for composites.
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cuda_parity.h"

namespace parity {

using namespace ember;

namespace {

// f(device) draws on `device` after manual_seed(1234) (inputs it builds come from a CPU
// generator of their own, then move there); each op runs twice so that both devices must also
// advance the generator alike. Integers and bools compare exactly, floats with `tol`.
using DrawFn = std::function<Tensors(Device)>;
void draw_sweep(Sweep* sw, const std::string& what, const DrawFn& f, const Tol& tol = exact()) {
  auto fn = [&](const Tensors& in) {
    manual_seed(1234);
    const Device d = in[0].device();
    Tensors out = f(d);
    for (const Tensor& again : f(d)) out.push_back(again);
    return out;
  };
  sw->run(what, fn, {ember::zeros({1})}, {ember::zeros({1}, kCUDA)}, tol);
}

// Values in [0, 1) from a generator of the test's own (the same on every call), on d.
Tensor cpu_rand(const Shape& sizes, ScalarType t, Device d) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(0, 1);
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(gen);
  return ember::tensor(ArrayRef<double>(v), kFloat64).reshape(sizes).to(d, t);
}

const std::vector<ScalarType> kFloats = {kFloat32, kFloat64};
const std::vector<ScalarType> kAll = {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool};

void random_from_to_case() {
  Sweep sw("random_from_to");
  for (ScalarType t : kAll) {
    const std::string n = dtype_name(t);
    draw_sweep(&sw, "random_() " + n, [t](Device d) {
      Tensor a = ember::empty({1001}, TensorOptions(t).device(d));
      Tensor c = ember::zeros({6, 5}, TensorOptions(t).device(d));
      c.t().random_();  // a strided view: row-major order of the view
      return Tensors{a.random_(), c, ember::empty({}, TensorOptions(t).device(d)).random_()};
    });
    draw_sweep(&sw, "random_(to) " + n, [t](Device d) {
      return Tensors{
          ember::empty({3, 7, 5}, TensorOptions(t).device(d)).random_(t == kBool ? 2 : 100)};
    });
    draw_sweep(&sw, "random_(from, to) " + n, [t](Device d) {
      const bool u = t == kBool || t == kUInt8;
      Tensor a = ember::empty({4097}, TensorOptions(t).device(d));
      return Tensors{a.random_(u ? 0 : -50, t == kBool ? 2 : 77)};
    });
  }
  draw_sweep(&sw, "int64 full range", [](Device d) {
    const int64_t lo = std::numeric_limits<int64_t>::lowest();
    return Tensors{ember::empty({1000}, TensorOptions(kInt64).device(d)).random_(lo, std::nullopt),
                   ember::empty({1000}, TensorOptions(kInt64).device(d)).random_(lo + 5, -3)};
  });
  draw_sweep(&sw, "errors", [](Device d) {  // both devices must throw
    return Tensors{ember::empty({3}, TensorOptions(kUInt8).device(d)).random_(-1, 5)};
  });
  draw_sweep(&sw, "from >= to", [](Device d) {
    return Tensors{ember::empty({3}, TensorOptions(kInt32).device(d)).random_(5, 5)};
  });
}

void multinomial_case() {
  Sweep sw("multinomial");
  for (ScalarType t : kFloats) {
    const std::string n = dtype_name(t);
    for (bool repl : {true, false}) {
      const std::string r = repl ? " replacement" : " no replacement";
      draw_sweep(&sw, "1-D" + r + " " + n, [=](Device d) {
        Tensor p = cpu_rand({10}, t, d);
        return Tensors{ember::multinomial(p, repl ? 50 : 10, repl), p.multinomial(1, repl)};
      });
      draw_sweep(&sw, "2-D with zeros" + r + " " + n, [=](Device d) {
        Tensor p = cpu_rand({37, 600}, t, d);  // > 256 categories: chunks of 3
        p = p * (p > 0.4).to(t);               // zero weights, never drawn
        return Tensors{ember::multinomial(p, repl ? 300 : 40, repl)};
      });
      draw_sweep(&sw, "large row" + r + " " + n, [=](Device d) {
        Tensor p = cpu_rand({2, 100003}, t, d);
        return Tensors{ember::multinomial(p, repl ? 2000 : 20, repl)};
      });
      draw_sweep(&sw, "wide range of weights" + r + " " + n, [=](Device d) {
        Tensor p = cpu_rand({4, 300}, t, d).pow(12) * 1e20;
        return Tensors{ember::multinomial(p, 30, repl)};
      });
    }
    draw_sweep(&sw, "all categories " + n, [=](Device d) {  // a permutation per row
      return Tensors{ember::multinomial(cpu_rand({5, 257}, t, d), 257)};
    });
    draw_sweep(&sw, "fewer nonzero than samples " + n, [=](Device d) {
      Tensor p = ember::zeros({3, 8}, TensorOptions(t).device(d));
      p.select(1, 2).fill_(1);
      p.select(1, 6).fill_(3);
      return Tensors{ember::multinomial(p, 8), ember::multinomial(p, 20, true)};
    });
    draw_sweep(&sw, "empty batch " + n, [=](Device d) {
      return Tensors{ember::multinomial(ember::ones({0, 4}, TensorOptions(t).device(d)), 3)};
    });
    draw_sweep(&sw, "strided input " + n, [=](Device d) {
      return Tensors{ember::multinomial(cpu_rand({30, 4}, t, d).t(), 9, true)};
    });
  }
  for (double bad :
       {-0.5, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    draw_sweep(&sw, "bad value", [bad](Device d) {
      Tensor p = ember::ones({2, 4}, TensorOptions(kFloat32).device(d));
      p.select(0, 1).select(0, 2).fill_(bad);
      return Tensors{ember::multinomial(p, 2)};
    });
  }
  draw_sweep(&sw, "zero row", [](Device d) {
    Tensor p = ember::ones({2, 4}, TensorOptions(kFloat32).device(d));
    p.select(0, 1).zero_();
    return Tensors{ember::multinomial(p, 2, true)};
  });
  draw_sweep(&sw, "too many samples", [](Device d) {
    return Tensors{ember::multinomial(ember::ones({4}, TensorOptions(kFloat32).device(d)), 5)};
  });
}

void bernoulli_case() {
  Sweep sw("composite_bernoulli");
  for (ScalarType t : kFloats) {
    const std::string n = dtype_name(t);
    draw_sweep(&sw, "bernoulli(p) " + n, [t](Device d) {
      Tensor p = cpu_rand({1001}, t, d);
      return Tensors{ember::bernoulli(p), p.bernoulli(), ember::bernoulli(cpu_rand({}, t, d)),
                     ember::bernoulli(p.view({7, 11, 13}).transpose(0, 2))};
    });
    draw_sweep(&sw, "bernoulli(x, 0.3) " + n, [t](Device d) {
      Tensor x = ember::zeros({3, 333}, TensorOptions(t).device(d));
      return Tensors{ember::bernoulli(x, 0.3), x.bernoulli(0.9)};
    });
    draw_sweep(&sw, "bad p " + n,
               [t](Device d) { return Tensors{ember::bernoulli(cpu_rand({5}, t, d) + 0.5)}; });
  }
  for (ScalarType t : kAll) {
    draw_sweep(&sw, std::string("bernoulli_ ") + dtype_name(t), [t](Device d) {
      Tensor a = ember::zeros({4097}, TensorOptions(t).device(d));
      Tensor b = ember::zeros({20, 30}, TensorOptions(t).device(d));
      b.t().bernoulli_(cpu_rand({20}, kFloat64, d));  // p broadcast over b.t()'s [30, 20]
      return Tensors{a.bernoulli_(), a.clone().bernoulli_(0.25), b};
    });
  }
}

void continuous_cases(CaseList* c) {
  const Tol tol = {1e-5, 1e-5, 1e-12, 1e-12};
  c->push_back({"composite_exponential", [=] {
                  Sweep sw("composite_exponential");
                  for (ScalarType t : kFloats) {
                    draw_sweep(
                        &sw, dtype_name(t),
                        [t](Device d) {
                          Tensor x = ember::empty({4099}, TensorOptions(t).device(d));
                          Tensor y = ember::empty({9, 8}, TensorOptions(t).device(d));
                          y.t().exponential_(2.5);
                          return Tensors{x.exponential_(), y};
                        },
                        tol);
                  }
                  draw_sweep(&sw, "lambda 0", [](Device d) {
                    return Tensors{ember::empty({3}, TensorOptions().device(d)).exponential_(0)};
                  });
                }});
  c->push_back({"composite_geometric", [] {
                  Sweep sw("composite_geometric");
                  for (ScalarType t : {kFloat32, kFloat64, kInt32, kInt64, kUInt8}) {
                    draw_sweep(&sw, dtype_name(t), [t](Device d) {
                      Tensor x = ember::empty({2001}, TensorOptions(t).device(d));
                      return Tensors{x.geometric_(0.3), x.clone().geometric_(0.9)};
                    });
                  }
                }});
  c->push_back({"composite_log_normal", [=] {
                  Sweep sw("composite_log_normal");
                  for (ScalarType t : kFloats) {
                    draw_sweep(&sw, dtype_name(t),
                               [t](Device d) {
                                 Tensor x = ember::empty({1001}, TensorOptions(t).device(d));
                                 return Tensors{x.log_normal_(), x.clone().log_normal_(-1, 0.5)};
                               },
                               {1e-4, 1e-6, 1e-11, 1e-12});
                  }
                }});
  c->push_back({"composite_cauchy", [=] {
                  Sweep sw("composite_cauchy");
                  for (ScalarType t : kFloats) {
                    draw_sweep(&sw, dtype_name(t),
                               [t](Device d) {
                                 Tensor x = ember::empty({1001}, TensorOptions(t).device(d));
                                 return Tensors{x.cauchy_(), x.clone().cauchy_(3, 0.5)};
                               },
                               {1e-5, 1e-6, 1e-9, 1e-12});
                  }
                }});
}

}  // namespace

CaseList random_more_cases() {
  CaseList c;
  c.push_back({"random_from_to", random_from_to_case});
  c.push_back({"multinomial", multinomial_case});
  c.push_back({"composite_bernoulli", bernoulli_case});
  continuous_cases(&c);
  return c;
}

}  // namespace parity
