// Tests of dot, outer, einsum, trace, kron; scatter, index_add_, index_fill_, bincount; unique.
// Each compares with a naive reference or LibTorch's values and asserts.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "error_of.h"
#include "reference.h"

using namespace ember;
using ref::Shape;

namespace {

std::vector<double> vals(const Tensor& t) { return ref::values(t); }

// A float64 tensor of `shape` with values drawn from a fixed generator.
Tensor rnd(const Shape& shape, uint64_t seed, ScalarType dt = kFloat64) {
  ref::Rng rng(seed);
  return ref::make(ref::random_values(rng, ref::numel(shape), dt, -2, 2), shape, dt);
}

// Element of a float64 CPU tensor at a multi-index.
double at(const Tensor& t, std::initializer_list<int64_t> idx) {
  Tensor v = t;
  for (int64_t i : idx) v = v.select(0, i);
  return v.to(kFloat64).item<double>();
}

::testing::AssertionResult near(const Tensor& got, const Tensor& want, double tol = 1e-10) {
  if (got.sizes() != want.sizes())
    return ::testing::AssertionFailure()
           << "shape " << ref::str(ref::shape_of(got)) << " vs " << ref::str(ref::shape_of(want));
  return ref::matches(got, got.dtype(), ref::shape_of(want), vals(want), tol, tol);
}

}  // namespace

// ---- products ----
TEST(LinalgComposites, DotAndItsErrors) {
  EXPECT_TRUE(ref::matches(dot(tensor({1.0f, 2.0f, 3.0f}), tensor({4.0f, 5.0f, 6.0f})), kFloat32,
                           {}, {32}));
  EXPECT_TRUE(ref::matches(tensor({1, 2, 3}).dot(tensor({4, 5, 6})), kInt64, {}, {32}));
  EXPECT_TRUE(ref::matches(tensor({1, 2}, kInt32).dot(tensor({3, 4}, kInt32)), kInt32, {}, {11}));
  EXPECT_NE(error_of([] {
              dot(ones({2, 2}), ones({2, 2}));
            }).find("1D tensors expected"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              dot(tensor({1, 2}), tensor({1.0, 2.0}));
            }).find("expected both vectors to have same dtype"),
            std::string::npos);
  error_of([] { dot(ones({2}), ones({3})); });
  const Tensor a = rnd({7}, 1), b = rnd({7}, 2);
  double want = 0;
  for (int64_t i = 0; i < 7; ++i) want += at(a, {i}) * at(b, {i});
  EXPECT_NEAR(vdot(a, b).item<double>(), want, 1e-12);
  EXPECT_NEAR(inner(a, b).item<double>(), want, 1e-12);
}

TEST(LinalgComposites, OuterGerMvAddmvAddr) {
  EXPECT_TRUE(ref::matches(outer(tensor({1.0f, 2.0f}), tensor({3.0f, 4.0f, 5.0f})), kFloat32,
                           {2, 3}, {3, 4, 5, 6, 8, 10}));
  EXPECT_TRUE(
      ref::matches(tensor({1, 2}).ger(tensor({3, 4, 5})), kInt64, {2, 3}, {3, 4, 5, 6, 8, 10}));
  EXPECT_TRUE(ref::matches(addmv(ones({2}), arange(6.).reshape({2, 3}), ones({3}), 2, 3), kFloat32,
                           {2}, {11, 38}));
  const Tensor m = rnd({3, 4}, 3), v = rnd({4}, 4), s = rnd({3}, 5);
  std::vector<double> want(3);
  for (int64_t i = 0; i < 3; ++i) {
    double acc = 0;
    for (int64_t j = 0; j < 4; ++j) acc += at(m, {i, j}) * at(v, {j});
    want[i] = acc;
  }
  EXPECT_TRUE(ref::matches(mv(m, v), kFloat64, {3}, want, 1e-12, 1e-12));
  EXPECT_TRUE(ref::matches(m.t().contiguous().t().mv(v), kFloat64, {3}, want, 1e-12, 1e-12));
  std::vector<double> want2(3);
  for (int64_t i = 0; i < 3; ++i) want2[i] = 0.5 * at(s, {i}) - 2 * want[i];
  EXPECT_TRUE(ref::matches(s.addmv(m, v, 0.5, -2), kFloat64, {3}, want2, 1e-12, 1e-12));
  // beta = 0 ignores self, NaNs included
  const Tensor nan_self = full({3}, std::numeric_limits<double>::quiet_NaN(), kFloat64);
  EXPECT_TRUE(ref::matches(addmv(nan_self, m, v, 0, 1), kFloat64, {3}, want, 1e-12, 1e-12));
  const Tensor a = rnd({3}, 6), b = rnd({2}, 7), base = rnd({3, 2}, 8);
  std::vector<double> want3;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 2; ++j)
      want3.push_back(2 * at(base, {i, j}) + 3 * at(a, {i}) * at(b, {j}));
  }
  EXPECT_TRUE(ref::matches(addr(base, a, b, 2, 3), kFloat64, {3, 2}, want3, 1e-12, 1e-12));
  Tensor inplace = base.clone();
  inplace.addr_(a, b, 2, 3);
  EXPECT_TRUE(ref::matches(inplace, kFloat64, {3, 2}, want3, 1e-12, 1e-12));
  error_of([] { outer(ones({2, 2}), ones({2})); });
  error_of([] { mv(ones({2, 3}), ones({4})); });
}

