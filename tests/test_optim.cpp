// Optimizers against PyTorch: every case of tests/data/optim_reference.txt (made by
// tools/make_optim_reference.py) runs five steps on two parameters with fixed gradients and
// compares the parameters after each step. Plus the Optimizer base's behaviour: groups,
// state, zero_grad, closures, moves after construction, non-contiguous parameters, errors.
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/optim/optim.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace ember;
using namespace ember::optim;
using Values = std::vector<double>;

// ---- the reference file ----

struct Case {
  std::string name;
  ScalarType dtype = kFloat32;
  std::vector<Values> init;
  std::vector<std::vector<Values>> grads;   // [step][param]; empty = no gradient
  std::vector<std::vector<Values>> expect;  // [step][param]
};

std::vector<Values> parse_parts(std::istream& in) {
  std::vector<Values> parts(1);
  std::string tok;
  while (in >> tok) {
    if (tok == "|") {
      parts.emplace_back();
    } else if (tok != "none") {  // "none" leaves the part empty

      parts.back().push_back(std::stod(tok));
    }
  }
  return parts;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> v;
    std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/optim_reference.txt");
    EXPECT_TRUE(in.good()) << "missing tests/data/optim_reference.txt";
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string kind;
      ls >> kind;
      if (kind == "case") {
        Case c;
        std::string dtype;
        ls >> c.name >> dtype;
        c.dtype = dtype == "float64" ? kFloat64 : kFloat32;
        v.push_back(c);
      } else if (kind == "init") {
        v.back().init = parse_parts(ls);
      } else if (kind == "grad") {
        v.back().grads.push_back(parse_parts(ls));
      } else if (kind == "expect") {
        v.back().expect.push_back(parse_parts(ls));
      }
    }
    return v;
  }();
  return all;
}

const std::vector<std::vector<int64_t>> kShapes = {{2, 3}, {4}};

Tensor make(const Values& values, const std::vector<int64_t>& shape, ScalarType dtype) {
  return tensor(values, TensorOptions().dtype(kFloat64)).to(dtype).reshape(shape);
}

// ---- the optimizers of each case (as in tools/make_optim_reference.py) ----

using Factory = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>;

std::vector<OptimizerParamGroup> two_groups(const std::vector<Tensor>& p,
                                            std::unique_ptr<OptimizerOptions> o0,
                                            std::unique_ptr<OptimizerOptions> o1) {
  std::vector<OptimizerParamGroup> g;
  g.emplace_back(std::vector<Tensor>{p[0]}, std::move(o0));
  g.emplace_back(std::vector<Tensor>{p[1]}, std::move(o1));
  return g;
}

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> m = {
      {"sgd_plain", [](auto p) { return std::make_unique<SGD>(p, SGDOptions(0.1)); }},
      {"sgd_momentum",
       [](auto p) { return std::make_unique<SGD>(p, SGDOptions(0.1).momentum(0.9)); }},
      {"sgd_dampening_wd",
       [](auto p) {
         return std::make_unique<SGD>(
             p, SGDOptions(0.05).momentum(0.9).dampening(0.3).weight_decay(0.01));
       }},
      {"sgd_nesterov",
       [](auto p) {
         return std::make_unique<SGD>(
             p, SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.001));
       }},
      {"sgd_groups",
       [](auto p) {
         return std::make_unique<SGD>(
             two_groups(p, std::make_unique<SGDOptions>(SGDOptions(0.1).momentum(0.5)),
                        std::make_unique<SGDOptions>(0.01)),
             SGDOptions(0.3));
       }},
      {"sgd_skip", [](auto p) { return std::make_unique<SGD>(p, SGDOptions(0.1).momentum(0.9)); }},
      {"sgd_f64",
       [](auto p) {
         return std::make_unique<SGD>(
             p, SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01));
       }},
      {"adam_default", [](auto p) { return std::make_unique<Adam>(p, AdamOptions(0.01)); }},
      {"adam_wd_amsgrad",
       [](auto p) {
         return std::make_unique<Adam>(p, AdamOptions(0.02)
                                              .betas(std::make_tuple(0.8, 0.95))
                                              .eps(1e-6)
                                              .weight_decay(0.1)
                                              .amsgrad(true));
       }},
      {"adam_skip", [](auto p) { return std::make_unique<Adam>(p, AdamOptions(0.01)); }},
      {"adam_groups",
       [](auto p) {
         return std::make_unique<Adam>(
             two_groups(p, std::make_unique<AdamOptions>(0.01),
                        std::make_unique<AdamOptions>(AdamOptions(0.001).amsgrad(true))),
             AdamOptions(0.5));
       }},
      {"adam_f64",
       [](auto p) { return std::make_unique<Adam>(p, AdamOptions(0.01).amsgrad(true)); }},
      {"adamw_default", [](auto p) { return std::make_unique<AdamW>(p, AdamWOptions(0.01)); }},
      {"adamw_amsgrad",
       [](auto p) {
         return std::make_unique<AdamW>(p, AdamWOptions(0.01).weight_decay(0.1).amsgrad(true));
       }},
      {"rmsprop_default",
       [](auto p) { return std::make_unique<RMSprop>(p, RMSpropOptions(0.01)); }},
      {"rmsprop_centered",
       [](auto p) { return std::make_unique<RMSprop>(p, RMSpropOptions(0.01).centered(true)); }},
      {"rmsprop_momentum",
       [](auto p) { return std::make_unique<RMSprop>(p, RMSpropOptions(0.01).momentum(0.5)); }},
      {"rmsprop_all",
       [](auto p) {
         return std::make_unique<RMSprop>(
             p, RMSpropOptions(0.01).alpha(0.9).eps(1e-6).weight_decay(0.05).momentum(0.8).centered(
                    true));
       }},
      {"adagrad_default", [](auto p) { return std::make_unique<Adagrad>(p, AdagradOptions(0.1)); }},
      {"adagrad_all",
       [](auto p) {
         return std::make_unique<Adagrad>(p, AdagradOptions(0.1)
                                                 .lr_decay(0.05)
                                                 .weight_decay(0.02)
                                                 .initial_accumulator_value(0.1)
                                                 .eps(1e-8));
       }},
      {"adagrad_skip",
       [](auto p) { return std::make_unique<Adagrad>(p, AdagradOptions(0.1).lr_decay(0.1)); }},
  };
  return m;
}

