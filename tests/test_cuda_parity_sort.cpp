// CPU/CUDA parity sweep: sort, argsort, topk, kthvalue, cumsum/cumprod, logsumexp.
// Cases are named after ops of core/ops.def, or composite_<name> for composites.
#include "cuda_parity.h"

namespace parity {

using namespace ember;

namespace {

// Both backends order by the same keys (NaN largest, stable among equals), so values and indices
// must match exactly, ties and specials included.
const std::vector<Shape>& sort_shapes() {
  static const std::vector<Shape> all = [] {
    std::vector<Shape> v = {{}, {1}, {0}, {7}, {3, 0}, {4, 9}, {3, 5, 6}, {2, 1, 3, 2}};
    if (!small_mode()) {
      v.push_back({300, 67});     // many short rows (one packed-key sort)
      v.push_back({3, 5000});     // a few long rows
      v.push_back({1, 1 << 20});  // one long row (the benchmark's shape)
    }
    return v;
  }();
  return all;
}

const std::vector<ScalarType>& sort_types() {
  static const std::vector<ScalarType> t = {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool};
  return t;
}

// For every shape, layout, dtype and dim: f(x, dim). Floats draw specials (NaN, +-0, inf) and,
// with kAny for the integers, plenty of ties.
void dim_sweep(const std::string& op, const std::function<Tensors(const Tensor&, int64_t)>& f,
               const std::vector<ScalarType>& types, Domain domain, const Tol& tol,
               Domain int_domain = Domain::kAny) {
  Sweep sw(op);
  for (const Shape& s : sort_shapes()) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : types) {
        const Pair x = make_pair(s, t, l, is_floating_point(t) ? domain : int_domain);
        const int64_t r = static_cast<int64_t>(s.size());
        for (int64_t d = -1; d < std::max<int64_t>(r, 1); ++d) {
          if (x.cpu.numel() > 100000 && d != -1) continue;
          sw.run(
              label(op, s, t, l) + " dim " + std::to_string(d),
              [&](const Tensors& in) { return f(in[0], d); }, {x.cpu}, {x.gpu}, tol);
        }
      }
    }
  }
}

Tensors pair_of(const std::tuple<Tensor, Tensor>& p) { return {std::get<0>(p), std::get<1>(p)}; }

void sort_case() {
  dim_sweep(
      "sort", [](const Tensor& x, int64_t d) { return pair_of(x.sort(d)); }, sort_types(),
      Domain::kSpecial, exact());
  dim_sweep(
      "sort", [](const Tensor& x, int64_t d) { return pair_of(x.sort(d, true)); }, sort_types(),
      Domain::kSpecial, exact());
}

void argsort_case() {
  dim_sweep(
      "composite_argsort", [](const Tensor& x, int64_t d) { return Tensors{x.argsort(d, true)}; },
      sort_types(), Domain::kSpecial, exact());
}

void topk_case() {
  dim_sweep(
      "topk",
      [](const Tensor& x, int64_t d) {
        const int64_t n = x.dim() == 0 ? 1 : x.size(d);
        Tensors out;
        for (int64_t k : {int64_t(0), std::min<int64_t>(n, 1), std::min<int64_t>(n, 10), n}) {
          for (bool largest : {true, false}) {
            auto p = x.topk(k, d, largest);
            out.push_back(std::get<0>(p));
            out.push_back(std::get<1>(p));
          }
        }
        return out;
      },
      sort_types(), Domain::kSpecial, exact());
}

void kthvalue_case() {
  dim_sweep(
      "kthvalue",
      [](const Tensor& x, int64_t d) {
        const int64_t n = x.dim() == 0 ? 1 : x.size(d);
        Tensors out;
        if (n == 0) return pair_of(x.kthvalue(1, d));  // throws on both
        for (int64_t k : {int64_t(1), (n + 1) / 2, n}) {
          auto p = x.kthvalue(k, d, k == n);
          out.push_back(std::get<0>(p));
          out.push_back(std::get<1>(p));
        }
        return out;
      },
      sort_types(), Domain::kSpecial, exact());
}