TEST(LinalgComposites, BaddbmmAddbmm) {
  EXPECT_TRUE(ref::matches(baddbmm(ones({2, 2, 2}), ones({2, 2, 3}), ones({2, 3, 2}), 0.5, -1),
                           kFloat32, {2, 2, 2}, std::vector<double>(8, -2.5)));
  const Tensor b1 = rnd({3, 2, 4}, 9), b2 = rnd({3, 4, 5}, 10), self = rnd({2, 5}, 11);
  std::vector<double> want;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      double acc = 0;
      for (int64_t b = 0; b < 3; ++b) {
        for (int64_t k = 0; k < 4; ++k) acc += at(b1, {b, i, k}) * at(b2, {b, k, j});
      }
      want.push_back(0.25 * at(self, {i, j}) + 2 * acc);
    }
  }
  EXPECT_TRUE(ref::matches(addbmm(self, b1, b2, 0.25, 2), kFloat64, {2, 5}, want, 1e-12, 1e-12));
  Tensor s2 = self.clone();
  s2.addbmm_(b1, b2, 0.25, 2);
  EXPECT_TRUE(ref::matches(s2, kFloat64, {2, 5}, want, 1e-12, 1e-12));
  const Tensor bias = rnd({5}, 12);  // broadcast self
  const Tensor got = baddbmm(bias, b1, b2);
  EXPECT_TRUE(near(got, bmm(b1, b2) + bias));
}

// ---- einsum ----
TEST(Einsum, TwinValues) {
  EXPECT_TRUE(
      ref::matches(einsum("ij,jk->ik", {arange(6.).reshape({2, 3}), arange(6.).reshape({3, 2})}),
                   kFloat32, {2, 2}, {10, 13, 28, 40}));
  EXPECT_TRUE(
      ref::matches(einsum("bij,bjk->bik", {arange(12.).reshape({2, 2, 3}), ones({2, 3, 1})}),
                   kFloat32, {2, 2, 1}, {3, 12, 21, 30}));
  EXPECT_TRUE(ref::matches(einsum("ii->", {arange(9.).reshape({3, 3})}), kFloat32, {}, {12}));
  EXPECT_TRUE(ref::matches(einsum("i,j->ij", {tensor({1.0, 2.0}), tensor({3.0, 4.0, 5.0})}),
                           kFloat32, {2, 3}, {3, 4, 5, 6, 8, 10}));
  EXPECT_TRUE(ref::matches(einsum("ij,jk", {eye(2), tensor({{1.0, 2.0}, {3.0, 4.0}})}), kFloat32,
                           {2, 2}, {1, 2, 3, 4}));
}

