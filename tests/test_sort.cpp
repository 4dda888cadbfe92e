// Tests of sorting and scans: sort, argsort, topk, kthvalue, cumsum, cumprod, logsumexp.
// Each compares with a naive reference or LibTorch's values and asserts.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

using namespace ember;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}
std::vector<int64_t> ints_of(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// PyTorch's order: NaN above everything.
bool less_nan(double a, double b) { return (!std::isnan(a) && std::isnan(b)) || a < b; }

// Rows of t with dim d moved last: [R, N] values.
struct RowsRef {
  std::vector<double> v;
  int64_t R = 1, N = 1;
};
RowsRef rows_of(const Tensor& t, int64_t d) {
  Tensor m = t.dim() == 0 ? t.reshape({1}) : t.transpose(d, -1);
  RowsRef r;
  r.N = m.size(-1);
  r.R = r.N ? m.numel() / r.N : 0;
  r.v = values_of(m);
  return r;
}
Tensor moved(const Tensor& t, int64_t d) {
  return t.dim() == 0 ? t.reshape({1}) : t.transpose(d, -1);
}

// The stable order of one row (ascending or descending, NaN largest).
std::vector<int64_t> stable_order(const double* x, int64_t n, bool descending) {
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return descending ? less_nan(x[b], x[a]) : less_nan(x[a], x[b]);
  });
  return idx;
}

// A tensor of dtype with many ties (values in a small range) and, for floats, NaN and -0.0.
Tensor tie_heavy(IntArrayRef shape, ScalarType dtype, uint64_t seed) {
  std::mt19937_64 g(seed);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) {
    const int r = int(g() % 13);
    if (dtype == kBool) {
      x = r % 2;
    } else if (dtype == kUInt8) {
      x = r * 19;
    } else {
      x = r - 6;
      if (is_floating_point(dtype)) {
        if (r == 12) x = kNaN;
        if (r == 11) x = -0.0;
        if (r == 10) x = 0.5;
      }
    }
  }
  return tensor(v, kFloat64).to(dtype).reshape(shape);
}

const std::vector<ScalarType> kSortTypes = {kFloat32, kFloat64, kInt32, kInt64, kUInt8, kBool};

void check_sort(const Tensor& t, int64_t d, bool descending) {
  auto [values, indices] = sort(t, d, descending);
  ASSERT_EQ(values.sizes(), t.sizes());
  ASSERT_EQ(indices.dtype(), kInt64);
  ASSERT_EQ(values.dtype(), t.dtype());
  RowsRef in = rows_of(t, d);
  std::vector<double> got_v = values_of(moved(values, d));
  std::vector<int64_t> got_i = ints_of(moved(indices, d));
  for (int64_t r = 0; r < in.R; ++r) {
    std::vector<int64_t> want = stable_order(&in.v[r * in.N], in.N, descending);
    for (int64_t j = 0; j < in.N; ++j) {
      ASSERT_EQ(got_i[r * in.N + j], want[j]) << "row " << r << " col " << j;
      ASSERT_TRUE(same(got_v[r * in.N + j], in.v[r * in.N + want[j]]));
    }
  }
}

}  // namespace