void median_case() {
  dim_sweep(
      "median",
      [](const Tensor& x, int64_t d) {
        Tensors out = pair_of(x.median(d));
        // median() of nothing is NaN converted to the dtype: undefined for integers
        if (x.numel() > 0 || is_floating_point(x.dtype())) out.push_back(x.median());
        return out;
      },
      sort_types(), Domain::kSpecial, exact());
  dim_sweep(
      "composite_nanmedian",
      [](const Tensor& x, int64_t d) {
        Tensors out = pair_of(x.nanmedian(d, true));
        if (x.numel() > 0 || is_floating_point(x.dtype())) out.push_back(x.nanmedian());
        return out;
      },
      {kFloat32, kFloat64, kInt64}, Domain::kSpecial, exact());
}

void mode_case() {
  dim_sweep(
      "composite_mode", [](const Tensor& x, int64_t d) { return pair_of(x.mode(d)); },
      {kFloat32, kInt64, kUInt8, kBool}, Domain::kSpecial, exact());
}

void scan_case(bool prod) {
  const std::string op = prod ? "cumprod" : "cumsum";
  // Both accumulate floats in double, the CPU in order, CUDA's block scan in a tree: float32
  // results agree to rounding, float64 ones to the summation order (long rows).
  const Tol tol = {1e-6, 1e-6, 1e-10, 1e-10};
  dim_sweep(
      op,
      [prod](const Tensor& x, int64_t d) {
        return Tensors{prod ? x.cumprod(d) : x.cumsum(d),
                       prod ? x.cumprod(d, kFloat64) : x.cumsum(d, kFloat64)};
      },
      sort_types(), prod ? Domain::kNearOne : Domain::kAny, tol,
      prod ? Domain::kNearOne : Domain::kAny);
}

void cum_extremum_case(bool is_max) {
  dim_sweep(
      is_max ? "cummax" : "cummin",
      [is_max](const Tensor& x, int64_t d) { return pair_of(is_max ? x.cummax(d) : x.cummin(d)); },
      sort_types(), Domain::kSpecial, exact());
}

void reductions_case(const std::string& name,
                     const std::function<Tensors(const Tensor&, int64_t)>& f) {
  dim_sweep(name, f, {kFloat32, kFloat64}, Domain::kSpecial, {1e-4, 1e-5, 1e-10, 1e-12});
}

}  // namespace

CaseList sort_cases() {
  CaseList c;
  c.push_back({"sort", sort_case});
  c.push_back({"composite_argsort", argsort_case});
  c.push_back({"topk", topk_case});
  c.push_back({"kthvalue", kthvalue_case});
  c.push_back({"median", median_case});
  c.push_back({"composite_mode", mode_case});
  c.push_back({"cumsum", [] { scan_case(false); }});
  c.push_back({"cumprod", [] { scan_case(true); }});
  c.push_back({"cummax", [] { cum_extremum_case(true); }});
  c.push_back({"cummin", [] { cum_extremum_case(false); }});
  c.push_back({"composite_logsumexp", [] {
                 Sweep sw("composite_logsumexp");
                 for (ScalarType t : {kFloat32, kFloat64, kInt64}) {
                   const Pair x = make_pair({6, 33}, t, Layout::kTransposed, Domain::kWide);
                   sw.run(label("logsumexp", {6, 33}, t, Layout::kTransposed),
                          [](const Tensors& in) {
                            return Tensors{in[0].logsumexp({1}), in[0].logsumexp({0, 1}, true)};
                          },
                          {x.cpu}, {x.gpu}, {1e-5, 1e-5, 1e-12, 1e-12});
                 }
               }});
  c.push_back({"composite_nansum", [] {
                 reductions_case("composite_nansum", [](const Tensor& x, int64_t d) {
                   return Tensors{x.nansum(), x.nansum({d}, true), x.nanmean({d})};
                 });
               }});
  c.push_back({"composite_var_mean", [] {
                 reductions_case("composite_var_mean", [](const Tensor& x, int64_t d) {
                   Tensor xs = x.masked_fill(x.ne(x).logical_or(x.abs().eq(INFINITY)), 0.5);
                   auto a = ember::var_mean(xs, {d}, true, false);
                   auto b = ember::std_mean(xs, {d});
                   return Tensors{std::get<0>(a), std::get<1>(a), std::get<0>(b), std::get<1>(b),
                                  ember::var(xs, std::nullopt, Scalar(2))};
                 });
               }});
  c.push_back(
      {"composite_count_nonzero", [] {
         dim_sweep(
             "composite_count_nonzero",
             [](const Tensor& x, int64_t d) {
               return Tensors{x.count_nonzero(), x.count_nonzero(std::optional<int64_t>(d))};
             },
             sort_types(), Domain::kSpecial, exact());
       }});
  return c;
}

}  // namespace parity