TEST(Einsum, FormsAgainstNaiveReferences) {
  const Tensor a = rnd({3, 4}, 20), b = rnd({4, 5}, 21), c = rnd({3, 4}, 22), sq = rnd({4, 4}, 23);
  EXPECT_TRUE(near(einsum("ij,jk->ik", {a, b}), matmul(a, b)));
  EXPECT_TRUE(near(einsum("ij,jk", {a, b}), matmul(a, b)));
  EXPECT_TRUE(near(einsum("ij,jk->ki", {a, b}), matmul(a, b).t()));
  EXPECT_TRUE(near(einsum("ij->ji", {a}), a.t()));
  EXPECT_TRUE(near(einsum("ji", {a}), a.t()));  // implicit: the output is sorted (i, j)
  EXPECT_TRUE(near(einsum("ij->", {a}), a.sum()));
  EXPECT_TRUE(near(einsum("ij->j", {a}), a.sum(0)));
  EXPECT_TRUE(near(einsum("ij,ij->ij", {a, c}), a * c));
  EXPECT_TRUE(near(einsum("ij,ij->", {a, c}), (a * c).sum()));
  EXPECT_TRUE(near(einsum("ij,ij->i", {a, c}), (a * c).sum(1)));
  EXPECT_TRUE(near(einsum(" i j , j k -> i k ", {a, b}), matmul(a, b)));
  std::vector<double> diag, tr(1, 0.0);
  for (int64_t i = 0; i < 4; ++i) {
    diag.push_back(at(sq, {i, i}));
    tr[0] += at(sq, {i, i});
  }
  EXPECT_TRUE(ref::matches(einsum("ii->i", {sq}), kFloat64, {4}, diag, 1e-12, 1e-12));
  EXPECT_TRUE(ref::matches(einsum("ii", {sq}), kFloat64, {}, tr, 1e-12, 1e-12));
  EXPECT_TRUE(ref::matches(einsum("ii->", {sq.t()}), kFloat64, {}, tr, 1e-12, 1e-12));
  // batched and bilinear forms
  const Tensor x = rnd({2, 3, 4}, 24), y = rnd({2, 4, 5}, 25);
  EXPECT_TRUE(near(einsum("bij,bjk->bik", {x, y}), bmm(x, y)));
  EXPECT_TRUE(near(einsum("bij,bjk->bki", {x, y}), bmm(x, y).transpose(1, 2)));
  const Tensor l = rnd({2, 3}, 26), w = rnd({5, 3, 4}, 27), r = rnd({2, 4}, 28);
  std::vector<double> want;
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t o = 0; o < 5; ++o) {
      double acc = 0;
      for (int64_t i = 0; i < 3; ++i) {
        for (int64_t j = 0; j < 4; ++j) acc += at(l, {n, i}) * at(w, {o, i, j}) * at(r, {n, j});
      }
      want.push_back(acc);
    }
  }
  EXPECT_TRUE(
      ref::matches(einsum("bn,anm,bm->ba", {l, w, r}), kFloat64, {2, 5}, want, 1e-12, 1e-12));
  // ellipsis, with broadcast batch dims
  const Tensor e1 = rnd({2, 1, 3, 4}, 29), e2 = rnd({5, 4, 2}, 30);
  EXPECT_TRUE(near(einsum("...ij,...jk->...ik", {e1, e2}), matmul(e1, e2)));
  EXPECT_TRUE(near(einsum("...ij,...jk", {e1, e2}), matmul(e1, e2)));
  EXPECT_TRUE(near(einsum("i...->...", {a}), a.sum(0)));
  // an integer product
  EXPECT_TRUE(
      ref::matches(einsum("i,i->", {tensor({1, 2, 3}), tensor({4, 5, 6})}), kInt64, {}, {32}));
}

TEST(Einsum, Errors) {
  error_of([] { einsum("ij,jk->ik", {ones({2, 3})}); });
  error_of([] { einsum("ij->ik", {ones({2, 3})}); });
  error_of([] { einsum("ijk->i", {ones({2, 3})}); });
  error_of([] { einsum("ij,jk->ik", {ones({2, 3}), ones({4, 2})}); });
  error_of([] { einsum("ii->i", {ones({2, 3})}); });
  error_of([] { einsum("i.j->i", {ones({2, 3})}); });
}

TEST(Einsum, Gradient) {
  const Tensor a = rnd({3, 4}, 31).requires_grad_(), b = rnd({4, 2}, 32).requires_grad_();
  einsum("ij,jk->ik", {a, b}).pow(2).sum().backward();
  const Tensor a2 = a.detach().requires_grad_(), b2 = b.detach().requires_grad_();
  matmul(a2, b2).pow(2).sum().backward();
  EXPECT_TRUE(near(a.grad(), a2.grad()));
  EXPECT_TRUE(near(b.grad(), b2.grad()));
}

