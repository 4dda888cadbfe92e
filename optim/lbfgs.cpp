// LBFGS::step, ported from LibTorch's lbfgs.cpp (itself PyTorch's torch/optim/lbfgs.py): the
// two-loop recursion over the history, and the strong-Wolfe line search with cubic interpolation.
#include <ember/optim/lbfgs.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/optim/state_dict.h>

namespace ember {
namespace optim {

namespace {

double val(const Tensor& t) { return t.item<double>(); }

void check_options(const LBFGSOptions& o) {
  EMBER_CHECK(o.max_iter() > 0, "LBFGS: max_iter must be positive, got ", o.max_iter());
  EMBER_CHECK(o.history_size() > 0, "LBFGS: history_size must be positive, got ", o.history_size());
}

// Minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to the bounds (by
// default [min(x1, x2), max(x1, x2)]); the bounds' midpoint when the cubic has none.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  double xmin_bound, xmax_bound;
  if (bounds) {
    std::tie(xmin_bound, xmax_bound) = *bounds;
  } else if (x1 <= x2) {
    xmin_bound = x1;
    xmax_bound = x2;
  } else {
    xmin_bound = x2;
    xmax_bound = x1;
  }
  const double d1 = (g1 + g2) - (3 * (f1 - f2) / (x1 - x2));
  const double d2_square = std::pow(d1, 2) - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    double min_pos;
    if (x1 <= x2) {
      min_pos = x2 - ((x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2)));
    } else {
      min_pos = x1 - ((x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2)));
    }
    return std::min(std::max(min_pos, xmin_bound), xmax_bound);
  }
  return (xmin_bound + xmax_bound) / 2;
}

using ObjFunc =
    std::function<std::tuple<double, Tensor>(const std::vector<Tensor>&, double, const Tensor&)>;

