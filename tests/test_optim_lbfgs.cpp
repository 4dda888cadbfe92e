// optim::LBFGS: the first step derived by hand, several iterations against a naive float64
// re-implementation of PyTorch's algorithm (no line search), convergence to known minima
// (Rosenbrock, least squares) with and without strong_wolfe, state, options and errors.
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/cuda/api.h>
#include <ember/optim/optim.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

namespace {

using namespace ember;
using namespace ember::optim;
using Vec = std::vector<double>;

Vec values(const Tensor& t) {
  Tensor c = t.detach().to(kFloat64).contiguous().reshape({-1});
  Vec v(c.numel());
  for (int64_t i = 0; i < c.numel(); ++i) v[i] = c[i].item<double>();
  return v;
}

// Rosenbrock: minimum 0 at (1, 1).
Tensor rosenbrock(const Tensor& p) {
  Tensor x = p[0], y = p[1];
  return (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x);
}
double rosen_f(const Vec& p) {
  return (1 - p[0]) * (1 - p[0]) + 100 * (p[1] - p[0] * p[0]) * (p[1] - p[0] * p[0]);
}
Vec rosen_g(const Vec& p) {
  return {-2 * (1 - p[0]) - 400 * p[0] * (p[1] - p[0] * p[0]), 200 * (p[1] - p[0] * p[0])};
}

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// PyTorch's L-BFGS step without line search, written out over std::vector<double>.
struct RefLBFGS {
  RefLBFGS(double lr, int max_iter, int history, std::function<double(const Vec&)> f,
           std::function<Vec(const Vec&)> grad)
      : lr(lr), max_iter(max_iter), history(history), f(std::move(f)), grad(std::move(grad)) {}
  double lr;
  int max_iter;
  int history;
  std::function<double(const Vec&)> f;
  std::function<Vec(const Vec&)> grad;
  std::deque<Vec> dirs, stps;
  std::deque<double> ro;
  Vec d, prev_g;
  double t = 0, H = 1;
  int n_iter_total = 0;

