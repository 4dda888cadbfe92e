// CPU/CUDA parity sweep: tensor indexing (index, index_put_), masked_select/scatter, nonzero,
// where. Cases are named after ops of core/ops.def, or composite_<name> for composites.
#include "cuda_parity.h"

namespace parity {

using namespace ember;
using ember::indexing::Ellipsis;
using ember::indexing::None;
using ember::indexing::Slice;

namespace {

// Index tensors in [-bound, bound) (negative ones count from the end).
Pair signed_index_pair(const Shape& s, int64_t bound) {
  Pair p = index_pair(s, 2 * bound);
  p.cpu = p.cpu - bound;
  p.gpu = p.gpu - bound;
  return p;
}

Pair mask_pair(const Shape& s) {
  Pair p = make_pair(s, kBool, Layout::kContiguous);
  return p;
}

void index_composite() {
  Sweep sw("index_rows");
  for (const Shape& s : {Shape{5}, Shape{4, 6}, Shape{3, 4, 5}, Shape{300, 257}}) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : ref::all_dtypes()) {
        const Pair x = make_pair(s, t, l);
        const std::string base = label("index", s, t, l);
        sw.run(
            base + " basic",
            [](const Tensors& in) {
              return in[0].index({Slice(1, None, 2), None, Ellipsis, -1});
            },
            {x}, exact());
        const Pair i0 = signed_index_pair({7}, s[0]);
        sw.run(
            base + " one tensor", [](const Tensors& in) { return in[0].index({in[1]}); }, {x, i0},
            exact());
        const Pair m = mask_pair(s);
        sw.run(
            base + " full mask", [](const Tensors& in) { return in[0].index({in[1]}); }, {x, m},
            exact());
        if (s.size() >= 2) {
          const Pair i1 = signed_index_pair({3, 1}, s[0]);
          const Pair i2 = index_pair({5}, s.back());
          sw.run(
              base + " separated",
              [](const Tensors& in) {
                return in[0].index({in[1], Ellipsis, in[2]});
              },
              {x, i1, i2}, exact());
          const Pair j1 = index_pair({2, 1}, s[s.size() - 2]);
          sw.run(
              base + " adjacent after a slice",
              [](const Tensors& in) {
                return in[0].index({Ellipsis, in[1], in[2]});
              },
              {x, j1, i2}, exact());
        }
      }
    }
  }
}

void index_put_composite() {
  Sweep sw("composite_index_put");
  for (const Shape& s : {Shape{5}, Shape{4, 6}, Shape{3, 4, 5}, Shape{300, 257}}) {
    for (ScalarType t : ref::all_dtypes()) {
      const Pair x = make_pair(s, t, Layout::kContiguous);
      const Pair i0 = index_pair({9}, s[0]);  // repeats: the last write wins on both
      Shape vs = s;
      vs[0] = 9;
      const Pair v = make_pair(vs, t, Layout::kContiguous);
      const std::string base = label("index_put_", s, t, Layout::kContiguous);
      sw.run(
          base + " tensor",
          [](const Tensors& in) {
            Tensor y = in[0].clone();
            y.index_put_({in[1]}, in[2]);
            return y;
          },
          {x, i0, v}, exact());
      sw.run(
          base + " scalar basic",
          [](const Tensors& in) {
            Tensor y = in[0].clone();
            y.index_put_({Slice(None, None, 2)}, 1);
            return y;
          },
          {x}, exact());
      const Pair m = mask_pair(s);
      sw.run(
          base + " mask scalar",
          [](const Tensors& in) {
            Tensor y = in[0].clone();
            y.index_put_({in[1]}, 0);
            return y;
          },
          {x, m}, exact());
      if (t != kBool) {
        const Tol tol = is_floating_point(t) ? reduce_tol(9) : exact();
        sw.run(
            base + " accumulate",
            [](const Tensors& in) { return in[0].index_put({in[1]}, in[2], true); }, {x, i0, v},
            tol);
      }
    }
  }
}

void masked_composite() {
  Sweep sw("composite_masked");
  for (const Shape& s : {Shape{}, Shape{5}, Shape{4, 6}, Shape{3, 4, 5}, Shape{300, 257}}) {
    for (Layout l : layouts_for(s, false)) {
      for (ScalarType t : ref::all_dtypes()) {
        const Pair x = make_pair(s, t, l);
        const Pair m = mask_pair(s);
        const std::string base = label("masked", s, t, l);
        sw.run(
            base + " select", [](const Tensors& in) { return in[0].masked_select(in[1]); }, {x, m},
            exact());
        sw.run(
            base + " nonzero", [](const Tensors& in) { return in[0].nonzero(); }, {x}, exact());
        sw.run(
            base + " argwhere", [](const Tensors& in) { return argwhere(in[0]); }, {x}, exact());
        sw.run(
            base + " where(cond)", [](const Tensors& in) { return where(in[1]); }, {x.cpu, m.cpu},
            {x.gpu, m.gpu}, exact());
        sw.run(
            base + " scatter",
            [](const Tensors& in) {
              const int64_t minus_one = -1;
              const Tensor flat = in[0].reshape(IntArrayRef(minus_one));  // reversed as the source
              const int64_t n = flat.numel();
              return in[0].masked_scatter(
                  in[1], flat.index_select(
                             0, arange(n - 1, -1, -1,
                                       TensorOptions().dtype(kInt64).device(flat.device()))));
            },
            {x, m}, exact());
      }
    }
  }
}

}  // namespace

CaseList indexing_cases() {
  CaseList c;
  c.push_back({"index_rows", index_composite});  // t.index({...}): index_rows underneath
  c.push_back({"composite_index_put", index_put_composite});
  c.push_back({"composite_masked", masked_composite});
  return c;
}

}  // namespace parity
