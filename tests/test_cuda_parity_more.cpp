// CPU/CUDA parity sweep, second half: reductions (over all and any dims, keepdim, empty
// inputs, NaN), GEMM (mm/addmm/bmm/linear, transposed and strided operands), softmax,
// indexing, the public composites (matmul 1-D..N-D, cat, stack, one_hot) and a few
// backward passes. The op table and the elementwise half are in test_cuda_parity.cpp.
#include <limits>
#include <tuple>

#include <ember/core/dispatch.h>
#include <ember/core/native.h>
#include <ember/nn/functional_loss.h>

#include "cuda_parity.h"

namespace parity {
namespace {

using namespace ember;

// ---- reductions ----
// Which dims a case reduces: `full` calls the no-dim overload (t.sum()), else dims.
struct Dims {
  bool full;
  Shape dims;
  bool keepdim;
  std::string str() const {
    return full ? " over all" : " dims " + ref::str(dims) + (keepdim ? " keepdim" : "");
  }
};

// Every reduction form worth trying on a tensor of rank r; `single` for the one-dim ops.
std::vector<Dims> dim_choices(size_t r, bool single) {
  std::vector<Dims> v = {{true, {}, false}, {false, {-1}, false}, {false, {-1}, true}};
  for (int64_t d = 0; d + 1 < static_cast<int64_t>(r); ++d) v.push_back({false, {d}, d == 0});
  if (!single && r >= 2) {
    Shape all(r);
    for (size_t d = 0; d < r; ++d) all[d] = static_cast<int64_t>(d);
    v.push_back({false, {0, static_cast<int64_t>(r) - 1}, true});
    v.push_back({false, all, false});
  }
  return v;
}

const std::vector<Shape>& reduce_shapes() {
  static const std::vector<Shape> all = [] {
    std::vector<Shape> v = {{},
                            {1},
                            {0},
                            {5},
                            {3, 0},
                            {0, 3},
                            {2, 3},
                            {4, 1, 3},
                            {7, 9, 5},
                            {33, 65},
                            {6, 5, 8},  // dims {0, 2}: rows of 8 contiguous (16-byte loads)
                            {2, 1, 2, 3, 1, 3, 2, 1, 2}};
    if (!small_mode()) {
      v.push_back({1000, 67});                // many outputs, short rows
      v.push_back({67, 1000});                // few outputs, long rows
      v.push_back({96, 6, 196});              // dims {0, 2}: a conv bias's gradient, split
      v.push_back({(int64_t(1) << 18) + 3});  // one output: multi-block, two passes
    }
    return v;
  }();
  return all;
}

using ReduceFn = std::function<Tensors(const Tensor&, const Dims&)>;

void reduce_sweep(const std::string& op, const ReduceFn& f, Domain d,
                  const std::vector<ScalarType>& dtypes, bool single = false) {
  Sweep sw(op);
  for (const Shape& s : reduce_shapes()) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : dtypes) {
        const Pair x = make_pair(s, t, l, d);
        for (const Dims& dims : dim_choices(s.size(), single)) {
          sw.run(
              label(op, s, t, l) + dims.str(), [&](const Tensors& in) { return f(in[0], dims); },
              {x.cpu}, {x.gpu}, op == "prod" ? prod_tol(x.cpu.numel()) : reduce_tol(x.cpu.numel()));
        }
      }
    }
  }
  for (ScalarType t : ref::float_dtypes()) {  // NaN and infinities propagate the same way
    const Domain d = op == "prod" ? Domain::kSpecialNoTiny : Domain::kSpecial;
    const Pair x = make_pair({16, 17}, t, Layout::kTransposed, d);
    for (const Dims& dims : dim_choices(2, single)) {
      sw.run(
          label(op + " specials", {16, 17}, t, Layout::kTransposed) + dims.str(),
          [&](const Tensors& in) { return f(in[0], dims); }, {x.cpu}, {x.gpu},
          reduce_tol(x.cpu.numel()));
    }
  }
}

const std::vector<ScalarType>& all_t() { return ref::all_dtypes(); }

