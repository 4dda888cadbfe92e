// Indexing and joining against naive loops: cat stack index_select gather scatter_add
// one_hot, over random shapes, dims, dtypes and layouts (indices may be strided views too).
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "reference.h"

using namespace ember;
using ref::Layout;
using ref::Operand;
using ref::random_layout;
using ref::Shape;

namespace {

Operand operand(ref::Rng& rng, const Shape& s, ScalarType dt) {
  Operand o{Tensor(), ref::random_values(rng, ref::numel(s), dt), s};
  o.t = ref::make_layout(o.v, s, dt, random_layout(rng));
  return o;
}
// An int64 index tensor with values in [0, bound) in a random layout.
Operand index_operand(ref::Rng& rng, const Shape& s, int64_t bound) {
  Operand o{Tensor(), std::vector<double>(static_cast<size_t>(ref::numel(s))), s};
  for (auto& e : o.v) e = static_cast<double>(ref::randint(rng, 0, bound - 1));
  o.t = ref::make_layout(o.v, s, kInt64, random_layout(rng));
  return o;
}

TEST(Cat, AlongEveryDim) {
  ref::Rng rng(71);
  for (int rep = 0; rep < 60; ++rep) {
    Shape base = ref::random_shape(rng, 1, 4);
    ScalarType dt = ref::all_dtypes()[static_cast<size_t>(rep % 6)];
    int64_t dim = ref::randint(rng, 0, static_cast<int64_t>(base.size()) - 1);
    int64_t count = ref::randint(rng, 1, 4);
    std::vector<Operand> parts;
    std::vector<Tensor> ts;
    for (int64_t i = 0; i < count; ++i) {
      Shape s = base;
      s[static_cast<size_t>(dim)] = ref::randint(rng, 0, 3);
      parts.push_back(operand(rng, s, dt));
      ts.push_back(parts.back().t);
    }
    Shape os = base;
    os[static_cast<size_t>(dim)] = 0;
    for (auto& p : parts) os[static_cast<size_t>(dim)] += p.s[static_cast<size_t>(dim)];
    std::vector<double> want(static_cast<size_t>(ref::numel(os)));
    for (int64_t f = 0; f < ref::numel(os); ++f) {
      Shape idx = ref::unravel(f, os);
      int64_t i = idx[static_cast<size_t>(dim)];
      size_t p = 0;
      while (i >= parts[p].s[static_cast<size_t>(dim)]) i -= parts[p++].s[static_cast<size_t>(dim)];
      idx[static_cast<size_t>(dim)] = i;
      want[static_cast<size_t>(f)] = parts[p].v[static_cast<size_t>(ref::ravel(idx, parts[p].s))];
    }
    int64_t ndim = rep % 2 ? dim - static_cast<int64_t>(base.size()) : dim;
    SCOPED_TRACE(ref::name(dt) + " cat of " + std::to_string(count) + " along " +
                 std::to_string(ndim) + " -> " + ref::str(os));
    EXPECT_TRUE(ref::matches(cat(ts, ndim), dt, os, want));
  }
  // mixed dtypes promote, as in PyTorch
  Tensor c = cat({tensor({int64_t(1)}), tensor({2.5f})});
  EXPECT_TRUE(ref::matches(c, kFloat32, {2}, {1, 2.5}));
  // default dim 0, and a result that owns its memory
  Tensor a = arange(4).view({2, 2});
  Tensor r = cat({a, a});
  a.fill_(0);
  EXPECT_TRUE(ref::matches(r, kInt64, {4, 2}, {0, 1, 2, 3, 0, 1, 2, 3}));
}

TEST(Stack, NewDimAnywhere) {
  ref::Rng rng(72);
  for (int rep = 0; rep < 40; ++rep) {
    Shape s = ref::random_shape(rng, 0, 3);
    ScalarType dt = ref::all_dtypes()[static_cast<size_t>(rep % 6)];
    int64_t count = ref::randint(rng, 1, 4);
    int64_t dim = ref::randint(rng, 0, static_cast<int64_t>(s.size()));
    std::vector<Operand> parts;
    std::vector<Tensor> ts;
    for (int64_t i = 0; i < count; ++i) {
      parts.push_back(operand(rng, s, dt));
      ts.push_back(parts.back().t);
    }
    Shape os = s;
    os.insert(os.begin() + dim, count);
    std::vector<double> want(static_cast<size_t>(ref::numel(os)));
    for (int64_t f = 0; f < ref::numel(os); ++f) {
      Shape idx = ref::unravel(f, os);
      int64_t p = idx[static_cast<size_t>(dim)];
      idx.erase(idx.begin() + dim);
      want[static_cast<size_t>(f)] =
          parts[static_cast<size_t>(p)].v[static_cast<size_t>(ref::ravel(idx, s))];
    }
    int64_t ndim = rep % 2 ? dim - static_cast<int64_t>(s.size()) - 1 : dim;
    SCOPED_TRACE(ref::name(dt) + " stack " + ref::str(s) + " x" + std::to_string(count) + " dim " +
                 std::to_string(ndim));
    EXPECT_TRUE(ref::matches(stack(ts, ndim), dt, os, want));
  }
}

TEST(IndexSelect, AnyDimRepeatsAndEmpty) {
  ref::Rng rng(73);
  for (int rep = 0; rep < 60; ++rep) {
    Shape s = ref::random_shape(rng, 1, 4, 5, false);
    ScalarType dt = ref::all_dtypes()[static_cast<size_t>(rep % 6)];
    Operand x = operand(rng, s, dt);
    int64_t dim = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
    int64_t len = ref::randint(rng, 0, 7);
    Operand idx = index_operand(rng, {len}, s[static_cast<size_t>(dim)]);
    Shape os = s;
    os[static_cast<size_t>(dim)] = len;
    std::vector<double> want(static_cast<size_t>(ref::numel(os)));
    for (int64_t f = 0; f < ref::numel(os); ++f) {
      Shape i = ref::unravel(f, os);
      i[static_cast<size_t>(dim)] =
          static_cast<int64_t>(idx.v[static_cast<size_t>(i[static_cast<size_t>(dim)])]);
      want[static_cast<size_t>(f)] = x.v[static_cast<size_t>(ref::ravel(i, s))];
    }
    SCOPED_TRACE(ref::name(dt) + ref::str(s) + " dim " + std::to_string(dim) + " index " +
                 ref::str(Shape(idx.v.begin(), idx.v.end())));
    EXPECT_TRUE(ref::matches(index_select(x.t, dim, idx.t), dt, os, want));
    EXPECT_TRUE(
        ref::matches(x.t.index_select(dim - static_cast<int64_t>(s.size()), idx.t), dt, os, want));
    // PyTorch also takes int32 indices
    EXPECT_TRUE(ref::matches(index_select(x.t, dim, idx.t.to(kInt32)), dt, os, want));
  }
}

TEST(Gather, AgainstReference) {
  ref::Rng rng(74);
  for (int rep = 0; rep < 60; ++rep) {
    Shape s = ref::random_shape(rng, 1, 4, 5, false);
    ScalarType dt = ref::all_dtypes()[static_cast<size_t>(rep % 6)];
    Operand x = operand(rng, s, dt);
    int64_t dim = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
    // index: same rank; size <= input's in the other dims, any size along dim
    Shape is = s;
    for (size_t d = 0; d < s.size(); ++d)
      is[d] = static_cast<int64_t>(d) == dim ? ref::randint(rng, 0, 6) : ref::randint(rng, 1, s[d]);
    Operand idx = index_operand(rng, is, s[static_cast<size_t>(dim)]);
    std::vector<double> want(static_cast<size_t>(ref::numel(is)));
    for (int64_t f = 0; f < ref::numel(is); ++f) {
      Shape i = ref::unravel(f, is);
      i[static_cast<size_t>(dim)] = static_cast<int64_t>(idx.v[static_cast<size_t>(f)]);
      want[static_cast<size_t>(f)] = x.v[static_cast<size_t>(ref::ravel(i, s))];
    }
    SCOPED_TRACE(ref::name(dt) + ref::str(s) + " dim " + std::to_string(dim) + " index " +
                 ref::str(is));
    EXPECT_TRUE(ref::matches(gather(x.t, dim, idx.t), dt, is, want));
    EXPECT_TRUE(ref::matches(x.t.gather(dim, idx.t), dt, is, want));
  }
  // the classic use: pick one class score per row
  Tensor scores = tensor({0.1f, 0.7f, 0.2f, 0.5f, 0.4f, 0.1f}).view({2, 3});
  Tensor picked = scores.gather(1, tensor({int64_t(1), int64_t(0)}).view({2, 1}));
  EXPECT_TRUE(ref::matches(picked, kFloat32, {2, 1}, {0.7f, 0.5f}));
}

TEST(ScatterAdd, AccumulatesRepeatedIndices) {
  ref::Rng rng(75);
  for (int rep = 0; rep < 60; ++rep) {
    Shape s = ref::random_shape(rng, 1, 3, 5, false);
    ScalarType dt = ref::numeric_dtypes()[static_cast<size_t>(rep % 5)];
    Operand self = operand(rng, s, dt);
    int64_t dim = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
    // src at least as large as index in every dim; index <= self in the dims other than dim
    Shape is = s, ss = s;
    for (size_t d = 0; d < s.size(); ++d) {
      is[d] = static_cast<int64_t>(d) == dim ? ref::randint(rng, 0, 6) : ref::randint(rng, 1, s[d]);
      ss[d] = is[d] + ref::randint(rng, 0, 1);
    }
    Operand idx = index_operand(rng, is, s[static_cast<size_t>(dim)]);
    Operand src = operand(rng, ss, dt);
    std::vector<double> want = self.v;
    for (int64_t f = 0; f < ref::numel(is); ++f) {
      Shape i = ref::unravel(f, is);
      double sv = src.v[static_cast<size_t>(ref::ravel(i, ss))];
      i[static_cast<size_t>(dim)] = static_cast<int64_t>(idx.v[static_cast<size_t>(f)]);
      double& w = want[static_cast<size_t>(ref::ravel(i, s))];
      w = ref::cast_to(dt, w + sv);
    }
    SCOPED_TRACE(ref::name(dt) + " self " + ref::str(s) + " dim " + std::to_string(dim) +
                 " index " + ref::str(is) + " src " + ref::str(ss));
    double rt = dt == kFloat32 ? 1e-6 : 1e-14;
    EXPECT_TRUE(ref::matches(scatter_add(self.t, dim, idx.t, src.t), dt, s, want, rt, rt));
    EXPECT_TRUE(ref::matches(self.t, dt, s, self.v)) << "out of place leaves self alone";
    Tensor y = self.t.clone();
    EXPECT_TRUE(y.scatter_add_(dim, idx.t, src.t).is_same(y));
    EXPECT_TRUE(ref::matches(y, dt, s, want, rt, rt));
    // in place into a strided view writes through to its base
    Tensor view = ref::make_layout(self.v, s, dt, Layout::Stepped);
    view.scatter_add_(dim, idx.t, src.t);
    EXPECT_TRUE(ref::matches(view, dt, s, want, rt, rt));
  }
  Tensor hist = zeros({3}, kInt64)
                    .scatter_add(0, tensor({int64_t(0), int64_t(2), int64_t(2), int64_t(2)}),
                                 ones({4}, kInt64));
  EXPECT_TRUE(ref::matches(hist, kInt64, {3}, {1, 0, 3}));
}

TEST(OneHot, Classes) {
  ref::Rng rng(76);
  for (int rep = 0; rep < 20; ++rep) {
    Shape s = ref::random_shape(rng, 0, 3);
    int64_t c = ref::randint(rng, 1, 6);
    Operand idx = index_operand(rng, s, c);
    Shape os = s;
    os.push_back(c);
    std::vector<double> want(static_cast<size_t>(ref::numel(os)), 0);
    for (int64_t f = 0; f < ref::numel(s); ++f)
      want[static_cast<size_t>(f * c + static_cast<int64_t>(idx.v[static_cast<size_t>(f)]))] = 1;
    SCOPED_TRACE(ref::str(s) + " classes " + std::to_string(c));
    EXPECT_TRUE(ref::matches(one_hot(idx.t, c), kInt64, os, want));
  }
  // num_classes = -1: one more than the largest index
  Tensor oh = one_hot(tensor({int64_t(0), int64_t(3), int64_t(1)}));
  EXPECT_TRUE(ref::matches(oh, kInt64, {3, 4}, {1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0}));
}

}  // namespace
