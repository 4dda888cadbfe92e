// The parity sweep's harness (declared in cuda_parity.h): random values per dtype and
// domain, the same view built on both devices, and the CPU/CUDA result comparison.
#include "cuda_parity.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>

namespace parity {

using namespace ember;

double draw(ScalarType t, Domain d) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto real = [&](double lo, double hi) { return lo + (hi - lo) * unit(rng()); };
  auto integer = [&](int64_t lo, int64_t hi) {
    return static_cast<double>(std::uniform_int_distribution<int64_t>(lo, hi)(rng()));
  };
  const bool fl = is_floating_point(t);
  const bool u8 = t == kUInt8;
  if (t == kBool) {
    if (d == Domain::kMostlyTrue) return unit(rng()) < 0.97 ? 1 : 0;
    if (d == Domain::kMostlyFalse) return unit(rng()) < 0.03 ? 1 : 0;
    return unit(rng()) < 0.5 ? 1 : 0;
  }
  switch (d) {
    case Domain::kPositive:
      return fl ? real(0.1, 4) : integer(1, 9);
    case Domain::kAboveMinus1:
      return fl ? real(-0.9, 3) : integer(0, 9);
    case Domain::kExponent:
      return fl ? real(-2, 2) : integer(0, 4);
    case Domain::kNearOne:
      return fl ? real(0.98, 1.02) : integer(u8 ? 0 : -2, 2);
    case Domain::kWide:
      return fl ? real(-60, 60) : u8 ? integer(0, 255) : integer(-100, 100);
    case Domain::kSpecial:
    case Domain::kSpecialNoTiny:
      if (fl && unit(rng()) < 0.4) {
        const double inf = std::numeric_limits<double>::infinity();
        static const double specials[] = {0.0,  -0.0, inf,  -inf,  std::nan(""), 1.0,
                                          -1.0, 0.5,  20.0, -20.0, 1e-40,        -1e-30};
        const int last = d == Domain::kSpecial ? 11 : 9;
        return specials[std::uniform_int_distribution<int>(0, last)(rng())];
      }
      break;
    case Domain::kMostlyTrue:
      return unit(rng()) < 0.03 ? 0 : (fl ? real(0.5, 2) : integer(1, 9));
    case Domain::kMostlyFalse:
      return unit(rng()) < 0.97 ? 0 : 1;
    case Domain::kAny:
      break;
  }
  return fl ? real(-3, 3) : u8 ? integer(0, 255) : integer(-9, 9);
}

double draw(ScalarType t, Range r) {
  if (t == kBool) return std::uniform_int_distribution<int>(0, 1)(rng());
  if (is_floating_point(t)) return std::uniform_real_distribution<double>(r.lo, r.hi)(rng());
  const int64_t lo = static_cast<int64_t>(std::ceil(t == kUInt8 ? std::max(r.lo, 0.0) : r.lo));
  const int64_t hi = std::max<int64_t>(lo, static_cast<int64_t>(std::ceil(r.hi)) - 1);
  return static_cast<double>(std::uniform_int_distribution<int64_t>(lo, hi)(rng()));
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::kContiguous:
      return "contiguous";
    case Layout::kTransposed:
      return "transposed";
    case Layout::kStepped:
      return "stepped";
    case Layout::kOffset:
      return "offset";
    case Layout::kBroadcast:
      return "broadcast";
    case Layout::kPermuted:
      return "permuted";
    case Layout::kScalarView:
      return "0-dim view";
  }
  return "?";
}

std::vector<Layout> layouts_for(const Shape& s, bool writable) {
  if (s.empty()) return {Layout::kContiguous, Layout::kScalarView};
  if (ref::numel(s) > kLarge) {  // large: the vector path, one strided path, one broadcast
    std::vector<Layout> v = {Layout::kContiguous, Layout::kStepped};
    if (!writable && s[0] != 1) v.push_back(Layout::kBroadcast);
    return v;
  }
  std::vector<Layout> v = {Layout::kContiguous, Layout::kStepped, Layout::kOffset};
  if (s.size() >= 2) v.push_back(Layout::kTransposed);
  if (s.size() >= 3) v.push_back(Layout::kPermuted);
  if (!writable && s[0] != 1) v.push_back(Layout::kBroadcast);
  return v;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all = [] {
    std::vector<Shape> v = {{},
                            {1},
                            {0},
                            {5},
                            {1, 1},
                            {3, 0},
                            {2, 3},
                            {4, 1, 3},
                            {2, 3, 4},
                            {2, 1, 3, 2},
                            {33},
                            {7, 9, 5},
                            {2, 3, 2, 3, 2, 3, 2, 3, 2}};
    if (!small_mode()) {
      v.push_back({1000, 67});          // odd rows: the vector path's tails
      v.push_back({int64_t(1) << 17});  // 16-byte aligned, a multiple of 4
    }
    return v;
  }();
  return all;
}

