// Tensor core: metadata, contiguous clone detach copy_ to(dtype/device) item data_ptr, the
// type-promotion table from PyTorch, and a CPU kernel for every op in core/ops.def.
#include <ember/core/dispatch.h>
#include <ember/ember.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "reference.h"

using namespace ember;
using ref::Layout;
using ref::Shape;

namespace {

TEST(TensorCore, Metadata) {
  Tensor t = zeros({2, 3, 4}, kFloat64);
  EXPECT_TRUE(t.defined());
  EXPECT_FALSE(Tensor().defined());
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.size(0), 2);
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.sizes().vec(), Shape({2, 3, 4}));
  EXPECT_EQ(t.strides().vec(), Shape({12, 4, 1}));
  EXPECT_EQ(t.stride(-2), 4);
  EXPECT_EQ(t.element_size(), 8u);
  EXPECT_EQ(t.nbytes(), 24u * 8u);
  EXPECT_EQ(t.dtype(), kFloat64);
  EXPECT_EQ(t.scalar_type(), kDouble);
  EXPECT_TRUE(t.is_floating_point());
  EXPECT_FALSE(zeros({1}, kInt32).is_floating_point());
  EXPECT_TRUE(t.is_cpu());
  EXPECT_FALSE(t.is_cuda());
  EXPECT_EQ(t.device(), Device(kCPU));
  EXPECT_EQ(t.storage_offset(), 0);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.options().dtype(), kFloat64);

  Tensor s = zeros({});
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  Tensor e = zeros({3, 0, 2});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(e.nbytes(), 0u);
  for (ScalarType dt : ref::all_dtypes()) {
    size_t want = dt == kFloat64 || dt == kInt64 ? 8 : dt == kUInt8 || dt == kBool ? 1 : 4;
    EXPECT_EQ(zeros({1}, dt).element_size(), want) << ref::name(dt);
  }
  EXPECT_STREQ(dtype_name(kFloat32), "float32");
  EXPECT_STREQ(dtype_name(kInt64), "int64");
}

TEST(TensorCore, DataPtrOfViewsPointsAtTheFirstElement) {
  Tensor t = arange(24, kFloat32).view({4, 6});
  float* base = t.data_ptr<float>();
  EXPECT_EQ(t.slice(0, 2).data_ptr<float>(), base + 12);
  EXPECT_EQ(t.select(1, 3).data_ptr<float>(), base + 3);
  EXPECT_EQ(t[1][2].item<float>(), 8.0f);
  EXPECT_EQ(t.t().data_ptr<float>(), base);
  EXPECT_EQ(t.slice(0, 2).storage_offset(), 12);
  EXPECT_EQ(static_cast<void*>(base), t.data_ptr());
}

TEST(TensorCore, ContiguousCopiesOnlyWhenNeeded) {
  ref::Rng rng(11);
  for (int rep = 0; rep < 20; ++rep) {
    Shape s = ref::random_shape(rng, 0, 4);
    for (ScalarType dt : ref::all_dtypes()) {
      std::vector<double> v = ref::random_values(rng, ref::numel(s), dt);
      for (Layout l : ref::all_layouts()) {
        SCOPED_TRACE(ref::str(s) + " " + ref::name(dt) + " " + ref::layout_name(l));
        Tensor x = ref::make_layout(v, s, dt, l);
        Tensor c = x.contiguous();
        EXPECT_TRUE(c.is_contiguous());
        EXPECT_TRUE(ref::matches(c, dt, s, v));
        EXPECT_EQ(ref::to_vector<double>(c.to(kFloat64)), v);
        if (x.is_contiguous()) {
          EXPECT_TRUE(c.is_same(x)) << "contiguous() of contiguous is self";
        }
      }
    }
  }
}

