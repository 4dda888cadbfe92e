// Tests of tensor indexing: index({...}) / index_put_ with Slice, None, Ellipsis, masks and index
// tensors. Each compares with a naive reference or LibTorch's values and asserts.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace ember;
using ember::indexing::Ellipsis;
using ember::indexing::None;
using ember::indexing::Slice;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(kCPU).to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

// x[i][j][k] of a contiguous CPU tensor of 3 dims, as double.
double at3(const Tensor& x, int64_t i, int64_t j, int64_t k) {
  return x.to(kFloat64).contiguous().data_ptr<double>()[(i * x.size(1) + j) * x.size(2) + k];
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "";
}

Tensor arange3() { return arange(24).reshape({2, 3, 4}); }

}  // namespace

// ---- basic indexing: views ----

TEST(IndexingBasic, SliceAndIntAreViewsWithTheRightValues) {
  Tensor x = arange(12).reshape({3, 4});
  Tensor c = x.index({Slice(), 1});
  EXPECT_EQ(shape(c), (std::vector<int64_t>{3}));
  EXPECT_EQ(values(c), (std::vector<double>{1, 5, 9}));
  c.fill_(-1);  // shares storage
  EXPECT_EQ(x[2][1].item<int64_t>(), -1);
  EXPECT_EQ(x.index({1}).data_ptr(), x[1].data_ptr());
}

TEST(IndexingBasic, SliceStepsMatchALoop) {
  Tensor x = arange(10);
  EXPECT_EQ(values(x.index({Slice(1, None, 3)})), (std::vector<double>{1, 4, 7}));
  EXPECT_EQ(values(x.index({Slice(-3, None)})), (std::vector<double>{7, 8, 9}));
  EXPECT_EQ(values(x.index({Slice(None, -7)})), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(values(x.index({Slice(-100, 2)})), (std::vector<double>{0, 1}));
  EXPECT_EQ(x.index({Slice(5, 2)}).numel(), 0);
  EXPECT_EQ(x.index({Slice(20, 30)}).numel(), 0);
  // every (start, stop, step) against Python's rule, written as a loop
  for (int64_t start = -12; start <= 12; ++start) {
    for (int64_t stop = -12; stop <= 12; ++stop) {
      for (int64_t step = 1; step <= 4; ++step) {
        int64_t b = start < 0 ? std::max<int64_t>(start + 10, 0) : std::min<int64_t>(start, 10);
        int64_t e = stop < 0 ? std::max<int64_t>(stop + 10, 0) : std::min<int64_t>(stop, 10);
        std::vector<double> want;
        for (int64_t i = b; i < e; i += step) want.push_back(static_cast<double>(i));
        ASSERT_EQ(values(x.index({Slice(start, stop, step)})), want)
            << start << ":" << stop << ":" << step;
      }
    }
  }
}

TEST(IndexingBasic, NoneEllipsisAndStrings) {
  EXPECT_EQ(shape(arange(3).index({None, Slice()})), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(shape(arange(3).index({Slice(), None})), (std::vector<int64_t>{3, 1}));
  Tensor x = arange3();
  Tensor e = x.index({Ellipsis, -1});
  EXPECT_EQ(shape(e), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(e), (std::vector<double>{3, 7, 11, 15, 19, 23}));
  EXPECT_TRUE(equal(x.index({"...", -1}), e));
  EXPECT_EQ(shape(x.index({Ellipsis, None})), (std::vector<int64_t>{2, 3, 4, 1}));
  EXPECT_EQ(shape(x.index({None, Ellipsis, None, 0})), (std::vector<int64_t>{1, 2, 3, 1}));
  EXPECT_EQ(shape(x.index({1, Ellipsis, 2})), (std::vector<int64_t>{3}));
  EXPECT_EQ(values(x.index({1, Ellipsis, 2})), (std::vector<double>{14, 18, 22}));
  EXPECT_EQ(shape(x.index({})), (std::vector<int64_t>{2, 3, 4}));
  // a mixture against nested loops: x[1:, None, ::2, -1]
  Tensor m = x.index({Slice(1, None), None, Slice(None, None, 2), -1});
  ASSERT_EQ(shape(m), (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(values(m), (std::vector<double>{at3(x, 1, 0, 3), at3(x, 1, 2, 3)}));
  // index of a 0-dim tensor
  EXPECT_EQ(shape(scalar_tensor(3).index({None})), (std::vector<int64_t>{1}));
  EXPECT_EQ(shape(scalar_tensor(3).index({Ellipsis})), (std::vector<int64_t>{}));
}

TEST(IndexingBasic, ErrorsAreLibTorchs) {
  Tensor x = arange(6).reshape({2, 3});
  EXPECT_NE(
      error_of([&] { x.index({Slice(None, None, -1)}); }).find("step must be greater than zero"),
      std::string::npos);
  EXPECT_NE(error_of([&] { Slice(0, 1, 0); }).find("slice step cannot be zero"), std::string::npos);
  EXPECT_NE(
      error_of([&] { x.index({2}); }).find("index 2 is out of bounds for dimension 0 with size 2"),
      std::string::npos);
  EXPECT_NE(error_of([&] {
              x.index({0, -4});
            }).find("index -4 is out of bounds for dimension 1 with size 3"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              x.index({0, 0, 0});
            }).find("too many indices for tensor of dimension 2"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              x.index({Ellipsis, Ellipsis});
            }).find("single ellipsis"),
            std::string::npos);
  EXPECT_NE(error_of([&] { x.index({"..x"}); }).find("to represent an ellipsis index"),
            std::string::npos);
  EXPECT_NE(error_of([&] { x.index({tensor({0.5f})}); }).find("must be long, int, byte or bool"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              x.index({tensor({0, 5})});
            }).find("index 5 is out of bounds for dimension 0 with size 2"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              x.index({tensor({0, 1}), tensor({0, 1, 2})});
            })
                .find("shape mismatch: indexing tensors could not be broadcast together with "
                      "shapes [2], [3]"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              x.index({tensor({true, false, true})});
            })
                .find("The shape of the mask [3] at index 0 does not match the shape of the "
                      "indexed tensor [2, 3] at index 0"),
            std::string::npos);
}