// ---- trace, kron, tensordot, cross ----
TEST(LinalgComposites, TraceKronTensordot) {
  EXPECT_TRUE(ref::matches(arange(9.).reshape({3, 3}).trace(), kFloat32, {}, {12}));
  EXPECT_TRUE(ref::matches(trace(tensor({{1, 2}, {3, 4}}, kInt32)), kInt64, {}, {5}));
  EXPECT_TRUE(ref::matches(trace(arange(6.).reshape({2, 3})), kFloat32, {}, {4}));
  error_of([] { trace(ones({3})); });
  EXPECT_TRUE(ref::matches(kron(eye(2), tensor({{1.0, 2.0}, {3.0, 4.0}})), kFloat32, {4, 4},
                           {1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4}));
  const Tensor ka = rnd({2, 3}, 40), kb = rnd({3}, 41);
  const Tensor k = kron(ka, kb);  // kb padded to [1, 3]
  ASSERT_EQ(ref::shape_of(k), (Shape{2, 9}));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 9; ++j) {
      EXPECT_NEAR(at(k, {i, j}), at(ka, {i, j / 3}) * at(kb, {j % 3}), 1e-12);
    }
  }
  EXPECT_TRUE(
      ref::matches(tensordot(arange(6.).reshape({2, 3}), arange(12.).reshape({3, 4}), {1}, {0}),
                   kFloat32, {2, 4}, {20, 23, 26, 29, 56, 68, 80, 92}));
  EXPECT_TRUE(ref::matches(
      tensordot(arange(24.).reshape({2, 3, 4}), arange(12.).reshape({3, 4}), {1, 2}, {0, 1}),
      kFloat32, {2}, {506, 1298}));
  const Tensor ta = rnd({3, 2, 4}, 42), tb = rnd({4, 5, 3}, 43);
  const Tensor td = tensordot(ta, tb, {0, 2}, {2, 0});
  ASSERT_EQ(ref::shape_of(td), (Shape{2, 5}));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < 3; ++p) {
        for (int64_t q = 0; q < 4; ++q) acc += at(ta, {p, i, q}) * at(tb, {q, j, p});
      }
      EXPECT_NEAR(at(td, {i, j}), acc, 1e-12);
    }
  }
  error_of([] { tensordot(ones({2, 3}), ones({4, 2}), {1}, {0}); });
}

