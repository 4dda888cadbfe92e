// Learning-rate schedulers against PyTorch: the lr (and, for OneCycleLR, momentum) of two
// parameter groups after construction and after each step, read from
// tests/data/optim_schedulers.txt (made by tools/make_optim_reference.py); gradient clipping
// against tests/data/clip_grad.txt.
#include <ember/core/functions.h>
#include <ember/nn/clip_grad.h>
#include <ember/optim/optim.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <type_traits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace ember;
using namespace ember::optim;
using Rows = std::vector<std::vector<double>>;

std::vector<double> numbers(std::istream& in) {
  std::vector<double> v;
  std::string tok;
  while (in >> tok)
    if (tok != "|") v.push_back(std::stod(tok));
  return v;
}

struct SchedFile {
  std::map<std::string, Rows> rows;
  std::vector<double> metrics;
};

const SchedFile& sched_file() {
  static const SchedFile f = [] {
    SchedFile f;
    std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/optim_schedulers.txt");
    EXPECT_TRUE(in.good()) << "missing tests/data/optim_schedulers.txt";
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string kind;
      ls >> kind;
      if (kind == "metrics") {
        f.metrics = numbers(ls);
      } else if (kind == "sched") {
        std::string name;
        int n = 0;
        ls >> name >> n;
        for (int i = 0; i < n && std::getline(in, line); ++i) {
          std::istringstream rs(line);
          f.rows[name].push_back(numbers(rs));
        }
      }
    }
    return f;
  }();
  return f;
}

// Two groups (lr 0.1 and 0.05) as in the generator; SGD with momentum 0.9, or Adam.
struct TwoGroups {
  Tensor w0 = zeros({1}).requires_grad_(true), w1 = zeros({1}).requires_grad_(true);
  std::unique_ptr<Optimizer> opt;
  explicit TwoGroups(bool adam) {
    std::vector<OptimizerParamGroup> g;
    if (adam) {
      g.emplace_back(std::vector<Tensor>{w0}, std::make_unique<AdamOptions>(0.1));
      g.emplace_back(std::vector<Tensor>{w1}, std::make_unique<AdamOptions>(0.05));
      opt = std::make_unique<Adam>(std::move(g), AdamOptions(0.1));
    } else {
      g.emplace_back(std::vector<Tensor>{w0},
                     std::make_unique<SGDOptions>(SGDOptions(0.1).momentum(0.9)));
      g.emplace_back(std::vector<Tensor>{w1},
                     std::make_unique<SGDOptions>(SGDOptions(0.05).momentum(0.9)));
      opt = std::make_unique<SGD>(std::move(g), SGDOptions(0.1).momentum(0.9));
    }
  }
  std::vector<double> row() const {
    std::vector<double> r;
    for (auto& g : opt->param_groups()) r.push_back(g.options().get_lr());
    for (auto& g : opt->param_groups()) {
      if (auto* s = dynamic_cast<const SGDOptions*>(&g.options())) r.push_back(s->momentum());
      if (auto* a = dynamic_cast<const AdamOptions*>(&g.options()))
        r.push_back(std::get<0>(a->betas()));
    }
    return r;
  }
};

void expect_rows(const Rows& got, const std::string& name, double rtol = 1e-12) {
  const auto it = sched_file().rows.find(name);
  ASSERT_NE(it, sched_file().rows.end()) << "no " << name << " in optim_schedulers.txt";
  const Rows& want = it->second;
  ASSERT_EQ(got.size(), want.size()) << name;
  for (size_t s = 0; s < want.size(); ++s) {
    ASSERT_EQ(got[s].size(), want[s].size());
    for (size_t k = 0; k < want[s].size(); ++k) {
      EXPECT_NEAR(got[s][k], want[s][k], rtol * std::abs(want[s][k]) + 1e-15)
          << name << " row " << s << " column " << k;
    }
  }
}

using MakeScheduler = std::function<std::unique_ptr<LRScheduler>(Optimizer&)>;

void run_scheduler(const std::string& name, bool adam, int steps, const MakeScheduler& make) {
  TwoGroups t(adam);
  auto sched = make(*t.opt);
  Rows got = {t.row()};
  EXPECT_EQ(sched->get_last_lr(), std::vector<double>(got[0].begin(), got[0].begin() + 2));
  for (int s = 0; s < steps; ++s) {
    sched->step();
    got.push_back(t.row());
  }
  expect_rows(got, name);
}

