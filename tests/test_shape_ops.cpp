// Tests of shape ops: flip, roll, tril, triu, diag, repeat, tile, meshgrid, movedim, ....
// Each compares with a naive reference or LibTorch's values and asserts.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "reference.h"

using namespace ember;
using ref::Layout;
using ref::Shape;

namespace {

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage() == b.impl()->storage();
}

// A random tensor of shape s in a random layout, with its logical values.
struct Sample {
  Tensor t;
  std::vector<double> v;
  Shape s;
};
Sample sample(ref::Rng& rng, const Shape& s, ScalarType dt) {
  std::vector<double> v = ref::random_values(rng, ref::numel(s), dt);
  Layout l = ref::all_layouts()[static_cast<size_t>(ref::randint(rng, 0, 3))];
  return {ref::make_layout(v, s, dt, l), v, s};
}

// out[idx] = in[src(idx)] over the output shape: the reference of every gather-like op.
std::vector<double> gather_ref(const Sample& in, const Shape& out_shape,
                               const std::function<Shape(const Shape&)>& src) {
  std::vector<double> out(static_cast<size_t>(ref::numel(out_shape)));
  for (int64_t k = 0; k < ref::numel(out_shape); ++k) {
    out[static_cast<size_t>(k)] =
        in.v[static_cast<size_t>(ref::ravel(src(ref::unravel(k, out_shape)), in.s))];
  }
  return out;
}

int64_t wrap(int64_t d, size_t n) { return d < 0 ? d + static_cast<int64_t>(n) : d; }

}  // namespace

// ---- flip ----

TEST(ShapeOps, FlipMatchesReference) {
  ref::Rng rng(1);
  for (int it = 0; it < 200; ++it) {
    const ScalarType dt = ref::all_dtypes()[static_cast<size_t>(it % 6)];
    const Sample x = sample(rng, ref::random_shape(rng, 1, 4), dt);
    std::vector<int64_t> dims;
    const int64_t nd = static_cast<int64_t>(x.s.size());
    for (int64_t d = 0; d < nd; ++d) {
      if (ref::randint(rng, 0, 1)) dims.push_back(ref::randint(rng, 0, 1) ? d : d - nd);
    }
    Tensor y = x.t.flip(dims);
    auto want = gather_ref(x, x.s, [&](Shape i) {
      for (int64_t d : dims) {
        const size_t w = static_cast<size_t>(wrap(d, x.s.size()));
        i[w] = x.s[w] - 1 - i[w];
      }
      return i;
    });
    ASSERT_TRUE(ref::matches(y, dt, x.s, want)) << ref::str(x.s) << " dims " << ref::str(dims);
    EXPECT_FALSE(shares_storage(y, x.t));  // always a copy
  }
}

TEST(ShapeOps, FlipLibTorchValuesAndErrors) {
  EXPECT_TRUE(
      ref::matches(arange(6).reshape({2, 3}).flip({-1}), kInt64, {2, 3}, {2, 1, 0, 5, 4, 3}));
  EXPECT_TRUE(ref::matches(ember::flip(arange(6).reshape({2, 3}), {0, 1}), kInt64, {2, 3},
                           {5, 4, 3, 2, 1, 0}));
  Tensor s = tensor(2.5);
  Tensor f = s.flip({0});  // 0-dim: a copy
  EXPECT_EQ(f.item<float>(), 2.5f);
  EXPECT_FALSE(shares_storage(f, s));
  EXPECT_THROW(arange(6).reshape({2, 3}).flip({0, -2}), Error);  // repeated dim
  EXPECT_THROW(arange(6).flip({1}), Error);
  // fliplr / flipud (PyTorch's docs)
  EXPECT_TRUE(ref::matches(arange(4).view({2, 2}).fliplr(), kInt64, {2, 2}, {1, 0, 3, 2}));
  EXPECT_TRUE(ref::matches(arange(4).view({2, 2}).flipud(), kInt64, {2, 2}, {2, 3, 0, 1}));
  EXPECT_THROW(arange(4).fliplr(), Error);
}

// ---- roll, rot90 ----

TEST(ShapeOps, RollMatchesReference) {
  ref::Rng rng(2);
  for (int it = 0; it < 200; ++it) {
    const ScalarType dt = ref::all_dtypes()[static_cast<size_t>(it % 6)];
    const Sample x = sample(rng, ref::random_shape(rng, 1, 4), dt);
    std::vector<int64_t> dims, shifts;
    const int64_t nd = static_cast<int64_t>(x.s.size());
    for (int64_t d = 0; d < nd; ++d) {
      if (ref::randint(rng, 0, 1)) {
        dims.push_back(ref::randint(rng, 0, 1) ? d : d - nd);
        shifts.push_back(ref::randint(rng, -7, 7));
      }
    }
    if (dims.empty()) continue;
    Tensor y = x.t.roll(shifts, dims);
    auto want = gather_ref(x, x.s, [&](Shape i) {
      for (size_t k = 0; k < dims.size(); ++k) {
        const size_t w = static_cast<size_t>(wrap(dims[k], x.s.size()));
        const int64_t n = x.s[w];
        i[w] = (((i[w] - shifts[k]) % n) + n) % n;
      }
      return i;
    });
    ASSERT_TRUE(ref::matches(y, dt, x.s, want)) << ref::str(x.s) << " dims " << ref::str(dims);
    EXPECT_FALSE(shares_storage(y, x.t));
  }
}