TEST(TensorCore, CloneOwnsItsMemory) {
  ref::Rng rng(12);
  for (Layout l : ref::all_layouts()) {
    Shape s = {3, 4};
    std::vector<double> v = ref::random_values(rng, 12, kFloat32);
    Tensor x = ref::make_layout(v, s, kFloat32, l);
    Tensor c = x.clone();
    EXPECT_TRUE(ref::matches(c, kFloat32, s, v));
    x.fill_(0);
    EXPECT_TRUE(ref::matches(c, kFloat32, s, v)) << "clone does not alias";
    EXPECT_TRUE(ref::matches(clone(c), kFloat32, s, v));
  }
}

TEST(TensorCore, CloneOfABroadcastViewIsDense) {
  // a stride-0 view's clone must own one element per position
  Tensor e = tensor({1.0f, 2.0f}).expand({3, 2});
  Tensor c = e.clone();
  c[0][0].fill_(9);
  EXPECT_TRUE(ref::matches(c, kFloat32, {3, 2}, {9, 2, 1, 2, 1, 2}));
  Tensor k = e.contiguous();
  k[2][1].fill_(7);
  EXPECT_TRUE(ref::matches(k, kFloat32, {3, 2}, {1, 2, 1, 2, 1, 7}));
  EXPECT_TRUE(ref::matches(e, kFloat32, {3, 2}, {1, 2, 1, 2, 1, 2}));
}

TEST(TensorCore, DetachSharesStorage) {
  Tensor x = ones({3}, TensorOptions().requires_grad(true));
  Tensor d = x.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(x.requires_grad());
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  d.fill_(5);
  EXPECT_TRUE(ref::matches(x, kFloat32, {3}, {5, 5, 5}));
  Tensor y = ones({2}, requires_grad());
  y.detach_();
  EXPECT_FALSE(y.requires_grad());
}

TEST(TensorCore, CopyConvertsBroadcastsAndWritesThroughViews) {
  ref::Rng rng(13);
  for (int rep = 0; rep < 30; ++rep) {
    auto shapes = ref::broadcastable_shapes(rng);
    Shape dst_shape = ref::broadcast(shapes.first, shapes.second);
    Shape src_shape = shapes.second;
    for (ScalarType sdt : ref::all_dtypes()) {
      ScalarType ddt = ref::all_dtypes()[static_cast<size_t>(ref::randint(rng, 0, 5))];
      Layout dl = ref::all_layouts()[static_cast<size_t>(ref::randint(rng, 0, 3))];
      Layout sl = ref::all_layouts()[static_cast<size_t>(ref::randint(rng, 0, 3))];
      SCOPED_TRACE(ref::str(src_shape) + " " + ref::name(sdt) + " -> " + ref::str(dst_shape) + " " +
                   ref::name(ddt));
      // nonnegative sources for uint8 targets: negative float -> uint8 is undefined
      double lo = ddt == kUInt8 ? 0 : -3;
      std::vector<double> sv = ref::random_values(rng, ref::numel(src_shape), sdt, lo, 100);
      Tensor src = ref::make_layout(sv, src_shape, sdt, sl);
      Tensor dst =
          ref::make_layout(std::vector<double>(ref::numel(dst_shape), 1), dst_shape, ddt, dl);
      Tensor& r = dst.copy_(src);
      EXPECT_TRUE(r.is_same(dst));
      std::vector<double> want(static_cast<size_t>(ref::numel(dst_shape)));
      for (int64_t k = 0; k < ref::numel(dst_shape); ++k)
        want[static_cast<size_t>(k)] =
            ref::cast_to(ddt, ref::at_broadcast(sv, src_shape, ref::unravel(k, dst_shape)));
      EXPECT_TRUE(ref::matches(dst, ddt, dst_shape, want));
    }
  }
}

