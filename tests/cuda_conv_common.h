// Helpers of test_cuda_conv (tests/test_cuda_conv.cpp, tests/test_cuda_pool.cpp): values of any
// tensor as doubles, NaN-filled outputs (so that an element a kernel forgets to write fails),
// comparisons relative to the reference's largest magnitude, bitwise equality.
#pragma once

#include <ember/core/dispatch.h>
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace conv_test {

using ember::IntArrayRef;
using ember::ScalarType;
using ember::Tensor;

// Element values in row-major order, from any device and dtype.
inline std::vector<double> values(const Tensor& t) {
  Tensor c = t.cpu().to(ember::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

inline ember::TensorOptions opts(ScalarType dtype, ember::Device device) {
  return ember::TensorOptions().dtype(dtype).device(device);
}

// Output buffers start as NaN: an element the kernel does not write shows up as NaN.
inline Tensor nan_filled(IntArrayRef sizes, ScalarType dtype, ember::Device device) {
  return ember::full(sizes, std::nan(""), opts(dtype, device));
}

inline Tensor random(IntArrayRef sizes, ScalarType dtype) {
  return ember::randn(sizes, opts(dtype, ember::kCPU));
}

// max |got - want| <= tol * max |want| (at least tol), with NaN positions equal on both sides.
inline ::testing::AssertionResult close_to(const std::vector<double>& got,
                                           const std::vector<double>& want, double tol) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "sizes differ: " << got.size() << " vs " << want.size();
  }
  double scale = 0, worst = 0;
  size_t worst_at = 0;
  for (double v : want) {
    if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
  }
  scale = std::max(scale, 1.0e-30);
  for (size_t i = 0; i < got.size(); ++i) {
    const bool gn = std::isnan(got[i]), wn = std::isnan(want[i]);
    if (gn || wn) {
      if (gn != wn) {
        return ::testing::AssertionFailure()
               << "element " << i << " of " << got.size() << ": got " << got[i] << ", want "
               << want[i] << (gn ? " (never written, or a NaN where none belongs)" : "");
      }
      continue;
    }
    if (std::isinf(got[i]) || std::isinf(want[i])) {
      if (got[i] != want[i]) {
        return ::testing::AssertionFailure()
               << "element " << i << ": got " << got[i] << ", want " << want[i];
      }
      continue;
    }
    const double d = std::fabs(got[i] - want[i]);
    if (d > worst) {
      worst = d;
      worst_at = i;
    }
  }
  if (worst > tol * scale) {
    return ::testing::AssertionFailure()
           << "max |diff| " << worst << " at element " << worst_at << " of " << got.size()
           << " (got " << got[worst_at] << ", want " << want[worst_at] << ") exceeds " << tol
           << " x max |want| " << scale << " (relative " << worst / scale << ")";
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult close_to(const Tensor& got, const std::vector<double>& want,
                                           double tol) {
  return close_to(values(got), want, tol);
}

// Bit-for-bit equal (same dtype and shape).
inline ::testing::AssertionResult same_bits(const Tensor& a, const Tensor& b) {
  Tensor ca = a.cpu().contiguous(), cb = b.cpu().contiguous();
  if (ca.dtype() != cb.dtype() || ca.numel() != cb.numel()) {
    return ::testing::AssertionFailure() << "dtype or size differs";
  }
  const auto* pa = static_cast<const unsigned char*>(ca.data_ptr());
  const auto* pb = static_cast<const unsigned char*>(cb.data_ptr());
  const size_t es = ca.element_size();
  for (int64_t i = 0; i < ca.numel(); ++i) {
    if (std::memcmp(pa + i * es, pb + i * es, es) != 0) {
      std::vector<double> va = values(ca), vb = values(cb);
      return ::testing::AssertionFailure()
             << "element " << i << " differs: " << va[static_cast<size_t>(i)] << " vs "
             << vb[static_cast<size_t>(i)];
    }
  }
  return ::testing::AssertionSuccess();
}

// Tolerance relative to the largest reference magnitude: float32 math without TF32 (cuDNN's
// FFT/Winograd algorithms included), float64.
inline double tol_for(ScalarType dtype) { return dtype == ember::kFloat64 ? 1e-10 : 1e-4; }

}  // namespace conv_test