// Returns (f_new, g_new, t, ls_func_evals): a step t along d satisfying the strong Wolfe
// conditions (or the best point found within max_ls evaluations).
std::tuple<double, Tensor, double, int64_t> strong_wolfe(
    const ObjFunc& obj_func, const std::vector<Tensor>& x, double t, const Tensor& d, double f,
    Tensor g, const Tensor& gtd, double c1 = 1e-4, double c2 = 0.9, double tolerance_change = 1e-9,
    double max_ls = 25) {
  const double d_norm = val(d.abs().max());
  g = g.clone();
  // evaluate objective and gradient using initial step
  auto [f_new, g_new] = obj_func(x, t, d);
  int64_t ls_func_evals = 1;
  Tensor gtd_new = g_new.dot(d);

  // bracket an interval containing a point satisfying the Wolfe criteria
  double t_prev = 0;
  double f_prev = f;
  Tensor g_prev = g;
  Tensor gtd_prev = gtd;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f;
  std::vector<Tensor> bracket_g, bracket_gtd;

  while (ls_iter < max_ls) {
    // check conditions
    if ((f_new > (f + c1 * t * val(gtd))) || (ls_iter > 1 && (f_new >= f_prev))) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(val(gtd_new)) <= (-c2 * val(gtd))) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (val(gtd_new) >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // interpolate
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, val(gtd_prev), t, f_new, val(gtd_new),
                          std::make_pair(min_step, max_step));
    // next step
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone();
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj_func(x, t, d);
    ls_func_evals += 1;
    gtd_new = g_new.dot(d);
    ls_iter += 1;
  }

  // reached max number of iterations?
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // zoom phase: we now have a point satisfying the criteria, or a bracket around it. We refine
  // the bracket until we find the exact point satisfying the criteria
  bool insuf_progress = false;
  // find high and low points in bracket
  int low_pos = 0, high_pos = 1;
  if (!(bracket_f.front() <= bracket_f.back())) std::swap(low_pos, high_pos);
  while (!done && (ls_iter < max_ls)) {
    // line-search bracket is so small
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;

    // compute new trial value
    t = cubic_interpolate(bracket[0], bracket_f[0], val(bracket_gtd[0]), bracket[1], bracket_f[1],
                          val(bracket_gtd[1]));

    // test that we are making sufficient progress: in case `t` is so close to boundary, we
    // mark that we are making insufficient progress, and if we have made insufficient progress
    // in the last step, or `t` is at one of the boundary, we will move `t` to a position which
    // is `0.1 * len(bracket)` away from the nearest boundary point.
    const double bracket_max = std::max(bracket[0], bracket[1]);
    const double bracket_min = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (bracket_max - bracket_min);
    if (std::min(bracket_max - t, t - bracket_min) < eps) {
      // interpolation close to boundary
      if (insuf_progress || (t >= bracket_max) || (t <= bracket_min)) {
        // evaluate at 0.1 away from boundary
        t = (std::abs(t - bracket_max) < std::abs(t - bracket_min)) ? bracket_max - eps
                                                                    : bracket_min + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }

    // Evaluate new point
    std::tie(f_new, g_new) = obj_func(x, t, d);
    ls_func_evals += 1;
    gtd_new = g_new.dot(d);
    ls_iter += 1;

    if ((f_new > (f + c1 * t * val(gtd))) || (f_new >= bracket_f[low_pos])) {
      // Armijo condition not satisfied or not lower than lowest point
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone();
      bracket_gtd[high_pos] = gtd_new;
      if (bracket_f[0] <= bracket_f[1]) {
        low_pos = 0;
        high_pos = 1;
      } else {
        low_pos = 1;
        high_pos = 0;
      }
    } else {
      if (std::abs(val(gtd_new)) <= (-c2 * val(gtd))) {
        // Wolfe conditions satisfied
        done = true;
      } else if ((val(gtd_new) * (bracket[high_pos] - bracket[low_pos])) >= 0) {
        // old high becomes new low
        bracket[high_pos] = bracket[low_pos];
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      // new point becomes new low
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone();
      bracket_gtd[low_pos] = gtd_new;
    }
  }

  // return stuff
  t = bracket[low_pos];
  f_new = bracket_f[low_pos];
  g_new = bracket_g[low_pos];
  return std::make_tuple(f_new, g_new, t, ls_func_evals);
}

}  // namespace

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<LBFGSOptions>(defaults)) {
  init_max_eval(defaults);
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : Optimizer(std::move(params), std::make_unique<LBFGSOptions>(defaults)) {
  init_max_eval(defaults);
}

void LBFGS::init_max_eval(const LBFGSOptions& defaults) {
  EMBER_CHECK(param_groups_.size() == 1,
              "LBFGS doesn't support per-parameter options (parameter groups)");
  check_options(defaults);
  if (!defaults.max_eval()) {
    const int64_t max_eval = (defaults.max_iter() * 5) / 4;
    static_cast<LBFGSOptions&>(param_groups_[0].options()).max_eval(max_eval);
    static_cast<LBFGSOptions&>(*defaults_).max_eval(max_eval);
  }
}

Tensor LBFGS::gather_flat_grad() {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups_.at(0).params()) {
    if (!p.grad().defined()) {
      views.push_back(p.new_empty({p.numel()}).zero_());
    } else {
      views.push_back(p.grad().reshape({-1}));
    }
  }
  return cat(views, 0);
}

int64_t LBFGS::numel() {
  if (!numel_cache_) {
    int64_t n = 0;
    for (const Tensor& p : param_groups_.at(0).params()) n += p.numel();
    numel_cache_ = n;
  }
  return *numel_cache_;
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (const Tensor& p : param_groups_.at(0).params()) {
    const int64_t n = p.numel();
    // view_as to avoid deprecated pointwise semantics
    p.add_(update.slice(0, offset, offset + n).view_as(p), step_size);
    offset += n;
  }
  EMBER_CHECK(offset == numel(), "LBFGS: the parameters changed size between steps");
}

