// CPU/CUDA parity sweep: shape ops: flip, roll, tril/triu, diag, repeat, tile, meshgrid, ....
// Cases are named after ops of core/ops.def, or composite_<name> for composites.
#include "cuda_parity.h"

namespace parity {

using namespace ember;

namespace {

// Every dtype, over shapes of rank >= min_rank (and a large one), in every layout.
void shape_sweep(const std::string& op, size_t min_rank,
                 const std::function<Tensor(const Tensor&)>& f, bool large = true) {
  Sweep sw(op);
  std::vector<Shape> shapes = {{},     {1},       {0},       {5},    {3, 0},
                               {2, 3}, {4, 1, 3}, {2, 3, 4}, {3, 3}, {2, 1, 3, 2}};
  if (large && !small_mode()) shapes.push_back({300, 257});
  for (const Shape& s : shapes) {
    if (s.size() < min_rank) continue;
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : ref::all_dtypes()) {
        const Pair x = make_pair(s, t, l);
        sw.run(
            label(op, s, t, l), [&](const Tensors& in) { return f(in[0]); }, {x}, exact());
      }
    }
  }
}

void flip_case() {
  shape_sweep("flip", 1, [](const Tensor& x) { return x.flip({0}); });
  shape_sweep("flip all", 0, [](const Tensor& x) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < x.dim(); ++d) dims.push_back(-1 - d);
    return x.flip(dims);
  });
}

void roll_case() {
  shape_sweep("roll flat", 0, [](const Tensor& x) { return x.roll(3); });
  shape_sweep("roll dims", 2, [](const Tensor& x) { return x.roll({-1, 4}, {-1, 0}); });
  shape_sweep("rot90", 2, [](const Tensor& x) { return x.rot90(1) + 0; });
}

void tril_triu_case() {
  for (int64_t k : {-2, 0, 1}) {
    shape_sweep("tril " + std::to_string(k), 2, [k](const Tensor& x) { return x.tril(k); });
    shape_sweep("triu " + std::to_string(k), 2, [k](const Tensor& x) { return x.triu(k); });
    shape_sweep("tril_ " + std::to_string(k), 2,
                [k](const Tensor& x) { return x.clone().tril_(k); });
  }
  Sweep sw("composite_tril_indices");
  const Pair dev = make_pair({1}, kFloat32, Layout::kContiguous);  // says which device
  for (int64_t off : {-2, 0, 3}) {
    sw.run(
        "tril/triu_indices offset " + std::to_string(off),
        [off](const Tensors& in) {
          const Device dev = in[0].device();
          return Tensors{tril_indices(5, 4, off, TensorOptions().dtype(kInt64).device(dev)),
                         triu_indices(4, 6, off, TensorOptions().dtype(kInt32).device(dev))};
        },
        {dev.cpu}, {dev.gpu}, exact());
  }
}

void diag_case() {
  shape_sweep("diagonal", 2, [](const Tensor& x) { return x.diagonal(1, -1, 0) + 0; });
  shape_sweep("diag", 1,
              [](const Tensor& x) { return x.dim() <= 2 ? x.diag(-1) : x.flatten().diag(1); });
  shape_sweep(
      "diag_embed", 1, [](const Tensor& x) { return x.diag_embed(1, 0, -1); }, false);
}

void repeat_case() {
  shape_sweep("repeat", 0, [](const Tensor& x) {
    std::vector<int64_t> reps(static_cast<size_t>(x.dim()) + 1, 1);
    reps[0] = 2;
    reps.back() = 3;
    return x.repeat(reps);
  });
  shape_sweep("tile", 0, [](const Tensor& x) { return x.tile({2}); });
}

void repeat_interleave_case() {
  shape_sweep("repeat_interleave int", 0, [](const Tensor& x) { return x.repeat_interleave(2); });
  shape_sweep("repeat_interleave int dim", 1,
              [](const Tensor& x) { return x.repeat_interleave(3, -1); });
  shape_sweep("repeat_interleave tensor", 1, [](const Tensor& x) {
    std::vector<int64_t> reps;
    for (int64_t i = 0; i < x.size(0); ++i) reps.push_back(i % 3);
    return x.repeat_interleave(tensor(reps).to(x.device()), 0);
  });
  Sweep sw("composite_repeat_interleave");
  const Pair r = from_values({2, 0, 3, 1}, {4}, kInt64);
  sw.run(
      "repeat_interleave(repeats)", [](const Tensors& in) { return repeat_interleave(in[0]); }, {r},
      exact());
}