TEST(TensorCore, ToDtypeEveryPair) {
  ref::Rng rng(14);
  for (ScalarType from : ref::all_dtypes()) {
    for (ScalarType to : ref::all_dtypes()) {
      SCOPED_TRACE(ref::name(from) + " -> " + ref::name(to));
      Shape s = {2, 5};
      double lo = to == kUInt8 ? 0 : -100;
      std::vector<double> v = ref::random_values(rng, 10, from, lo, 100);
      if (ref::is_float(from)) v[0] = -2.75 * (to != kUInt8), v[1] = 0.0;  // trunc, zero
      Tensor x = ref::make_layout(v, s, from, Layout::Transposed);
      Tensor y = x.to(to);
      std::vector<double> want;
      for (double e : v) want.push_back(ref::cast_to(to, e));
      EXPECT_TRUE(ref::matches(y, to, s, want));
      if (from == to) {
        EXPECT_TRUE(y.is_same(x)) << "to() the same dtype returns self";
        Tensor z = x.to(to, false, /*copy=*/true);
        EXPECT_FALSE(z.is_same(x));
        EXPECT_TRUE(ref::matches(z, to, s, want));
      } else {
        EXPECT_NE(y.data_ptr(), x.data_ptr());
      }
    }
  }
  // the PyTorch conversions that need care: truncation toward zero, int64 -> uint8 wraps
  EXPECT_TRUE(ref::matches(tensor({-1.7f, 1.7f, -0.5f}).to(kInt32), kInt32, {3}, {-1, 1, 0}));
  EXPECT_TRUE(ref::matches(tensor({int64_t(-1), int64_t(256), int64_t(300)}).to(kUInt8), kUInt8,
                           {3}, {255, 0, 44}));
  EXPECT_TRUE(ref::matches(tensor({0.0f, 0.1f, -2.0f}).to(kBool), kBool, {3}, {0, 1, 1}));
  EXPECT_TRUE(ref::matches(tensor({true, false}).to(kFloat64), kFloat64, {2}, {1, 0}));
  EXPECT_TRUE(ref::matches(tensor({2.5}).toType(kFloat32), kFloat32, {1}, {2.5}));
}