namespace {

struct View {
  Shape base;
  std::function<Tensor(const Tensor&)> apply;
};

View view_for(const Shape& s, Layout l) {
  const int64_t n = static_cast<int64_t>(s.size());
  Shape b = s;
  switch (l) {
    case Layout::kContiguous:
      return {b, [](const Tensor& t) { return t; }};
    case Layout::kTransposed:
      std::swap(b[n - 1], b[n - 2]);
      return {b, [](const Tensor& t) { return t.transpose(-1, -2); }};
    case Layout::kStepped: {
      const int64_t last = s[n - 1];
      b[n - 1] = 2 * last + 1;
      return {b, [n, last](const Tensor& t) { return t.slice(n - 1, 1, 1 + 2 * last, 2); }};
    }
    case Layout::kOffset: {
      const int64_t first = s[0];
      b[0] += 2;
      return {b, [first](const Tensor& t) { return t.narrow(0, 2, first); }};
    }
    case Layout::kBroadcast:
      b[0] = 1;
      return {b, [s](const Tensor& t) { return t.expand(s); }};
    case Layout::kPermuted: {
      std::reverse(b.begin(), b.end());
      Shape perm(s.size());
      for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
      return {b, [perm](const Tensor& t) { return t.permute(perm); }};
    }
    case Layout::kScalarView:
      return {{3}, [](const Tensor& t) { return t.select(0, 1); }};
  }
  return {b, [](const Tensor& t) { return t; }};
}

Tensor host_tensor(const std::vector<double>& values, const Shape& s, ScalarType t) {
  return ember::tensor(values, kFloat64).to(t).reshape(s);
}

}  // namespace

namespace {
template <class D>
Pair make_pair_over(const Shape& s, ScalarType t, Layout l, D d) {
  const View v = view_for(s, l);
  std::vector<double> values(static_cast<size_t>(ref::numel(v.base)));
  for (double& x : values) x = draw(t, d);
  Pair p;
  p.cpu_base = host_tensor(values, v.base, t);
  p.gpu_base = p.cpu_base.to(kCUDA);
  p.cpu = v.apply(p.cpu_base);
  p.gpu = v.apply(p.gpu_base);
  return p;
}
}  // namespace

Pair make_pair(const Shape& s, ScalarType t, Layout l, Domain d) {
  return make_pair_over(s, t, l, d);
}
Pair make_pair(const Shape& s, ScalarType t, Layout l, Range r) {
  return make_pair_over(s, t, l, r);
}

Pair from_values(const std::vector<double>& values, const Shape& s, ScalarType t) {
  Pair p;
  p.cpu = p.cpu_base = host_tensor(values, s, t);
  p.gpu = p.gpu_base = p.cpu.to(kCUDA);
  return p;
}

Pair index_pair(const Shape& s, int64_t bound) {
  std::vector<double> values(static_cast<size_t>(ref::numel(s)));
  for (double& x : values) {
    x = static_cast<double>(std::uniform_int_distribution<int64_t>(0, bound - 1)(rng()));
  }
  return from_values(values, s, kInt64);
}

std::string label(const std::string& op, const Shape& s, ScalarType t, Layout l) {
  return op + " " + dtype_name(t) + " " + ref::str(s) + " " + layout_name(l);
}