void reduction_cases(CaseList* c) {
  c->push_back({"sum", [] {
                  reduce_sweep(
                      "sum",
                      [](const Tensor& t, const Dims& d) {
                        return Tensors{d.full ? t.sum() : t.sum(d.dims, d.keepdim)};
                      },
                      Domain::kAny, all_t());
                  reduce_sweep(
                      "sum dtype",
                      [](const Tensor& t, const Dims& d) {
                        return Tensors{d.full ? t.sum(kFloat64)
                                              : t.sum(d.dims, d.keepdim, kFloat32)};
                      },
                      Domain::kAny, all_t());
                }});
  c->push_back({"mean", [] {
                  reduce_sweep(
                      "mean",
                      [](const Tensor& t, const Dims& d) {
                        return Tensors{d.full ? t.mean() : t.mean(d.dims, d.keepdim)};
                      },
                      Domain::kAny, all_t());
                  reduce_sweep("mean dtype",
                               [](const Tensor& t, const Dims& d) {
                                 return Tensors{d.full ? t.mean(kFloat64)
                                                       : t.mean(d.dims, d.keepdim, kFloat64)};
                               },
                               Domain::kAny, {kInt32, kFloat32});
                }});
  c->push_back({"prod", [] {
                  reduce_sweep(
                      "prod",
                      [](const Tensor& t, const Dims& d) {
                        return Tensors{d.full ? t.prod() : t.prod(d.dims[0], d.keepdim)};
                      },
                      Domain::kNearOne, all_t(), true);
                }});
  c->push_back(
      {"amax", [] {
         reduce_sweep(
             "amax",
             [](const Tensor& t, const Dims& d) {
               return d.full ? Tensors{t.amax(), t.max()} : Tensors{t.amax(d.dims, d.keepdim)};
             },
             Domain::kAny, all_t());
       }});
  c->push_back(
      {"amin", [] {
         reduce_sweep(
             "amin",
             [](const Tensor& t, const Dims& d) {
               return d.full ? Tensors{t.amin(), t.min()} : Tensors{t.amin(d.dims, d.keepdim)};
             },
             Domain::kAny, all_t());
       }});
  c->push_back({"var", [] {
                  for (bool unbiased : {true, false}) {
                    reduce_sweep(
                        unbiased ? "var/std unbiased" : "var/std",
                        [unbiased](const Tensor& t, const Dims& d) {
                          if (d.full) return Tensors{t.var(unbiased), t.std(unbiased)};
                          return Tensors{t.var(d.dims, unbiased, d.keepdim),
                                         t.std(d.dims, unbiased, d.keepdim)};
                        },
                        Domain::kAny, ref::float_dtypes());
                  }
                }});
  c->push_back({"norm", [] {
                  const double inf = std::numeric_limits<double>::infinity();
                  for (double p : {2.0, 1.0, 3.0, 0.5, inf, -inf, 0.0}) {
                    reduce_sweep(
                        "norm p=" + std::to_string(p),
                        [p](const Tensor& t, const Dims& d) {
                          return Tensors{d.full ? t.norm(p) : t.norm(p, d.dims, d.keepdim)};
                        },
                        Domain::kAny, all_t());
                  }
                }});
  c->push_back({"all", [] {
                  reduce_sweep(
                      "all",
                      [](const Tensor& t, const Dims& d) {
                        return Tensors{d.full ? t.all() : t.all(d.dims[0], d.keepdim)};
                      },
                      Domain::kMostlyTrue, all_t(), true);
                }});
  c->push_back({"any", [] {
                  reduce_sweep(
                      "any",
                      [](const Tensor& t, const Dims& d) {
                        return Tensors{d.full ? t.any() : t.any(d.dims[0], d.keepdim)};
                      },
                      Domain::kMostlyFalse, all_t(), true);
                }});
  // Small integer ranges make ties common: the first index must win on both devices.
  auto arg = [](bool is_max) {
    return [is_max](const Tensor& t, const Dims& d) {
      if (d.full) return Tensors{is_max ? t.argmax() : t.argmin()};
      auto [values, indices] = is_max ? t.max(d.dims[0], d.keepdim) : t.min(d.dims[0], d.keepdim);
      return Tensors{values, indices,
                     is_max ? t.argmax(d.dims[0], d.keepdim) : t.argmin(d.dims[0], d.keepdim)};
    };
  };
  c->push_back(
      {"max_dim", [=] { reduce_sweep("max_dim", arg(true), Domain::kAny, all_t(), true); }});
  c->push_back(
      {"min_dim", [=] { reduce_sweep("min_dim", arg(false), Domain::kAny, all_t(), true); }});
}

// ---- GEMM ----
struct Mnk {
  int64_t m, k, n;
};
std::vector<Mnk> gemm_sizes() {
  std::vector<Mnk> v = {{1, 1, 1}, {3, 4, 5}, {1, 7, 1}, {5, 1, 3},
                        {6, 2, 1}, {0, 3, 4}, {3, 0, 4}, {64, 33, 17}};
  if (!small_mode()) {
    v.push_back({128, 256, 96});
    v.push_back({257, 129, 65});
  }
  return v;
}