TEST(TensorCore, ToDeviceCpuAndOptions) {
  Tensor x = arange(6, kFloat32).view({2, 3});
  EXPECT_TRUE(x.to(kCPU).is_same(x));
  EXPECT_TRUE(x.to(Device("cpu")).is_same(x));
  EXPECT_TRUE(x.cpu().is_same(x));
  Tensor y = x.to(Device(kCPU), kFloat64);
  EXPECT_TRUE(ref::matches(y, kFloat64, {2, 3}, {0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(x.to(TensorOptions().dtype(kInt32)).dtype(), kInt32);
  EXPECT_EQ(x.to(zeros({1}, kUInt8)).dtype(), kUInt8);
  EXPECT_EQ(x.type_as(zeros({1}, kInt64)).dtype(), kInt64);
}

TEST(TensorCore, Item) {
  EXPECT_FLOAT_EQ(tensor({2.5f}).item<float>(), 2.5f);
  EXPECT_DOUBLE_EQ(tensor({2.5f}).item<double>(), 2.5);
  EXPECT_EQ(tensor({2.5f}).item<int64_t>(), 2);
  EXPECT_EQ(full({1, 1, 1}, 7, kInt32).item<int32_t>(), 7);
  EXPECT_EQ(full({}, 7, kInt64).item<float>(), 7.0f);
  EXPECT_EQ(full({1}, 200, kUInt8).item<int>(), 200);
  EXPECT_TRUE(full({1}, true).item<bool>());
  // a one-element view deep inside a larger tensor
  Tensor t = arange(12, kFloat64).view({3, 4});
  EXPECT_DOUBLE_EQ(t.t()[3][2].item<double>(), 11.0);
  EXPECT_DOUBLE_EQ(t.select(1, 1).slice(0, 2).item<double>(), 9.0);
  // the Scalar form keeps the category
  Scalar si = full({1}, 3, kInt64).item();
  EXPECT_TRUE(si.isIntegral());
  EXPECT_EQ(si.toLong(), 3);
  Scalar sf = full({1}, 3.5).item();
  EXPECT_TRUE(sf.isFloatingPoint());
  EXPECT_DOUBLE_EQ(sf.toDouble(), 3.5);
}

TEST(TensorCore, RequiresGradFlag) {
  Tensor x = zeros({2});
  EXPECT_FALSE(x.requires_grad());
  x.requires_grad_();
  EXPECT_TRUE(x.requires_grad());
  x.requires_grad_(false);
  EXPECT_FALSE(x.requires_grad());
  EXPECT_TRUE(zeros({2}, TensorOptions().dtype(kFloat64).requires_grad(true)).requires_grad());
}

TEST(TensorCore, EqualAndAllclose) {
  Tensor a = tensor({1.0f, 2.0f, 3.0f});
  EXPECT_TRUE(equal(a, a.clone()));
  EXPECT_FALSE(equal(a, tensor({1.0f, 2.0f, 4.0f})));
  EXPECT_FALSE(equal(a, tensor({1.0f, 2.0f})));
  EXPECT_TRUE(allclose(a, a + 1e-7));
  EXPECT_FALSE(allclose(a, a + 1e-3));
  EXPECT_TRUE(allclose(a, a + 1e-3, /*rtol=*/0, /*atol=*/1e-2));
}

// ---- type promotion: every result dtype comes from torch.result_type (tests/data) ----

struct PromotionCase {
  bool scalar;         // tensor op Python scalar
  std::string a, b;    // dtype names; b is the scalar kind (bool/int/float) when scalar
  int adim, bdim;      // 1: shape [2]; 0: 0-dim
  std::string result;  // dtype name
};

std::vector<PromotionCase> load_promotion_table() {
  std::ifstream in(std::string(EMBER_TEST_DATA_DIR) + "/result_type.txt");
  EXPECT_TRUE(in.good()) << "tests/data/result_type.txt is missing";
  std::vector<PromotionCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string kind;
    PromotionCase c{};
    ls >> kind;
    if (kind == "tt") {
      ls >> c.a >> c.adim >> c.b >> c.bdim >> c.result;
    } else {
      c.scalar = true;
      ls >> c.a >> c.adim >> c.b >> c.result;
    }
    cases.push_back(c);
  }
  return cases;
}

ScalarType dtype_from(const std::string& n) {
  for (ScalarType t : ref::all_dtypes())
    if (ref::name(t) == n) return t;
  ADD_FAILURE() << "unknown dtype " << n;
  return kFloat32;
}

Tensor promo_operand(ScalarType dt, int ndim) {
  return ndim ? ones({2}, dt) : scalar_tensor(1, dt);
}

TEST(TypePromotion, MatchesTorchResultType) {
  std::vector<PromotionCase> cases = load_promotion_table();
  ASSERT_EQ(cases.size(), 6u * 6u * 4u + 6u * 2u * 3u);
  for (const PromotionCase& c : cases) {
    Tensor a = promo_operand(dtype_from(c.a), c.adim);
    ScalarType want = dtype_from(c.result);
    std::string what = c.a + (c.adim ? "[2]" : "[]") + " op " + c.b +
                       (c.scalar ? " scalar"
                        : c.bdim ? "[2]"
                                 : "[]");
    if (!c.scalar) {
      Tensor b = promo_operand(dtype_from(c.b), c.bdim);
      EXPECT_EQ(ref::name(ref::result_type(a, b)), c.result) << "tests' own helper " << what;
      EXPECT_EQ(ref::name((a * b).dtype()), c.result) << "mul " << what;
      EXPECT_EQ(ref::name(add(a, b).dtype()), c.result) << "add " << what;
      EXPECT_EQ(ref::name(maximum(a, b).dtype()), c.result) << "maximum " << what;
      EXPECT_EQ(ref::name(where(ones({2}, kBool), a, b).dtype()), c.result) << "where " << what;
      EXPECT_EQ(ref::name((b * a).dtype()), c.result) << "mul, swapped, " << what;
      EXPECT_EQ((a == b).dtype(), kBool) << what;
      // the values are computed in the promoted type: 1 * 1 == 1 whatever the type
      EXPECT_DOUBLE_EQ(ref::values(a * b)[0], 1.0) << what;
    } else {
      Scalar s = c.b == "bool" ? Scalar(true) : c.b == "int" ? Scalar(2) : Scalar(2.5);
      double sv = c.b == "bool" ? 1 : c.b == "int" ? 2 : 2.5;
      Tensor r = a * s;
      EXPECT_EQ(ref::name(r.dtype()), c.result) << "mul " << what;
      EXPECT_EQ(ref::name((s * a).dtype()), c.result) << "scalar * tensor " << what;
      EXPECT_EQ(ref::name(add(a, s).dtype()), c.result) << "add " << what;
      EXPECT_DOUBLE_EQ(ref::values(r)[0], ref::cast_to(want, sv)) << what;
    }
  }
}

TEST(TypePromotion, DivisionAndFloatFunctionsOfIntegers) {
  // true division and float-only functions compute int/bool inputs in float32 (PyTorch rules)
  for (ScalarType dt : {kInt32, kInt64, kUInt8, kBool}) {
    Tensor a = ones({2}, dt);
    EXPECT_EQ((a / a).dtype(), kFloat32) << ref::name(dt);
    EXPECT_EQ((a / 2).dtype(), kFloat32) << ref::name(dt);
    EXPECT_EQ(exp(a).dtype(), kFloat32) << ref::name(dt);
    EXPECT_EQ(sqrt(a).dtype(), kFloat32) << ref::name(dt);
    EXPECT_EQ(sigmoid(a).dtype(), kFloat32) << ref::name(dt);
  }
  EXPECT_EQ((ones({2}, kInt32) / ones({2}, kFloat64)).dtype(), kFloat64);
  EXPECT_EQ(exp(ones({2}, kFloat64)).dtype(), kFloat64);
  EXPECT_TRUE(ref::matches(tensor({int64_t(7), int64_t(-7)}) / 2, kFloat32, {2}, {3.5, -3.5}));
}

// ---- threads: the count is settable and does not change results ----

// A thread count past the pool's limit, or not positive, is refused with an ember::Error that
// names set_num_threads and the count; the setting stays as it was.
TEST(Threads, TooManyOrTooFewAreRefused) {
  const int n0 = get_num_threads();
  for (int n : {100000, 1025, 0, -3}) {
    try {
      set_num_threads(n);
      ADD_FAILURE() << "set_num_threads(" << n << ") did not throw";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("set_num_threads"));
      EXPECT_THAT(e.what(), ::testing::HasSubstr(std::to_string(n)));
    }
    EXPECT_EQ(get_num_threads(), n0);
  }
  const int64_t n = 1 << 20;  // the pool still runs large ops
  EXPECT_EQ(arange(0, n, TensorOptions().dtype(kInt64)).sum().item<int64_t>(), n * (n - 1) / 2);
}

TEST(Threads, SetGetAndSameResults) {
  const int n0 = get_num_threads();
  EXPECT_GE(n0, 1);
  manual_seed(3);
  Tensor a = randn({1 << 20}), b = randn({1 << 20});
  Tensor ma = randn({256, 300}), mb = randn({300, 200});
  auto run = [&] {
    return std::make_tuple(a * b + 1, (a * b).sum(), matmul(ma, mb), exp(a).amax({0}),
                           softmax(ma, 1));
  };
  auto many = run();
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  auto one = run();
  set_num_threads(n0);
  EXPECT_EQ(get_num_threads(), n0);
  // compared with the tests' own loops, not ember's equal/allclose (which reduce in parallel)
  auto close = [](const Tensor& x, const Tensor& y, double rtol) {
    std::vector<double> u = ref::values(x), v = ref::values(y);
    return ref::matches(x, y.dtype(), ref::shape_of(y), v, rtol, rtol) && u.size() == v.size();
  };
  EXPECT_TRUE(close(std::get<0>(many), std::get<0>(one), 0)) << "elementwise is exact";
  EXPECT_TRUE(close(std::get<1>(many), std::get<1>(one), 1e-4));
  EXPECT_TRUE(close(std::get<2>(many), std::get<2>(one), 1e-5));
  EXPECT_TRUE(close(std::get<3>(many), std::get<3>(one), 0));
  EXPECT_TRUE(close(std::get<4>(many), std::get<4>(one), 1e-6));
}

TEST(Threads, AllAnyEqualWithManyThreads) {
  // long single-row reductions are split into blocks across threads; with many threads the
  // per-block results must not interfere (this failed on a 16-core machine)
  const int n0 = get_num_threads();
  Tensor t = ones({1 << 21}, kBool), f = zeros({1 << 21}, kBool);
  Tensor x = arange(1 << 21, kFloat32);
  for (int n : {1, 2, 3, 8, 16, 32}) {
    set_num_threads(n);
    for (int rep = 0; rep < 5; ++rep) {
      EXPECT_TRUE(t.all().item<bool>()) << n << " threads";
      EXPECT_FALSE(f.any().item<bool>()) << n << " threads";
      EXPECT_TRUE(equal(x, x.clone())) << n << " threads";
      EXPECT_TRUE(allclose(x, x + 0.0)) << n << " threads";
    }
  }
  set_num_threads(n0);
}

// ---- every op in core/ops.def has a CPU kernel ----

TEST(Dispatcher, EveryOpHasACpuKernel) {
  init_backends();
  ASSERT_GT(kNumOps, 0);
  for (int i = 0; i < kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    EXPECT_TRUE(has_kernel(op, kCPU)) << "no CPU kernel for op " << op_name(op);
  }
  EXPECT_STREQ(op_name(Op::add), "add");
  EXPECT_STREQ(op_name(Op::scatter_add), "scatter_add");
}

}  // namespace