TEST(IndexingBasic, PrintsAsLibTorch) {
  std::ostringstream os;
  os << Slice(1, None, 2) << " " << indexing::TensorIndex(None) << " "
     << indexing::TensorIndex("...") << " " << indexing::TensorIndex(3) << " "
     << indexing::TensorIndex(true);
  EXPECT_EQ(os.str(), "1:9223372036854775807:2 None ... 3 true");
}

TEST(IndexingBasic, VectorOfIndicesAsArrayRef) {
  std::vector<indexing::TensorIndex> ix{Slice(), 1};
  EXPECT_EQ(values(arange(12).reshape({3, 4}).index(ix)), (std::vector<double>{1, 5, 9}));
}

// ---- advanced indexing ----

TEST(IndexingAdvanced, OneIndexTensorMatchesALoop) {
  Tensor x = arange3().to(kFloat32);
  Tensor idx = tensor({1, 0, 1, -1});  // negative counts from the end
  Tensor r = x.index({idx});
  ASSERT_EQ(shape(r), (std::vector<int64_t>{4, 3, 4}));
  std::vector<double> want;
  for (int64_t i : {1, 0, 1, 1})
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) want.push_back(at3(x, i, j, k));
  EXPECT_EQ(values(r), want);
  // along a middle dim, with a 2-d index: result [2, 2, 2, 4]
  Tensor idx2 = tensor({2, 0, 1, 2}).reshape({2, 2});
  Tensor r2 = x.index({Slice(), idx2});
  ASSERT_EQ(shape(r2), (std::vector<int64_t>{2, 2, 2, 4}));
  want.clear();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t a : {2, 0, 1, 2})
      for (int64_t k = 0; k < 4; ++k) want.push_back(at3(x, i, a, k));
  EXPECT_EQ(values(r2), want);
  // int32 indices too; the result is a copy
  Tensor r3 = x.index({Ellipsis, tensor({3, 0}, kInt32)});
  ASSERT_EQ(shape(r3), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(r3[1][2][0].item<float>(), at3(x, 1, 2, 3));
  r3.fill_(0);
  EXPECT_EQ(x[1][2][3].item<float>(), 23);
}