void addmm_case() {
  Sweep sw("addmm");
  for (const Mnk& g : gemm_sizes()) {
    // Integer products are CPU-only, as LibTorch's: CUDA refuses them.
    const Pair ia = make_pair({g.m, g.k}, kInt32, Layout::kContiguous);
    const Pair ib = make_pair({g.k, g.n}, kInt32, Layout::kContiguous);
    EXPECT_THROW(ember::mm(ia.gpu, ib.gpu), Error);
    EXPECT_THROW(ember::matmul(ia.gpu, ib.gpu), Error);
    EXPECT_NO_THROW(ember::mm(ia.cpu, ib.cpu));
    for (ScalarType t : {kFloat32, kFloat64}) {
      const std::vector<Layout> la = layouts_for({g.m, g.k}, false);
      const std::vector<Layout> lb = layouts_for({g.k, g.n}, false);
      for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
        const Layout a_l = la[i % la.size()], b_l = lb[(i + 1) % lb.size()];
        const std::vector<Pair> in = {make_pair({g.m, g.k}, t, a_l), make_pair({g.k, g.n}, t, b_l),
                                      make_pair({g.m, g.n}, t, Layout::kTransposed),
                                      make_pair({g.n}, t, Layout::kContiguous),
                                      make_pair({g.n, g.k}, t, Layout::kContiguous)};
        const std::string what = label("mm", {g.m, g.k, g.n}, t, a_l) + " b " + layout_name(b_l);
        sw.run(
            what, [](const Tensors& x) { return ember::mm(x[0], x[1]); }, in, gemm_tol());
        sw.run(
            what + " matmul", [](const Tensors& x) { return x[0].matmul(x[1]); }, in, gemm_tol());
        sw.run(
            what + " addmm",
            [](const Tensors& x) { return ember::addmm(x[2], x[0], x[1], 0.5, 2); }, in,
            gemm_tol());
        sw.run(
            what + " addmm bias", [](const Tensors& x) { return ember::addmm(x[3], x[0], x[1]); },
            in, gemm_tol());
        sw.run(
            what + " addmm beta 0",
            [](const Tensors& x) { return ember::addmm(x[2], x[0], x[1], 0, 1); }, in, gemm_tol());
        sw.run(
            what + " linear", [](const Tensors& x) { return ember::linear(x[0], x[4], x[3]); }, in,
            gemm_tol());
      }
    }
  }
}

// addmm with a bias row (linear's forward): a 1-D and a [1, n] bias, alpha 1 and 2, small
// products (CUDA: our own kernel with the bias in its store) and ones past the small-GEMM
// limit (cuBLASLt's BIAS epilogue), weights read transposed as linear reads them, and
// operands at an odd offset (cuBLASLt told their alignment).
void addmm_bias_case() {
  Sweep sw("addmm_bias");
  std::vector<Mnk> sizes = {{1, 1, 1}, {7, 5, 3}, {128, 784, 512}};
  if (!small_mode()) sizes.push_back({300, 520, 480});  // 74.9M multiply-adds: cuBLASLt
  for (const Mnk& g : sizes) {
    for (ScalarType t : {kFloat32, kFloat64}) {
      for (Layout wl : {Layout::kContiguous, Layout::kOffset}) {
        const std::vector<Pair> in = {make_pair({g.m, g.k}, t, wl), make_pair({g.n, g.k}, t, wl),
                                      make_pair({g.n}, t, wl), make_pair({1, g.n}, t, wl)};
        const std::string what = label("addmm_bias", {g.m, g.k, g.n}, t, wl);
        sw.run(
            what + " linear", [](const Tensors& x) { return ember::linear(x[0], x[1], x[2]); }, in,
            gemm_tol());
        sw.run(
            what + " [1, n] alpha 2",
            [](const Tensors& x) { return ember::addmm(x[3], x[0], x[1].t(), 1, 2); }, in,
            gemm_tol());
      }
    }
  }
}

// linear's weight and bias gradients in one kernel (CUDA: cuBLASLt's BGRADB for float32),
// through autograd as a training step reaches it, against the CPU's mm and sum; and under
// create_graph, where AddmmBackward0 keeps differentiable ops.
void linear_weight_bias_grad_case() {
  Sweep sw("linear_weight_bias_grad");
  std::vector<Mnk> sizes = {{1, 1, 1}, {7, 5, 3}, {128, 784, 512}, {128, 256, 10}};
  if (!small_mode()) sizes.push_back({300, 520, 480});
  for (const Mnk& g : sizes) {
    for (ScalarType t : {kFloat32, kFloat64}) {
      const Pair x = make_pair({g.m, g.k}, t, Layout::kContiguous);
      const Pair w = make_pair({g.n, g.k}, t, Layout::kContiguous);
      const Pair b = make_pair({g.n}, t, Layout::kContiguous);
      const Pair up = make_pair({g.m, g.n}, t, Layout::kContiguous);
      for (bool create_graph : {false, true}) {
        const Fn fn = [create_graph](const Tensors& in) {
          Tensor xi = in[0].detach().requires_grad_(true);
          Tensor wi = in[1].detach().requires_grad_(true);
          Tensor bi = in[2].detach().requires_grad_(true);
          Tensor y = ember::linear(xi, wi, bi);
          auto grads = ember::autograd::grad({(y * in[3]).sum()}, {xi, wi, bi}, {},
                                             /*retain_graph=*/std::nullopt, create_graph);
          return Tensors{y.detach(), grads[0].detach(), grads[1].detach(), grads[2].detach()};
        };
        sw.run(label("linear_weight_bias_grad", {g.m, g.k, g.n}, t, Layout::kContiguous) +
                   (create_graph ? " create_graph" : ""),
               fn, {x.cpu, w.cpu, b.cpu, up.cpu}, {x.gpu, w.gpu, b.gpu, up.gpu},
               reduce_tol(g.m * g.k));
      }
    }
  }
  // The front-end's checks, on both devices.
  for (Device d : {Device(kCPU), Device(kCUDA)}) {
    const Tensor g2 = ember::ones({4, 3}, TensorOptions().device(d));
    EXPECT_THROW(native::linear_weight_bias_grad(g2, ember::ones({5, 2}, g2.options())), Error);
    EXPECT_THROW(native::linear_weight_bias_grad(g2.t(), ember::ones({3, 2}, g2.options())), Error);
  }
}

