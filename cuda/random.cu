// CUDA random kernels (uniform, normal, randint) over the counter-based Philox stream.
// They follow the scheme at the top of core/generator.h exactly, so they draw the CPU's numbers.
#include <cuda_runtime.h>

#include <cstdint>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/generator.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/launch.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 4096;  // several waves on an H200; grid-stride does the rest

// One thread per counter: counter offset + c yields the elements [c * kPerCounter,
// (c + 1) * kPerCounter) of contiguous out through gen(words, values), as the CPU's
// philox_fill does, so the numbers depend on (seed, offset) only.
template <class T, int kPerCounter, class Gen>
__global__ void philox_kernel(T* out, int64_t numel, uint64_t seed, uint64_t offset, Gen gen) {
  const int64_t ncounters = (numel + kPerCounter - 1) / kPerCounter;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < ncounters;
       c += int64_t(blockDim.x) * gridDim.x) {
    T values[kPerCounter];
    gen(philox4x32(seed, offset + static_cast<uint64_t>(c)), values);
    const int64_t first = c * kPerCounter;
#pragma unroll
    for (int j = 0; j < kPerCounter; ++j) {
      if (first + j < numel) out[first + j] = values[j];
    }
  }
}

// The float maths below spell out the fused multiply-adds that the CPU build (GCC,
// -march=native, which contracts a + b * c) performs, so that uniform values match bit for
// bit; nvcc would contract them too, but explicit fmaf/fma does not depend on it.

// [lo, lo + range): one word per float32.
struct UniformFloat {
  float lo, range;
  __device__ void operator()(const Philox4& w, float* v) const {
#pragma unroll
    for (int j = 0; j < 4; ++j) v[j] = fmaf(range, uint_to_unit_float(w.v[j]), lo);
  }
};

// Two words per float64.
struct UniformDouble {
  double lo, range;
  __device__ void operator()(const Philox4& w, double* v) const {
#pragma unroll
    for (int j = 0; j < 2; ++j)
      v[j] = fma(range, uints_to_unit_double(w.v[2 * j], w.v[2 * j + 1]), lo);
  }
};

// Box-Muller on (u1, u2) into two consecutive elements; 1 - u1 lies in (0, 1], so the log is
// finite. float32 maths for float, double maths for double, as on the CPU.
__device__ void box_muller(float u1, float u2, float mean, float stddev, float* pair) {
  const float r = sqrtf(-2.0f * logf(1.0f - u1));
  const float theta = static_cast<float>(2.0 * M_PI) * u2;
  float s, c;
  sincosf(theta, &s, &c);
  pair[0] = fmaf(stddev, __fmul_rn(r, c), mean);
  pair[1] = fmaf(stddev, __fmul_rn(r, s), mean);
}

__device__ void box_muller(double u1, double u2, double mean, double stddev, double* pair) {
  const double r = sqrt(-2.0 * log(1.0 - u1));
  const double theta = 2.0 * M_PI * u2;
  double s, c;
  sincos(theta, &s, &c);
  pair[0] = fma(stddev, __dmul_rn(r, c), mean);
  pair[1] = fma(stddev, __dmul_rn(r, s), mean);
}

// float32: two pairs per counter (words 0-1, then 2-3).
struct NormalFloat {
  float mean, stddev;
  __device__ void operator()(const Philox4& w, float* v) const {
    box_muller(uint_to_unit_float(w.v[0]), uint_to_unit_float(w.v[1]), mean, stddev, v);
    box_muller(uint_to_unit_float(w.v[2]), uint_to_unit_float(w.v[3]), mean, stddev, v + 2);
  }
};

// float64: one pair per counter, two words per uniform.
struct NormalDouble {
  double mean, stddev;
  __device__ void operator()(const Philox4& w, double* v) const {
    box_muller(uints_to_unit_double(w.v[0], w.v[1]), uints_to_unit_double(w.v[2], w.v[3]), mean,
               stddev, v);
  }
};

