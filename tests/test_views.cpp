// Views: view reshape flatten squeeze unsqueeze t transpose permute expand expand_as slice
// narrow select operator[] chunk split unbind, checked by index arithmetic; all share storage.
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "reference.h"

using namespace ember;
using ref::Layout;
using ref::Shape;

namespace {

bool shares_storage(const Tensor& a, const Tensor& b) {
  return a.impl()->storage() == b.impl()->storage();
}

// A random tensor in a random layout, with its logical values.
struct Sample {
  Tensor t;
  std::vector<double> v;
  Shape s;
};
Sample sample(ref::Rng& rng, const Shape& s, ScalarType dt = kFloat32) {
  std::vector<double> v = ref::random_values(rng, ref::numel(s), dt);
  Layout l = ref::all_layouts()[static_cast<size_t>(ref::randint(rng, 0, 3))];
  return {ref::make_layout(v, s, dt, l), v, s};
}

// Reference permute: out[idx] = in[j] with j[perm[d]] = idx[d].
std::vector<double> ref_permute(const std::vector<double>& v, const Shape& s, const Shape& perm,
                                Shape* out_shape) {
  Shape os(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) os[d] = s[static_cast<size_t>(perm[d])];
  std::vector<double> out(v.size());
  for (int64_t k = 0; k < ref::numel(os); ++k) {
    Shape idx = ref::unravel(k, os), j(s.size());
    for (size_t d = 0; d < perm.size(); ++d) j[static_cast<size_t>(perm[d])] = idx[d];
    out[static_cast<size_t>(k)] = v[static_cast<size_t>(ref::ravel(j, s))];
  }
  *out_shape = os;
  return out;
}

// Reference slice with PyTorch's clamping of start/end.
std::vector<double> ref_slice(const std::vector<double>& v, const Shape& s, int64_t dim,
                              int64_t start, int64_t end, int64_t step, Shape* out_shape) {
  int64_t n = s[static_cast<size_t>(dim)];
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::min(std::max<int64_t>(start, 0), n);
  end = std::min(std::max(end, start), n);
  Shape os = s;
  os[static_cast<size_t>(dim)] = (end - start + step - 1) / step;
  std::vector<double> out(static_cast<size_t>(ref::numel(os)));
  for (int64_t k = 0; k < ref::numel(os); ++k) {
    Shape idx = ref::unravel(k, os);
    idx[static_cast<size_t>(dim)] = start + idx[static_cast<size_t>(dim)] * step;
    out[static_cast<size_t>(k)] = v[static_cast<size_t>(ref::ravel(idx, s))];
  }
  *out_shape = os;
  return out;
}

TEST(Views, PermuteTransposeT) {
  ref::Rng rng(21);
  for (int rep = 0; rep < 60; ++rep) {
    Shape s = ref::random_shape(rng, 1, 5);
    ScalarType dt = ref::all_dtypes()[static_cast<size_t>(rep % 6)];
    Sample x = sample(rng, s, dt);
    Shape perm(s.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    SCOPED_TRACE(ref::str(s) + " perm " + ref::str(perm));
    Shape os;
    std::vector<double> want = ref_permute(x.v, s, perm, &os);
    Tensor p = x.t.permute(perm);
    EXPECT_TRUE(ref::matches(p, dt, os, want));
    EXPECT_TRUE(shares_storage(p, x.t));
    Shape negperm = perm;  // negative dims mean the same
    for (auto& d : negperm) d -= static_cast<int64_t>(s.size());
    EXPECT_TRUE(ref::matches(permute(x.t, negperm), dt, os, want));

    int64_t d0 = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
    int64_t d1 = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
    Shape tperm(s.size());
    std::iota(tperm.begin(), tperm.end(), 0);
    std::swap(tperm[static_cast<size_t>(d0)], tperm[static_cast<size_t>(d1)]);
    want = ref_permute(x.v, s, tperm, &os);
    EXPECT_TRUE(ref::matches(x.t.transpose(d0, d1), dt, os, want));
    EXPECT_TRUE(
        ref::matches(transpose(x.t, d1 - static_cast<int64_t>(s.size()), d0), dt, os, want));
  }
  Tensor m = arange(6).view({2, 3});
  EXPECT_TRUE(ref::matches(m.t(), kInt64, {3, 2}, {0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(m.t().strides().vec(), Shape({1, 3}));
  EXPECT_FALSE(m.t().is_contiguous());
  EXPECT_TRUE(m.t().t().is_contiguous());
  // t() of 1-D and 0-D tensors returns them unchanged, as in PyTorch
  EXPECT_TRUE(ref::matches(arange(3).t(), kInt64, {3}, {0, 1, 2}));
  EXPECT_TRUE(ref::matches(full({}, 4).t(), kInt64, {}, {4}));
}

TEST(Views, SliceNarrowSelectIndex) {
  ref::Rng rng(22);
  for (int rep = 0; rep < 80; ++rep) {
    Shape s = ref::random_shape(rng, 1, 4, 7);
    Sample x = sample(rng, s);
    int64_t dim = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
    int64_t n = s[static_cast<size_t>(dim)];
    int64_t start = ref::randint(rng, -n - 2, n + 2), end = ref::randint(rng, -n - 2, n + 3);
    int64_t step = ref::randint(rng, 1, 3);
    SCOPED_TRACE(ref::str(s) + " slice(" + std::to_string(dim) + ", " + std::to_string(start) +
                 ", " + std::to_string(end) + ", " + std::to_string(step) + ")");
    Shape os;
    std::vector<double> want = ref_slice(x.v, s, dim, start, end, step, &os);
    Tensor sl = x.t.slice(dim, start, end, step);
    EXPECT_TRUE(ref::matches(sl, kFloat32, os, want));
    EXPECT_TRUE(shares_storage(sl, x.t));
    // open ends: slice(dim, start) runs to the end, slice(dim) is everything
    want = ref_slice(x.v, s, dim, start, n, 1, &os);
    EXPECT_TRUE(ref::matches(x.t.slice(dim, start), kFloat32, os, want));
    EXPECT_TRUE(ref::matches(x.t.slice(dim, std::nullopt, std::nullopt, 1), kFloat32, s, x.v));
    if (n > 0) {
      int64_t ns = ref::randint(rng, -n, n - 1);
      int64_t wrapped = ns < 0 ? ns + n : ns;
      int64_t len = ref::randint(rng, 0, n - wrapped);
      want = ref_slice(x.v, s, dim, wrapped, wrapped + len, 1, &os);
      EXPECT_TRUE(ref::matches(x.t.narrow(dim, ns, len), kFloat32, os, want)) << "narrow";
      EXPECT_TRUE(ref::matches(narrow(x.t, dim, ns, len), kFloat32, os, want));

      int64_t idx = ref::randint(rng, -n, n - 1);
      int64_t widx = idx < 0 ? idx + n : idx;
      want = ref_slice(x.v, s, dim, widx, widx + 1, 1, &os);
      os.erase(os.begin() + dim);
      EXPECT_TRUE(ref::matches(x.t.select(dim, idx), kFloat32, os, want)) << "select";
      EXPECT_TRUE(ref::matches(select(x.t, dim, idx), kFloat32, os, want));
      if (dim == 0) {
        EXPECT_TRUE(ref::matches(x.t[idx], kFloat32, os, want)) << "operator[]";
      }
    }
  }
  Tensor m = arange(12).view({3, 4});
  EXPECT_TRUE(ref::matches(m.slice(1, 1, 4, 2), kInt64, {3, 2}, {1, 3, 5, 7, 9, 11}));
  EXPECT_TRUE(ref::matches(m.slice(0, -2), kInt64, {2, 4}, {4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_TRUE(ref::matches(m.slice(1, 10, 20), kInt64, {3, 0}, {}));
  EXPECT_TRUE(ref::matches(m[2], kInt64, {4}, {8, 9, 10, 11}));
  EXPECT_TRUE(ref::matches(m[-1][-2], kInt64, {}, {10}));
}

TEST(Views, ViewReshapeFlatten) {
  ref::Rng rng(23);
  for (int rep = 0; rep < 50; ++rep) {
    Shape s = ref::random_shape(rng, 0, 4);
    std::vector<double> v = ref::random_values(rng, ref::numel(s), kFloat64);
    Tensor c = ref::make_layout(v, s, kFloat64, Layout::Offset);  // contiguous, offset > 0
    int64_t n = ref::numel(s);
    SCOPED_TRACE(ref::str(s));
    Tensor f = c.view({-1});
    EXPECT_TRUE(ref::matches(f, kFloat64, {n}, v));
    EXPECT_TRUE(shares_storage(f, c));
    EXPECT_EQ(f.data_ptr(), c.data_ptr());
    EXPECT_TRUE(ref::matches(c.view(s), kFloat64, s, v));
    if (n > 0 && n % 2 == 0) {
      EXPECT_TRUE(ref::matches(c.view({2, -1}), kFloat64, {2, n / 2}, v));
      EXPECT_TRUE(ref::matches(c.reshape({-1, 2}), kFloat64, {n / 2, 2}, v));
      EXPECT_EQ(c.reshape({-1, 2}).data_ptr(), c.data_ptr()) << "reshape of contiguous is a view";
    }
    // flatten over a range of dims
    if (!s.empty()) {
      int64_t a = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
      int64_t b = ref::randint(rng, a, static_cast<int64_t>(s.size()) - 1);
      Shape fs(s.begin(), s.begin() + a);
      int64_t m = 1;
      for (int64_t d = a; d <= b; ++d) m *= s[static_cast<size_t>(d)];
      fs.push_back(m);
      fs.insert(fs.end(), s.begin() + b + 1, s.end());
      EXPECT_TRUE(ref::matches(c.flatten(a, b), kFloat64, fs, v));
      EXPECT_TRUE(ref::matches(flatten(c, a - static_cast<int64_t>(s.size()), b), kFloat64, fs, v));
    }
    EXPECT_TRUE(ref::matches(c.flatten(), kFloat64, {n}, v));
    // reshape of a non-viewable layout copies, with the right values
    Tensor tr = ref::make_layout(v, s, kFloat64, Layout::Transposed);
    EXPECT_TRUE(ref::matches(tr.reshape({n}), kFloat64, {n}, v));
    EXPECT_TRUE(ref::matches(reshape(tr, {-1}), kFloat64, {n}, v));
    EXPECT_TRUE(ref::matches(tr.flatten(), kFloat64, {n}, v));
  }
  // 0-dim <-> 1 element
  EXPECT_TRUE(ref::matches(full({}, 2.0).view({1, 1}), kFloat32, {1, 1}, {2}));
  EXPECT_TRUE(ref::matches(full({1}, 2.0).view({}), kFloat32, {}, {2}));
  EXPECT_TRUE(ref::matches(full({}, 2.0).flatten(), kFloat32, {1}, {2}));
  // a strided tensor can be viewed when the split dims stay compatible
  Tensor st = arange(24).view({4, 6}).slice(1, 0, 6, 2);  // [4, 3], strides [6, 2]
  Tensor sv = st.view({2, 2, 3});
  EXPECT_TRUE(ref::matches(sv, kInt64, {2, 2, 3}, {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22}));
  EXPECT_TRUE(shares_storage(sv, st));
  // view_as / reshape_as
  EXPECT_EQ(ref::shape_of(arange(6).view_as(zeros({3, 2}))), Shape({3, 2}));
  EXPECT_EQ(ref::shape_of(arange(6).t().reshape_as(zeros({2, 3}))), Shape({2, 3}));
}

TEST(Views, SqueezeUnsqueeze) {
  ref::Rng rng(24);
  for (int rep = 0; rep < 40; ++rep) {
    Shape s = ref::random_shape(rng, 0, 5);
    Sample x = sample(rng, s);
    SCOPED_TRACE(ref::str(s));
    Shape sq;
    for (int64_t d : s)
      if (d != 1) sq.push_back(d);
    EXPECT_TRUE(ref::matches(x.t.squeeze(), kFloat32, sq, x.v));
    EXPECT_TRUE(ref::matches(squeeze(x.t), kFloat32, sq, x.v));
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
      Shape sd = s;
      if (s[static_cast<size_t>(d)] == 1) sd.erase(sd.begin() + d);
      EXPECT_TRUE(ref::matches(x.t.squeeze(d), kFloat32, sd, x.v)) << "squeeze(" << d << ")";
    }
    for (int64_t d = -static_cast<int64_t>(s.size()) - 1; d <= static_cast<int64_t>(s.size());
         ++d) {
      Shape su = s;
      int64_t wd = d < 0 ? d + static_cast<int64_t>(s.size()) + 1 : d;
      su.insert(su.begin() + wd, 1);
      Tensor u = x.t.unsqueeze(d);
      EXPECT_TRUE(ref::matches(u, kFloat32, su, x.v)) << "unsqueeze(" << d << ")";
      EXPECT_TRUE(shares_storage(u, x.t));
      EXPECT_TRUE(ref::matches(unsqueeze(x.t, d), kFloat32, su, x.v));
    }
  }
}

TEST(Views, ExpandIsABroadcastView) {
  ref::Rng rng(25);
  for (int rep = 0; rep < 40; ++rep) {
    auto shapes = ref::broadcastable_shapes(rng);
    Shape out = ref::broadcast(shapes.first, shapes.second);
    Shape s = shapes.second;
    Sample x = sample(rng, s, kInt64);
    SCOPED_TRACE(ref::str(s) + " -> " + ref::str(out));
    std::vector<double> want(static_cast<size_t>(ref::numel(out)));
    for (int64_t k = 0; k < ref::numel(out); ++k)
      want[static_cast<size_t>(k)] = ref::at_broadcast(x.v, s, ref::unravel(k, out));
    Tensor e = x.t.expand(out);
    EXPECT_TRUE(ref::matches(e, kInt64, out, want));
    EXPECT_TRUE(shares_storage(e, x.t));
    for (size_t d = 0; d < out.size(); ++d)
      if (out[d] != 1 && (d < out.size() - s.size() || s[d - (out.size() - s.size())] == 1)) {
        EXPECT_EQ(e.stride(static_cast<int64_t>(d)), 0) << "a broadcast dim has stride 0";
      }
    EXPECT_TRUE(ref::matches(x.t.expand_as(zeros(out)), kInt64, out, want));
    // -1 keeps a dim's size
    Shape keep = out;
    for (size_t d = out.size() - s.size(); d < out.size(); ++d) keep[d] = -1;
    for (size_t d = out.size() - s.size(); d < out.size(); ++d)
      if (s[d - (out.size() - s.size())] == 1) keep[d] = out[d];
    EXPECT_TRUE(ref::matches(x.t.expand(keep), kInt64, out, want));
    // an expanded tensor is usable as an op input and by contiguous()
    EXPECT_TRUE(ref::matches(e.contiguous(), kInt64, out, want));
  }
  EXPECT_TRUE(
      ref::matches(tensor({1.0f, 2.0f}).expand({3, 2}), kFloat32, {3, 2}, {1, 2, 1, 2, 1, 2}));
  EXPECT_TRUE(ref::matches(full({}, 5).expand({2, 2}), kInt64, {2, 2}, {5, 5, 5, 5}));
}

TEST(Views, ChunkSplitUnbind) {
  ref::Rng rng(26);
  for (int rep = 0; rep < 40; ++rep) {
    Shape s = ref::random_shape(rng, 1, 3, 9);
    Sample x = sample(rng, s);
    int64_t dim = ref::randint(rng, 0, static_cast<int64_t>(s.size()) - 1);
    int64_t n = s[static_cast<size_t>(dim)];
    SCOPED_TRACE(ref::str(s) + " dim " + std::to_string(dim));
    // split(k): pieces of k, the last one smaller
    int64_t k = ref::randint(rng, 1, 4);
    std::vector<Tensor> parts = x.t.split(k, dim);
    int64_t want_parts = n == 0 ? 1 : (n + k - 1) / k;
    ASSERT_EQ(static_cast<int64_t>(parts.size()), want_parts) << "split " << k;
    for (int64_t i = 0; i < want_parts; ++i) {
      Shape os;
      std::vector<double> want = ref_slice(x.v, s, dim, i * k, (i + 1) * k, 1, &os);
      EXPECT_TRUE(ref::matches(parts[static_cast<size_t>(i)], kFloat32, os, want));
      EXPECT_TRUE(shares_storage(parts[static_cast<size_t>(i)], x.t));
    }
    EXPECT_EQ(split(x.t, k, dim).size(), parts.size());
    // chunk(c): pieces of ceil(n / c); possibly fewer than c pieces
    int64_t c = ref::randint(rng, 1, 5);
    std::vector<Tensor> chunks = x.t.chunk(c, dim);
    int64_t cs = n == 0 ? 0 : (n + c - 1) / c;
    int64_t want_chunks = n == 0 ? c : (n + cs - 1) / cs;
    ASSERT_EQ(static_cast<int64_t>(chunks.size()), want_chunks) << "chunk " << c;
    for (int64_t i = 0; i < want_chunks && n > 0; ++i) {
      Shape os;
      std::vector<double> want = ref_slice(x.v, s, dim, i * cs, (i + 1) * cs, 1, &os);
      EXPECT_TRUE(ref::matches(chunks[static_cast<size_t>(i)], kFloat32, os, want));
    }
    EXPECT_EQ(chunk(x.t, c, dim).size(), chunks.size());
    // unbind: one select per index
    std::vector<Tensor> ub = x.t.unbind(dim);
    ASSERT_EQ(static_cast<int64_t>(ub.size()), n);
    for (int64_t i = 0; i < n; ++i) {
      Shape os;
      std::vector<double> want = ref_slice(x.v, s, dim, i, i + 1, 1, &os);
      os.erase(os.begin() + dim);
      EXPECT_TRUE(ref::matches(ub[static_cast<size_t>(i)], kFloat32, os, want));
    }
    EXPECT_EQ(unbind(x.t, dim).size(), ub.size());
  }
  // PyTorch: chunk(6 rows, 4) gives 3 chunks of 2
  EXPECT_EQ(arange(6).chunk(4).size(), 3u);
  auto sp = arange(5).split(2);
  ASSERT_EQ(sp.size(), 3u);
  EXPECT_TRUE(ref::matches(sp[2], kInt64, {1}, {4}));
}

TEST(Views, WritesThroughViewsReachTheBase) {
  Tensor base = zeros({4, 6});
  base.slice(1, 1, 6, 2).fill_(1);                        // columns 1, 3, 5
  base.select(0, 2).copy_(full({6}, 2.0));                // row 2
  base.t()[0].add_(10);                                   // column 0
  base.narrow(0, 3, 1).view({2, 3}).mul_(-1);             // row 3 (negates)
  base.unsqueeze(0).expand({2, 4, 6})[0][0][4].fill_(7);  // one element, via expand
  Tensor row1 = base.chunk(4)[1];
  row1 += 100;  // compound assignment on a view
  std::vector<double> want = {10, 1, 0, 1, 7, 1, 110, 101, 100, 101, 100, 101,
                              12, 2, 2, 2, 2, 2, -10, -1,  0,   -1,  0,   -1};
  // row 3 of the base was 10,1,0,1,0,1 before the negation; -0 compares equal to 0
  EXPECT_TRUE(ref::matches(base, kFloat32, {4, 6}, want));
  // a view's write is seen by other views of the same storage
  Tensor a = arange(10, kFloat64);
  Tensor v1 = a.slice(0, 2, 8), v2 = a.view({2, 5});
  v1.zero_();
  EXPECT_DOUBLE_EQ(v2[1][0].item<double>(), 0.0);
  EXPECT_DOUBLE_EQ(v2[1][4].item<double>(), 9.0);
  // and views survive their base going away (storage is shared and refcounted)
  Tensor keep;
  {
    Tensor tmp = arange(5, kFloat32);
    keep = tmp.slice(0, 3);
  }
  EXPECT_TRUE(ref::matches(keep, kFloat32, {2}, {3, 4}));
}

}  // namespace
