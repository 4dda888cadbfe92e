// CPU/CUDA parity sweep: dot/outer/einsum/trace/kron, the scatter family, unique.
// Cases are named after ops of core/ops.def, or composite_<name> for composites.
#include <algorithm>
#include <limits>
#include <numeric>

#include "cuda_parity.h"

namespace parity {

using namespace ember;

namespace {

// An int64 index of shape [rows, k] whose rows hold distinct values in [0, bound) (k <= bound):
// scatter's assignment is then deterministic on both devices.
Pair distinct_rows(int64_t rows, int64_t k, int64_t bound) {
  std::vector<double> v;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> perm(static_cast<size_t>(bound));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng());
    for (int64_t j = 0; j < k; ++j) v.push_back(static_cast<double>(perm[static_cast<size_t>(j)]));
  }
  return from_values(v, {rows, k}, kInt64);
}

// ---- scatter (assignment), src and value forms, in place ----
void scatter_case() {
  Sweep sw("scatter");
  for (ScalarType t : ref::all_dtypes()) {
    for (const Shape& s : {Shape{4, 6}, Shape{64, 129}}) {
      const int64_t k = s[1] / 2;
      const Pair self = make_pair(s, t, Layout::kContiguous);
      const Pair src = make_pair({s[0], k + 1}, t, Layout::kTransposed);
      const Pair idx = distinct_rows(s[0], k, s[1]);
      const std::string what = label("scatter", s, t, Layout::kContiguous);
      sw.run(
          what + " src", [](const Tensors& in) { return in[0].scatter(1, in[2], in[1]); },
          {self, src, idx}, exact());
      sw.run(
          what + " value", [](const Tensors& in) { return in[0].scatter(1, in[1], 1); },
          {self, idx}, exact());
      // dim 0: the transposed index
      const Pair idx0 = distinct_rows(s[1], s[0] / 2, s[0]);
      sw.run(
          what + " dim 0", [](const Tensors& in) { return in[0].scatter(0, in[2].t(), in[1].t()); },
          {self, make_pair({s[1], s[0]}, t, Layout::kContiguous), idx0}, exact());
      const Pair view = make_pair(s, t, Layout::kTransposed);
      sw.run(
          what + " in place",
          [](const Tensors& in) {
            Tensor self = in[0];
            self.scatter_(1, in[2], in[1]);
            return Tensors{in[3]};
          },
          {view.cpu, src.cpu, idx.cpu, view.cpu_base}, {view.gpu, src.gpu, idx.gpu, view.gpu_base},
          exact());
    }
  }
}

// The reductions with repeated indices (products in any order on the GPU: a tolerance).
void scatter_reduce_case(const std::string& op, const char* reduce) {
  Sweep sw(op);
  for (ScalarType t : ref::numeric_dtypes()) {
    for (const Shape& s : {Shape{5}, Shape{4, 6}, Shape{3, 4, 5}, Shape{64, 129}}) {
      for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
        Shape ss = s;
        ss[d] = 3 * s[d];
        const Domain dom = std::string(reduce) == "prod" ? Domain::kNearOne : Domain::kAny;
        const Pair self = make_pair(s, t, Layout::kContiguous, dom);
        const Pair src =
            make_pair(ss, t, s.size() >= 2 ? Layout::kTransposed : Layout::kStepped, dom);
        const Pair idx = index_pair(ss, s[d]);
        for (bool include : {true, false}) {
          sw.run(
              label(op, s, t, Layout::kContiguous) + " dim " + std::to_string(d) +
                  (include ? "" : " exclude self"),
              [d, reduce, include](const Tensors& in) {
                return in[0].scatter_reduce(d, in[2], in[1], reduce, include);
              },
              {self, src, idx}, reduce_tol(4));
        }
      }
    }
  }
  if (std::string(reduce) == "prod") {  // the scatter(reduce="multiply") spelling
    const Pair self = make_pair({4, 6}, kFloat32, Layout::kContiguous, Domain::kNearOne);
    const Pair src = make_pair({4, 9}, kFloat32, Layout::kContiguous, Domain::kNearOne);
    const Pair idx = index_pair({4, 9}, 6);
    sw.run(
        "scatter multiply",
        [](const Tensors& in) { return in[0].scatter(1, in[2], in[1], "multiply"); },
        {self, src, idx}, reduce_tol(4));
  }
  if (std::string(reduce) != "prod") {  // NaN propagation of amax/amin
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Pair self = from_values({0, 1, 2}, {3}, kFloat32);
    const Pair src = from_values({nan, 5, -5, 1}, {4}, kFloat32);
    const Pair idx = from_values({0, 1, 1, 2}, {4}, kInt64);
    sw.run(
        op + " NaN",
        [reduce](const Tensors& in) { return in[0].scatter_reduce(0, in[2], in[1], reduce); },
        {self, src, idx}, exact());
  }
}