// [low, low + range), 64 random bits per element, converted to T as the CPU does.
template <class T>
struct Randint {
  int64_t low;
  uint64_t range;
  __device__ void operator()(const Philox4& w, T* v) const {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const uint64_t bits = (static_cast<uint64_t>(w.v[2 * j]) << 32) | w.v[2 * j + 1];
      // Unsigned arithmetic: wraps instead of overflowing when the range spans all of int64.
      v[j] = static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + bits % range));
    }
  }
};

// Fills out in row-major element order: directly when contiguous, else through a contiguous
// temporary copied into the view (the element numbering is logical, not by storage).
template <class T, int kPerCounter, class Gen>
void philox_fill(const char* name, const Tensor& out, uint64_t seed, uint64_t offset,
                 const Gen& gen) {
  const int64_t numel = out.numel();
  if (numel == 0) return;
  DeviceGuard guard(out.device().index());
  const Tensor target =
      out.is_contiguous() ? out : empty_on(out.sizes(), out.dtype(), out.device());
  const int64_t ncounters = (numel + kPerCounter - 1) / kPerCounter;
  philox_kernel<T, kPerCounter, Gen>
      <<<grid_blocks(ncounters, kBlock, kMaxBlocks), kBlock, 0, current_stream()>>>(
          target.data_ptr<T>(), numel, seed, offset, gen);
  EMBER_CUDA_KERNEL_CHECK(name);
  if (!out.is_contiguous()) kernel<Op::copy>(kCUDA)(out, target, false);
}

// [a, b): float32 uses one word per element, float64 two.
void uniform_kernel(const Tensor& out, uint64_t seed, uint64_t offset, const Scalar& a,
                    const Scalar& b) {
  if (out.dtype() == kFloat32) {
    const float lo = a.to<float>(), range = b.to<float>() - lo;
    philox_fill<float, 4>("uniform", out, seed, offset, UniformFloat{lo, range});
  } else if (out.dtype() == kFloat64) {
    const double lo = a.to<double>(), range = b.to<double>() - lo;
    philox_fill<double, 2>("uniform", out, seed, offset, UniformDouble{lo, range});
  } else {
    EMBER_THROW("uniform: dtype ", out.dtype(), " is not supported (needs float32 or float64)");
  }
}

// a = mean, b = std. float32: two pairs per counter; float64: one pair per counter.
void normal_kernel(const Tensor& out, uint64_t seed, uint64_t offset, const Scalar& a,
                   const Scalar& b) {
  if (out.dtype() == kFloat32) {
    philox_fill<float, 4>("normal", out, seed, offset, NormalFloat{a.to<float>(), b.to<float>()});
  } else if (out.dtype() == kFloat64) {
    philox_fill<double, 2>("normal", out, seed, offset,
                           NormalDouble{a.to<double>(), b.to<double>()});
  } else {
    EMBER_THROW("normal: dtype ", out.dtype(), " is not supported (needs float32 or float64)");
  }
}

// [a, b) with b > a, two words (64 bits) per element, any dtype.
void randint_kernel(const Tensor& out, uint64_t seed, uint64_t offset, const Scalar& a,
                    const Scalar& b) {
  const int64_t low = a.to<int64_t>();
  EMBER_CHECK(b.to<int64_t>() > low, "randint: expected low < high, got [", low, ", ",
              b.to<int64_t>(), ")");
  const uint64_t range = static_cast<uint64_t>(b.to<int64_t>()) - static_cast<uint64_t>(low);
  EMBER_DISPATCH_ALL_TYPES(out.dtype(), "randint", [&] {
    philox_fill<scalar_t, 2>("randint", out, seed, offset, Randint<scalar_t>{low, range});
  });
}

}  // namespace

void register_random_kernels() {
  register_kernel<Op::uniform>(kCUDA, &uniform_kernel);
  register_kernel<Op::normal>(kCUDA, &normal_kernel);
  register_kernel<Op::randint>(kCUDA, &randint_kernel);
}

}  // namespace cuda
}  // namespace ember