void expect_values(const Tensor& t, const Values& want, double rtol, double atol,
                   const std::string& what) {
  Tensor d = t.detach().to(kFloat64).contiguous();
  ASSERT_EQ(d.numel(), static_cast<int64_t>(want.size())) << what;
  const double* got = d.data_ptr<double>();
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i])) << what << " element " << i;
  }
}

class OptimizerReference : public ::testing::TestWithParam<std::string> {};

TEST_P(OptimizerReference, MatchesPyTorch) {
  const Case* c = nullptr;
  for (const Case& k : cases())
    if (k.name == GetParam()) c = &k;
  ASSERT_NE(c, nullptr) << "no case " << GetParam() << " in optim_reference.txt";
  std::vector<Tensor> params;
  for (size_t i = 0; i < kShapes.size(); ++i)
    params.push_back(make(c->init[i], kShapes[i], c->dtype).requires_grad_(true));
  auto opt = factories().at(c->name)(params);
  const bool f64 = c->dtype == kFloat64;
  for (size_t step = 0; step < c->grads.size(); ++step) {
    for (size_t i = 0; i < params.size(); ++i) {
      const Values& g = c->grads[step][i];
      params[i].mutable_grad() = g.empty() ? Tensor() : make(g, kShapes[i], c->dtype);
    }
    opt->step();
    for (size_t i = 0; i < params.size(); ++i) {
      expect_values(params[i], c->expect[step][i], f64 ? 1e-12 : 2e-6, f64 ? 1e-13 : 1e-6,
                    c->name + " step " + std::to_string(step) + " param " + std::to_string(i));
    }
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> v;
  for (const auto& [name, f] : factories()) v.push_back(name);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Cases, OptimizerReference, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(OptimizerReferenceFile, EveryCaseHasAFactory) {
  ASSERT_FALSE(cases().empty());
  for (const Case& c : cases()) EXPECT_TRUE(factories().count(c.name)) << c.name;
  EXPECT_EQ(cases().size(), factories().size());
}

// ---- the Optimizer base ----

Tensor param(std::vector<float> v) { return tensor(v).requires_grad_(true); }

TEST(Optimizer, GroupsStateAndSizes) {
  Tensor a = param({1, 2}), b = param({3}), c = param({4, 5, 6});
  SGD opt({a, b}, SGDOptions(0.1).momentum(0.9));
  EXPECT_EQ(opt.size(), 2u);
  EXPECT_EQ(opt.param_groups().size(), 1u);
  EXPECT_TRUE(opt.parameters()[1].is_same(b));
  opt.add_param_group(OptimizerParamGroup({c}, std::make_unique<SGDOptions>(0.5)));
  EXPECT_EQ(opt.size(), 3u);
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.1);
  EXPECT_DOUBLE_EQ(opt.param_groups()[1].options().lr(), 0.5);
  // a group without options takes a copy of the defaults
  Tensor d = param({7});
  opt.add_param_group(OptimizerParamGroup({d}));
  EXPECT_DOUBLE_EQ(static_cast<SGDOptions&>(opt.param_groups()[2].options()).momentum(), 0.9);
  opt.param_groups()[2].options().set_lr(0.25);
  EXPECT_DOUBLE_EQ(opt.defaults().get_lr(), 0.1);
  EXPECT_THROW(opt.add_param_group(OptimizerParamGroup({a})), Error);  // already present

  a.mutable_grad() = tensor({1.f, 1.f});
  opt.step();
  EXPECT_EQ(opt.state().size(), 1u);  // only a had a gradient
  auto& st = static_cast<SGDParamState&>(*opt.state().at(a.unsafeGetTensorImpl()));
  EXPECT_TRUE(allclose(st.momentum_buffer(), tensor({1.f, 1.f})));
  EXPECT_TRUE(allclose(a, tensor({0.9f, 1.9f})));
  EXPECT_TRUE(allclose(b, tensor({3.f})));  // no gradient: untouched
}

TEST(Optimizer, ZeroGrad) {
  Tensor a = param({1, 2});
  Adam opt({a});
  (a * a).sum().backward();
  ASSERT_TRUE(a.grad().defined());
  opt.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(a.grad().defined());
  EXPECT_TRUE(allclose(a.grad(), zeros({2})));
  opt.zero_grad();
  EXPECT_FALSE(a.grad().defined());
  opt.step();  // no gradients: nothing happens
  EXPECT_TRUE(allclose(a, tensor({1.f, 2.f})));
}

TEST(Optimizer, ClosureRunsWithGradAndReturnsLoss) {
  Tensor a = param({3});
  SGD opt({a}, SGDOptions(0.1));
  NoGradGuard outer;  // the closure still records
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (a * a).sum();
    l.backward();
    return l;
  });
  EXPECT_FLOAT_EQ(loss.item<float>(), 9.f);
  EXPECT_FLOAT_EQ(a.item<float>(), 3.f - 0.1f * 6.f);
}