::testing::AssertionResult same_values(const Tensor& want, const Tensor& got, const Tol& tol,
                                       bool on_cuda) {
  if (!got.defined() || !want.defined()) {
    if (got.defined() == want.defined()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "one result is undefined";
  }
  if (on_cuda && !got.is_cuda()) {
    return ::testing::AssertionFailure() << "the CUDA result lives on " << got.device();
  }
  if (want.dtype() != got.dtype()) {
    return ::testing::AssertionFailure()
           << "dtype " << got.dtype() << " where the CPU gives " << want.dtype();
  }
  if (!want.sizes().equals(got.sizes())) {
    return ::testing::AssertionFailure()
           << "shape " << ref::str(ref::shape_of(got)) << " where the CPU gives "
           << ref::str(ref::shape_of(want));
  }
  const Tensor host = got.cpu();
  const Shape shape = ref::shape_of(want);
  // Read both as one wide dtype, contiguous (the CPU's conversions are the reference).
  auto read = [](const Tensor& t, ScalarType wide, auto zero) {
    const Tensor c = t.to(wide).contiguous();
    using T = decltype(zero);
    const T* p = c.numel() ? c.data_ptr<T>() : nullptr;
    return std::vector<T>(p, p + c.numel());
  };
  std::ostringstream msg;
  msg << std::setprecision(17);
  int64_t bad = 0;
  auto report = [&](int64_t k, auto a, auto b) {
    if (++bad <= 5)
      msg << "\n  at " << ref::str(ref::unravel(k, shape)) << ": cpu " << a << ", cuda " << b;
  };
  if (!is_floating_point(want.dtype())) {
    const auto a = read(want, kInt64, int64_t{});
    const auto b = read(host, kInt64, int64_t{});
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] != b[k]) report(static_cast<int64_t>(k), a[k], b[k]);
    }
  } else {
    const auto a = read(want, kFloat64, double{});
    const auto b = read(host, kFloat64, double{});
    const bool f32 = want.dtype() == kFloat32;
    const double rtol = f32 ? tol.rtol32 : tol.rtol64;
    double atol = f32 ? tol.atol32 : tol.atol64;
    if (tol.relative_to_max) {
      double m = 1;
      for (double x : a) {
        if (std::isfinite(x)) m = std::max(m, std::fabs(x));
      }
      atol *= m;
    }
    for (size_t k = 0; k < a.size(); ++k) {
      const double x = a[k], y = b[k];
      const bool ok =
          (std::isnan(x) && std::isnan(y)) || x == y ||
          (std::isfinite(x) && std::isfinite(y) && std::fabs(x - y) <= atol + rtol * std::fabs(x));
      if (!ok) report(static_cast<int64_t>(k), x, y);
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << want.numel() << " values differ" << msg.str();
}

namespace {

struct Outcome {
  Tensors out;
  std::string error;
};

Outcome attempt(const Fn& fn, const Tensors& in) {
  try {
    return {fn(in), ""};
  } catch (const std::exception& e) {
    return {{}, e.what()};
  }
}

}  // namespace

Sweep::~Sweep() {
  EXPECT_GT(compared_, 0) << op_ << ": no case compared a result (every case threw)";
}

void Sweep::run(const std::string& what, const Fn& fn, const Tensors& cpu, const Tensors& gpu,
                const Tol& tol) {
  SCOPED_TRACE(what);
  const Outcome want = attempt(fn, cpu);
  const Outcome got = attempt(fn, gpu);
  if (!want.error.empty()) {
    EXPECT_FALSE(got.error.empty())
        << "the CPU throws (" << want.error << ") but CUDA returns a result";
    return;
  }
  if (!got.error.empty()) {
    ADD_FAILURE() << "CUDA throws where the CPU does not: " << got.error;
    return;
  }
  ASSERT_EQ(want.out.size(), got.out.size());
  try {  // reading the result back synchronizes: an asynchronous fault surfaces here
    for (size_t i = 0; i < want.out.size(); ++i) {
      EXPECT_TRUE(same_values(want.out[i], got.out[i], tol)) << "output " << i;
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "reading the CUDA result failed: " << e.what();
    return;
  }
  ++compared_;
}

void Sweep::run(const std::string& what, const std::function<Tensor(const Tensors&)>& fn,
                const std::vector<Pair>& pairs, const Tol& tol) {
  Tensors cpu, gpu;
  for (const Pair& p : pairs) {
    cpu.push_back(p.cpu);
    gpu.push_back(p.gpu);
  }
  run(
      what, [&](const Tensors& in) { return Tensors{fn(in)}; }, cpu, gpu, tol);
}

}  // namespace parity