// LibTorch's C++ StepLR decays one step after Python's (whose values the reference file holds):
// after k steps it has Python's lr after k - 1 steps.
TEST(Schedulers, StepLRFollowsLibTorch) {
  TwoGroups t(false);
  StepLR sched(*t.opt, 3, 0.5);
  std::vector<double> lr0;
  for (int k = 1; k <= 10; ++k) {
    sched.step();
    lr0.push_back(t.row()[0]);
  }
  // LibTorch 1.13 and 2.x: decays at the 4th, 7th and 10th step for step_size 3.
  EXPECT_EQ(lr0,
            (std::vector<double>{0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125}));
  const Rows& python = sched_file().rows.at("steplr");
  TwoGroups u(false);
  StepLR again(*u.opt, 3, 0.5);
  for (int k = 1; k <= 10; ++k) {
    again.step();
    const std::vector<double> row = u.row();
    for (size_t c = 0; c < row.size(); ++c) EXPECT_NEAR(row[c], python[k - 1][c], 1e-15) << k;
  }
}

TEST(Schedulers, MultiStepLR) {
  run_scheduler("multisteplr", false, 10, [](Optimizer& o) {
    return std::make_unique<MultiStepLR>(o, std::vector<int64_t>{2, 5, 5, 8}, 0.1);
  });
}

TEST(Schedulers, ExponentialLR) {
  run_scheduler("exponentiallr", false, 10,
                [](Optimizer& o) { return std::make_unique<ExponentialLR>(o, 0.9); });
}

TEST(Schedulers, CosineAnnealingLR) {
  run_scheduler("cosine", false, 15,
                [](Optimizer& o) { return std::make_unique<CosineAnnealingLR>(o, 5, 0.001); });
}

TEST(Schedulers, LinearLR) {
  run_scheduler("linearlr", false, 8,
                [](Optimizer& o) { return std::make_unique<LinearLR>(o, 0.25, 1.0, 4); });
  run_scheduler("linearlr_default", false, 8,
                [](Optimizer& o) { return std::make_unique<LinearLR>(o); });
}

TEST(Schedulers, OneCycleLR) {
  run_scheduler("onecycle_cos", false, 10, [](Optimizer& o) {
    return std::make_unique<OneCycleLR>(o, std::vector<double>{0.5, 0.2}, 10);
  });
  run_scheduler("onecycle_linear_three_phase", true, 12, [](Optimizer& o) {
    return std::make_unique<OneCycleLR>(o, 0.3, 12,
                                        OneCycleLROptions()
                                            .pct_start(0.25)
                                            .anneal_strategy(OneCycleLROptions::linear)
                                            .div_factor(10)
                                            .final_div_factor(100)
                                            .three_phase(true));
  });
  TwoGroups t(false);
  OneCycleLR sched(*t.opt, 0.5, 3);
  for (int i = 0; i < 3; ++i) sched.step();
  EXPECT_THROW(sched.step(), Error);  // past total_steps
  RMSprop rms(std::vector<Tensor>{t.w0});
  EXPECT_NO_THROW(OneCycleLR(rms, 0.5, 3));
  Adagrad ada(std::vector<Tensor>{t.w0});
  EXPECT_THROW(OneCycleLR(ada, 0.5, 3), Error);  // no momentum to cycle
  EXPECT_NO_THROW(OneCycleLR(ada, 0.5, 3, OneCycleLROptions().cycle_momentum(false)));
}

// The reference is Python's ReduceLROnPlateau, whose factor and min_lr are double; ember
// follows LibTorch's C++ scheduler, which keeps them (and the metric) in float, so the learning
// rates agree to float precision (the twin test compares with LibTorch C++ exactly).
TEST(Schedulers, ReduceLROnPlateau) {
  using P = ReduceLROnPlateauScheduler;
  const auto& metrics = sched_file().metrics;
  ASSERT_EQ(metrics.size(), 20u);
  {
    TwoGroups t(false);
    P sched(*t.opt, P::min, 0.5, 2, 0.01, P::rel, 1, {0.004});
    Rows got;
    for (double m : metrics) {
      sched.step(m);
      got.push_back(t.row());
    }
    expect_rows(got, "plateau_min_rel", 1e-6);
  }
  {
    TwoGroups t(false);
    ReduceLROnPlateau sched(*t.opt, P::max, 0.3, 1, 0.1, P::abs, 0, {0.01, 0.001});
    Rows got;
    for (double m : metrics) {
      sched.step(m);
      got.push_back(t.row());
    }
    expect_rows(got, "plateau_max_abs", 1e-6);
    EXPECT_EQ(sched.get_last_lr()[0], got.back()[0]);
  }
  TwoGroups t(false);
  EXPECT_THROW(P(*t.opt, P::min, 1.5), Error);
  EXPECT_THROW(P(*t.opt, P::min, 0.1, 10, 1e-4, P::rel, 0, {0.1, 0.2, 0.3}), Error);
}

