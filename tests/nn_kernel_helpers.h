// Shared by the CPU conv and pool kernel tests (test_nn_conv_kernels.cpp,
// test_nn_pool_kernels.cpp): tensors filled from double values (rounded to the dtype as stored),
// outputs pre-filled with NaN so that an element a kernel leaves unwritten fails, and a
// tolerance check scaled by the magnitude of the terms summed.
#pragma once

#include <ember/core/dispatch.h>
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kernel_test {

using ember::ConvArgs;
using ember::kCPU;
using ember::Op;
using ember::PoolArgs;
using ember::ScalarType;
using ember::Tensor;
using Shape = std::vector<int64_t>;
using Values = std::vector<double>;

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

inline int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// A tensor holding vals (rounded to dtype; vals is updated to what was stored). Its memory is
// malloc'ed to the exact size (the library's allocator rounds up), so that under ASan a kernel
// reading or writing past a tensor's end fails.
inline Tensor make(const Shape& shape, ScalarType dt, Values& vals) {
  const size_t bytes = static_cast<size_t>(numel(shape)) * (dt == ember::kFloat32 ? 4 : 8);
  Tensor t = ember::from_blob(std::malloc(std::max<size_t>(bytes, 1)), shape, &std::free,
                              ember::TensorOptions().dtype(dt));
  for (size_t i = 0; i < vals.size(); ++i) {
    if (dt == ember::kFloat32) {
      t.data_ptr<float>()[i] = static_cast<float>(vals[i]);
      vals[i] = static_cast<float>(vals[i]);
    } else {
      t.data_ptr<double>()[i] = vals[i];
    }
  }
  return t;
}
inline Values random_values(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Values v(static_cast<size_t>(n));
  for (double& x : v) x = u(rng);
  return v;
}
inline Tensor random(const Shape& shape, ScalarType dt, Values& vals, std::mt19937& rng) {
  vals = random_values(numel(shape), rng);
  return make(shape, dt, vals);
}
// An output the kernel must fill: NaN everywhere, so that an element left unwritten fails.
inline Tensor garbage(const Shape& shape, ScalarType dt) {
  Values v(static_cast<size_t>(numel(shape)), kNaN);
  return make(shape, dt, v);
}
inline Values read(const Tensor& t) {
  Values v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = t.dtype() == ember::kFloat32 ? t.data_ptr<float>()[i] : t.data_ptr<double>()[i];
  }
  return v;
}
inline double dot(const Values& a, const Values& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// got == ref within tol * (magnitude of the terms summed, `scale`, at least 1).
inline void expect_close(const Values& got, const Values& ref, const Values& scale, double tol,
                         const std::string& what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    const double bound = tol * std::max(1.0, scale[i]);
    if (!(std::abs(got[i] - ref[i]) <= bound)) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << ref[i];
      ++bad;
    }
  }
}

// Relative tolerance of a float32 or float64 result.
inline double tolerance(ScalarType dt) { return dt == ember::kFloat32 ? 1e-4 : 1e-10; }

}  // namespace kernel_test