void scatter_reduce_composite() {  // sum and mean are scatter_add composites
  Sweep sw("composite_scatter_reduce");
  for (ScalarType t : ref::numeric_dtypes()) {
    const Pair self = make_pair({4, 6}, t, Layout::kTransposed);
    const Pair src = make_pair({4, 9}, t, Layout::kContiguous);
    const Pair idx = index_pair({4, 9}, 6);
    for (const char* reduce : {"sum", "mean"}) {
      for (bool include : {true, false}) {
        sw.run(
            label(std::string("scatter_reduce ") + reduce, {4, 6}, t, Layout::kTransposed),
            [reduce, include](const Tensors& in) {
              return in[0].scatter_reduce(1, in[2], in[1], reduce, include);
            },
            {self, src, idx}, reduce_tol(4));
      }
    }
  }
}

// ---- products ----
void products_composite() {
  Sweep sw("composite_products");
  // float dtypes only: LibTorch's CUDA has no integer products
  for (ScalarType t : {kFloat32, kFloat64}) {
    const std::vector<Pair> in = {
        make_pair({7}, t, Layout::kStepped), make_pair({7}, t, Layout::kContiguous),
        make_pair({5, 7}, t, Layout::kTransposed), make_pair({5}, t, Layout::kContiguous),
        make_pair({5, 7}, t, Layout::kContiguous)};
    const std::string what = label("products", {5, 7}, t, Layout::kTransposed);
    sw.run(
        what + " dot", [](const Tensors& x) { return ember::dot(x[0], x[1]); }, in, gemm_tol());
    sw.run(
        what + " vdot", [](const Tensors& x) { return ember::vdot(x[0], x[1]); }, in, gemm_tol());
    sw.run(
        what + " inner", [](const Tensors& x) { return ember::inner(x[2], x[4]); }, in, gemm_tol());
    sw.run(
        what + " outer", [](const Tensors& x) { return ember::outer(x[3], x[0]); }, in, gemm_tol());
    sw.run(
        what + " mv", [](const Tensors& x) { return x[2].mv(x[0]); }, in, gemm_tol());
    sw.run(
        what + " addmv", [](const Tensors& x) { return ember::addmv(x[3], x[2], x[1], 2, 3); }, in,
        gemm_tol());
    sw.run(
        what + " addr", [](const Tensors& x) { return ember::addr(x[4], x[3], x[0], 2, 3); }, in,
        gemm_tol());
  }
  for (ScalarType t : {kFloat32, kFloat64}) {
    const std::vector<Pair> in = {
        make_pair({3, 4, 5}, t, Layout::kTransposed), make_pair({3, 5, 6}, t, Layout::kContiguous),
        make_pair({3, 4, 6}, t, Layout::kContiguous), make_pair({4, 6}, t, Layout::kStepped)};
    const std::string what = label("batched", {3, 4, 5}, t, Layout::kTransposed);
    sw.run(
        what + " baddbmm",
        [](const Tensors& x) { return ember::baddbmm(x[2], x[0], x[1], 0.5, -1); }, in, gemm_tol());
    sw.run(
        what + " addbmm", [](const Tensors& x) { return ember::addbmm(x[3], x[0], x[1], 0.5, 2); },
        in, gemm_tol());
  }
}