TEST(Optimizer, HeldThroughTheBase) {
  Tensor a = param({1});
  std::vector<std::unique_ptr<Optimizer>> opts;
  opts.push_back(std::make_unique<SGD>(std::vector<Tensor>{a}, SGDOptions(1)));
  opts.push_back(std::make_unique<AdamW>(std::vector<Tensor>{a}));
  opts.push_back(std::make_unique<RMSprop>(std::vector<Tensor>{a}));
  opts.push_back(std::make_unique<Adagrad>(std::vector<Tensor>{a}));
  for (auto& o : opts) {
    a.mutable_grad() = tensor({1.f});
    o->step();
  }
  EXPECT_LT(a.item<float>(), 0.f);
}

// Module::to moves parameters in place with set_data; the state must follow.
TEST(Optimizer, StateFollowsParametersMovedAfterConstruction) {
  for (int which = 0; which < 4; ++which) {
    Tensor a = param({1, -2, 3});
    Tensor b = tensor({1.0, -2.0, 3.0}, kFloat64).requires_grad_(true);  // the reference
    std::unique_ptr<Optimizer> opt, ref;
    auto make_opt = [&](Tensor p) -> std::unique_ptr<Optimizer> {
      std::vector<Tensor> v{p};
      if (which == 0) return std::make_unique<SGD>(v, SGDOptions(0.1).momentum(0.9));
      if (which == 1) return std::make_unique<Adam>(v, AdamOptions(0.1).amsgrad(true));
      if (which == 2) return std::make_unique<RMSprop>(v, RMSpropOptions(0.1).centered(true));
      return std::make_unique<Adagrad>(v, AdagradOptions(0.1));
    };
    opt = make_opt(a);
    ref = make_opt(b);
    const std::vector<std::vector<double>> grads = {{0.5, -1, 2}, {1, 1, -0.5}, {-2, 0.25, 1}};
    for (size_t s = 0; s < grads.size(); ++s) {
      if (s == 1) {  // as Module::to(kFloat64) would
        NoGradGuard g;
        a.set_data(a.to(kFloat64));
      }
      a.mutable_grad() = tensor(grads[s], kFloat64).to(a.dtype());
      b.mutable_grad() = tensor(grads[s], kFloat64);
      opt->step();
      ref->step();
    }
    EXPECT_EQ(a.dtype(), kFloat64);
    EXPECT_TRUE(allclose(a, b, 1e-5, 1e-6)) << "optimizer " << which;
  }
}

TEST(Optimizer, NonContiguousParameters) {
  Tensor base = tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}).reshape({2, 3});
  Tensor a = base.t().contiguous().t().detach().requires_grad_(true);  // column-major leaf
  ASSERT_FALSE(a.is_contiguous());
  Tensor b = base.clone().requires_grad_(true);
  Adam opt_a({a}, AdamOptions(0.1)), opt_b({b}, AdamOptions(0.1));
  for (int s = 0; s < 3; ++s) {
    Tensor g = tensor({0.5f, -1.f, 2.f, 1.f, 1.f, -0.5f}).reshape({2, 3}) * float(s + 1);
    a.mutable_grad() = g.t().contiguous().t();  // non-contiguous gradient too
    b.mutable_grad() = g;
    opt_a.step();
    opt_b.step();
  }
  EXPECT_FALSE(a.is_contiguous());
  EXPECT_TRUE(allclose(a, b));
}