void baddbmm_case() {
  Sweep sw("baddbmm");
  for (const Mnk& g : gemm_sizes()) {
    for (ScalarType t : {kFloat32, kFloat64}) {
      for (int64_t batch : {1, 3}) {
        const Shape sa = {batch, g.m, g.k}, sb = {batch, g.k, g.n};
        const std::vector<Layout> la = layouts_for(sa, false), lb = layouts_for(sb, false);
        for (size_t i = 0; i < la.size(); ++i) {
          const Layout b_l = lb[(i + 2) % lb.size()];
          const std::vector<Pair> in = {make_pair(sa, t, la[i]), make_pair(sb, t, b_l)};
          const std::string what =
              label("bmm", {batch, g.m, g.k, g.n}, t, la[i]) + " b " + layout_name(b_l);
          sw.run(
              what, [](const Tensors& x) { return ember::bmm(x[0], x[1]); }, in, gemm_tol());
          sw.run(
              what + " matmul", [](const Tensors& x) { return x[0].matmul(x[1]); }, in, gemm_tol());
        }
      }
    }
  }
}

// matmul's 1-D..N-D forms and batch broadcasting (stride-0 batches).
void matmul_composite() {
  Sweep sw("composite_matmul");
  const std::vector<std::pair<Shape, Shape>> cases = {{{7}, {7}},
                                                      {{7}, {7, 3}},
                                                      {{4, 7}, {7}},
                                                      {{2, 4, 7}, {7}},
                                                      {{7}, {2, 7, 3}},
                                                      {{2, 1, 4, 7}, {3, 7, 5}},
                                                      {{1, 4, 7}, {3, 7, 5}},
                                                      {{3, 4, 7}, {7, 5}},
                                                      {{4, 7}, {3, 7, 5}},
                                                      {{0}, {0}},
                                                      {{2, 0, 3}, {3, 4}}};
  for (ScalarType t : {kFloat32, kFloat64}) {
    for (const auto& [sa, sb] : cases) {
      for (Layout l : {Layout::kContiguous, Layout::kStepped}) {
        sw.run(
            label("matmul", sa, t, l) + " @ " + ref::str(sb),
            [](const Tensors& x) { return ember::matmul(x[0], x[1]); },
            {make_pair(sa, t, l), make_pair(sb, t, Layout::kContiguous)}, gemm_tol());
      }
    }
  }
}

// ---- softmax ----
void softmax_case(bool log) {
  const std::string op = log ? "log_softmax" : "softmax";
  Sweep sw(op);
  std::vector<Shape> sizes = {{}, {1}, {0}, {5}, {3, 0}, {7, 9}, {4, 1, 3}, {2, 3, 4}, {33, 2049}};
  if (!small_mode()) {
    sizes.push_back({2049, 33});    // dim 0: strided rows
    sizes.push_back({8, 1 << 16});  // long rows
  }
  auto f = [log](const Tensor& t, int64_t d) { return log ? t.log_softmax(d) : t.softmax(d); };
  const Tol tol = {1e-4, 1e-6, 1e-10, 1e-12};
  for (const Shape& s : sizes) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : {kFloat32, kFloat64, kInt64}) {
        const Pair x = make_pair(s, t, l, Domain::kWide);
        for (int64_t d = -1; d < static_cast<int64_t>(s.size()); ++d) {
          sw.run(
              label(op, s, t, l) + " dim " + std::to_string(d),
              [&](const Tensors& in) { return f(in[0], d); }, {x}, tol);
        }
      }
    }
  }
  for (ScalarType t : ref::float_dtypes()) {  // -inf entries, whole rows of -inf, NaN
    const Pair x = make_pair({16, 17}, t, Layout::kContiguous, Domain::kSpecial);
    sw.run(
        label(op + " specials", {16, 17}, t, Layout::kContiguous),
        [&](const Tensors& in) { return f(in[0], 1); }, {x}, tol);
  }
  for (ScalarType t : {kInt32, kFloat32}) {  // the dtype argument
    sw.run(
        label(op + " dtype", {5, 6}, t, Layout::kTransposed),
        [log](const Tensors& in) {
          return log ? ember::log_softmax(in[0], 1, kFloat64) : ember::softmax(in[0], 1, kFloat64);
        },
        {make_pair({5, 6}, t, Layout::kTransposed)}, tol);
  }
}