void einsum_composite() {
  Sweep sw("composite_einsum");
  for (ScalarType t : {kFloat32, kFloat64}) {
    const std::vector<Pair> in = {
        make_pair({3, 4}, t, Layout::kTransposed),    make_pair({4, 5}, t, Layout::kContiguous),
        make_pair({2, 3, 4}, t, Layout::kContiguous), make_pair({2, 4, 5}, t, Layout::kStepped),
        make_pair({4, 4}, t, Layout::kContiguous),    make_pair({3}, t, Layout::kContiguous)};
    const std::string what = label("einsum", {3, 4}, t, Layout::kTransposed);
    for (const char* eq : {"ij,jk->ik", "ij,jk"}) {
      sw.run(
          what + " " + eq,
          [eq](const Tensors& x) {
            return ember::einsum(eq, {x[0], x[1]});
          },
          in, gemm_tol());
    }
    for (const char* eq : {"ij->", "ij->ji", "ji"}) {
      sw.run(
          what + " " + eq, [eq](const Tensors& x) { return ember::einsum(eq, {x[0]}); }, in,
          gemm_tol());
    }
    sw.run(
        what + " bmm",
        [](const Tensors& x) {
          return ember::einsum("bij,bjk->bik", {x[2], x[3]});
        },
        in, gemm_tol());
    sw.run(
        what + " ellipsis",
        [](const Tensors& x) {
          return ember::einsum("...ij,...jk->...ik", {x[2], x[1]});
        },
        in, gemm_tol());
    sw.run(
        what + " trace", [](const Tensors& x) { return ember::einsum("ii->", {x[4]}); }, in,
        gemm_tol());
    sw.run(
        what + " diagonal", [](const Tensors& x) { return ember::einsum("ii->i", {x[4]}); }, in,
        exact());
    sw.run(
        what + " outer",
        [](const Tensors& x) {
          return ember::einsum("i,j->ij", {x[5], x[0].select(0, 1)});
        },
        in, gemm_tol());
  }
}

void misc_linalg_composite() {
  Sweep sw("composite_trace_kron_tensordot_cross");
  for (ScalarType t : {kFloat32, kFloat64, kInt32}) {
    const std::vector<Pair> in = {
        make_pair({3, 4}, t, Layout::kTransposed), make_pair({2, 3}, t, Layout::kContiguous),
        make_pair({4, 3}, t, Layout::kContiguous), make_pair({3, 3}, t, Layout::kStepped),
        make_pair({4, 3}, t, Layout::kTransposed)};
    const std::string what = label("misc", {3, 4}, t, Layout::kTransposed);
    sw.run(
        what + " trace", [](const Tensors& x) { return x[0].trace(); }, in, gemm_tol());
    sw.run(
        what + " kron", [](const Tensors& x) { return ember::kron(x[0], x[1]); }, in, exact());
    if (t != kInt32) {  // LibTorch's CUDA has no integer products
      sw.run(
          what + " tensordot",
          [](const Tensors& x) {
            return ember::tensordot(x[0], x[2], {0, 1}, {1, 0});
          },
          in, gemm_tol());
    }
    sw.run(
        what + " cross", [](const Tensors& x) { return ember::cross(x[2], x[4]); }, in,
        elementwise_tol());
    sw.run(
        what + " linalg_cross",
        [](const Tensors& x) { return ember::linalg_cross(x[3], x[1].t().t().narrow(0, 0, 1)); },
        in, elementwise_tol());
  }
}

void norm_composite() {
  Sweep sw("composite_linalg_norm");
  const double inf = std::numeric_limits<double>::infinity();
  for (ScalarType t : {kFloat32, kFloat64}) {
    const std::vector<Pair> in = {make_pair({5, 7}, t, Layout::kTransposed)};
    const std::string what = label("norm", {5, 7}, t, Layout::kTransposed);
    for (double p : {2.0, 1.0, 3.0, 0.0, inf, -inf}) {
      sw.run(
          what + " vector ord " + std::to_string(p),
          [p](const Tensors& x) { return ember::linalg_vector_norm(x[0], p, {1}); }, in,
          reduce_tol(7));
    }
    sw.run(
        what + " fro", [](const Tensors& x) { return ember::linalg_norm(x[0], "fro"); }, in,
        reduce_tol(35));
    sw.run(
        what + " matrix 1", [](const Tensors& x) { return ember::linalg_norm(x[0], 1); }, in,
        reduce_tol(35));
    sw.run(
        what + " matrix inf", [inf](const Tensors& x) { return ember::linalg_norm(x[0], inf); }, in,
        reduce_tol(35));
  }
}