// ---- clip_grad ----

TEST(ClipGrad, NormMatchesPyTorch) {
  std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/clip_grad.txt");
  ASSERT_TRUE(in.good()) << "missing tests/data/clip_grad.txt";
  const std::vector<std::vector<int64_t>> shapes = {{3, 4}, {5}, {2, 2, 2}};
  auto split = [&](const std::string& rest) {
    std::vector<Tensor> out;
    std::istringstream ss(rest);
    std::vector<double> cur;
    std::string tok;
    auto flush = [&] {
      out.push_back(tensor(cur, kFloat64).to(kFloat32).reshape(shapes[out.size()]));
      cur.clear();
    };
    while (ss >> tok) {
      if (tok == "|") {
        flush();
      } else {
        cur.push_back(std::stod(tok));
      }
    }
    flush();
    return out;
  };
  std::string line, grads_line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.rfind("grads ", 0) == 0) grads_line = line.substr(6);
    if (line.rfind("clip ", 0) != 0) continue;
    std::istringstream ls(line.substr(5));
    std::string name, norm_str;
    double max_norm = 0, total = 0;
    ls >> name >> max_norm >> norm_str >> total;
    const double norm_type =
        norm_str == "inf" ? std::numeric_limits<double>::infinity() : std::stod(norm_str);
    std::string clipped;
    std::getline(in, clipped);
    std::vector<Tensor> params;
    for (const Tensor& g : split(grads_line)) {
      Tensor p = zeros_like(g).requires_grad_(true);
      p.mutable_grad() = g;
      params.push_back(p);
    }
    // LibTorch's form returns a double; the no_sync_ form the same value as a 0-dim tensor.
    std::vector<Tensor> copies;
    for (const Tensor& p : params) {
      copies.push_back(zeros_like(p).requires_grad_(true));
      copies.back().mutable_grad() = p.grad().clone();
    }
    const double got = nn::utils::clip_grad_norm_(params, max_norm, norm_type);
    EXPECT_NEAR(got, total, 1e-5 * total) << name;
    Tensor on_device = nn::utils::clip_grad_norm_no_sync_(copies, max_norm, norm_type);
    EXPECT_EQ(on_device.dim(), 0);
    EXPECT_EQ(on_device.item<double>(), got) << name;
    for (size_t i = 0; i < params.size(); ++i)
      EXPECT_TRUE(equal(copies[i].grad(), params[i].grad()));
    const auto want = split(clipped.substr(8));
    for (size_t i = 0; i < params.size(); ++i)
      EXPECT_TRUE(allclose(params[i].grad(), want[i], 1e-5, 1e-7)) << name << " grad " << i;
    ++checked;
  }
  EXPECT_EQ(checked, 5);
}

TEST(ClipGrad, EdgeCases) {
  Tensor a = tensor({3.f, 4.f}).requires_grad_(true);
  Tensor b = tensor({1.f}).requires_grad_(true);            // no gradient: skipped
  EXPECT_EQ(nn::utils::clip_grad_norm_({a, b}, 1.0), 0.0);  // no grads at all
  a.mutable_grad() = tensor({3.f, 4.f});
  // a double, as LibTorch's (not a Tensor)
  static_assert(std::is_same<decltype(nn::utils::clip_grad_norm_(a, 1.0)), double>::value, "");
  EXPECT_FLOAT_EQ(nn::utils::clip_grad_norm_(a, 1.0), 5.f);
  EXPECT_TRUE(allclose(a.grad(), tensor({0.6f, 0.8f}), 1e-5));
  a.mutable_grad() = tensor({std::numeric_limits<float>::infinity(), 1.f});
  EXPECT_THROW(nn::utils::clip_grad_norm_({a, b}, 1.0, 2.0, /*error_if_nonfinite=*/true), Error);
  EXPECT_NO_THROW(nn::utils::clip_grad_norm_({a, b}, 1.0));

  a.mutable_grad() = tensor({-3.f, 0.5f});
  b.mutable_grad() = tensor({2.f});
  nn::utils::clip_grad_value_({a, b}, 1.0);
  EXPECT_TRUE(equal(a.grad(), tensor({-1.f, 0.5f})));
  EXPECT_TRUE(equal(b.grad(), tensor({1.f})));
}

}  // namespace