TEST(LinalgComposites, Cross) {
  EXPECT_TRUE(ref::matches(cross(tensor({{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}}),
                                 tensor({{0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}), 1),
                           kFloat32, {2, 3}, {0, 0, 1, 1, 0, 0}));
  const Tensor a = arange(9.).reshape({3, 3});
  const Tensor b = tensor({{0.0, 1.0, 0.0}, {1.0, 0.0, 0.0}, {0.0, 0.0, 1.0}});
  EXPECT_TRUE(ref::matches(cross(a, b), kFloat32, {3, 3}, {-6, 0, 5, 0, 7, -2, 0, -4, 0}));
  EXPECT_TRUE(ref::matches(linalg_cross(a, b), kFloat32, {3, 3}, {-2, 0, 0, 0, 5, -4, 7, -6, 0}));
  EXPECT_TRUE(ref::matches(linalg::cross(a, b), kFloat32, {3, 3}, {-2, 0, 0, 0, 5, -4, 7, -6, 0}));
  EXPECT_TRUE(ref::matches(a.cross(b, -1), kFloat32, {3, 3}, {-2, 0, 0, 0, 5, -4, 7, -6, 0}));
  error_of([] { cross(ones({2, 2}), ones({2, 2})); });
  error_of([] { linalg_cross(ones({3, 2}), ones({3, 2})); });
}

TEST(LinalgNorms, VectorAndMatrixNorms) {
  EXPECT_TRUE(ref::matches(linalg_norm(tensor({{1.0, 2.0}, {3.0, 4.0}})), kFloat32, {},
                           {std::sqrt(30.0)}, 1e-6));
  EXPECT_TRUE(ref::matches(linalg_norm(tensor({3.0, -4.0}), 1), kFloat32, {}, {7}));
  EXPECT_TRUE(ref::matches(linalg_norm(tensor({{1.0, 2.0}, {3.0, 4.0}}), "fro"), kFloat32, {},
                           {std::sqrt(30.0)}, 1e-6));
  EXPECT_TRUE(ref::matches(linalg_vector_norm(tensor({{3.0, 4.0}, {5.0, 12.0}}), 2, {1}), kFloat32,
                           {2}, {5, 13}, 1e-6));
  const Tensor x = rnd({3, 4}, 50);
  const std::vector<double> v = vals(x);
  auto pnorm = [&](double p) {
    double acc = 0;
    for (double e : v) acc += std::pow(std::abs(e), p);
    return std::pow(acc, 1 / p);
  };
  double mx = 0, mn = 1e300, nz = 0;
  for (double e : v) {
    mx = std::max(mx, std::abs(e));
    mn = std::min(mn, std::abs(e));
    nz += e != 0;
  }
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(linalg::vector_norm(x).item<double>(), pnorm(2), 1e-12);
  EXPECT_NEAR(linalg::vector_norm(x, 3).item<double>(), pnorm(3), 1e-12);
  EXPECT_NEAR(linalg::vector_norm(x, 1).item<double>(), pnorm(1), 1e-12);
  EXPECT_NEAR(linalg::vector_norm(x, inf).item<double>(), mx, 1e-12);
  EXPECT_NEAR(linalg::vector_norm(x, -inf).item<double>(), mn, 1e-12);
  EXPECT_NEAR(linalg::vector_norm(x, 0).item<double>(), nz, 1e-12);
  EXPECT_EQ(ref::shape_of(linalg_vector_norm(x, 2, {0, 1}, true)), (Shape{1, 1}));
  // matrix norms: 1 = largest column sum of |x|, inf = largest row sum
  double col = 0, row = 0, mincol = 1e300;
  for (int64_t j = 0; j < 4; ++j) {
    double s = 0;
    for (int64_t i = 0; i < 3; ++i) s += std::abs(at(x, {i, j}));
    col = std::max(col, s);
    mincol = std::min(mincol, s);
  }
  for (int64_t i = 0; i < 3; ++i) {
    double s = 0;
    for (int64_t j = 0; j < 4; ++j) s += std::abs(at(x, {i, j}));
    row = std::max(row, s);
  }
  EXPECT_NEAR(linalg_norm(x, 1).item<double>(), col, 1e-12);
  EXPECT_NEAR(linalg_norm(x, -1).item<double>(), mincol, 1e-12);
  EXPECT_NEAR(linalg_norm(x, inf).item<double>(), row, 1e-12);
  EXPECT_NEAR(linalg::matrix_norm(x).item<double>(), pnorm(2), 1e-12);
  EXPECT_NEAR(linalg::norm(x, std::nullopt, std::vector<int64_t>{0, 1}).item<double>(), pnorm(2),
              1e-12);
  error_of([] { linalg_norm(ones({2, 2, 2}), 2); });
  error_of([] { linalg_vector_norm(tensor({1, 2})); });
  error_of([] { linalg_norm(ones({2, 2}), 2); });  // the spectral norm needs an SVD
  error_of([] { linalg_norm(ones({2}), 0); });     // a null ord string (LibTorch: ambiguous)
}

// ---- the scatter family ----
TEST(Scatter, TwinValues) {
  EXPECT_TRUE(ref::matches(zeros({2, 3}).scatter(1, tensor({{2}, {0}}), ones({2, 1})), kFloat32,
                           {2, 3}, {0, 0, 1, 1, 0, 0}));
  EXPECT_TRUE(ref::matches(zeros({3}).scatter(0, tensor({1}), 4.5), kFloat32, {3}, {0, 4.5, 0}));
  EXPECT_TRUE(ref::matches(zeros({3}).index_add(0, tensor({0, 2, 0}), tensor({1., 2., 3.})),
                           kFloat32, {3}, {4, 0, 2}));
}

// A naive scatter along dim 1 of [R, C] (index [R, K], src [R, >= K]).
std::vector<double> naive_scatter(const Tensor& self, const Tensor& index, const Tensor& src,
                                  const std::string& op, bool include_self = true) {
  const int64_t C = self.size(1);
  std::vector<double> out = vals(self);
  std::vector<std::vector<double>> got(out.size());
  for (int64_t r = 0; r < index.size(0); ++r) {
    for (int64_t k = 0; k < index.size(1); ++k) {
      const int64_t c = static_cast<int64_t>(at(index, {r, k}));
      got[static_cast<size_t>(r * C + c)].push_back(at(src, {r, k}));
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (got[i].empty()) continue;
    std::vector<double> xs = got[i];
    if (op == "assign") {
      out[i] = xs.back();
      continue;
    }
    if (include_self) xs.push_back(out[i]);
    double acc = xs[0];
    for (size_t j = 1; j < xs.size(); ++j) {
      if (op == "sum" || op == "mean") acc += xs[j];
      if (op == "prod") acc *= xs[j];
      if (op == "amax") acc = std::max(acc, xs[j]);
      if (op == "amin") acc = std::min(acc, xs[j]);
    }
    if (op == "mean") acc /= static_cast<double>(xs.size());
    out[i] = acc;
  }
  return out;
}

TEST(Scatter, SrcValueAndReduceAgainstNaive) {
  for (ScalarType dt : {kFloat32, kFloat64, kInt64, kInt32}) {
    const Tensor self = rnd({4, 6}, 60, dt);
    const Tensor src = rnd({4, 5}, 61, dt);
    // unique indices per row (assignment is then deterministic)
    std::vector<Tensor> rows;
    for (int64_t r = 0; r < 4; ++r) rows.push_back(randperm(6).narrow(0, 0, 3));
    const Tensor idx = stack(rows);
    const std::vector<double> want = naive_scatter(self, idx, src, "assign");
    EXPECT_TRUE(ref::matches(self.scatter(1, idx, src), dt, {4, 6}, want, 1e-6, 1e-6));
    Tensor inplace = self.clone();
    inplace.scatter_(1, idx, src);
    EXPECT_TRUE(ref::matches(inplace, dt, {4, 6}, want, 1e-6, 1e-6));
    const Tensor filled = self.scatter(1, idx, 7);
    const Tensor sevens = full({4, 3}, 7, TensorOptions().dtype(dt));
    EXPECT_TRUE(ref::matches(filled, dt, {4, 6}, naive_scatter(self, idx, sevens, "assign")));
    // repeated indices: add and multiply
    const Tensor rep = randint(0, 6, {4, 5});
    EXPECT_TRUE(ref::matches(self.scatter(1, rep, src, "add"), dt, {4, 6},
                             naive_scatter(self, rep, src, "sum"), 1e-6, 1e-6));
    EXPECT_TRUE(ref::matches(self.scatter(1, rep, src, "multiply"), dt, {4, 6},
                             naive_scatter(self, rep, src, "prod"), 1e-5, 1e-5));
    for (const char* op : {"sum", "prod", "amax", "amin", "mean"}) {
      for (bool include : {true, false}) {
        const Tensor got = self.scatter_reduce(1, rep, src, op, include);
        std::vector<double> w = naive_scatter(self, rep, src, op, include);
        if (std::string(op) == "mean" && !ref::is_float(dt)) {
          for (double& e : w) e = std::floor(e);
        }
        EXPECT_TRUE(ref::matches(got, dt, {4, 6}, w, 1e-5, 1e-5))
            << op << " include_self " << include << " " << ref::name(dt);
      }
    }
  }
}

TEST(Scatter, NaNAndErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor s = tensor({0.0, 0.0});
  const Tensor got = s.scatter_reduce(0, tensor({0, 0, 1}), tensor({1.0, nan, 2.0}), "amax");
  EXPECT_TRUE(std::isnan(at(got, {0})));
  EXPECT_EQ(at(got, {1}), 2.0);
  error_of([] { zeros({3}).scatter(0, tensor({3}), 1.0); });
  error_of([] { zeros({3}).scatter(0, tensor({0}), ones({1}, kFloat64)); });
  error_of([] { zeros({3}).scatter(0, tensor({0}), ones({1}), "max"); });
  error_of([] { zeros({3}).scatter_reduce(0, tensor({0}), ones({1}), "max"); });
  error_of([] { zeros({3}).scatter(0, tensor({{0}}), ones({1})); });
}

TEST(Scatter, Gradients) {
  const Tensor self = rnd({3, 4}, 70).requires_grad_(), src = rnd({3, 2}, 71).requires_grad_();
  const Tensor idx = tensor({{1, 3}, {0, 2}, {2, 1}});
  const Tensor g = rnd({3, 4}, 72);
  (self.scatter(1, idx, src) * g).sum().backward();
  EXPECT_TRUE(near(self.grad(), g.scatter(1, idx, 0)));
  EXPECT_TRUE(near(src.grad(), g.gather(1, idx)));
  EXPECT_EQ(self.scatter(1, idx, src).grad_fn()->name(), "ScatterBackward0");
  EXPECT_EQ(self.scatter_reduce(1, idx, src, "amax").grad_fn()->name(), "ScatterReduceBackward0");
}

TEST(IndexOps, IndexAddFillCopy) {
  const Tensor self = rnd({4, 3}, 80), src = rnd({4, 2}, 81);
  const Tensor idx = tensor({2, 0});
  std::vector<double> want = vals(self);
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t k = 0; k < 2; ++k) {
      want[static_cast<size_t>(r * 3 + at(idx, {k}))] += 2.5 * at(src, {r, k});
    }
  }
  EXPECT_TRUE(ref::matches(self.index_add(1, idx, src, 2.5), kFloat64, {4, 3}, want, 1e-12, 1e-12));
  Tensor s2 = self.clone();
  s2.index_add_(1, idx, src, 2.5);
  EXPECT_TRUE(ref::matches(s2, kFloat64, {4, 3}, want, 1e-12, 1e-12));
  // index_fill: a Scalar, a 0-dim tensor, negative indices
  std::vector<double> filled = vals(self);
  for (int64_t r = 0; r < 4; ++r) {
    filled[static_cast<size_t>(r * 3 + 2)] = -1;
    filled[static_cast<size_t>(r * 3 + 0)] = -1;
  }
  EXPECT_TRUE(ref::matches(self.index_fill(1, tensor({-1, 0}), -1), kFloat64, {4, 3}, filled));
  EXPECT_TRUE(
      ref::matches(self.index_fill(1, tensor({2, 0}), tensor(-1.0)), kFloat64, {4, 3}, filled));
  Tensor s3 = self.clone();
  s3.index_fill_(1, tensor({2, 0}), -1);
  EXPECT_TRUE(ref::matches(s3, kFloat64, {4, 3}, filled));
  // index_copy along dim 0
  const Tensor rows = rnd({2, 3}, 82);
  std::vector<double> copied = vals(self);
  for (int64_t j = 0; j < 3; ++j) {
    copied[static_cast<size_t>(3 * 3 + j)] = at(rows, {0, j});
    copied[static_cast<size_t>(1 * 3 + j)] = at(rows, {1, j});
  }
  EXPECT_TRUE(ref::matches(self.index_copy(0, tensor({3, 1}), rows), kFloat64, {4, 3}, copied));
  error_of([&] { self.index_add(1, idx, rnd({4, 3}, 83)); });
  error_of([&] { self.index_fill(1, tensor({3}), 1.0); });
  error_of([&] { self.index_fill(1, tensor({0}), ones({1})); });
  // gradients flow through the composites
  const Tensor a = rnd({4, 3}, 84).requires_grad_(), b = rnd({4, 2}, 85).requires_grad_();
  (a.index_add(1, idx, b, 2) * 3).sum().backward();
  EXPECT_TRUE(near(a.grad(), full({4, 3}, 3.0, kFloat64)));
  EXPECT_TRUE(near(b.grad(), full({4, 2}, 6.0, kFloat64)));
}