// Shapes past DimVector's 8 inline slots live on the heap: growing into it, copying,
// shrinking back, and ops over 9-D and 10-D tensors against naive sums.
TEST(TensorCore, MoreThanEightDims) {
  DimVector v;
  for (int64_t i = 0; i < 12; ++i) v.push_back(i + 1);
  ASSERT_EQ(v.size(), 12u);
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(v[i], i + 1);
  DimVector copy = v;
  copy.resize(3);
  EXPECT_EQ(copy.vec(), (std::vector<int64_t>{1, 2, 3}));
  copy.resize(10);
  EXPECT_EQ(copy[9], 0);

  const std::vector<int64_t> shape = {2, 3, 2, 3, 2, 3, 2, 3, 2};
  Tensor a = ember::randn(shape, ember::kFloat64), b = ember::randn(shape, ember::kFloat64);
  EXPECT_EQ(a.dim(), 9);
  const std::vector<double> va = ref::values(a), vb = ref::values(b);
  double want = 0;
  for (size_t i = 0; i < va.size(); ++i) want += va[i] + vb[i];
  EXPECT_NEAR((a + b).sum().item<double>(), want, 1e-9);
  std::vector<int64_t> rev = {8, 7, 6, 5, 4, 3, 2, 1, 0};
  EXPECT_NEAR((a.permute(rev) + b.permute(rev)).sum().item<double>(), want, 1e-9);
  Tensor c = a.unsqueeze(0).unsqueeze(5);  // 11 dims
  EXPECT_EQ(c.dim(), 11);
  EXPECT_NEAR(c.abs().sum({1, 3}).sum().item<double>(), a.abs().sum().item<double>(), 1e-9);
}