// ---- indexing ----
void index_select_case() {
  Sweep sw("index_select");
  for (const Shape& s :
       {Shape{}, Shape{5}, Shape{4, 6}, Shape{3, 4, 5}, Shape{0, 3}, Shape{300, 257}}) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : ref::all_dtypes()) {
        const Pair x = make_pair(s, t, l);
        for (int64_t d = 0; d < std::max<int64_t>(1, s.size()); ++d) {
          const int64_t size = s.empty() ? 1 : s[d];
          for (const Shape& is : {Shape{7}, Shape{1}, Shape{}, Shape{0}}) {
            if (size == 0 && ref::numel(is) != 0) continue;
            const Pair idx = index_pair(is, std::max<int64_t>(size, 1));
            sw.run(
                label("index_select", s, t, l) + " dim " + std::to_string(d) + " index " +
                    ref::str(is),
                [d](const Tensors& in) { return in[0].index_select(d, in[1]); }, {x, idx}, exact());
          }
        }
      }
    }
  }
  const Pair x = make_pair({6, 5}, kFloat32, Layout::kTransposed);  // an int32 index
  Pair idx = index_pair({9}, 5);
  sw.run(
      "index_select int32 index",
      [](const Tensors& in) { return Tensors{in[0].index_select(1, in[1])}; },
      {x.cpu, idx.cpu.to(kInt32)}, {x.gpu, idx.gpu.to(kInt32)}, exact());
}

void gather_case() {
  Sweep sw("gather");
  for (const Shape& s : {Shape{5}, Shape{4, 6}, Shape{3, 4, 5}, Shape{200, 129}}) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : ref::all_dtypes()) {
        const Pair x = make_pair(s, t, l);
        for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
          Shape is = s;  // index: smaller than the input in every dim but d, larger along d
          for (int64_t& v : is) v = std::max<int64_t>(1, v - 1);
          is[d] = s[d] + 2;
          const Pair idx = index_pair(is, s[d]);
          sw.run(
              label("gather", s, t, l) + " dim " + std::to_string(d),
              [d](const Tensors& in) { return in[0].gather(d, in[1]); }, {x, idx}, exact());
        }
      }
    }
  }
}

// Repeated indices accumulate through atomics on the GPU: float sums in any order.
void scatter_add_case() {
  Sweep sw("scatter_add");
  for (const Shape& s : {Shape{5}, Shape{4, 6}, Shape{3, 4, 5}, Shape{64, 129}}) {
    for (ScalarType t : ref::all_dtypes()) {
      for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
        Shape ss = s;  // src: 3x as many along d (so indices repeat), smaller elsewhere
        ss[d] = 3 * s[d];
        const Pair self = make_pair(s, t, Layout::kContiguous);
        const Pair src = make_pair(ss, t, s.size() >= 2 ? Layout::kTransposed : Layout::kStepped);
        const Pair idx = index_pair(ss, s[d]);
        const std::string what =
            label("scatter_add", s, t, Layout::kContiguous) + " dim " + std::to_string(d);
        sw.run(
            what, [d](const Tensors& in) { return in[0].scatter_add(d, in[2], in[1]); },
            {self, src, idx}, reduce_tol(3));
        if (s.size() < 2) continue;
        const Pair view = make_pair(s, t, Layout::kTransposed);  // in place into a strided self
        sw.run(
            what + " in place",
            [d](const Tensors& in) {
              Tensor self = in[0];
              self.scatter_add_(d, in[2], in[1]);
              return Tensors{in[3]};
            },
            {view.cpu, src.cpu, idx.cpu, view.cpu_base},
            {view.gpu, src.gpu, idx.gpu, view.gpu_base}, reduce_tol(3));
      }
    }
  }
}