TEST(IndexOps, Bincount) {
  const Tensor x = tensor({1, 1, 3, 0, 1});
  EXPECT_TRUE(ref::matches(bincount(x), kInt64, {4}, {1, 3, 0, 1}));
  EXPECT_TRUE(ref::matches(x.bincount({}, 6), kInt64, {6}, {1, 3, 0, 1, 0, 0}));
  EXPECT_TRUE(ref::matches(bincount(x, tensor({0.5f, 1.0f, 2.0f, 4.0f, 0.25f})), kFloat32, {4},
                           {4, 1.75, 0, 2}));
  EXPECT_TRUE(ref::matches(bincount(x, tensor({0.5, 1.0, 2.0, 4.0, 0.25}, kFloat64)), kFloat64, {4},
                           {4, 1.75, 0, 2}));
  EXPECT_TRUE(ref::matches(bincount(x, tensor({1, 2, 3, 4, 5})), kFloat64, {4}, {4, 8, 0, 3}));
  EXPECT_TRUE(ref::matches(bincount(tensor(std::vector<int64_t>{}), {}, 2), kInt64, {2}, {0, 0}));
  error_of([] { bincount(tensor({-1, 2})); });
  error_of([] { bincount(tensor({1.0, 2.0})); });
  error_of([] { bincount(tensor({{1, 2}})); });
  error_of([] { bincount(tensor({1, 2}), tensor({1.0})); });
}