std::vector<Tensor> LBFGS::clone_param() {
  std::vector<Tensor> result;
  for (const Tensor& p : param_groups_.at(0).params()) result.push_back(p.clone());
  return result;
}

void LBFGS::set_param(const std::vector<Tensor>& params_data) {
  const auto& params = param_groups_.at(0).params();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(params_data[i]);
}

std::tuple<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure,
                                                       const std::vector<Tensor>& x, double t,
                                                       const Tensor& d) {
  add_grad(t, d);
  double loss;
  {
    EnableGradGuard enable;
    loss = closure().item<double>();
  }
  Tensor flat_grad = gather_flat_grad();
  set_param(x);
  return std::make_tuple(loss, flat_grad);
}

Tensor LBFGS::step(LossClosure closure) {
  NoGradGuard no_grad;
  EMBER_CHECK(closure != nullptr, "LBFGS requires a closure function");
  EMBER_CHECK(param_groups_.size() == 1,
              "LBFGS doesn't support per-parameter options (parameter groups)");
  auto& group = param_groups_.at(0);
  auto& params = group.params();
  EMBER_CHECK(!params.empty(), "LBFGS: no parameters to optimize");
  const auto& options = static_cast<const LBFGSOptions&>(group.options());
  check_options(options);
  const double lr = options.lr();
  const int64_t max_iter = options.max_iter();
  const int64_t max_eval = options.max_eval() ? *options.max_eval() : (max_iter * 5) / 4;
  const double tolerance_grad = options.tolerance_grad();
  const double tolerance_change = options.tolerance_change();
  const auto& line_search_fn = options.line_search_fn();
  const int64_t history_size = options.history_size();
  EMBER_CHECK(!line_search_fn || *line_search_fn == "strong_wolfe", "LBFGS: line_search_fn '",
              line_search_fn.value_or(""), "' is not supported: only 'strong_wolfe' is");

  // NOTE: LBFGS has only global state, but we register it as state for the first param,
  // because this helps with casting in load_state_dict
  auto& slot = state_[params.at(0).unsafeGetTensorImpl()];
  if (!slot) slot = std::make_unique<LBFGSParamState>();
  auto& state = static_cast<LBFGSParamState&>(*slot);

  // evaluate initial f(x) and df/dx
  Tensor orig_loss;
  {
    EnableGradGuard enable;
    orig_loss = closure();
  }
  double loss = val(orig_loss);
  int64_t current_evals = 1;
  state.func_evals(state.func_evals() + 1);
  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;

  // optimal condition
  if (opt_cond) return orig_loss;

  // tensors cached in state (for tracing)
  Tensor& d = state.d();
  double& t = state.t();
  auto& old_dirs = state.old_dirs();
  auto& old_stps = state.old_stps();
  auto& ro = state.ro();
  Tensor& H_diag = state.H_diag();
  Tensor& prev_flat_grad = state.prev_flat_grad();
  double& prev_loss = state.prev_loss();

  int64_t n_iter = 0;
  // optimize for a max of max_iter iterations
  while (n_iter < max_iter) {
    // keep track of nb of iterations
    n_iter++;
    state.n_iter(state.n_iter() + 1);

    // compute gradient descent direction
    if (state.n_iter() == 1) {
      d = flat_grad.neg();
      H_diag = ember::tensor(1);
      old_dirs = {};
      old_stps = {};
      ro = {};
    } else {
      // do lbfgs update (update memory)
      Tensor y = flat_grad.sub(prev_flat_grad);
      Tensor s = d.mul(t);
      Tensor ys = y.dot(s);  // y*s
      if (val(ys) > 1e-10) {
        // updating memory
        if (static_cast<int64_t>(old_dirs.size()) == history_size) {
          // shift history by one (limited-memory)
          old_dirs.pop_front();
          old_stps.pop_front();
          ro.pop_front();
        }
        // store new direction/step
        old_dirs.emplace_back(y);
        old_stps.emplace_back(s);
        ro.emplace_back(1. / ys);
        // update scale of initial Hessian approximation
        H_diag = ys / y.dot(y);  // (y*y)
      }

      // compute the approximate (L-BFGS) inverse Hessian multiplied by the gradient
      const int64_t num_old = static_cast<int64_t>(old_dirs.size());
      if (!state.al()) state.al(std::vector<Tensor>(history_size));
      auto& al = *state.al();

      // iteration in L-BFGS loop collapsed to use just one buffer
      Tensor q = flat_grad.neg();
      for (int64_t i = num_old - 1; i > -1; i--) {
        al.at(i) = old_stps.at(i).dot(q) * ro.at(i);
        q.add_(old_dirs.at(i), -val(al.at(i)));
      }

      // multiply by initial Hessian; r/d is the final direction
      Tensor r = ember::mul(q, H_diag);
      for (int64_t i = 0; i < num_old; i++) {
        Tensor be_i = old_dirs.at(i).dot(r) * ro.at(i);
        r.add_(old_stps.at(i), val(al.at(i) - be_i));
      }
      d = r;
    }

    if (!prev_flat_grad.defined()) {
      prev_flat_grad = flat_grad.clone();
    } else {
      prev_flat_grad.copy_(flat_grad);
    }
    prev_loss = loss;

    // ---- compute step length ----
    // reset initial guess for step size
    if (state.n_iter() == 1) {
      t = std::min(1., 1. / val(flat_grad.abs().sum())) * lr;
    } else {
      t = lr;
    }

    // directional derivative
    Tensor gtd = flat_grad.dot(d);  // g * d

    // directional derivative is below tolerance
    if (val(gtd) > -tolerance_change) break;

    // optional line search: user function
    int64_t ls_func_evals = 0;
    if (line_search_fn) {
      std::vector<Tensor> x_init = clone_param();
      ObjFunc obj_func = [&](const std::vector<Tensor>& x, double tt, const Tensor& dd) {
        return directional_evaluate(closure, x, tt, dd);
      };
      std::tie(loss, flat_grad, t, ls_func_evals) =
          strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd);
      add_grad(t, d);
      opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;
    } else {
      // no line search, simply move with fixed-step
      add_grad(t, d);
      if (n_iter != max_iter) {
        // re-evaluate function only if not in last iteration: in a stochastic setting, there
        // is no use re-evaluating that function here
        {
          EnableGradGuard enable;
          loss = val(closure());
        }
        flat_grad = gather_flat_grad();
        opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    // update func eval
    current_evals += ls_func_evals;
    state.func_evals(state.func_evals() + ls_func_evals);

    // ---- check conditions ----
    if (n_iter == max_iter) break;
    if (current_evals >= max_eval) break;
    // optimal condition
    if (opt_cond) break;
    // lack of progress
    if (val(d.mul(t).abs().max()) <= tolerance_change) break;
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }
  return orig_loss;
}

// ---- state dict: PyTorch's LBFGS keys ----
// PyTorch's lists old_dirs, old_stps (k tensors of n elements) and ro (k scalars) are stored
// stacked: [k, n] and [k]; absent while empty. `al` is scratch (rewritten before it is read)
// and is not stored.

void LBFGS::write_options(const OptimizerOptions& options, detail::StateWriter& out) const {
  const auto& o = static_cast<const LBFGSOptions&>(options);
  out.real("lr", o.lr());
  out.integer("max_iter", o.max_iter());
  if (o.max_eval()) out.integer("max_eval", *o.max_eval());
  out.real("tolerance_grad", o.tolerance_grad());
  out.real("tolerance_change", o.tolerance_change());
  out.integer("history_size", o.history_size());
  if (o.line_search_fn()) out.text("line_search_fn", *o.line_search_fn());
}

void LBFGS::read_options(detail::StateReader& in, OptimizerOptions& options) const {
  auto& o = static_cast<LBFGSOptions&>(options);
  o.lr(in.real("lr"));
  o.max_iter(in.integer("max_iter"));
  o.max_eval(in.has("max_eval") ? std::optional<int64_t>(in.integer("max_eval"))
                                : std::optional<int64_t>((o.max_iter() * 5) / 4));
  o.tolerance_grad(in.real("tolerance_grad"));
  o.tolerance_change(in.real("tolerance_change"));
  o.history_size(in.integer("history_size"));
  o.line_search_fn(in.has("line_search_fn") ? std::optional<std::string>(in.text("line_search_fn"))
                                            : std::nullopt);
  check_options(o);
  EMBER_CHECK(!o.line_search_fn() || *o.line_search_fn() == "strong_wolfe",
              "LBFGS: only 'strong_wolfe' is supported, the state dict has '", *o.line_search_fn(),
              "'");
}

void LBFGS::write_param_state(const OptimizerParamState& state, detail::StateWriter& out) const {
  const auto& st = static_cast<const LBFGSParamState&>(state);
  out.integer("func_evals", st.func_evals());
  out.integer("n_iter", st.n_iter());
  out.real("t", st.t());
  out.real("prev_loss", st.prev_loss());
  out.tensor("d", st.d());
  out.tensor("H_diag", st.H_diag());
  out.tensor("prev_flat_grad", st.prev_flat_grad());
  if (!st.old_dirs().empty()) {
    out.tensor("old_dirs", stack(std::vector<Tensor>(st.old_dirs().begin(), st.old_dirs().end())));
    out.tensor("old_stps", stack(std::vector<Tensor>(st.old_stps().begin(), st.old_stps().end())));
    out.tensor("ro", stack(std::vector<Tensor>(st.ro().begin(), st.ro().end())).reshape({-1}));
  }
}

std::unique_ptr<OptimizerParamState> LBFGS::read_param_state(detail::StateReader& in,
                                                             const Tensor& param) const {
  const auto& params = param_groups_.at(0).params();
  EMBER_CHECK(param.is_same(params.at(0)), "LBFGS keeps its state as the first parameter's; '",
              in.key("n_iter"), "' belongs to another parameter");
  int64_t n = 0;
  for (const Tensor& p : params) n += p.numel();
  auto st = std::make_unique<LBFGSParamState>();
  st->func_evals(in.integer("func_evals"));
  st->n_iter(in.integer("n_iter"));
  st->t(in.real("t"));
  st->prev_loss(in.real("prev_loss"));
  if (in.has("d")) st->d(in.tensor("d", param, {n}));
  // H_diag starts as an int64 1 (as LibTorch's), so it keeps its stored dtype
  if (in.has("H_diag")) st->H_diag(in.raw("H_diag").to(param.device()).clone());
  if (in.has("prev_flat_grad")) st->prev_flat_grad(in.tensor("prev_flat_grad", param, {n}));
  if (in.has("old_dirs")) {
    const int64_t k = in.raw("old_dirs").dim() == 2 ? in.raw("old_dirs").size(0) : -1;
    EMBER_CHECK(k >= 0, "'", in.key("old_dirs"), "' has shape ", in.raw("old_dirs").sizes(),
                ", expected [k, ", n, "]");
    const Tensor dirs = in.tensor("old_dirs", param, {k, n});
    const Tensor stps = in.tensor("old_stps", param, {k, n});
    const Tensor ro = in.tensor("ro", param, {k});
    for (int64_t i = 0; i < k; ++i) {
      st->old_dirs().push_back(dirs.select(0, i).clone());
      st->old_stps().push_back(stps.select(0, i).clone());
      st->ro().push_back(ro.select(0, i).clone());
    }
  }
  return st;
}

}  // namespace optim
}  // namespace ember