// ---- composites: the recurrent modules (nn/modules/rnn.cpp), same weights on both devices ----
void rnn_composite() {
  Sweep sw("composite_rnn");
  // Each module is built from the same seed on the CPU, then moved to the input's device.
  auto flat = [](std::initializer_list<Tensor> parts) {
    Tensors f;
    for (const Tensor& p : parts) f.push_back(p.flatten());
    return ember::cat(f);
  };
  for (ScalarType t : {kFloat32, kFloat64}) {
    for (Layout l : {Layout::kContiguous, Layout::kStepped}) {
      sw.run(
          label("lstm 2-layer bidirectional batch_first", {2, 4, 5}, t, l),
          [&](const Tensors& in) {
            manual_seed(17);
            nn::LSTM m(nn::LSTMOptions(5, 6).num_layers(2).bidirectional(true).batch_first(true));
            m->to(in[0].device(), in[0].scalar_type());
            auto [out, hc] = m(in[0], std::make_tuple(in[1], in[2]));
            return flat({out, std::get<0>(hc), std::get<1>(hc)});
          },
          {make_pair({2, 4, 5}, t, l), make_pair({4, 2, 6}, t, Layout::kContiguous),
           make_pair({4, 2, 6}, t, Layout::kContiguous)},
          gemm_tol());
      sw.run(
          label("gru bidirectional", {4, 2, 5}, t, l),
          [&](const Tensors& in) {
            manual_seed(18);
            nn::GRU m(nn::GRUOptions(5, 6).bidirectional(true));
            m->to(in[0].device(), in[0].scalar_type());
            auto [out, h] = m(in[0]);
            return flat({out, h});
          },
          {make_pair({4, 2, 5}, t, l)}, gemm_tol());
      sw.run(
          label("rnn relu 2-layer", {4, 2, 5}, t, l),
          [&](const Tensors& in) {
            manual_seed(19);
            nn::RNN m(nn::RNNOptions(5, 6).num_layers(2).nonlinearity(kReLU));
            m->to(in[0].device(), in[0].scalar_type());
            auto [out, h] = m(in[0]);
            return flat({out, h});
          },
          {make_pair({4, 2, 5}, t, l)}, gemm_tol());
      sw.run(
          label("lstm/gru/rnn cells", {3, 5}, t, l),
          [&](const Tensors& in) {
            manual_seed(20);
            nn::LSTMCell lc(5, 6);
            nn::GRUCell gc(5, 6);
            nn::RNNCell rc(5, 6);
            lc->to(in[0].device(), in[0].scalar_type());
            gc->to(in[0].device(), in[0].scalar_type());
            rc->to(in[0].device(), in[0].scalar_type());
            auto [h, c] = lc(in[0]);
            return flat({h, c, gc(in[0], h), rc(in[0], h)});
          },
          {make_pair({3, 5}, t, l)}, gemm_tol());
    }
  }
}

// ---- composites: cat, stack, one_hot ----
void join_composite() {
  Sweep sw("composite_cat_stack");
  for (ScalarType t : ref::all_dtypes()) {
    const std::vector<Pair> parts = {make_pair({3, 4}, t, Layout::kTransposed),
                                     make_pair({3, 4}, t, Layout::kContiguous),
                                     make_pair({3, 4}, t, Layout::kStepped)};
    for (int64_t d : {0, 1, -1}) {
      sw.run(
          label("cat", {3, 4}, t, Layout::kTransposed) + " dim " + std::to_string(d),
          [d](const Tensors& in) { return ember::cat(in, d); }, parts, exact());
    }
    for (int64_t d : {0, 1, 2, -1}) {
      sw.run(
          label("stack", {3, 4}, t, Layout::kTransposed) + " dim " + std::to_string(d),
          [d](const Tensors& in) { return ember::stack(in, d); }, parts, exact());
    }
    sw.run(
        label("cat with empty", {0, 4}, t, Layout::kContiguous),
        [](const Tensors& in) { return ember::cat(in, 0); },
        {make_pair({0, 4}, t, Layout::kContiguous), make_pair({2, 4}, t, Layout::kOffset)},
        exact());
  }
}

void one_hot_composite() {
  Sweep sw("composite_one_hot");
  for (const Shape& s : {Shape{}, Shape{5}, Shape{3, 4}, Shape{0}}) {
    const Pair idx = index_pair(s, 6);
    sw.run(
        "one_hot " + ref::str(s), [](const Tensors& in) { return ember::one_hot(in[0], 8); }, {idx},
        exact());
    if (!s.empty() && s[0] == 0) continue;
    sw.run(
        "one_hot inferred " + ref::str(s), [](const Tensors& in) { return ember::one_hot(in[0]); },
        {idx}, exact());
  }
}

// ---- autograd on both devices: gradients of a few small graphs ----
// Inputs become leaves (detach keeps their strides); outputs are the loss and the grads.
void autograd_case(const std::string& name, const std::vector<Pair>& in,
                   const std::function<Tensor(const Tensors&)>& loss, const Tol& tol) {
  Sweep sw(name);
  sw.run(
      name,
      [&](const Tensors& x) {
        Tensors leaves;
        for (const Tensor& t : x) leaves.push_back(t.detach().requires_grad_());
        Tensor l = loss(leaves);
        l.backward();
        Tensors out = {l.detach()};
        for (const Tensor& leaf : leaves) out.push_back(leaf.grad());
        return out;
      },
      [&] {
        Tensors v;
        for (const Pair& p : in) v.push_back(p.cpu);
        return v;
      }(),
      [&] {
        Tensors v;
        for (const Pair& p : in) v.push_back(p.gpu);
        return v;
      }(),
      tol);
}