// ---- unique ----
TEST(Unique, TwinValues) {
  EXPECT_TRUE(ref::matches(std::get<0>(_unique2(tensor({3, 1, 2, 3, 1}))), kInt64, {3}, {1, 2, 3}));
  auto [v, inv, cnt] = _unique2(tensor({3, 1, 2, 3, 1}), true, true, true);
  EXPECT_TRUE(ref::matches(v, kInt64, {3}, {1, 2, 3}));
  EXPECT_TRUE(ref::matches(inv, kInt64, {5}, {2, 0, 1, 2, 0}));
  EXPECT_TRUE(ref::matches(cnt, kInt64, {3}, {2, 1, 2}));
  EXPECT_TRUE(ref::matches(std::get<0>(unique_dim(tensor({{1, 2}, {0, 5}, {1, 2}}), 0)), kInt64,
                           {2, 2}, {0, 5, 1, 2}));
  auto [cv, ci, cc] = unique_consecutive(tensor({1, 1, 2, 2, 3, 1, 1}), true, true);
  EXPECT_TRUE(ref::matches(cv, kInt64, {4}, {1, 2, 3, 1}));
  EXPECT_TRUE(ref::matches(ci, kInt64, {7}, {0, 0, 1, 1, 2, 3, 3}));
  EXPECT_TRUE(ref::matches(cc, kInt64, {4}, {2, 2, 1, 2}));
}