void meshgrid_case() {
  Sweep sw("composite_meshgrid");
  for (ScalarType t : ref::all_dtypes()) {
    const std::vector<Pair> in = {make_pair({3}, t, Layout::kStepped),
                                  make_pair({}, t, Layout::kScalarView),
                                  make_pair({4}, t, Layout::kOffset)};
    for (const char* indexing : {"ij", "xy"}) {
      sw.run(
          label("meshgrid", {3}, t, Layout::kStepped) + " " + indexing,
          [indexing](const Tensors& x) { return meshgrid(x, indexing); },
          {in[0].cpu, in[1].cpu, in[2].cpu}, {in[0].gpu, in[1].gpu, in[2].gpu}, exact());
    }
    const Pair a = make_pair({3, 1}, t, Layout::kTransposed),
               b = make_pair({2}, t, Layout::kOffset);
    sw.run(
        label("broadcast_tensors", {3, 1}, t, Layout::kTransposed),
        [](const Tensors& x) { return broadcast_tensors(x); }, {a.cpu, b.cpu}, {a.gpu, b.gpu},
        exact());
  }
}

void views_case() {
  shape_sweep("movedim", 3, [](const Tensor& x) { return x.movedim({0, -1}, {1, 0}) * 1; });
  shape_sweep("mT", 2, [](const Tensor& x) { return x.mT().contiguous(); });
  shape_sweep("unflatten", 1, [](const Tensor& x) { return x.unflatten(0, {1, -1, 1}) + 0; });
  shape_sweep("squeeze dims", 2, [](const Tensor& x) { return x.squeeze({0, -1}).clone(); });
  shape_sweep("narrow_copy", 1, [](const Tensor& x) { return x.narrow_copy(0, 0, x.size(0) / 2); });
  shape_sweep("split sizes", 1, [](const Tensor& x) {
    const int64_t n = x.size(-1);
    return cat({x.split({n / 3, n - n / 3}, -1)[1], x.split_with_sizes({n}, -1)[0]}, -1);
  });
  shape_sweep("in-place views", 2, [](const Tensor& x) {
    Tensor y = x.clone();
    y.transpose_(0, -1).unsqueeze_(1);
    y.squeeze_({1});
    return y.contiguous();
  });
}

void stacks_case() {
  Sweep sw("composite_stacks");
  for (ScalarType t : ref::all_dtypes()) {
    const std::vector<Pair> vecs = {make_pair({3}, t, Layout::kStepped),
                                    make_pair({3}, t, Layout::kOffset)};
    const std::vector<Pair> mats = {make_pair({3, 2}, t, Layout::kTransposed),
                                    make_pair({3, 2}, t, Layout::kContiguous)};
    using F = Tensor (*)(TensorList);
    const std::vector<std::pair<const char*, F>> fns = {
        {"hstack", hstack}, {"vstack", vstack}, {"dstack", dstack}, {"column_stack", column_stack}};
    for (const auto& [name, f] : fns) {
      sw.run(
          label(name, {3}, t, Layout::kStepped), [f = f](const Tensors& x) { return f(x); }, vecs,
          exact());
      sw.run(
          label(name, {3, 2}, t, Layout::kTransposed), [f = f](const Tensors& x) { return f(x); },
          mats, exact());
    }
  }
}

}  // namespace

CaseList shape_cases() {
  CaseList c;
  c.push_back({"composite_flip", flip_case});
  c.push_back({"composite_roll", roll_case});
  c.push_back({"composite_tril_triu", tril_triu_case});
  c.push_back({"composite_diag", diag_case});
  c.push_back({"composite_repeat", repeat_case});
  c.push_back({"composite_repeat_interleave", repeat_interleave_case});
  c.push_back({"composite_meshgrid", meshgrid_case});
  c.push_back({"composite_shape_views", views_case});
  c.push_back({"composite_stacks", stacks_case});
  return c;
}

}  // namespace parity
