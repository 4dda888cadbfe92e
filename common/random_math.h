// randint and random_from_to, written once for the CPU loop (cpu/random.cpp) and the CUDA
// kernel (cuda/random.cu): each element low + (64 random bits mod range), so both draw the same
// values. Private to the backends (common/: compiled by g++ for cpu/ and by nvcc for cuda/).
#pragma once

#include <cstdint>

#include <ember/core/error.h>
#include <ember/core/host_device.h>
#include <ember/core/scalar.h>
#include <ember/core/tensor.h>

namespace ember {
namespace common {

// low + (bits mod range) for the 64 random bits hi:lo; range 0 stands for all 2^64 values.
// Unsigned arithmetic: wraps instead of overflowing when the range spans all of int64.
EMBER_HOST_DEVICE inline int64_t random_in_range(uint32_t hi, uint32_t lo, int64_t low,
                                                 uint64_t range) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32) | lo;
  const uint64_t r = range == 0 ? bits : bits % range;
  return static_cast<int64_t>(static_cast<uint64_t>(low) + r);
}

// A backend's fill(op, out, seed, offset, low, range): every element of out (any dtype) is
// random_in_range of its two Philox words, converted to out's dtype.
using FillInRange = void (*)(const char*, const Tensor&, uint64_t, uint64_t, int64_t, uint64_t);

// The kernels each backend registers with its own fill. randint: [a, b) with b > a.
template <FillInRange kFill>
void randint_kernel(const Tensor& out, uint64_t seed, uint64_t offset, const Scalar& a,
                    const Scalar& b) {
  const int64_t low = a.to<int64_t>();
  EMBER_CHECK(b.to<int64_t>() > low, "randint: expected low < high, got [", low, ", ",
              b.to<int64_t>(), ")");
  const uint64_t range = static_cast<uint64_t>(b.to<int64_t>()) - static_cast<uint64_t>(low);
  kFill("randint", out, seed, offset, low, range);
}

// random_from_to: [a, b] (both included); b - a + 1 wrapping to 0 is all 2^64 values.
template <FillInRange kFill>
void random_from_to_kernel(const Tensor& out, uint64_t seed, uint64_t offset, const Scalar& a,
                           const Scalar& b) {
  const int64_t low = a.to<int64_t>();
  const uint64_t range = static_cast<uint64_t>(b.to<int64_t>()) - static_cast<uint64_t>(low) + 1;
  kFill("random_", out, seed, offset, low, range);
}

}  // namespace common
}  // namespace ember