TEST(IndexingAdvanced, TwoTensorsBroadcastAndLayout) {
  EXPECT_EQ(values(arange(12).reshape({3, 4}).index({tensor({0, 2}), tensor({1, 3})})),
            (std::vector<double>{1, 11}));
  Tensor x = arange3();
  // separated by a slice: the broadcast dims go first -> [2, 3]
  Tensor s = x.index({tensor({0, 1}), Slice(), tensor({0, 3})});
  ASSERT_EQ(shape(s), (std::vector<int64_t>{2, 3}));
  std::vector<double> want;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 3; ++j) want.push_back(at3(x, b, j, b == 0 ? 0 : 3));
  EXPECT_EQ(values(s), want);
  // adjacent, after a slice: the broadcast dims ([2, 1] with [2]) stay in place -> [2, 2, 2]
  Tensor a = x.index({Slice(), tensor({0, 2}).reshape({2, 1}), tensor({1, 3})});
  ASSERT_EQ(shape(a), (std::vector<int64_t>{2, 2, 2}));
  want.clear();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t p : {0, 2})
      for (int64_t q : {1, 3}) want.push_back(at3(x, i, p, q));
  EXPECT_EQ(values(a), want);
  // an int between tensors selects first, so the tensors become adjacent: x[[0, 1], 1, [0, 3]]
  Tensor t = x.index({tensor({0, 1}), 1, tensor({0, 3})});
  EXPECT_EQ(values(t), (std::vector<double>{at3(x, 0, 1, 0), at3(x, 1, 1, 3)}));
  // a None between the indexed dims separates them: x[[0, 1], None, :, [0, 3]] is [2, 1, 3]
  Tensor n = x.index({tensor({0, 1}), None, Slice(), tensor({0, 3})});
  EXPECT_EQ(shape(n), (std::vector<int64_t>{2, 1, 3}));
}