  double step(Vec& x) {
    const double orig = f(x);
    double loss = orig;
    Vec g = grad(x);
    int evals = 1;
    const int max_eval = max_iter * 5 / 4;
    double gmax = 0;
    for (double v : g) gmax = std::max(gmax, std::abs(v));
    if (gmax <= 1e-7) return orig;
    for (int n_iter = 1; n_iter <= max_iter; ++n_iter) {
      ++n_iter_total;
      const size_t n = x.size();
      if (n_iter_total == 1) {
        d.assign(n, 0);
        for (size_t i = 0; i < n; ++i) d[i] = -g[i];
        H = 1;
      } else {
        Vec y(n), s(n);
        for (size_t i = 0; i < n; ++i) {
          y[i] = g[i] - prev_g[i];
          s[i] = d[i] * t;
        }
        const double ys = dot(y, s);
        if (ys > 1e-10) {
          if (static_cast<int>(dirs.size()) == history) {
            dirs.pop_front();
            stps.pop_front();
            ro.pop_front();
          }
          dirs.push_back(y);
          stps.push_back(s);
          ro.push_back(1 / ys);
          H = ys / dot(y, y);
        }
        const int k = static_cast<int>(dirs.size());
        std::vector<double> al(k);
        Vec q(n);
        for (size_t i = 0; i < n; ++i) q[i] = -g[i];
        for (int i = k - 1; i >= 0; --i) {
          al[i] = dot(stps[i], q) * ro[i];
          for (size_t j = 0; j < n; ++j) q[j] -= al[i] * dirs[i][j];
        }
        for (size_t j = 0; j < n; ++j) q[j] *= H;
        for (int i = 0; i < k; ++i) {
          const double be = dot(dirs[i], q) * ro[i];
          for (size_t j = 0; j < n; ++j) q[j] += (al[i] - be) * stps[i][j];
        }
        d = q;
      }
      prev_g = g;
      const double prev_loss = loss;
      if (n_iter_total == 1) {
        double l1 = 0;
        for (double v : g) l1 += std::abs(v);
        t = std::min(1.0, 1.0 / l1) * lr;
      } else {
        t = lr;
      }
      if (dot(g, d) > -1e-9) break;
      for (size_t i = 0; i < n; ++i) x[i] += t * d[i];
      int ls = 0;
      bool opt = false;
      if (n_iter != max_iter) {
        loss = f(x);
        g = grad(x);
        gmax = 0;
        for (double v : g) gmax = std::max(gmax, std::abs(v));
        opt = gmax <= 1e-7;
        ls = 1;
      }
      evals += ls;
      if (n_iter == max_iter || evals >= max_eval || opt) break;
      double dmax = 0;
      for (double v : d) dmax = std::max(dmax, std::abs(v * t));
      if (dmax <= 1e-9 || std::abs(loss - prev_loss) < 1e-9) break;
    }
    return orig;
  }
};

Tensor closure_step(LBFGS& opt, const Tensor& p, const std::function<Tensor(const Tensor&)>& fn) {
  return opt.step([&] {
    opt.zero_grad();
    Tensor loss = fn(p);
    loss.backward();
    return loss;
  });
}

TEST(LBFGS, FirstIterationIsAScaledGradientStep) {
  // quad: sum w (p - 0.5)^2, w = 1..4; g = 2 w (p - 0.5).
  Tensor p = linspace(-1, 1, 4).requires_grad_();
  auto quad = [](const Tensor& q) {
    Tensor w = arange(1, 5).to(q.scalar_type());
    return (w * (q - 0.5) * (q - 0.5)).sum();
  };
  const Vec p0 = values(p);
  LBFGS opt({p}, LBFGSOptions(0.5).max_iter(1));
  Tensor loss = closure_step(opt, p, quad);
  Vec g(4);
  double l1 = 0, f0 = 0;
  for (int i = 0; i < 4; ++i) {
    g[i] = 2 * (i + 1) * (p0[i] - 0.5);
    l1 += std::abs(g[i]);
    f0 += (i + 1) * (p0[i] - 0.5) * (p0[i] - 0.5);
  }
  const double t = std::min(1.0, 1.0 / l1) * 0.5;
  const Vec p1 = values(p);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(p1[i], p0[i] - t * g[i], 1e-6) << i;
  EXPECT_NEAR(loss.item<double>(), f0, 1e-5);  // the loss before the step
  auto& st = static_cast<LBFGSParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_EQ(st.func_evals(), 1);
  EXPECT_EQ(st.n_iter(), 1);
  EXPECT_NEAR(st.t(), t, 1e-7);  // |g|_1 is a float32 sum
  EXPECT_TRUE(st.old_dirs().empty());
}

TEST(LBFGS, IterationsMatchAFloat64Reference) {
  for (int max_iter : {1, 3, 7}) {
    Tensor p = tensor({-1.2, 1.0}, kFloat64).requires_grad_();
    LBFGS opt({p}, LBFGSOptions(0.1).max_iter(max_iter).history_size(3));
    RefLBFGS ref(0.1, max_iter, 3, rosen_f, rosen_g);
    Vec x = {-1.2, 1.0};
    for (int s = 0; s < 4; ++s) {
      Tensor loss = closure_step(opt, p, rosenbrock);
      const double ref_loss = ref.step(x);
      EXPECT_NEAR(loss.item<double>(), ref_loss, 1e-9 * (1 + std::abs(ref_loss)));
      const Vec got = values(p);
      EXPECT_NEAR(got[0], x[0], 1e-9) << "max_iter " << max_iter << " step " << s;
      EXPECT_NEAR(got[1], x[1], 1e-9) << "max_iter " << max_iter << " step " << s;
    }
    auto& st = static_cast<LBFGSParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
    EXPECT_EQ(st.n_iter(), ref.n_iter_total);
    EXPECT_LE(static_cast<int>(st.old_dirs().size()), 3);
    EXPECT_EQ(st.old_dirs().size(), ref.dirs.size());
  }
}

TEST(LBFGS, StrongWolfeMinimizesRosenbrock) {
  Tensor p = tensor({-1.5, 2.0}, kFloat64).requires_grad_();
  LBFGS opt({p}, LBFGSOptions(1).max_iter(200).line_search_fn("strong_wolfe"));
  double first = closure_step(opt, p, rosenbrock).item<double>();
  EXPECT_NEAR(first, rosen_f({-1.5, 2.0}), 1e-9);
  for (int s = 0; s < 5; ++s) closure_step(opt, p, rosenbrock);
  const Vec got = values(p);
  EXPECT_NEAR(got[0], 1.0, 1e-5);
  EXPECT_NEAR(got[1], 1.0, 1e-5);
  auto& st = static_cast<LBFGSParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_GT(st.func_evals(), st.n_iter() / 2);
  EXPECT_LE(st.old_dirs().size(), 100u);
}

TEST(LBFGS, StrongWolfeStepSatisfiesTheWolfeConditions) {
  // One iteration: the accepted step t along d = -g satisfies Armijo and curvature conditions.
  Tensor p = tensor({-1.5, 2.0}, kFloat64).requires_grad_();
  LBFGS opt({p}, LBFGSOptions(1).max_iter(2).line_search_fn("strong_wolfe"));
  closure_step(opt, p, rosenbrock);
  auto& st = static_cast<LBFGSParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  // After two iterations the second direction and step are in the state; check the first
  // iteration with its own optimizer.
  Tensor q = tensor({-1.5, 2.0}, kFloat64).requires_grad_();
  LBFGS one({q}, LBFGSOptions(1).max_iter(1).line_search_fn("strong_wolfe"));
  closure_step(one, q, rosenbrock);
  auto& s1 = static_cast<LBFGSParamState&>(*one.state().at(q.unsafeGetTensorImpl()));
  const Vec x0 = {-1.5, 2.0};
  const Vec g0 = rosen_g(x0);
  const Vec d = values(s1.d());
  EXPECT_NEAR(d[0], -g0[0], 1e-9);
  EXPECT_NEAR(d[1], -g0[1], 1e-9);
  const double t = s1.t();
  const Vec x1 = values(q);
  EXPECT_NEAR(x1[0], x0[0] + t * d[0], 1e-9);
  EXPECT_NEAR(x1[1], x0[1] + t * d[1], 1e-9);
  const double gtd0 = dot(g0, d);
  EXPECT_LE(rosen_f(x1), rosen_f(x0) + 1e-4 * t * gtd0);
  EXPECT_LE(std::abs(dot(rosen_g(x1), d)), -0.9 * gtd0);
  EXPECT_GT(st.func_evals(), 2);
}

TEST(LBFGS, LeastSquaresReachesTheExactSolution) {
  for (bool wolfe : {false, true}) {
    manual_seed(3);
    Tensor A = randn({12, 3}, kFloat64);
    Tensor x_star = tensor({0.5, -1.25, 2.0}, kFloat64);
    Tensor b = matmul(A, x_star);
    Tensor x = zeros({3}, TensorOptions().dtype(kFloat64).requires_grad(true));
    LBFGSOptions o(1);
    o.max_iter(50);
    if (wolfe) o.line_search_fn("strong_wolfe");
    LBFGS opt({x}, o);
    auto lsq = [&](const Tensor& v) { return (matmul(A, v) - b).pow(2).sum(); };
    for (int s = 0; s < 5; ++s) closure_step(opt, x, lsq);
    const Vec got = values(x);
    EXPECT_NEAR(got[0], 0.5, 1e-6) << wolfe;
    EXPECT_NEAR(got[1], -1.25, 1e-6) << wolfe;
    EXPECT_NEAR(got[2], 2.0, 1e-6) << wolfe;
  }
}

TEST(LBFGS, SeveralParametersAndFloat32) {
  // Two parameters are one flat vector: same result as one parameter holding both.
  Tensor a = tensor({-1.2f}).requires_grad_();
  Tensor b = tensor({1.0f}).requires_grad_();
  Tensor ab = tensor({-1.2f, 1.0f}).requires_grad_();
  LBFGS o2({a, b}, LBFGSOptions(1).max_iter(10).line_search_fn("strong_wolfe"));
  LBFGS o1({ab}, LBFGSOptions(1).max_iter(10).line_search_fn("strong_wolfe"));
  for (int s = 0; s < 3; ++s) {
    o2.step([&] {
      o2.zero_grad();
      Tensor loss = rosenbrock(cat({a, b}));
      loss.backward();
      return loss;
    });
    closure_step(o1, ab, rosenbrock);
  }
  EXPECT_NEAR(a.item<double>(), ab[0].item<double>(), 1e-6);
  EXPECT_NEAR(b.item<double>(), ab[1].item<double>(), 1e-6);
  EXPECT_EQ(ab.dtype(), kFloat32);
}

TEST(LBFGS, OptionsDefaultsAndErrors) {
  LBFGSOptions d;
  EXPECT_EQ(d.lr(), 1);
  EXPECT_EQ(d.max_iter(), 20);
  EXPECT_FALSE(d.max_eval().has_value());
  EXPECT_EQ(d.tolerance_grad(), 1e-7);
  EXPECT_EQ(d.tolerance_change(), 1e-9);
  EXPECT_EQ(d.history_size(), 100);
  EXPECT_FALSE(d.line_search_fn().has_value());
  Tensor p = ones({2}).requires_grad_();
  LBFGS opt({p}, LBFGSOptions().max_iter(8));
  // max_eval defaults to max_iter * 5 / 4.
  EXPECT_EQ(static_cast<LBFGSOptions&>(opt.param_groups()[0].options()).max_eval(), 10);
  EXPECT_EQ(static_cast<LBFGSOptions&>(opt.defaults()).max_eval(), 10);
  EXPECT_THROW(opt.step(nullptr), Error);
  LBFGS bad({p}, LBFGSOptions().line_search_fn("backtracking"));
  EXPECT_THROW(bad.step([&] {
    bad.zero_grad();
    Tensor l = (p * p).sum();
    l.backward();
    return l;
  }),
               Error);
  Tensor q = ones({2}).requires_grad_();
  EXPECT_THROW(LBFGS({OptimizerParamGroup({p}), OptimizerParamGroup({q})}), Error);
}

TEST(LBFGS, StopsAtAnOptimum) {
  // Zero gradient: the closure runs once and nothing moves.
  Tensor p = tensor({0.5, 0.5}, kFloat64).requires_grad_();
  LBFGS opt({p}, LBFGSOptions(1));
  int calls = 0;
  opt.step([&] {
    ++calls;
    opt.zero_grad();
    Tensor l = ((p - 0.5) * (p - 0.5)).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(values(p), (Vec{0.5, 0.5}));
}

TEST(LBFGS, CudaMatchesCpu) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (bool wolfe : {false, true}) {
    manual_seed(5);
    Tensor A = randn({40, 6}, kFloat64);
    Tensor b = randn({40}, kFloat64);
    Tensor Ag = A.to(kCUDA), bg = b.to(kCUDA);
    Tensor x = zeros({6}, TensorOptions().dtype(kFloat64).requires_grad(true));
    Tensor xg = zeros({6}, TensorOptions().dtype(kFloat64).device(kCUDA).requires_grad(true));
    LBFGSOptions o(0.5);
    o.max_iter(6).history_size(4);
    if (wolfe) o.line_search_fn("strong_wolfe");
    LBFGS cpu({x}, o), gpu({xg}, o);
    for (int s = 0; s < 3; ++s) {
      Tensor lc =
          closure_step(cpu, x, [&](const Tensor& v) { return (matmul(A, v) - b).pow(2).sum(); });
      Tensor lg =
          closure_step(gpu, xg, [&](const Tensor& v) { return (matmul(Ag, v) - bg).pow(2).sum(); });
      EXPECT_NEAR(lc.item<double>(), lg.item<double>(), 1e-9 * (1 + std::abs(lc.item<double>())));
      EXPECT_EQ(lg.device().type(), kCUDA);
      const Vec vc = values(x), vg = values(xg.cpu());
      for (size_t i = 0; i < vc.size(); ++i) EXPECT_NEAR(vc[i], vg[i], 1e-8) << wolfe << " " << s;
    }
  }
}

}  // namespace