TEST(Unique, AgainstNaive) {
  const Tensor x = randint(0, 5, {4, 6}).to(kFloat32);
  auto [v, inv, cnt] = _unique2(x, true, true, true);
  std::map<double, int64_t> count;
  for (double e : vals(x)) ++count[e];
  std::vector<double> keys, counts;
  for (auto [k, n] : count) {
    keys.push_back(k);
    counts.push_back(static_cast<double>(n));
  }
  const int64_t k = static_cast<int64_t>(keys.size());
  EXPECT_TRUE(ref::matches(v, kFloat32, {k}, keys));
  EXPECT_TRUE(ref::matches(cnt, kInt64, {k}, counts));
  EXPECT_EQ(ref::shape_of(inv), (Shape{4, 6}));
  EXPECT_TRUE(near(v.index_select(0, inv.reshape({-1})).reshape({4, 6}), x, 0));
  // not asked for: empty [0] tensors
  auto [v2, inv2, cnt2] = _unique2(x);
  EXPECT_EQ(ref::shape_of(inv2), (Shape{0}));
  EXPECT_EQ(ref::shape_of(cnt2), (Shape{0}));
  auto [v3, inv3] = _unique(x, true, true);
  EXPECT_TRUE(near(v3, v, 0));
  EXPECT_TRUE(near(inv3, inv, 0));
  // NaNs are each their own value, sorted last
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor n = std::get<0>(_unique2(tensor({nan, 1.0, nan, 1.0})));
  ASSERT_EQ(ref::shape_of(n), (Shape{3}));
  EXPECT_EQ(at(n, {0}), 1.0);
  EXPECT_TRUE(std::isnan(at(n, {1})) && std::isnan(at(n, {2})));
  // unique_dim along dim 1, with inverse and counts
  const Tensor m = tensor({{1, 0, 1, 2}, {3, 4, 3, 0}});
  auto [dv, di, dc] = unique_dim(m, 1, true, true, true);
  EXPECT_TRUE(ref::matches(dv, kInt64, {2, 3}, {0, 1, 2, 4, 3, 0}));
  EXPECT_TRUE(ref::matches(di, kInt64, {4}, {1, 0, 1, 2}));
  EXPECT_TRUE(ref::matches(dc, kInt64, {3}, {1, 2, 1}));
  auto [uv, ui, uc] = unique_consecutive(tensor({{1, 1}, {1, 1}, {2, 2}, {1, 1}}), true, true, 0);
  EXPECT_TRUE(ref::matches(uv, kInt64, {3, 2}, {1, 1, 2, 2, 1, 1}));
  EXPECT_TRUE(ref::matches(ui, kInt64, {4}, {0, 0, 1, 2}));
  EXPECT_TRUE(ref::matches(uc, kInt64, {3}, {2, 1, 1}));
  error_of([] { unique_dim(ones({2, 2}), 2); });
}