void autograd_cases(CaseList* c) {
  const Tol tol = {1e-4, 1e-5, 1e-10, 1e-12};
  c->push_back({"autograd_mul_sum", [=] {
                  autograd_case(
                      "autograd_mul_sum",
                      {make_pair({8}, kFloat32, Layout::kContiguous),
                       make_pair({8}, kFloat32, Layout::kStepped)},
                      [](const Tensors& x) { return (x[0] * x[1]).sum(); }, tol);
                }});
  c->push_back({"autograd_broadcast", [=] {
                  autograd_case(
                      "autograd_broadcast",
                      {make_pair({3, 1}, kFloat64, Layout::kContiguous),
                       make_pair({1, 4}, kFloat64, Layout::kContiguous)},
                      [](const Tensors& x) { return ((x[0] * x[1]).exp() / (x[0] + 4)).sum(); },
                      tol);
                }});
  c->push_back({"autograd_mlp", [=] {
                  for (ScalarType t : {kFloat32, kFloat64}) {
                    const Pair target = index_pair({16, 1}, 10);
                    autograd_case(
                        "autograd_mlp",
                        {make_pair({16, 32}, t, Layout::kContiguous),
                         make_pair({64, 32}, t, Layout::kContiguous),
                         make_pair({64}, t, Layout::kContiguous),
                         make_pair({64, 32}, t, Layout::kTransposed)},
                        [&](const Tensors& x) {
                          const bool gpu = x[0].is_cuda();
                          Tensor h = ember::linear(x[0], x[1], x[2]).relu();
                          Tensor logits = h.matmul(x[3]).narrow(1, 0, 10);
                          Tensor idx = gpu ? target.gpu : target.cpu;
                          return -logits.log_softmax(1).gather(1, idx).mean();
                        },
                        gemm_tol());
                  }
                }});
  c->push_back({"autograd_reduce_index", [=] {
                  const Pair idx = index_pair({9}, 5);
                  autograd_case(
                      "autograd_reduce_index", {make_pair({5, 6}, kFloat64, Layout::kTransposed)},
                      [&](const Tensors& x) {
                        Tensor i = x[0].is_cuda() ? idx.gpu : idx.cpu;
                        Tensor y = x[0].index_select(0, i).sigmoid();
                        return y.var({1}).sum() + y.amax({0}).sum() + y.norm() +
                               x[0].softmax(0).pow(2).mean();
                      },
                      tol);
                }});
}

}  // namespace

// Fused optimizer steps: one quick run of each op through its optimizer; the full sweep
// (every option, odd sizes, multi-launch lists) is tests/test_optim_cuda.cpp.
void optim_step_case(const std::string& op) {
  using namespace ember::optim;
  for (ScalarType dt : {kFloat32, kFloat64}) {
    Tensor p = randn({70001}, dt), g = randn({70001}, dt);
    Tensor pc = p.clone().requires_grad_(true), pg = p.to(kCUDA).requires_grad_(true);
    std::vector<Tensor> vc{pc}, vg{pg};
    std::unique_ptr<Optimizer> oc, og;
    if (op == "sgd_step") {
      oc = std::make_unique<SGD>(vc, SGDOptions(0.1).momentum(0.9));
      og = std::make_unique<SGD>(vg, SGDOptions(0.1).momentum(0.9));
    } else if (op == "adam_step") {
      oc = std::make_unique<Adam>(vc, AdamOptions(0.01).amsgrad(true));
      og = std::make_unique<Adam>(vg, AdamOptions(0.01).amsgrad(true));
    } else if (op == "rmsprop_step") {
      oc = std::make_unique<RMSprop>(vc, RMSpropOptions(0.01).centered(true).momentum(0.5));
      og = std::make_unique<RMSprop>(vg, RMSpropOptions(0.01).centered(true).momentum(0.5));
    } else {
      oc = std::make_unique<Adagrad>(vc, AdagradOptions(0.1));
      og = std::make_unique<Adagrad>(vg, AdagradOptions(0.1));
    }
    for (int step = 0; step < 2; ++step) {
      pc.mutable_grad() = g;
      pg.mutable_grad() = g.to(kCUDA);
      oc->step();
      og->step();
    }
    EXPECT_TRUE(ember::allclose(pg.detach().to(kCPU), pc.detach(), 1e-5, 1e-6)) << op << " " << dt;
  }
}

// relu's fused backward kernel, called directly (autograd uses it in ReluBackward0), over
// layouts, a stride-0 gradient (as sum's backward sends), and both float dtypes.
void relu_backward_case() {
  Sweep sw("relu_backward");
  const std::function<Tensor(const Tensors&)> fn = [](const Tensors& in) {
    Tensor out = empty(in[1].sizes(), in[1].options());
    kernel<Op::relu_backward>(in[1].device().type())(out, in[0], in[1]);
    return out;
  };
  for (const Shape& s : {Shape{}, Shape{0}, Shape{7, 9}, Shape{33, 2049}}) {
    const std::vector<Layout> ls = layouts_for(s, false);
    for (size_t i = 0; i < ls.size(); ++i) {
      for (ScalarType dt : {kFloat32, kFloat64}) {
        sw.run(label("relu_backward", s, dt, ls[i]), fn,
               {make_pair(s, dt, ls[i]), make_pair(s, dt, ls[(i + 1) % ls.size()])},
               elementwise_tol());
      }
    }
  }
  const Pair g = make_pair({}, kFloat32, Layout::kContiguous);
  const Pair y = make_pair({5, 6}, kFloat32, Layout::kContiguous);
  sw.run(
      "relu_backward stride-0 grad",
      [](const Tensors& in) {
        Tensor out = empty(in[1].sizes(), in[1].options());
        kernel<Op::relu_backward>(in[1].device().type())(out, in[0].expand(in[1].sizes()), in[1]);
        return out;
      },
      {g, y}, elementwise_tol());
}