void index_ops_composite() {
  Sweep sw("composite_index_add_fill_copy");
  for (ScalarType t : ref::numeric_dtypes()) {
    const Pair self = make_pair({6, 5}, t, Layout::kTransposed);
    const Pair src = make_pair({6, 3}, t, Layout::kContiguous);
    const Pair rows = make_pair({2, 5}, t, Layout::kContiguous);
    const Pair rep = from_values({4, 0, 4}, {3}, kInt64);
    const Pair distinct = from_values({5, 1}, {2}, kInt64);
    const Pair negative = from_values({-1, 2}, {2}, kInt64);
    const std::string what = label("index ops", {6, 5}, t, Layout::kTransposed);
    sw.run(
        what + " index_add", [](const Tensors& x) { return x[0].index_add(1, x[2], x[1], 2); },
        {self, src, rep}, reduce_tol(3));
    sw.run(
        what + " index_add_",
        [](const Tensors& x) {
          Tensor s = x[0].clone();
          s.index_add_(1, x[2], x[1]);
          return Tensors{s};
        },
        {self.cpu, src.cpu, rep.cpu}, {self.gpu, src.gpu, rep.gpu}, reduce_tol(3));
    sw.run(
        what + " index_fill", [](const Tensors& x) { return x[0].index_fill(1, x[1], 7); },
        {self, negative}, exact());
    sw.run(
        what + " index_copy", [](const Tensors& x) { return x[0].index_copy(0, x[2], x[1]); },
        {self, rows, distinct}, exact());
  }
}

void bincount_composite() {
  Sweep sw("composite_bincount");
  const Pair x = index_pair({200}, 17);
  for (ScalarType t : {kFloat32, kFloat64, kInt32}) {
    const Pair w = make_pair({200}, t, Layout::kStepped);
    sw.run(
        label("bincount weights", {200}, t, Layout::kStepped),
        [](const Tensors& in) { return ember::bincount(in[0], in[1]); }, {x, w}, reduce_tol(20));
  }
  sw.run(
      "bincount minlength", [](const Tensors& in) { return ember::bincount(in[0], {}, 30); }, {x},
      exact());
  sw.run(
      "bincount int32", [](const Tensors& in) { return in[0].to(kInt32).bincount(); }, {x},
      exact());
}

void unique_composite() {
  Sweep sw("composite_unique");
  for (ScalarType t : ref::all_dtypes()) {
    const Pair x = make_pair({6, 7}, t, Layout::kTransposed);
    const std::string what = label("unique", {6, 7}, t, Layout::kTransposed);
    sw.run(
        what + " _unique2",
        [](const Tensors& in) {
          auto [v, i, c] = ember::_unique2(in[0], true, true, true);
          return Tensors{v, i, c};
        },
        {x.cpu}, {x.gpu}, exact());
    sw.run(
        what + " unique_consecutive",
        [](const Tensors& in) {
          auto [v, i, c] = ember::unique_consecutive(in[0], true, true);
          return Tensors{v, i, c};
        },
        {x.cpu}, {x.gpu}, exact());
    sw.run(
        what + " unique_dim",
        [](const Tensors& in) {
          auto [v, i, c] = ember::unique_dim(in[0].gt(0).to(in[0].dtype()), 1);
          return Tensors{v, i, c};
        },
        {x.cpu}, {x.gpu}, exact());
  }
}

}  // namespace

CaseList linalg_scatter_cases() {
  CaseList c;
  c.push_back({"scatter", scatter_case});
  c.push_back({"scatter_mul", [] { scatter_reduce_case("scatter_mul", "prod"); }});
  c.push_back({"scatter_amax", [] { scatter_reduce_case("scatter_amax", "amax"); }});
  c.push_back({"scatter_amin", [] { scatter_reduce_case("scatter_amin", "amin"); }});
  c.push_back({"composite_scatter_reduce", scatter_reduce_composite});
  c.push_back({"composite_products", products_composite});
  c.push_back({"composite_einsum", einsum_composite});
  c.push_back({"composite_trace_kron_tensordot_cross", misc_linalg_composite});
  c.push_back({"composite_linalg_norm", norm_composite});
  c.push_back({"composite_index_add_fill_copy", index_ops_composite});
  c.push_back({"composite_bincount", bincount_composite});
  c.push_back({"composite_unique", unique_composite});
  return c;
}

}  // namespace parity