TEST(IndexingAdvanced, BoolMasks) {
  Tensor x = arange(5.);
  Tensor m = x.index({x > 2});
  EXPECT_EQ(m.dtype(), kFloat32);
  EXPECT_EQ(values(m), (std::vector<double>{3, 4}));
  Tensor y = arange3();
  Tensor mask = tensor({true, false, true, true, false, false}).reshape({2, 3});
  Tensor r = y.index({mask});  // over the two leading dims -> [3, 4]
  ASSERT_EQ(shape(r), (std::vector<int64_t>{3, 4}));
  std::vector<double> want;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      if ((i == 0 && j != 1) || (i == 1 && j == 0))
        for (int64_t k = 0; k < 4; ++k) want.push_back(at3(y, i, j, k));
  EXPECT_EQ(values(r), want);
  // a mask on a later dim
  Tensor r2 = y.index({Slice(), tensor({false, true, true})});
  EXPECT_EQ(shape(r2), (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(r2[1][0][2].item<int64_t>(), 18);
  // bool scalars add a dim: true keeps, false empties
  EXPECT_EQ(shape(y.index({true})), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(shape(y.index({false})), (std::vector<int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(shape(y.index({Slice(), true})), (std::vector<int64_t>{2, 1, 3, 4}));
  // a 0-dim integer tensor selects, as an int does
  EXPECT_EQ(shape(y.index({tensor(1)})), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(y.index({tensor(1), 2, 3}).item<int64_t>(), 23);
  EXPECT_EQ(shape(y.index({tensor(true)})), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(IndexingAdvanced, AtenListForm) {
  Tensor x = arange(12).reshape({3, 4});
  std::vector<std::optional<Tensor>> ix{std::nullopt, tensor({3, 0})};
  EXPECT_EQ(values(x.index(ix)), (std::vector<double>{3, 0, 7, 4, 11, 8}));
  EXPECT_EQ(values(ember::index(x, {tensor({2}), tensor({1})})), (std::vector<double>{9}));
}

// ---- index_put_ ----

TEST(IndexPut, ScalarsTensorsAndMasks) {
  Tensor x = zeros({2, 3});
  x.index_put_({1, Slice(1, None)}, 5);
  EXPECT_EQ(values(x), (std::vector<double>{0, 0, 0, 0, 5, 5}));
  Tensor y = arange(5.);
  y.index_put_({y < 2}, -1);
  EXPECT_EQ(values(y), (std::vector<double>{-1, -1, 2, 3, 4}));
  Tensor z = zeros({2, 3}, kLong);
  z.index_put_({Slice(), 0}, tensor({7, 8}));
  EXPECT_EQ(z.dtype(), kInt64);
  EXPECT_EQ(values(z), (std::vector<double>{7, 0, 0, 8, 0, 0}));
  // advanced with a tensor value that broadcasts: rows 0 and 2 get [1, 2, 3, 4]
  Tensor w = zeros({3, 4});
  w.index_put_({tensor({2, 0})}, arange(1., 5.));
  EXPECT_EQ(values(w), (std::vector<double>{1, 2, 3, 4, 0, 0, 0, 0, 1, 2, 3, 4}));
  // separated advanced indices
  Tensor v = zeros({2, 3, 4}, kLong);
  v.index_put_({tensor({0, 1}), Slice(), tensor({0, 3})}, arange(6).reshape({2, 3}));
  EXPECT_EQ(v[0][2][0].item<int64_t>(), 2);
  EXPECT_EQ(v[1][1][3].item<int64_t>(), 4);
  EXPECT_EQ(v.sum().item<int64_t>(), 15);
  // a mask over two leading dims, a scalar
  Tensor u = zeros({2, 2, 2});
  u.index_put_({tensor({true, false, false, true}).reshape({2, 2})}, 1.5);
  EXPECT_EQ(values(u), (std::vector<double>{1.5, 1.5, 0, 0, 0, 0, 1.5, 1.5}));
  // a value with leading 1s
  Tensor q = zeros({3});
  q.index_put_({Slice(0, 2)}, ones({1, 1, 2}));
  EXPECT_EQ(values(q), (std::vector<double>{1, 1, 0}));
  EXPECT_NE(error_of([&] {
              q.index_put_({tensor({0, 1})}, ones({3}));
            }).find("shape mismatch"),
            std::string::npos);
}

TEST(IndexPut, RepeatedIndicesLastWinsAndAccumulateAdds) {
  Tensor x = zeros({4});
  x.index_put_({tensor({1, 3, 1})}, tensor({10.f, 20.f, 30.f}));
  EXPECT_EQ(values(x), (std::vector<double>{0, 30, 0, 20}));
  // accumulate: a naive loop over random repeated indices
  manual_seed(3);
  Tensor base = randn({5, 3}, kFloat64);
  Tensor idx = randint(0, 5, {40});
  Tensor val = randn({40, 3}, kFloat64);
  Tensor got = base.index_put({idx}, val, /*accumulate=*/true);
  std::vector<double> want = values(base), vv = values(val);
  const int64_t* ip = idx.data_ptr<int64_t>();
  for (int64_t i = 0; i < 40; ++i)
    for (int64_t j = 0; j < 3; ++j) want[ip[i] * 3 + j] += vv[i * 3 + j];
  std::vector<double> g = values(got);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-12);
  // twice the same: deterministic
  EXPECT_TRUE(equal(got, base.index_put({idx}, val, true)));
  // in place, with two index tensors and a None entry
  Tensor y = zeros({2, 3}, kFloat64);
  y.index_put_({tensor({0, 0, 1}), tensor({2, 2, 0})}, tensor({1., 2., 4.}, kFloat64), true);
  EXPECT_EQ(values(y), (std::vector<double>{0, 0, 3, 4, 0, 0}));
  EXPECT_NE(error_of([&] {
              y.index_put_({tensor({0})}, tensor({1.f}), false);
            }).find("Index put requires the source and destination dtypes match"),
            std::string::npos);
}

TEST(IndexPut, InPlaceAndOutOfPlacePathsAgreeWithALoop) {
  manual_seed(7);
  Tensor base = randn({6, 5}, kFloat64);
  Tensor idx = randint(-6, 6, {20});
  Tensor val = randn({20, 5}, kFloat64);
  Tensor a = base.clone();  // contiguous: written in place
  a.index_put_({idx}, val);
  Tensor b = base.t().contiguous().t();  // not contiguous: computed out of place
  b.index_put_({idx}, val);
  std::vector<double> want = values(base), acc = values(base), vv = values(val);
  const int64_t* ip = idx.data_ptr<int64_t>();
  for (int64_t i = 0; i < 20; ++i) {
    const int64_t r = ip[i] < 0 ? ip[i] + 6 : ip[i];
    for (int64_t j = 0; j < 5; ++j) {
      want[r * 5 + j] = vv[i * 5 + j];
      acc[r * 5 + j] += vv[i * 5 + j];
    }
  }
  EXPECT_EQ(values(a), want);
  EXPECT_EQ(values(b), want);
  Tensor c = base.clone();
  c.index_put_({idx}, val, /*accumulate=*/true);
  Tensor d = base.t().contiguous().t();
  d.index_put_({idx}, val, /*accumulate=*/true);
  std::vector<double> cv = values(c), dv = values(d);
  for (size_t i = 0; i < acc.size(); ++i) {
    EXPECT_NEAR(cv[i], acc[i], 1e-12);
    EXPECT_NEAR(dv[i], acc[i], 1e-12);
  }
}

// ---- autograd ----

TEST(IndexingAutograd, IndexGradientIsAScatter) {
  Tensor x = randn({3, 4}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor w = randn({4, 2}, kFloat64);
  Tensor idx = tensor({2, 0, 2, 1});
  Tensor y = x.index({idx, Slice(1, 3)});  // [4, 2]
  (y * w).sum().backward();
  std::vector<double> want(12, 0.0), wv = values(w);
  const int64_t rows[] = {2, 0, 2, 1};
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j) want[rows[i] * 4 + 1 + j] += wv[i * 2 + j];
  EXPECT_EQ(values(x.grad()), want);
  // basic indexing records view nodes
  Tensor x2 = randn({3, 4}, TensorOptions().requires_grad(true));
  Tensor v = x2.index({Slice(), 0});
  EXPECT_EQ(shape(v), (std::vector<int64_t>{3}));
  v.sum().backward();
  EXPECT_EQ(values(x2.grad()), (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}));
}

TEST(IndexingAutograd, IndexPutGradsForSelfAndValues) {
  Tensor a = randn({4, 2}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor v = randn({2, 2}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor x = a * 1.0;  // a non-leaf that index_put_ may change
  x.index_put_({tensor({3, 1})}, v);
  Tensor w = arange(8., TensorOptions().dtype(kFloat64)).reshape({4, 2});
  (x * w).sum().backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0, 1, 0, 0, 4, 5, 0, 0}));
  EXPECT_EQ(values(v.grad()), (std::vector<double>{6, 7, 2, 3}));
  // accumulate: self gets everything, values what they landed on
  Tensor a2 = randn({3}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor v2 = randn({3}, TensorOptions().dtype(kFloat64).requires_grad(true));
  Tensor y = a2.index_put({tensor({0, 0, 2})}, v2, true);
  (y * tensor({1., 2., 3.})).sum().backward();
  EXPECT_EQ(values(a2.grad()), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values(v2.grad()), (std::vector<double>{1, 1, 3}));
  // the in-place form refuses a leaf that requires grad, as LibTorch
  EXPECT_NE(error_of([&] { a2.index_put_({0}, 1.0); }).find("leaf Variable"), std::string::npos);
}

TEST(IndexingAutograd, GradcheckOfMaskedOps) {
  auto opt = TensorOptions().dtype(kFloat64).requires_grad(true);
  Tensor mask = tensor({true, false, true, true, false, true}).reshape({2, 3});
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0].masked_select(mask)}; },
      {randn({2, 3}, opt)}));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{in[0].masked_scatter(mask, in[1])};
      },
      {randn({2, 3}, opt), randn({5}, opt)}));
  EXPECT_TRUE(autograd::gradcheck(
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{in[0].masked_fill(mask, in[1])};
      },
      {randn({2, 3}, opt), randn({}, opt)}));
}