// Fused cross entropy: loss and input gradient through F::cross_entropy (every reduction,
// weights, smoothing, ignored rows); the size grid is tests/test_nn_loss_cuda.cpp.
void cross_entropy_case() {
  namespace F = ember::nn::functional;
  Sweep sw("cross_entropy");
  for (const Shape& s : {Shape{1, 10}, Shape{128, 1000}, Shape{300, 5000}, Shape{2, 7, 3}}) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      const Pair x = make_pair(s, dt, Layout::kContiguous);
      Shape ts = s;
      ts.erase(ts.begin() + 1);
      const Pair t = index_pair(ts, s[1]);
      const Pair w = make_pair({s[1]}, dt, Layout::kContiguous, Domain::kPositive);
      for (ember::nn::Reduction r : {ember::kMean, ember::kSum, ember::kNone}) {
        const Fn fn = [r](const Tensors& in) {
          Tensor xi = in[0].detach().requires_grad_(true);
          auto o = F::CrossEntropyFuncOptions().reduction(r).weight(in[2]).ignore_index(0);
          Tensor loss = F::cross_entropy(xi, in[1], o.label_smoothing(0.1));
          loss.sum().backward();
          return Tensors{loss.detach(), xi.grad()};
        };
        sw.run(
            label("cross_entropy", s, dt, Layout::kContiguous) + " " + ember::nn::reduction_name(r),
            fn, {x.cpu, t.cpu, w.cpu}, {x.gpu, t.gpu, w.gpu}, reduce_tol(s[0] * s[1]));
      }
    }
  }
}

CaseList other_cases() {
  CaseList c;
  c.push_back({"relu_backward", relu_backward_case});
  c.push_back({"cross_entropy", cross_entropy_case});
  c.push_back({"cross_entropy_backward", cross_entropy_case});
  for (const char* op : {"sgd_step", "adam_step", "rmsprop_step", "adagrad_step"})
    c.push_back({op, [op] { optim_step_case(op); }});
  reduction_cases(&c);
  c.push_back({"addmm", addmm_case});
  c.push_back({"addmm_bias", addmm_bias_case});
  c.push_back({"linear_weight_bias_grad", linear_weight_bias_grad_case});
  c.push_back({"baddbmm", baddbmm_case});
  c.push_back({"composite_matmul", matmul_composite});
  c.push_back({"softmax", [] { softmax_case(false); }});
  c.push_back({"log_softmax", [] { softmax_case(true); }});
  c.push_back({"index_select", index_select_case});
  c.push_back({"gather", gather_case});
  c.push_back({"scatter_add", scatter_add_case});
  c.push_back({"composite_cat_stack", join_composite});
  c.push_back({"composite_one_hot", one_hot_composite});
  c.push_back({"composite_rnn", rnn_composite});
  autograd_cases(&c);
  return c;
}

// cuda::tunable: the products that tuning reroutes (plain fp32 products through cuBLASLt
// instead of ember's small kernel or cuBLAS; the bias and bias-gradient epilogues with the
// fastest timed algorithm) still match the CPU, and a shape once tuned keeps its algorithm:
// the same call gives the same bits again.
TEST(CudaTunable, TunedProductsMatchTheCpu) {
  PARITY_REQUIRE_GPU();
  struct Restore {
    ~Restore() { ember::cuda::tunable::enable(false); }
  } restore;
  ember::cuda::tunable::enable();
  ASSERT_TRUE(ember::cuda::tunable::is_enabled());
  addmm_case();
  addmm_bias_case();
  linear_weight_bias_grad_case();
  for (const Mnk& g : std::vector<Mnk>{{128, 784, 512}, {128, 512, 256}, {64, 100, 10}}) {
    const Pair x = make_pair({g.m, g.k}, kFloat32, Layout::kContiguous);
    const Pair w = make_pair({g.n, g.k}, kFloat32, Layout::kContiguous);
    const Pair b = make_pair({g.n}, kFloat32, Layout::kContiguous);
    const Tensor first = ember::linear(x.gpu, w.gpu, b.gpu).cpu();
    const Tensor again = ember::linear(x.gpu, w.gpu, b.gpu).cpu();
    EXPECT_TRUE(ember::equal(first, again)) << "linear " << ref::str({g.m, g.k, g.n});
    const Tensor mm1 = ember::mm(x.gpu, w.gpu.t()).cpu();
    EXPECT_TRUE(ember::equal(mm1, ember::mm(x.gpu, w.gpu.t()).cpu()))
        << "mm " << ref::str({g.m, g.k, g.n});
  }
}

}  // namespace parity
