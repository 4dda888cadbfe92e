// Harness of the CPU/CUDA parity sweep (test_cuda_parity, in the spirit of ggml's
// test-backend-ops): every input is built twice with the same values and strides (one base
// tensor per device, then the same view ops), the public front-end runs on both, and the
// results are compared with per-dtype tolerances. NaN matches NaN; errors must match too.
#pragma once

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "reference.h"

namespace parity {

using ember::Scalar;
using ember::ScalarType;
using ember::Tensor;
using Shape = std::vector<int64_t>;
using Tensors = std::vector<Tensor>;

// EMBER_PARITY_SMALL=1 drops the large shapes (for compute-sanitizer runs, ~100x slower).
inline bool small_mode() {
  const char* s = std::getenv("EMBER_PARITY_SMALL");
  return s != nullptr && *s != '\0' && *s != '0';
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 gen(20241129);
  return gen;
}

// ---- tolerances: integer and bool outputs are always compared exactly ----
struct Tol {
  double rtol32 = 0, atol32 = 0, rtol64 = 0, atol64 = 0;
  bool relative_to_max = false;  // atol scales with the largest |value| (GEMM, normwise)
};
inline Tol exact() { return {}; }
inline Tol elementwise_tol() { return {1e-5, 1e-5, 1e-12, 1e-12}; }
// Summation order differs between the backends: the error grows like sqrt(n) for n terms.
inline Tol reduce_tol(int64_t n) {
  const double s = std::sqrt(static_cast<double>(n < 1 ? 1 : n));
  return {1e-4, 1e-5 * s + 1e-5, 1e-10, 1e-12 * s + 1e-12};
}
// Products: each factor's rounding adds to the relative error, in a different order on each
// device (seen: 1.06e-4 apart over 67,000 float32 factors near 1).
inline Tol prod_tol(int64_t n) {
  const double s = std::sqrt(static_cast<double>(n < 1 ? 1 : n));
  return {1e-6 * s + 1e-4, 1e-5 * s + 1e-5, 1e-10, 1e-12 * s + 1e-12};
}
inline Tol gemm_tol() { return {1e-4, 1e-4, 1e-10, 1e-10, true}; }

// ---- values ----
enum class Domain {
  kAny,            // floats in [-3, 3], signed ints in [-9, 9], uint8 in [0, 255] (wraps), bool
  kPositive,       // floats in [0.1, 4], ints in [1, 9]
  kAboveMinus1,    // log1p: floats in [-0.9, 3], ints in [0, 9]
  kExponent,       // pow exponents: floats in [-2, 2], ints in [0, 4]
  kNearOne,        // prod: floats in [0.98, 1.02] (no overflow whatever the order of
                   // 67,000 factors), ints in [-2, 2] (uint8 [0, 2])
  kWide,           // softmax: floats in [-60, 60]
  kSpecial,        // floats mixed with 0, -0, +-inf, NaN, denormals; ints as kAny
  kSpecialNoTiny,  // kSpecial without the tiny values, for products: tiny * tiny underflows
                   // to 0 and 0 * inf is NaN, so with them the result depends on the order
  kMostlyTrue,     // all(): nonzero but for ~3% zeros
  kMostlyFalse,    // any(): zero but for ~3% ones
};

double draw(ScalarType t, Domain d);
// A test domain given as a range (core/elementwise.def's rows): floats uniform in [lo, hi),
// integers uniform over the whole numbers in it (uint8: the nonnegative ones), bools either.
struct Range {
  double lo, hi;
};
double draw(ScalarType t, Range r);

// ---- layouts: how the tested view is made from a base tensor ----
enum class Layout {
  kContiguous,
  kTransposed,  // last two dims swapped
  kStepped,     // last dim sliced with step 2 from offset 1
  kOffset,      // first dim narrowed from 2 (a storage offset)
  kBroadcast,   // first dim expanded from 1 (stride 0; read-only)
  kPermuted,    // all dims reversed
  kScalarView,  // a 0-dim select of a [3] base (offset 1)
};
const char* layout_name(Layout l);
constexpr int64_t kLarge = 10000;  // above this many elements, fewer layouts and scalars
// The layouts worth testing for shape s (writable: no broadcast, for in-place outputs).
std::vector<Layout> layouts_for(const Shape& s, bool writable);

// The shapes every elementwise sweep runs over (0-dim, size-1 and empty dims, odd and
// large sizes, 9 dims); the large ones are left out in small mode.
const std::vector<Shape>& shapes();

// One input on both devices: the view and the base it was made from (in-place ops
// compare the base to catch writes outside the view).
struct Pair {
  Tensor cpu, gpu;
  Tensor cpu_base, gpu_base;
};
Pair make_pair(const Shape& s, ScalarType t, Layout l, Domain d = Domain::kAny);
Pair make_pair(const Shape& s, ScalarType t, Layout l, Range r);
// A CPU tensor of the given values (any shape, dtype) and its copy on the GPU.
Pair from_values(const std::vector<double>& values, const Shape& s, ScalarType t);
// int64 index values in [0, bound) of shape s.
Pair index_pair(const Shape& s, int64_t bound);

std::string label(const std::string& op, const Shape& s, ScalarType t, Layout l);

// ---- comparing ----
// want: the CPU result; got: the CUDA one (on_cuda: it must live on the GPU).
::testing::AssertionResult same_values(const Tensor& want, const Tensor& got, const Tol& tol,
                                       bool on_cuda = true);

using Fn = std::function<Tensors(const Tensors&)>;

// Runs one op over many cases and checks that at least one case compared results (so an
// op whose every case throws on both devices is caught).
class Sweep {
 public:
  explicit Sweep(std::string op) : op_(std::move(op)) {}
  ~Sweep();
  Sweep(const Sweep&) = delete;
  Sweep& operator=(const Sweep&) = delete;

  // Runs fn on the CPU inputs and on the CUDA ones; if the CPU throws, CUDA must throw too.
  void run(const std::string& what, const Fn& fn, const Tensors& cpu, const Tensors& gpu,
           const Tol& tol);
  // The same for one-output functions of the views of `pairs`.
  void run(const std::string& what, const std::function<Tensor(const Tensors&)>& fn,
           const std::vector<Pair>& pairs, const Tol& tol);
  int compared() const { return compared_; }

 private:
  std::string op_;
  int compared_ = 0;
};

// ---- the op table: every op of core/ops.def maps to a sweep ----
using CaseFn = std::function<void()>;
using CaseList = std::vector<std::pair<std::string, CaseFn>>;
CaseList elementwise_cases();     // test_cuda_parity.cpp: unary, binary, scalar, memory, random
CaseList other_cases();           // test_cuda_parity_more.cpp: reductions, GEMM, softmax, index
CaseList conv_cases_list();       // test_cuda_parity_conv.cpp: convolution and pooling
CaseList indexing_cases();        // test_cuda_parity_indexing.cpp: index/index_put_, masks, nonzero
CaseList sort_cases();            // test_cuda_parity_sort.cpp: sort, topk, kthvalue, scans
CaseList shape_cases();           // test_cuda_parity_shape.cpp: flip, roll, tril, repeat, ...
CaseList linalg_scatter_cases();  // test_cuda_parity_linalg.cpp: dot, einsum, scatter, unique
CaseList random_more_cases();     // test_cuda_parity_random.cpp: bernoulli, multinomial, ...

// Skips the calling test without a GPU.
#define PARITY_REQUIRE_GPU() \
  if (!ember::cuda::is_available()) GTEST_SKIP() << "no CUDA device: parity sweep skipped"

}  // namespace parity