// ---- masked ops, nonzero, where ----

TEST(MaskedOps, SelectScatterFill) {
  EXPECT_EQ(values(arange(6).reshape({2, 3}).masked_select(tensor({true, false, true}))),
            (std::vector<double>{0, 2, 3, 5}));
  EXPECT_EQ(arange(6).masked_select(tensor({true, false, true, false, false, false})).dtype(),
            kInt64);
  Tensor x = zeros({2, 3});
  Tensor mask = tensor({false, true, true, true, false, true}).reshape({2, 3});
  Tensor s = x.masked_scatter(mask, arange(1., 7.));
  EXPECT_EQ(values(s), (std::vector<double>{0, 1, 2, 3, 0, 4}));
  x.masked_scatter_(tensor({true, false, true}), arange(10., 20.));
  EXPECT_EQ(values(x), (std::vector<double>{10, 0, 11, 12, 0, 13}));
  EXPECT_NE(error_of([&] { x.masked_scatter_(mask, arange(3.)); }).find("at least 4"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              x.masked_select(tensor({1, 0, 1}));
            }).find("boolean masks"),
            std::string::npos);
  EXPECT_EQ(values(arange(3.).masked_fill(tensor({true, false, true}), tensor(9.))),
            (std::vector<double>{9, 1, 9}));
  Tensor f = arange(3);
  f.masked_fill_(tensor({false, false, true}), tensor(7));
  EXPECT_EQ(values(f), (std::vector<double>{0, 1, 7}));
  EXPECT_NE(error_of([&] {
              f.masked_fill(tensor({true, true, true}), tensor({1, 2}));
            }).find("0-dimensional value tensor"),
            std::string::npos);
}