TEST(ShapeOps, RollFlatAndErrors) {
  // LibTorch: arange(6).reshape({2, 3}).roll(1) rolls the flattened tensor.
  EXPECT_TRUE(ref::matches(arange(6).reshape({2, 3}).roll(1), kInt64, {2, 3}, {5, 0, 1, 2, 3, 4}));
  EXPECT_TRUE(ref::matches(ember::roll(arange(6).reshape({2, 3}).t(), -2), kInt64, {3, 2},
                           {1, 4, 2, 5, 0, 3}));
  // PyTorch's docs: x = [[1, 2], [3, 4], [5, 6], [7, 8]].
  Tensor x = arange(1, 9).view({4, 2});
  EXPECT_TRUE(ref::matches(x.roll(1, 0), kInt64, {4, 2}, {7, 8, 1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(ref::matches(x.roll(-1, 0), kInt64, {4, 2}, {3, 4, 5, 6, 7, 8, 1, 2}));
  EXPECT_TRUE(ref::matches(x.roll({2, 1}, {0, 1}), kInt64, {4, 2}, {6, 5, 8, 7, 2, 1, 4, 3}));
  EXPECT_TRUE(ref::matches(zeros({0, 3}).roll(2, 0), kFloat32, {0, 3}, {}));
  EXPECT_THROW(x.roll({}), Error);
  EXPECT_THROW(x.roll({1, 2}), Error);       // no dims: one shift only
  EXPECT_THROW(x.roll({1, 2}, {0}), Error);  // shifts and dims must align
  EXPECT_THROW(x.roll(1, 2), Error);         // dim out of range
}

TEST(ShapeOps, Rot90LibTorchValues) {
  Tensor x = arange(4).view({2, 2});  // [[0, 1], [2, 3]]
  EXPECT_TRUE(ref::matches(x.rot90(), kInt64, {2, 2}, {1, 3, 0, 2}));
  EXPECT_TRUE(ref::matches(x.rot90(2), kInt64, {2, 2}, {3, 2, 1, 0}));
  EXPECT_TRUE(ref::matches(x.rot90(-1), kInt64, {2, 2}, {2, 0, 3, 1}));
  EXPECT_TRUE(ref::matches(ember::rot90(x, 4), kInt64, {2, 2}, {0, 1, 2, 3}));
  Tensor y = arange(8).view({2, 2, 2});
  EXPECT_TRUE(ref::matches(y.rot90(1, {1, 2}), kInt64, {2, 2, 2}, {1, 3, 0, 2, 5, 7, 4, 6}));
  EXPECT_THROW(x.rot90(1, {0, 0}), Error);
  EXPECT_THROW(x.rot90(1, {0}), Error);
  EXPECT_THROW(arange(3).rot90(), Error);
}

// ---- tril, triu ----

TEST(ShapeOps, TrilTriuMatchReference) {
  ref::Rng rng(3);
  for (int it = 0; it < 200; ++it) {
    const ScalarType dt = ref::all_dtypes()[static_cast<size_t>(it % 6)];
    const Sample x = sample(rng, ref::random_shape(rng, 2, 4), dt);
    const int64_t k = ref::randint(rng, -4, 4);
    const bool lower = it % 2 == 0;
    Tensor y = lower ? x.t.tril(k) : ember::triu(x.t, k);
    std::vector<double> want(x.v);
    for (int64_t f = 0; f < ref::numel(x.s); ++f) {
      Shape i = ref::unravel(f, x.s);
      const int64_t above = i[i.size() - 1] - i[i.size() - 2];
      if (lower ? above > k : above < k) want[static_cast<size_t>(f)] = 0;
    }
    ASSERT_TRUE(ref::matches(y, dt, x.s, want)) << ref::str(x.s) << " k " << k;
    EXPECT_FALSE(shares_storage(y, x.t));
    // In place: the same values, written into x.
    Tensor z = x.t.clone();
    Tensor& r = lower ? z.tril_(k) : z.triu_(k);
    EXPECT_TRUE(r.is_same(z));
    ASSERT_TRUE(ref::matches(z, dt, x.s, want));
  }
}

TEST(ShapeOps, TrilTriuLibTorchValuesAndErrors) {
  EXPECT_TRUE(ref::matches(ones({3, 3}).tril(), kFloat32, {3, 3}, {1, 0, 0, 1, 1, 0, 1, 1, 1}));
  EXPECT_TRUE(ref::matches(arange(1., 10.).reshape({3, 3}).triu(1), kFloat32, {3, 3},
                           {0, 2, 3, 0, 0, 6, 0, 0, 0}));
  EXPECT_TRUE(ref::matches(ones({2, 3}, kBool).triu(-1), kBool, {2, 3}, {1, 1, 1, 1, 1, 1}));
  EXPECT_THROW(arange(3).tril(), Error);
  EXPECT_THROW(tensor(1.0).triu_(), Error);
  // tril_indices / triu_indices (PyTorch's docs)
  EXPECT_TRUE(
      ref::matches(tril_indices(3, 3), kInt64, {2, 6}, {0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2}));
  EXPECT_TRUE(
      ref::matches(tril_indices(4, 3, -1), kInt64, {2, 6}, {1, 2, 2, 3, 3, 3, 0, 0, 1, 0, 1, 2}));
  EXPECT_TRUE(ref::matches(triu_indices(4, 3, 1), kInt64, {2, 3}, {0, 0, 1, 1, 2, 2}));
  EXPECT_TRUE(ref::matches(triu_indices(3, 3, 0, kInt32), kInt32, {2, 6},
                           {0, 0, 0, 1, 1, 2, 0, 1, 2, 1, 2, 2}));
  EXPECT_TRUE(ref::matches(tril_indices(0, 3), kInt64, {2, 0}, {}));
  EXPECT_THROW(tril_indices(-1, 3), Error);
  EXPECT_THROW(tril_indices(3, 3, 0, kFloat32), Error);
}

// ---- diagonal, diag, diag_embed ----

TEST(ShapeOps, DiagonalIsAViewMatchingReference) {
  ref::Rng rng(4);
  for (int it = 0; it < 200; ++it) {
    const ScalarType dt = ref::all_dtypes()[static_cast<size_t>(it % 6)];
    const Sample x = sample(rng, ref::random_shape(rng, 2, 4), dt);
    const size_t nd = x.s.size();
    int64_t d1 = ref::randint(rng, 0, static_cast<int64_t>(nd) - 1);
    int64_t d2 = ref::randint(rng, 0, static_cast<int64_t>(nd) - 2);
    if (d2 >= d1) ++d2;
    const int64_t off = ref::randint(rng, -4, 4);
    const int64_t a = ref::randint(rng, 0, 1) ? d1 : d1 - static_cast<int64_t>(nd);
    Tensor y = x.t.diagonal(off, a, d2);
    const int64_t s1 = x.s[d1], s2 = x.s[d2];
    const int64_t n =
        std::max<int64_t>(off >= 0 ? std::min(s1, s2 - off) : std::min(s1 + off, s2), 0);
    Shape os;
    for (size_t d = 0; d < nd; ++d) {
      if (static_cast<int64_t>(d) != d1 && static_cast<int64_t>(d) != d2) os.push_back(x.s[d]);
    }
    os.push_back(n);
    auto want = gather_ref(x, os, [&](const Shape& o) {
      Shape i(nd);
      size_t k = 0;
      for (size_t d = 0; d < nd; ++d) {
        if (static_cast<int64_t>(d) != d1 && static_cast<int64_t>(d) != d2) i[d] = o[k++];
      }
      const int64_t p = o.back();
      i[d1] = off >= 0 ? p : p - off;
      i[d2] = off >= 0 ? p + off : p;
      return i;
    });
    ASSERT_TRUE(ref::matches(y, dt, os, want))
        << ref::str(x.s) << " offset " << off << " dims " << d1 << ", " << d2;
    EXPECT_TRUE(shares_storage(y, x.t));
  }
}

TEST(ShapeOps, DiagonalWritesThroughAndErrors) {
  Tensor m = zeros({3, 4});
  m.diagonal(1).fill_(7);
  EXPECT_TRUE(ref::matches(m, kFloat32, {3, 4}, {0, 7, 0, 0, 0, 0, 7, 0, 0, 0, 0, 7}));
  // LibTorch: arange(8).reshape({2, 2, 2}).diagonal(0, -2, -1) is [[0, 3], [4, 7]].
  EXPECT_TRUE(
      ref::matches(arange(8).reshape({2, 2, 2}).diagonal(0, -2, -1), kInt64, {2, 2}, {0, 3, 4, 7}));
  EXPECT_TRUE(ref::matches(ember::diagonal(zeros({2, 3}), 5), kFloat32, {0}, {}));
  EXPECT_THROW(zeros({2, 3}).diagonal(0, 1, -1), Error);  // identical dims
  EXPECT_THROW(zeros({3}).diagonal(), Error);
  EXPECT_THROW(zeros({2, 3}).diagonal(0, 0, 2), Error);
}

TEST(ShapeOps, DiagLibTorchValues) {
  // diag of a vector: the matrix; of a matrix: a copy of the diagonal.
  EXPECT_TRUE(
      ref::matches(ember::diag(tensor({1, 2, 3})), kInt64, {3, 3}, {1, 0, 0, 0, 2, 0, 0, 0, 3}));
  EXPECT_TRUE(
      ref::matches(tensor({1.5, 2.5}).diag(1), kFloat32, {3, 3}, {0, 1.5, 0, 0, 0, 2.5, 0, 0, 0}));
  EXPECT_TRUE(ref::matches(tensor({1, 2}).diag(-2), kInt64, {4, 4},
                           {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0}));
  EXPECT_TRUE(ref::matches(tensor({true, true}).diag(), kBool, {2, 2}, {1, 0, 0, 1}));
  Tensor m = arange(12).view({3, 4});
  Tensor d = m.diag(1);
  EXPECT_TRUE(ref::matches(d, kInt64, {3}, {1, 6, 11}));
  EXPECT_FALSE(shares_storage(d, m));
  EXPECT_TRUE(ref::matches(m.t().diag(-1), kInt64, {3}, {1, 6, 11}));
  EXPECT_TRUE(ref::matches(m.diag(-1), kInt64, {2}, {4, 9}));
  EXPECT_THROW(zeros({2, 2, 2}).diag(), Error);
  EXPECT_THROW(tensor(1.0).diag(), Error);
}

TEST(ShapeOps, DiagEmbedMatchesReference) {
  ref::Rng rng(5);
  for (int it = 0; it < 100; ++it) {
    const ScalarType dt = ref::all_dtypes()[static_cast<size_t>(it % 6)];
    const Sample x = sample(rng, ref::random_shape(rng, 1, 3), dt);
    const int64_t off = ref::randint(rng, -2, 2);
    const int64_t nd = static_cast<int64_t>(x.s.size()) + 1;
    int64_t d1 = ref::randint(rng, 0, nd - 1);
    int64_t d2 = ref::randint(rng, 0, nd - 2);
    if (d2 >= d1) ++d2;
    Tensor y = x.t.diag_embed(off, d1, d2 - nd);
    const int64_t m = x.s.back() + std::abs(off);
    Shape os;
    for (size_t d = 0, k = 0; d < static_cast<size_t>(nd); ++d) {
      os.push_back(static_cast<int64_t>(d) == d1 || static_cast<int64_t>(d) == d2 ? m : x.s[k++]);
    }
    std::vector<double> want(static_cast<size_t>(ref::numel(os)));
    for (int64_t f = 0; f < ref::numel(os); ++f) {
      Shape o = ref::unravel(f, os), i;
      for (int64_t d = 0; d < nd; ++d) {
        if (d != d1 && d != d2) i.push_back(o[d]);
      }
      const int64_t r = o[d1], c = o[d2];
      i.push_back(off >= 0 ? r : c);
      if (c - r == off && i.back() < x.s.back()) {
        want[static_cast<size_t>(f)] = x.v[static_cast<size_t>(ref::ravel(i, x.s))];
      }
    }
    ASSERT_TRUE(ref::matches(y, dt, os, want))
        << ref::str(x.s) << " offset " << off << " dims " << d1 << ", " << d2;
  }
  EXPECT_THROW(zeros({2}).diag_embed(0, 0, 0), Error);
}

// ---- repeat, tile, repeat_interleave ----

TEST(ShapeOps, RepeatAndTileMatchReference) {
  ref::Rng rng(6);
  for (int it = 0; it < 200; ++it) {
    const ScalarType dt = ref::all_dtypes()[static_cast<size_t>(it % 6)];
    const Sample x = sample(rng, ref::random_shape(rng, 0, 3), dt);
    const size_t lead = static_cast<size_t>(ref::randint(rng, 0, 2));
    std::vector<int64_t> reps(x.s.size() + lead);
    for (auto& r : reps) r = ref::randint(rng, 0, 3);
    Shape os(reps.size());
    for (size_t d = 0; d < reps.size(); ++d) os[d] = reps[d] * (d < lead ? 1 : x.s[d - lead]);
    auto want = gather_ref(x, os, [&](const Shape& o) {
      Shape i(x.s.size());
      for (size_t d = 0; d < x.s.size(); ++d) i[d] = o[d + lead] % x.s[d];
      return i;
    });
    Tensor y = x.t.repeat(reps);
    ASSERT_TRUE(ref::matches(y, dt, os, want)) << ref::str(x.s) << " x " << ref::str(reps);
    EXPECT_FALSE(shares_storage(y, x.t));
    // tile pads the repeats with leading ones instead
    std::vector<int64_t> short_reps(reps.begin() + static_cast<int64_t>(lead), reps.end());
    if (!short_reps.empty()) short_reps.erase(short_reps.begin());
    Shape full(x.s.size() - short_reps.size(), 1);
    full.insert(full.end(), short_reps.begin(), short_reps.end());
    ASSERT_TRUE(ember::equal(x.t.tile(short_reps), x.t.repeat(full)));
  }
}

TEST(ShapeOps, RepeatLibTorchValues) {
  EXPECT_TRUE(
      ref::matches(tensor({1, 2}).repeat({2, 2}), kInt64, {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2}));
  EXPECT_TRUE(ref::matches(tensor({1, 2, 3}).repeat({4, 2}).sum(), kInt64, {}, {48}));
  Tensor x = arange(3);
  Tensor same = x.repeat({1});
  EXPECT_FALSE(shares_storage(same, x));  // a copy even when nothing repeats
  EXPECT_THROW(zeros({2, 3}).repeat({2}), Error);
  EXPECT_THROW(zeros({2}).repeat({-1}), Error);
  EXPECT_EQ(arange(6).reshape({2, 3}).tile({2}).sizes().vec(), (Shape{2, 6}));
  EXPECT_TRUE(ref::matches(ember::tile(tensor({1, 2}), {2, 1, 2}), kInt64, {2, 1, 4},
                           {1, 2, 1, 2, 1, 2, 1, 2}));
}

TEST(ShapeOps, RepeatInterleaveLibTorchValues) {
  // PyTorch's docs.
  Tensor x = tensor({1, 2, 3});
  EXPECT_TRUE(ref::matches(x.repeat_interleave(2), kInt64, {6}, {1, 1, 2, 2, 3, 3}));
  Tensor y = tensor({{1, 2}, {3, 4}});
  EXPECT_TRUE(ref::matches(ember::repeat_interleave(y, 2), kInt64, {8}, {1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_TRUE(ref::matches(ember::repeat_interleave(y, 3, 1), kInt64, {2, 6},
                           {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}));
  EXPECT_TRUE(ref::matches(ember::repeat_interleave(y, tensor({1, 2}), 0), kInt64, {3, 2},
                           {1, 2, 3, 4, 3, 4}));
  EXPECT_TRUE(ref::matches(ember::repeat_interleave(y, tensor({1, 2}), 0, 3), kInt64, {3, 2},
                           {1, 2, 3, 4, 3, 4}));
  EXPECT_TRUE(
      ref::matches(ember::repeat_interleave(tensor({1, 2, 3})), kInt64, {6}, {0, 1, 1, 2, 2, 2}));
  EXPECT_TRUE(
      ref::matches(ember::repeat_interleave(tensor({2, 0, 1}, kInt32)), kInt32, {3}, {0, 0, 2}));
  EXPECT_TRUE(ref::matches(arange(2).repeat_interleave(tensor({1, 3})), kInt64, {4}, {0, 1, 1, 1}));
  // One repeat for every element (0-dim or one-element repeats).
  EXPECT_TRUE(
      ref::matches(y.repeat_interleave(tensor(2), -1), kInt64, {2, 4}, {1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_TRUE(ref::matches(y.repeat_interleave(0, 0), kInt64, {0, 2}, {}));
  Tensor flat = x.repeat_interleave(1);
  EXPECT_FALSE(shares_storage(flat, x));
  EXPECT_THROW(y.repeat_interleave(tensor({1, 2, 3}), 0), Error);  // wrong length
  EXPECT_THROW(ember::repeat_interleave(tensor({1, -1})), Error);
  EXPECT_THROW(ember::repeat_interleave(tensor({1.0, 2.0})), Error);
  EXPECT_THROW(ember::repeat_interleave(tensor({1, 2}), std::optional<int64_t>(4)), Error);
  EXPECT_THROW(x.repeat_interleave(-1), Error);
  EXPECT_THROW(x.repeat_interleave(2, 1), Error);
}

TEST(ShapeOps, RepeatInterleaveMatchesReference) {
  ref::Rng rng(7);
  for (int it = 0; it < 100; ++it) {
    const ScalarType dt = ref::all_dtypes()[static_cast<size_t>(it % 6)];
    const Sample x = sample(rng, ref::random_shape(rng, 1, 3), dt);
    const int64_t d = ref::randint(rng, 0, static_cast<int64_t>(x.s.size()) - 1);
    std::vector<int64_t> reps(static_cast<size_t>(x.s[d]));
    for (auto& r : reps) r = ref::randint(rng, 0, 3);
    std::vector<int64_t> src;  // output position along d -> input position
    for (size_t i = 0; i < reps.size(); ++i) src.insert(src.end(), reps[i], i);
    Shape os = x.s;
    os[d] = static_cast<int64_t>(src.size());
    auto want = gather_ref(x, os, [&](Shape i) {
      i[d] = src[static_cast<size_t>(i[d])];
      return i;
    });
    Tensor y = x.t.repeat_interleave(tensor(reps), d);
    ASSERT_TRUE(ref::matches(y, dt, os, want)) << ref::str(x.s) << " dim " << d;
  }
}

// ---- meshgrid, broadcasting ----

TEST(ShapeOps, MeshgridLibTorchValues) {
  auto g = meshgrid({arange(2), arange(3)}, "ij");
  ASSERT_EQ(g.size(), 2u);
  EXPECT_TRUE(ref::matches(g[0], kInt64, {2, 3}, {0, 0, 0, 1, 1, 1}));
  EXPECT_TRUE(ref::matches(g[1], kInt64, {2, 3}, {0, 1, 2, 0, 1, 2}));
  auto xy = meshgrid({arange(2), arange(3)}, "xy");
  EXPECT_TRUE(ref::matches(xy[0], kInt64, {3, 2}, {0, 1, 0, 1, 0, 1}));
  EXPECT_TRUE(ref::matches(xy[1], kInt64, {3, 2}, {0, 0, 1, 1, 2, 2}));
  Tensor a = tensor({1.0, 2.0}), b = tensor(5.0), c = tensor({7.0, 8.0, 9.0});
  auto three = meshgrid({a, b, c});  // "ij"; a 0-dim input counts as one element
  EXPECT_EQ(three[1].sizes().vec(), (Shape{2, 1, 3}));
  EXPECT_TRUE(ref::matches(three[2], kFloat32, {2, 1, 3}, {7, 8, 9, 7, 8, 9}));
  EXPECT_TRUE(shares_storage(three[0], a));  // views
  EXPECT_EQ(three[0].stride(2), 0);
  EXPECT_THROW(meshgrid({zeros({2, 2})}), Error);
  EXPECT_THROW(meshgrid({a, c}, "ji"), Error);
  EXPECT_THROW(meshgrid({a, arange(2)}), Error);  // mixed dtypes
  EXPECT_THROW(meshgrid(std::vector<Tensor>{}), Error);
}

TEST(ShapeOps, BroadcastToAndTensors) {
  Tensor x = arange(3);
  Tensor y = x.broadcast_to({2, 3});
  EXPECT_TRUE(ref::matches(y, kInt64, {2, 3}, {0, 1, 2, 0, 1, 2}));
  EXPECT_TRUE(shares_storage(y, x));
  EXPECT_EQ(y.strides().vec(), (Shape{0, 1}));
  EXPECT_TRUE(ember::equal(broadcast_to(x, {1, 3}), x.view({1, 3})));
  EXPECT_THROW(x.broadcast_to({2}), Error);
  auto b = broadcast_tensors({arange(3), ones({2, 1})});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_TRUE(ref::matches(b[0], kInt64, {2, 3}, {0, 1, 2, 0, 1, 2}));
  EXPECT_TRUE(ref::matches(b[1], kFloat32, {2, 3}, {1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(broadcast_tensors({tensor(1.0), zeros({0, 2}), zeros({2})})[0].sizes().vec(),
            (Shape{0, 2}));
  EXPECT_THROW(broadcast_tensors({zeros({2}), zeros({3})}), Error);
}

// ---- view ops: movedim, swapaxes, unflatten, squeeze(dims), mT and friends ----

TEST(ShapeOps, MovedimMatchesPermute) {
  Tensor x = arange(24).reshape({2, 3, 4});
  EXPECT_EQ(x.movedim(0, -1).sizes().vec(), (Shape{3, 4, 2}));
  EXPECT_TRUE(ember::equal(x.movedim(0, -1), x.permute({1, 2, 0})));
  EXPECT_TRUE(ember::equal(x.movedim(-1, 0), x.permute({2, 0, 1})));
  EXPECT_TRUE(ember::equal(x.movedim({0, 1}, {2, 0}), x.permute({1, 2, 0})));
  EXPECT_TRUE(ember::equal(ember::moveaxis(x, {2, 0}, {0, 2}), x.permute({2, 1, 0})));
  EXPECT_TRUE(ember::equal(x.moveaxis(1, 1), x));
  EXPECT_TRUE(shares_storage(x.movedim(0, 2), x));
  Tensor s = tensor(3.0);
  EXPECT_EQ(s.movedim(0, -1).dim(), 0);
  EXPECT_THROW(x.movedim({0, 1}, {1}), Error);
  EXPECT_THROW(x.movedim({0, 0}, {1, 2}), Error);
  EXPECT_THROW(x.movedim({0, 1}, {2, -1}), Error);
  EXPECT_THROW(x.movedim(3, 0), Error);
}

TEST(ShapeOps, SwapaxesAndMatrixTransposes) {
  Tensor x = arange(6).reshape({2, 3});
  EXPECT_TRUE(ref::matches(x.swapaxes(0, 1), kInt64, {3, 2}, {0, 3, 1, 4, 2, 5}));
  EXPECT_TRUE(ember::equal(ember::swapdims(x, -1, 0), x.t()));
  EXPECT_TRUE(shares_storage(x.swapdims(0, 1), x));
  Tensor b = arange(12).reshape({2, 2, 3});
  EXPECT_TRUE(ref::matches(b.mT(), kInt64, {2, 3, 2}, {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
  EXPECT_TRUE(ember::equal(b.mH(), b.transpose(1, 2)));
  EXPECT_TRUE(ember::equal(ember::adjoint(b), b.transpose(1, 2)));
  EXPECT_TRUE(ember::equal(x.H(), x.t()));
  EXPECT_TRUE(ember::equal(b.T(), b.permute({2, 1, 0})));
  EXPECT_TRUE(ember::equal(x.T(), x.t()));
  EXPECT_TRUE(shares_storage(b.mT(), b));
  EXPECT_THROW(arange(3).mT(), Error);
  EXPECT_THROW(arange(3).mH(), Error);
  EXPECT_THROW(b.H(), Error);
  EXPECT_THROW(arange(3).adjoint(), Error);
}

TEST(ShapeOps, Unflatten) {
  Tensor x = arange(12).reshape({2, 6});
  Tensor y = x.unflatten(1, {3, -1});
  EXPECT_TRUE(ref::matches(y, kInt64, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_TRUE(shares_storage(y, x));
  EXPECT_EQ(ember::unflatten(x, -2, {1, 2, 1}).sizes().vec(), (Shape{1, 2, 1, 6}));
  EXPECT_EQ(x.t().unflatten(0, {2, 3}).sizes().vec(), (Shape{2, 3, 2}));  // a split is a view
  EXPECT_TRUE(shares_storage(x.t().unflatten(0, {2, 3}), x));
  EXPECT_THROW(x.unflatten(1, {4, -1}), Error);
  EXPECT_THROW(x.unflatten(1, {2, 2}), Error);
  EXPECT_THROW(x.unflatten(1, {}), Error);
  EXPECT_THROW(x.unflatten(1, {-1, -1}), Error);
  EXPECT_THROW(x.unflatten(2, {2, 1}), Error);
}

TEST(ShapeOps, SqueezeDimsList) {
  Tensor x = ones({1, 2, 1, 1});
  EXPECT_EQ(x.squeeze({0, 2}).sizes().vec(), (Shape{2, 1}));
  EXPECT_EQ(ember::squeeze(x, {-1, 1}).sizes().vec(), (Shape{1, 2, 1}));
  EXPECT_EQ(x.squeeze(IntArrayRef{}).sizes().vec(), (Shape{1, 2, 1, 1}));
  EXPECT_TRUE(shares_storage(x.squeeze({0, 2}), x));
  Tensor t = arange(6).view({3, 1, 2}).transpose(0, 2);  // [2, 1, 3], strides [1, 2, 2]
  Tensor s = t.squeeze({1});
  EXPECT_TRUE(ref::matches(s, kInt64, {2, 3}, {0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(tensor(1.0).squeeze({0}).dim(), 0);
  EXPECT_THROW(x.squeeze({0, -4}), Error);  // repeated
  EXPECT_THROW(x.squeeze({4}), Error);
}

TEST(ShapeOps, InPlaceViews) {
  Tensor x = zeros({1, 3, 1});
  Tensor alias = x;
  x.squeeze_();
  EXPECT_EQ(alias.sizes().vec(), (Shape{3}));  // every handle sees it
  Tensor a = arange(3);
  Tensor& r = a.unsqueeze_(-1);
  EXPECT_TRUE(r.is_same(a));
  EXPECT_TRUE(ref::matches(a, kInt64, {3, 1}, {0, 1, 2}));
  Tensor m = arange(6).reshape({2, 3});
  Tensor base = m;
  m.t_();
  EXPECT_TRUE(ref::matches(m, kInt64, {3, 2}, {0, 3, 1, 4, 2, 5}));
  EXPECT_FALSE(m.is_contiguous());
  Tensor b = arange(24).reshape({2, 3, 4});
  b.transpose_(0, -1);
  EXPECT_EQ(b.sizes().vec(), (Shape{4, 3, 2}));
  b.swapaxes_(0, 2).swapdims_(1, 1);
  EXPECT_TRUE(ember::equal(b, arange(24).reshape({2, 3, 4})));
  Tensor c = zeros({1, 2, 1});
  c.squeeze_(0);
  EXPECT_EQ(c.sizes().vec(), (Shape{2, 1}));
  c.squeeze_({1});
  EXPECT_EQ(c.sizes().vec(), (Shape{2}));
  EXPECT_THROW(c.t_().transpose_(0, 2), Error);
  EXPECT_THROW(zeros({2, 2, 2}).t_(), Error);
}

TEST(ShapeOps, InPlaceViewsUnderAutograd) {
  Tensor leaf = ones({2, 3}, requires_grad());
  EXPECT_THROW(leaf.t_(), Error);  // as LibTorch: a leaf that requires grad
  {
    NoGradGuard no_grad;
    Tensor l2 = ones({1, 3}, requires_grad());
    l2.squeeze_(0);
    EXPECT_EQ(l2.sizes().vec(), (Shape{3}));
  }
  Tensor w = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, requires_grad());
  Tensor h = w.view({2, 3}) * 2;  // a non-leaf
  h.t_();
  EXPECT_EQ(h.sizes().vec(), (Shape{3, 2}));
  Tensor weights = arange(6, kFloat32).view({3, 2});
  (h * weights).sum().backward();
  // d/dw of sum(2 * w.view(2, 3).t() * weights): 2 * weights.t() flattened.
  EXPECT_TRUE(ref::matches(w.grad(), kFloat32, {6}, {0, 4, 8, 2, 6, 10}));
  Tensor u = w * 1;
  u.unsqueeze_(0);
  u.squeeze_();
  EXPECT_EQ(u.sizes().vec(), (Shape{6}));
}

// ---- split(sizes), narrow_copy ----

TEST(ShapeOps, SplitWithSizes) {
  auto p = arange(6).split({1, 2, 3});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_TRUE(ref::matches(p[0], kInt64, {1}, {0}));
  EXPECT_TRUE(ref::matches(p[1], kInt64, {2}, {1, 2}));
  EXPECT_TRUE(ref::matches(p[2], kInt64, {3}, {3, 4, 5}));
  Tensor m = arange(12).view({3, 4});
  auto q = ember::split(m, {3, 0, 1}, -1);
  EXPECT_TRUE(ref::matches(q[0], kInt64, {3, 3}, {0, 1, 2, 4, 5, 6, 8, 9, 10}));
  EXPECT_EQ(q[1].sizes().vec(), (Shape{3, 0}));
  EXPECT_TRUE(shares_storage(q[2], m));
  EXPECT_TRUE(ember::equal(split_with_sizes(m, {2, 1})[1], m[2].view({1, 4})));
  try {
    arange(6).split_with_sizes({2, 2});
    FAIL() << "no error";
  } catch (const Error& e) {
    // LibTorch's message.
    EXPECT_NE(std::string(e.what()).find(
                  "split_with_sizes expects split_sizes to sum exactly to 6 (input tensor's size "
                  "at dimension 0), but got split_sizes=[2, 2]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(arange(6).split({7, -1}), Error);
  EXPECT_THROW(tensor(1.0).split({1}), Error);
}

TEST(ShapeOps, NarrowCopy) {
  Tensor x = arange(12).reshape({3, 4});
  Tensor y = x.narrow_copy(1, 1, 2);
  EXPECT_TRUE(ref::matches(y, kInt64, {3, 2}, {1, 2, 5, 6, 9, 10}));
  EXPECT_TRUE(y.is_contiguous());
  EXPECT_FALSE(shares_storage(y, x));
  Tensor z = ember::narrow_copy(x, 0, -1, 1);  // contiguous rows: still a copy
  EXPECT_FALSE(shares_storage(z, x));
  EXPECT_TRUE(ref::matches(z, kInt64, {1, 4}, {8, 9, 10, 11}));
  EXPECT_THROW(x.narrow_copy(1, 3, 2), Error);
}

// ---- atleast_Nd and the stacks ----

TEST(ShapeOps, AtleastAndStacks) {
  EXPECT_EQ(atleast_1d(tensor(1.0)).sizes().vec(), (Shape{1}));
  EXPECT_EQ(atleast_2d(tensor({1.0, 2.0})).sizes().vec(), (Shape{1, 2}));
  EXPECT_EQ(atleast_3d(tensor({1.0, 2.0})).sizes().vec(), (Shape{1, 2, 1}));
  EXPECT_EQ(atleast_3d(zeros({2, 3})).sizes().vec(), (Shape{2, 3, 1}));
  EXPECT_EQ(atleast_3d(tensor(1)).sizes().vec(), (Shape{1, 1, 1}));
  auto l = atleast_2d({tensor(1), zeros({2, 3, 4})});
  EXPECT_EQ(l[0].sizes().vec(), (Shape{1, 1}));
  EXPECT_EQ(l[1].sizes().vec(), (Shape{2, 3, 4}));
  // LibTorch / PyTorch's docs.
  EXPECT_TRUE(ref::matches(hstack({arange(2), arange(3)}), kInt64, {5}, {0, 1, 0, 1, 2}));
  EXPECT_TRUE(ref::matches(vstack({arange(3), arange(3, 6)}), kInt64, {2, 3}, {0, 1, 2, 3, 4, 5}));
  Tensor a = tensor({1, 2, 3}), b = tensor({4, 5, 6});
  EXPECT_TRUE(ref::matches(dstack({a, b}), kInt64, {1, 3, 2}, {1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(ref::matches(column_stack({a, b}), kInt64, {3, 2}, {1, 4, 2, 5, 3, 6}));
  Tensor c = tensor({{1}, {2}, {3}}), d = tensor({{4}, {5}, {6}});
  EXPECT_TRUE(ref::matches(hstack({c, d}), kInt64, {3, 2}, {1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(ref::matches(vstack({c, d}), kInt64, {6, 1}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(ref::matches(row_stack({a, b}), kInt64, {2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(ref::matches(dstack({c, d}), kInt64, {3, 1, 2}, {1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(ref::matches(column_stack({arange(3), arange(6).view({3, 2})}), kInt64, {3, 3},
                           {0, 0, 1, 1, 2, 3, 2, 4, 5}));
  EXPECT_THROW(hstack(std::vector<Tensor>{}), Error);
  EXPECT_THROW(vstack({arange(2), arange(3)}), Error);
}