TEST(Sort, LibTorchValues) {
  auto [v, i] = sort(tensor({3, 1, 2}));
  EXPECT_EQ(ints_of(v), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(ints_of(i), (std::vector<int64_t>{1, 2, 0}));
  auto [v2, i2] = tensor({{3, 1}, {1, 4}, {2, 0}}).sort(0, true);
  EXPECT_EQ(ints_of(v2), (std::vector<int64_t>{3, 4, 2, 1, 1, 0}));
  EXPECT_EQ(ints_of(i2), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(ints_of(argsort(tensor({30, 10, 20}))), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(ints_of(tensor({{3.0, 1.0, 2.0}}).argsort(1, true)), (std::vector<int64_t>{0, 2, 1}));
}

TEST(Sort, EveryDtypeDimAndDirectionAgainstStableSort) {
  for (ScalarType dt : kSortTypes) {
    Tensor t = tie_heavy({4, 7, 5}, dt, 7);
    for (int64_t d = -3; d < 3; ++d) {
      for (bool desc : {false, true}) {
        SCOPED_TRACE(::testing::Message() << dt << " dim " << d << " desc " << desc);
        check_sort(t, d, desc);
      }
    }
  }
}

TEST(Sort, LongRowsTakeTheRadixPathAndStayStable) {
  for (ScalarType dt : kSortTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor t = tie_heavy({3, 3000}, dt, 11);
    check_sort(t, 1, false);
    check_sort(t, 1, true);
    check_sort(t.t(), 0, false);  // a non-contiguous input
  }
  Tensor big = randn({200000});
  check_sort(big, 0, false);
  check_sort(big, 0, true);
}

TEST(Sort, NaNIsLargestAndZerosTie) {
  Tensor t = tensor({1.0, kNaN, -kInf, -0.0, 0.0, kInf, kNaN, -2.0});
  auto [v, i] = t.sort();
  EXPECT_EQ(ints_of(i), (std::vector<int64_t>{2, 7, 3, 4, 0, 5, 1, 6}));
  auto [vd, id] = t.sort(0, true);
  EXPECT_EQ(ints_of(id), (std::vector<int64_t>{1, 6, 5, 0, 3, 4, 7, 2}));
  EXPECT_TRUE(std::isnan(values_of(vd)[0]));
}

// Every sorted value is bit for bit the input element at its index (-0.0 stays -0.0, a NaN keeps
// its payload), on both devices and in both directions: CUDA's one-row sort decodes values
// from their keys except for zeros and NaNs, and topk of more than 16 takes the same path.
TEST(Sort, ValuesAreTheInputsBitForBit) {
  std::vector<uint32_t> bits = {0x80000000u, 0x00000000u, 0x7fc00001u, 0xffc00002u, 0x7f800000u,
                                0xff800000u, 0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u};
  for (int i = 0; i < 3000; ++i) bits.push_back(0x3c000000u + 7919u * uint32_t(i));
  const Tensor x = from_blob(bits.data(), {int64_t(bits.size())}, kFloat32).clone();
  std::vector<Device> devices = {Device(kCPU)};
  if (cuda::is_available()) devices.push_back(Device(kCUDA));
  for (const Device& device : devices) {
    for (bool descending : {false, true}) {
      auto [v, i] = x.to(device).sort(0, descending);
      auto [tv, ti] = x.to(device).topk(40, 0, descending);
      for (const auto& [values, indices] : {std::pair{v, i}, std::pair{tv, ti}}) {
        const Tensor got = values.cpu().contiguous(), idx = indices.cpu().contiguous();
        const auto* g = static_cast<const uint32_t*>(got.data_ptr());
        const auto* p = idx.data_ptr<int64_t>();
        for (int64_t k = 0; k < got.numel(); ++k) {
          ASSERT_EQ(g[k], bits[size_t(p[k])]) << device << " descending " << descending << " " << k;
        }
      }
      EXPECT_TRUE(equal(i.cpu(), std::get<1>(x.sort(0, descending)))) << device;
    }
  }
}

TEST(Sort, StableOverloadsScalarsAndEmpty) {
  Tensor t = tie_heavy({6, 9}, kFloat32, 3);
  auto [a, ai] = t.sort(std::optional<bool>(true), 1, true);
  auto [b, bi] = sort(t, 1, true);
  EXPECT_TRUE(equal(ai, bi));
  EXPECT_TRUE(equal(argsort(t, true, 0, false), std::get<1>(t.sort(0))));
  auto [s, si] = tensor(2.5).sort();
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(si.item<int64_t>(), 0);
  auto [e, ei] = zeros({3, 0}).sort(1);
  EXPECT_EQ(e.sizes(), (std::vector<int64_t>{3, 0}));
  EXPECT_THROW(t.sort(2), Error);
}

TEST(Topk, LibTorchValues) {
  auto [v, i] = topk(tensor({1.0, 5.0, 3.0, 4.0, 2.0}), 2);
  EXPECT_EQ(values_of(v), (std::vector<double>{5, 4}));
  EXPECT_EQ(ints_of(i), (std::vector<int64_t>{1, 3}));
  auto [s, si] = tensor({1.0, 5.0, 3.0, 4.0, 2.0}).topk(3, -1, false);
  EXPECT_EQ(values_of(s), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(ints_of(si), (std::vector<int64_t>{0, 4, 2}));
  auto [d, di] = topk(tensor({{1, 8}, {5, 2}, {3, 6}}), 2, 0);
  EXPECT_EQ(ints_of(d), (std::vector<int64_t>{5, 8, 3, 6}));
  EXPECT_EQ(ints_of(di), (std::vector<int64_t>{1, 0, 2, 2}));
  EXPECT_THROW(topk(tensor({1.0, 2.0}), 3), Error);
  EXPECT_THROW(topk(tensor({1.0, 2.0}), -1), Error);
}

TEST(Topk, AgainstTheStableOrderEveryK) {
  for (ScalarType dt : kSortTypes) {
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{5, 40}, {2, 3000}, {1, 300000}}) {
      Tensor t = tie_heavy(shape, dt, 5);
      const int64_t n = shape[1];
      for (int64_t k : {int64_t(0), int64_t(1), int64_t(3), int64_t(10), n / 2, n}) {
        for (bool largest : {true, false}) {
          SCOPED_TRACE(::testing::Message() << dt << " n " << n << " k " << k << " " << largest);
          auto [v, i] = t.topk(k, 1, largest);
          ASSERT_EQ(v.size(1), k);
          auto [sv, si] = t.sort(1, largest);
          ASSERT_TRUE(equal(i, si.narrow(1, 0, k)));
          const std::vector<double> a = values_of(v), b = values_of(sv.narrow(1, 0, k));
          for (size_t j = 0; j < a.size(); ++j) ASSERT_TRUE(same(a[j], b[j]));
        }
      }
    }
  }
}

TEST(Kthvalue, LibTorchValuesAndReference) {
  auto [v, i] = kthvalue(tensor({5.0, 1.0, 4.0, 2.0}), 2);
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(v.item<float>(), 2.0f);
  EXPECT_EQ(i.item<int64_t>(), 3);
  auto [v2, i2] = tensor({{5, 1, 4}, {2, 9, 7}}).kthvalue(1, 1, true);
  EXPECT_EQ(v2.sizes(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(ints_of(v2), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ints_of(i2), (std::vector<int64_t>{1, 0}));
  for (ScalarType dt : kSortTypes) {
    Tensor t = tie_heavy({6, 11}, dt, 13);
    for (int64_t d : {0, 1}) {
      auto [sv, si] = t.sort(d);
      for (int64_t k = 1; k <= t.size(d); ++k) {
        auto [kv, ki] = t.kthvalue(k, d);
        ASSERT_TRUE(equal(ki, si.select(d, k - 1))) << dt << " dim " << d << " k " << k;
      }
    }
  }
  EXPECT_THROW(kthvalue(tensor({1.0, 2.0}), 3), Error);
  EXPECT_THROW(kthvalue(tensor({1.0, 2.0}), 0), Error);
}

TEST(Median, LowerMedianNaNAndNanmedian) {
  EXPECT_EQ(tensor({4.0, 1.0, 3.0, 2.0}).median().item<float>(), 2.0f);
  auto [v, i] = median(tensor({{3.0, 1.0, 2.0}, {6.0, 5.0, 4.0}}), 1);
  EXPECT_EQ(values_of(v), (std::vector<double>{2, 5}));
  EXPECT_EQ(ints_of(i), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(tensor({kNaN, 1.0, 3.0, 2.0}).nanmedian().item<float>(), 2.0f);
  EXPECT_TRUE(std::isnan(tensor({1.0, kNaN, 3.0, 2.0}).median().item<float>()));
  // median: the first NaN of a row; nanmedian: the rest's lower median, NaN if none is left
  Tensor t = tensor(
      {{1.0, kNaN, 3.0, kNaN, 0.0}, {kNaN, kNaN, kNaN, kNaN, kNaN}, {4.0, 2.0, 9.0, 7.0, 8.0}});
  auto [mv, mi] = t.median(1);
  EXPECT_EQ(ints_of(mi), (std::vector<int64_t>{1, 0, 3}));
  auto [nv, ni] = t.nanmedian(1, true);
  EXPECT_EQ(nv.sizes(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(ints_of(ni), (std::vector<int64_t>{0, 0, 3}));
  EXPECT_TRUE(std::isnan(values_of(nv)[1]));
  // against the sorted row, on random data with ties
  for (ScalarType dt : {kFloat32, kInt64, kUInt8}) {
    Tensor r = tie_heavy({5, 9}, dt, 21);
    r = r.masked_fill(r.ne(r), 1);
    auto [sv, si] = r.sort(1);
    auto [rv, ri] = r.median(1);
    EXPECT_TRUE(equal(ri, si.select(1, 4))) << dt;
  }
  EXPECT_TRUE(std::isnan(zeros({0}).median().item<float>()));
  EXPECT_THROW(zeros({2, 0}).median(1), Error);
  EXPECT_EQ(tensor({5, 3, 4, 1}).median().dtype(), kInt64);
}

TEST(Mode, MostFrequentSmallestOnTies) {
  EXPECT_EQ(std::get<0>(mode(tensor({1, 2, 2, 3, 2, 1}))).item<int64_t>(), 2);
  auto [v, i] = mode(tensor({{3.0, 1.0, 1.0, 3.0}, {7.0, 7.0, 2.0, 7.0}}), 1);
  EXPECT_EQ(values_of(v), (std::vector<double>{1, 7}));
  EXPECT_EQ(ints_of(i), (std::vector<int64_t>{2, 3}));  // the last occurrence
  auto [kv, ki] = tensor({{4, 4}, {5, 6}}).mode(0, true);
  EXPECT_EQ(kv.sizes(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ints_of(kv), (std::vector<int64_t>{4, 4}));
}

TEST(Cumsum, LibTorchValuesAndDtypes) {
  EXPECT_EQ(ints_of(cumsum(arange(5), 0)), (std::vector<int64_t>{0, 1, 3, 6, 10}));
  Tensor i32 = tensor({1, 2, 3}, kInt32).cumsum(0);
  EXPECT_EQ(i32.dtype(), kInt64);
  EXPECT_EQ(ints_of(i32), (std::vector<int64_t>{1, 3, 6}));
  Tensor b = tensor({true, false, true}).cumsum(0);
  EXPECT_EQ(b.dtype(), kInt64);
  EXPECT_EQ(ints_of(b), (std::vector<int64_t>{1, 1, 2}));
  Tensor f = cumsum(arange(6).reshape({2, 3}), 1, kFloat64);
  EXPECT_EQ(f.dtype(), kFloat64);
  EXPECT_EQ(values_of(f), (std::vector<double>{0, 1, 3, 3, 7, 12}));
  EXPECT_EQ(values_of(arange(6.).reshape({2, 3}).cumsum(-2)),
            (std::vector<double>{0, 1, 2, 3, 5, 7}));
  EXPECT_EQ(values_of(tensor({1.0, 2.0, 3.0, 4.0}).cumprod(0)), (std::vector<double>{1, 2, 6, 24}));
  Tensor p = cumprod(tensor({2, 3, 4}), 0);
  EXPECT_EQ(p.dtype(), kInt64);
  EXPECT_EQ(ints_of(p), (std::vector<int64_t>{2, 6, 24}));
  EXPECT_EQ(tensor({1, 2}, kUInt8).cumsum(0, kUInt8).dtype(), kUInt8);
  EXPECT_EQ(tensor(3.0).cumsum(0).dim(), 0);
  EXPECT_THROW(arange(3).cumsum(1), Error);
}

TEST(Cumsum, EveryDimAndLayoutAgainstALoop) {
  Tensor base = randn({4, 5, 6}, kFloat64);
  for (const Tensor& t : {base, base.transpose(0, 2), base.narrow(1, 1, 3)}) {
    for (int64_t d = 0; d < 3; ++d) {
      for (bool prod : {false, true}) {
        Tensor got = prod ? t.cumprod(d) : t.cumsum(d);
        RowsRef r = rows_of(t, d);
        std::vector<double> g = values_of(moved(got, d));
        for (int64_t row = 0; row < r.R; ++row) {
          double acc = prod ? 1 : 0;
          for (int64_t j = 0; j < r.N; ++j) {
            acc = prod ? acc * r.v[row * r.N + j] : acc + r.v[row * r.N + j];
            ASSERT_NEAR(g[row * r.N + j], acc, 1e-12 * (1 + std::abs(acc)));
          }
        }
      }
    }
  }
  // float32 accumulates in double, as LibTorch's CPU kernel
  Tensor ones_f = full({1 << 20}, 0.1f);
  const double last = values_of(ones_f.cumsum(0))[(1 << 20) - 1];
  EXPECT_NEAR(last, 0.1f * double(1 << 20), 1e-2);
}

TEST(Cummax, TiesTakeTheLaterIndexAndNaNPropagates) {
  auto [v, i] = cummax(tensor({1.0, 3.0, 2.0, 5.0, 4.0}), 0);
  EXPECT_EQ(values_of(v), (std::vector<double>{1, 3, 3, 5, 5}));
  EXPECT_EQ(ints_of(i), (std::vector<int64_t>{0, 1, 1, 3, 3}));
  auto [mv, mi] = cummin(tensor({{5, 3, 4}, {1, 6, 0}}), 1);
  EXPECT_EQ(ints_of(mv), (std::vector<int64_t>{5, 3, 3, 1, 1, 0}));
  EXPECT_EQ(ints_of(mi), (std::vector<int64_t>{0, 1, 1, 0, 0, 2}));
  auto [tv, ti] = tensor({2.0, 2.0, 1.0, 2.0, kNaN, 3.0, kNaN}).cummax(0);
  EXPECT_EQ(ints_of(ti), (std::vector<int64_t>{0, 1, 1, 3, 4, 4, 6}));
  // against a loop, every dim
  Tensor t = tie_heavy({3, 4, 5}, kFloat64, 9);
  for (int64_t d = 0; d < 3; ++d) {
    for (bool is_max : {true, false}) {
      auto [gv, gi] = is_max ? t.cummax(d) : t.cummin(d);
      RowsRef r = rows_of(t, d);
      std::vector<int64_t> got = ints_of(moved(gi, d));
      for (int64_t row = 0; row < r.R; ++row) {
        const double* x = &r.v[row * r.N];
        int64_t at = 0;
        for (int64_t j = 0; j < r.N; ++j) {
          const bool takes =
              std::isnan(x[j]) || (!std::isnan(x[at]) && (is_max ? x[j] >= x[at] : x[j] <= x[at]));
          if (j == 0 || takes) at = j;
          ASSERT_EQ(got[row * r.N + j], at);
        }
      }
    }
  }
}

TEST(Logsumexp, StableAndLibTorchValues) {
  Tensor a = logsumexp(tensor({{0.0, 1.0, 2.0}, {100.0, 100.0, 0.0}}), 1);
  std::vector<double> av = values_of(a);
  EXPECT_NEAR(av[0], 2.4076058864593506, 1e-6);
  EXPECT_NEAR(av[1], 100.69314575195312, 1e-4);
  Tensor b = tensor({{0.0, 1.0}, {2.0, 3.0}}).logsumexp({0}, true);
  EXPECT_EQ(b.sizes(), (std::vector<int64_t>{1, 2}));
  EXPECT_NEAR(values_of(b)[0], 2.1269280910491943, 1e-6);
  Tensor big = tensor({1000.0, 1000.0}, kFloat64).logsumexp(0);
  EXPECT_NEAR(big.item<double>(), 1000 + std::log(2.0), 1e-12);
  EXPECT_EQ(tensor({-kInf, -kInf}).logsumexp(0).item<float>(), -kInf);
  EXPECT_EQ(tensor({kInf, 1.0}).logsumexp(0).item<float>(), kInf);
  Tensor i = arange(3).logsumexp(0);
  EXPECT_EQ(i.dtype(), kFloat32);
  EXPECT_NEAR(i.item<float>(), std::log(1 + std::exp(1.0) + std::exp(2.0)), 1e-6);
}

TEST(Reductions, NansumNanmeanCountNonzero) {
  Tensor x = tensor({1.0, kNaN, 3.0});
  EXPECT_EQ(x.nansum().item<float>(), 4.0f);
  EXPECT_EQ(x.nanmean().item<float>(), 2.0f);
  Tensor m = tensor({{1.0, kNaN}, {kNaN, kNaN}});
  EXPECT_EQ(values_of(nansum(m, {1})), (std::vector<double>{1, 0}));
  std::vector<double> nm = values_of(nanmean(m, {1}, true));
  EXPECT_EQ(nm[0], 1);
  EXPECT_TRUE(std::isnan(nm[1]));
  EXPECT_EQ(count_nonzero(tensor({{0, 1, 2}, {0, 0, 3}})).item<int64_t>(), 3);
  Tensor c = tensor({{{0.0, 1.0}, {2.0, 0.0}}, {{0.0, 0.0}, {3.0, 4.0}}}).count_nonzero({0, 1});
  EXPECT_EQ(c.dtype(), kInt64);
  EXPECT_EQ(ints_of(c), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ints_of(count_nonzero(tensor({{0, 1, 2}, {0, 0, 3}}), std::optional<int64_t>(1))),
            (std::vector<int64_t>{2, 1}));
  EXPECT_THROW(arange(3).nanmean(), Error);
}

TEST(Reductions, VarCorrectionAndMeanPairs) {
  EXPECT_FLOAT_EQ(ember::var(arange(6.), std::nullopt, Scalar(2)).item<float>(), 4.375f);
  EXPECT_FLOAT_EQ(ember::std(arange(6.), std::nullopt, Scalar(0)).item<float>(),
                  std::sqrt(17.5f / 6));
  Tensor v = ember::var(arange(6.).reshape({2, 3}), {1}, Scalar(1.5), true);
  EXPECT_EQ(v.sizes(), (std::vector<int64_t>{2, 1}));
  EXPECT_NEAR(values_of(v)[0], 2.0 / 1.5, 1e-6);
  auto [vv, vm] = var_mean(arange(6.).reshape({2, 3}), 1);
  EXPECT_EQ(values_of(vv), (std::vector<double>{1, 1}));
  EXPECT_EQ(values_of(vm), (std::vector<double>{1, 4}));
  auto [s, m] = ember::std_mean(arange(5.));
  EXPECT_NEAR(s.item<float>(), 1.5811388492584229, 1e-6);
  EXPECT_EQ(m.item<float>(), 2.0f);
  auto [sb, mb] = ember::std_mean(arange(6.).reshape({2, 3}), {0}, false, true);
  EXPECT_EQ(sb.sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values_of(sb), (std::vector<double>{1.5, 1.5, 1.5}));
  EXPECT_EQ(values_of(mb), (std::vector<double>{1.5, 2.5, 3.5}));
  auto [cv, cm] = var_mean(arange(6.), std::nullopt, Scalar(2));
  EXPECT_FLOAT_EQ(cv.item<float>(), 4.375f);
  EXPECT_THROW(var_mean(arange(3)), Error);
}

TEST(SortGrad, GradientsGoBackToTheSelectedPositions) {
  Tensor x = tensor({3.0, 1.0, 2.0}, TensorOptions().dtype(kFloat64).requires_grad(true));
  auto [v, i] = x.sort();
  (v * tensor({1.0, 10.0, 100.0}, kFloat64)).sum().backward();
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{100, 1, 10}));
  EXPECT_EQ(v.grad_fn()->name(), "SortBackward0");

  Tensor y = tensor({4.0, 1.0, 3.0}, TensorOptions().dtype(kFloat64).requires_grad(true));
  std::get<0>(y.topk(2)).sum().backward();
  EXPECT_EQ(values_of(y.grad()), (std::vector<double>{1, 0, 1}));

  Tensor z = ones({4}, requires_grad());
  cumsum(z, 0).sum().backward();
  EXPECT_EQ(values_of(z.grad()), (std::vector<double>{4, 3, 2, 1}));

  // cumprod with a zero: d out_j / d x_k = prod_{i <= j, i != k} x_i
  Tensor w = tensor({2.0, 0.0, 3.0}, TensorOptions().dtype(kFloat64).requires_grad(true));
  w.cumprod(0).sum().backward();
  EXPECT_EQ(values_of(w.grad()), (std::vector<double>{1, 2 + 6, 0}));

  Tensor m = tensor({{1.0, 5.0, 2.0}}, TensorOptions().dtype(kFloat64).requires_grad(true));
  std::get<0>(m.cummax(1)).sum().backward();
  EXPECT_EQ(values_of(m.grad()), (std::vector<double>{1, 2, 0}));

  Tensor l = tensor({0.0, 1.0}, TensorOptions().dtype(kFloat64).requires_grad(true));
  l.logsumexp(0).backward();
  const double e = std::exp(1.0);
  EXPECT_NEAR(values_of(l.grad())[0], 1 / (1 + e), 1e-12);
  EXPECT_NEAR(values_of(l.grad())[1], e / (1 + e), 1e-12);
}

// Every form over the shapes of the CPU/CUDA parity sweep (0-dim, empty, size-1 dims), every
// dtype and dim: results have LibTorch's shapes and dtypes, and only empty reductions throw.
TEST(SortShapes, EveryFormShapeAndDtype) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {1}, {0}, {7}, {3, 0}, {4, 9}, {2, 1, 3}};
  for (const auto& shape : shapes) {
    for (ScalarType dt : kSortTypes) {
      Tensor x = tie_heavy(shape, dt, 17);
      const int64_t r = x.dim();
      for (int64_t d = -1; d < std::max<int64_t>(r, 1); ++d) {
        SCOPED_TRACE(::testing::Message() << x.sizes() << " " << dt << " dim " << d);
        const int64_t n = r == 0 ? 1 : x.size(d);
        std::vector<int64_t> reduced(x.sizes().begin(), x.sizes().end());
        if (r > 0) reduced.erase(reduced.begin() + (d < 0 ? d + r : d));
        auto [sv, si] = x.sort(d, true);
        EXPECT_EQ(sv.sizes(), x.sizes());
        auto [tv, ti] = x.topk(std::min<int64_t>(n, 2), d, false);
        EXPECT_EQ(ti.dtype(), kInt64);
        EXPECT_EQ(x.cumsum(d).dtype(), is_floating_point(dt) ? dt : kInt64);
        EXPECT_EQ(x.cumprod(d, kFloat64).sizes(), x.sizes());
        auto [cv, ci] = x.cummin(d);
        EXPECT_EQ(cv.dtype(), dt);
        EXPECT_EQ(x.count_nonzero(std::optional<int64_t>(d)).sizes(), IntArrayRef(reduced));
        if (n == 0) {
          EXPECT_THROW(x.kthvalue(1, d), Error);
          EXPECT_THROW(x.median(d), Error);
          EXPECT_THROW(x.mode(d), Error);
          continue;
        }
        auto [kv, ki] = x.kthvalue(n, d, true);
        EXPECT_EQ(kv.dim(), r);
        auto [mv, mi] = x.median(d);
        EXPECT_EQ(mv.sizes(), IntArrayRef(reduced));
        auto [ov, oi] = x.mode(d);
        EXPECT_EQ(oi.sizes(), IntArrayRef(reduced));
        EXPECT_EQ(x.median().dim(), 0);
      }
    }
  }
}