TEST(MaskedOps, NonzeroArgwhereWhere) {
  Tensor nz = tensor({0, 3, 0, 4}).nonzero();
  EXPECT_EQ(shape(nz), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(nz.dtype(), kInt64);
  EXPECT_EQ(values(nz), (std::vector<double>{1, 3}));
  // 3-d against a loop; NaN is nonzero
  manual_seed(5);
  Tensor r = randint(0, 3, {3, 4, 5}).to(kFloat32);
  r.index_put_({0, 0, 0}, std::nan(""));
  Tensor got = argwhere(r);
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k) {
        float v = r[i][j][k].item<float>();
        if (v != 0) want.insert(want.end(), {double(i), double(j), double(k)});
      }
  EXPECT_EQ(values(got), want);
  EXPECT_EQ(shape(nonzero(zeros({2, 2}))), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(shape(nonzero(scalar_tensor(2))), (std::vector<int64_t>{1, 0}));
  std::vector<Tensor> w = where(tensor({false, true, true, false}).reshape({2, 2}));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(values(w[0]), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(w[1]), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(where(scalar_tensor(true))[0]), (std::vector<double>{0}));
}

TEST(MaskedOps, WhereScalarDtypes) {
  Tensor c = tensor({true, false});
  Tensor d = where(c, 1.0, 0.0);
  EXPECT_EQ(d.dtype(), kFloat32);
  EXPECT_EQ(values(d), (std::vector<double>{1, 0}));
  Tensor i = where(c, 1, 0);
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(values(i), (std::vector<double>{1, 0}));
  EXPECT_EQ(where(c, true, false).dtype(), kBool);
  EXPECT_EQ(where(c, 1, 0.5).dtype(), kFloat32);
  EXPECT_EQ(values(where(c, 2, 0.5)), (std::vector<double>{2, 0.5}));
}

// ---- accumulate under deterministic algorithms ----
// Repeated positions summed on CUDA with the flag on: bitwise the same on every run, and the
// CPU's sums (made in index order). The flag changes nothing on the CPU.
TEST(IndexPut, AccumulateDeterministicWhenAsked) {
  struct Restore {
    ~Restore() { globalContext().setDeterministicAlgorithms(false); }
  } restore;
  manual_seed(5);
  Tensor vals = randn({20000}, kFloat32);
  Tensor idx = randint(0, 7, {20000});
  Tensor cpu = zeros({7}).index_put_({idx}, vals, /*accumulate=*/true);
  globalContext().setDeterministicAlgorithms(true);
  EXPECT_TRUE(globalContext().deterministicAlgorithms());
  EXPECT_TRUE(equal(zeros({7}).index_put_({idx}, vals, true), cpu));
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor a = zeros({7}, kCUDA).index_put_({idx.to(kCUDA)}, vals.to(kCUDA), true).to(kCPU);
  Tensor b = zeros({7}, kCUDA).index_put_({idx.to(kCUDA)}, vals.to(kCUDA), true).to(kCPU);
  EXPECT_TRUE(equal(a, b));
  EXPECT_TRUE(equal(a, cpu));
  Tensor f = zeros({7}, kCUDA).index_put({idx.to(kCUDA)}, vals.to(kCUDA), true).to(kCPU);
  EXPECT_TRUE(equal(f, cpu));
}