TEST(Optimizer, Errors) {
  Tensor a = param({1, 2});
  EXPECT_THROW(SGD({a}, SGDOptions(-1)), Error);
  EXPECT_THROW(SGD({a}, SGDOptions(0.1).nesterov(true)), Error);  // needs momentum
  EXPECT_THROW(Adam({a}, AdamOptions(0.1).betas(std::make_tuple(1.0, 0.9))), Error);
  EXPECT_THROW(RMSprop({a}, RMSpropOptions(0.1).momentum(-1)), Error);
  EXPECT_THROW(Adagrad({a}, AdagradOptions(0.1).lr_decay(-1)), Error);
  EXPECT_THROW(SGD({a, a}, SGDOptions(0.1)), Error);  // duplicate parameter
  Tensor nonleaf = a * 2;
  EXPECT_THROW(SGD({nonleaf}, SGDOptions(0.1)), Error);

  SGD opt({a}, SGDOptions(0.1));
  a.mutable_grad() = tensor({1.f, 2.f, 3.f});
  try {
    opt.step();
    FAIL() << "no error for a gradient of the wrong shape";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("SGD"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("[3]"));
  }
  a.mutable_grad() = tensor({1.0, 2.0}, kFloat64);
  EXPECT_THROW(opt.step(), Error);
}

TEST(Optimizer, LargeParameterUsesThreads) {
  // over the CPU kernel's parallel grain: the result must not depend on the split
  const int64_t n = 100003;
  Tensor a = linspace(-1.0, 1.0, n).requires_grad_(true);
  Tensor expect = a.detach().clone();
  SGD opt({a}, SGDOptions(0.5).momentum(0.9));
  Tensor g = linspace(2.0, -2.0, n);
  a.mutable_grad() = g;
  opt.step();
  opt.step();
  // buf1 = g, p1 = p0 - 0.5 g; buf2 = 0.9 g + g, p2 = p1 - 0.5 * 1.9 g
  EXPECT_TRUE(allclose(a, expect - g * 1.45f, 1e-5, 1e-6));
}

}  // namespace

// The fused Adam kernel reads {step_size, bias_correction2_sqrt} from memory when step_scalars
// is set (the path a CUDA graph's replays use): the same update, bit for bit, as the scalars
// passed by value, for Adam, AdamW and amsgrad, float32 and float64.
TEST(Optimizer, AdamStepScalarsFromMemoryMatchByValue) {
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    for (bool decoupled : {false, true}) {
      for (bool amsgrad : {false, true}) {
        manual_seed(7);
        const auto make = [&] { return randn({1000}, dtype); };
        const Tensor p0 = make(), g = make(), m0 = make(), v0 = make().abs(), vmax0 = v0 * 2;
        AdamStepArgs args;
        args.lr = 1e-2;
        args.beta1 = 0.9;
        args.beta2 = 0.99;
        args.eps = 1e-8;
        args.weight_decay = 0.1;
        args.amsgrad = amsgrad;
        args.decoupled_weight_decay = decoupled;
        const double step = 7;
        args.step_size = args.lr / (1 - std::pow(args.beta1, step));
        args.bias_correction2_sqrt = std::sqrt(1 - std::pow(args.beta2, step));
        std::vector<Tensor> by_value = {p0.clone(), m0.clone(), v0.clone(), vmax0.clone()};
        std::vector<Tensor> from_memory = {p0.clone(), m0.clone(), v0.clone(), vmax0.clone()};
        const auto run = [&](std::vector<Tensor>& t, const AdamStepArgs& a) {
          const std::vector<Tensor> vmax = {amsgrad ? t[3] : Tensor()};
          native::adam_step_({t[0]}, {g}, {t[1]}, {t[2]}, vmax, a);
        };
        run(by_value, args);
        const double scalars[2] = {args.step_size, args.bias_correction2_sqrt};
        AdamStepArgs read = args;
        read.step_size = 123;  // ignored: the kernel reads the memory
        read.bias_correction2_sqrt = 456;
        read.step_scalars = scalars;
        run(from_memory, read);
        for (size_t k = 0; k < by_value.size(); ++k)
          EXPECT_TRUE(equal(by_value[k], from_memory[k]))
              << dtype << " decoupled " << decoupled << " amsgrad " << amsgrad << " " << k;
        EXPECT_FALSE(equal(by_value[0], p0));  // the step did something
      }
    }
  }
}
