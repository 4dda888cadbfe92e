// CUDA random kernels (uniform, normal, randint, random_from_to, multinomial) over Philox.
// They follow the scheme at the top of core/generator.h exactly, so they draw the CPU's numbers.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include <ember/common/multinomial_math.h>
#include <ember/common/random_math.h>
#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/generator.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/capture.h>
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
// philox_fill does, so the numbers depend on (seed, offset) only. In a CUDA graph `state`
// holds the (seed, offset) each replay sets, and `offset` is relative to it.
template <class T, int kPerCounter, class Gen>
__global__ void philox_kernel(T* out, int64_t numel, uint64_t seed, uint64_t offset,
                              const uint64_t* state, Gen gen) {
  if (state != nullptr) {
    seed = state[0];
    offset += state[1];
  }
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

// [low, low + range), 64 random bits per element (common::random_in_range, as the CPU's),
// converted to T as the CPU does.
template <class T>
struct RandomInRange {
  int64_t low;
  uint64_t range;
  __device__ void operator()(const Philox4& w, T* v) const {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      v[j] = static_cast<T>(common::random_in_range(w.v[2 * j], w.v[2 * j + 1], low, range));
    }
  }
};

__global__ void write_philox_state_kernel(uint64_t* state, uint64_t seed, uint64_t offset) {
  state[0] = seed;
  state[1] = offset;
}

// multinomial's (seed, offset) are kernel arguments, which a CUDA graph would freeze: every
// replay would draw the same numbers (philox_fill reads them from the graph's state instead).
void refuse_in_capture(const char* op, int device) {
  if (!capture_underway()) return;
  const std::string what = std::string(op) + " (random numbers: each replay would repeat them)";
  check_stream_not_capturing(what.c_str(), device, peek_current_stream(device));
}

// Fills out in row-major element order: directly when contiguous, else through a contiguous
// temporary copied into the view (the element numbering is logical, not by storage).
template <class T, int kPerCounter, class Gen>
void philox_fill(const char* name, const Tensor& out, uint64_t seed, uint64_t offset,
                 const Gen& gen) {
  const int64_t numel = out.numel();
  if (numel == 0) return;
  const int device = out.device().index();
  DeviceGuard guard(device);
  const Tensor target =
      out.is_contiguous() ? out : empty_on(out.sizes(), out.dtype(), out.device());
  const int64_t ncounters = (numel + kPerCounter - 1) / kPerCounter;
  // Captured in a CUDA graph: each replay draws from the (seed, offset) it sets.
  const uint64_t* state = nullptr;
  if (capture_underway()) {
    captured_philox(device, peek_current_stream(device), static_cast<uint64_t>(ncounters), &state,
                    &offset);
  }
  philox_kernel<T, kPerCounter, Gen>
      <<<grid_blocks(ncounters, kBlock, kMaxBlocks), kBlock, 0, current_stream()>>>(
          target.data_ptr<T>(), numel, seed, offset, state, gen);
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

// [low, low + range) on out's device, any dtype.
void fill_in_range(const char* op, const Tensor& out, uint64_t seed, uint64_t offset, int64_t low,
                   uint64_t range) {
  EMBER_DISPATCH_ALL_TYPES(out.dtype(), op, [&] {
    philox_fill<scalar_t, 2>(op, out, seed, offset, RandomInRange<scalar_t>{low, range});
  });
}

// ---- multinomial: one block of kMultinomialChunks threads per row ----
constexpr int kChunks = common::kMultinomialChunks;

// The canonical cumulative sums of one row (core/generator.h), thread j summing chunk j, as the
// CPU's canonical_cdf does chunk after chunk. tot: kChunks doubles of shared memory.
template <class W>
__device__ void block_cdf(const W* w, double* cdf, int64_t c, double* tot) {
  const int64_t len = common::multinomial_chunk_len(c);
  const int64_t first = static_cast<int64_t>(threadIdx.x) * len;
  const int64_t begin = first < c ? first : c;
  const int64_t end = begin + len < c ? begin + len : c;
  double s = 0;
  for (int64_t k = begin; k < end; ++k) s = __dadd_rn(s, common::multinomial_weight(w[k]));
  tot[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double pre = 0;
    for (int j = 0; j < kChunks; ++j) {
      const double t = tot[j];
      tot[j] = pre;
      pre = __dadd_rn(pre, t);
    }
  }
  __syncthreads();
  const double pre = tot[threadIdx.x];
  s = 0;
  for (int64_t k = begin; k < end; ++k) {
    s = __dadd_rn(s, common::multinomial_weight(w[k]));
    cdf[k] = __dadd_rn(pre, s);
  }
  __syncthreads();
}

// One cdf per row (with replacement, or a single sample), a block per row.
template <class T>
__global__ void multinomial_cdf_kernel(const T* probs, double* cdf, int64_t rows, int64_t c) {
  __shared__ double tot[kChunks];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
    block_cdf(probs + r * c, cdf + r * c, c, tot);
}

// Then one thread per output element, each a search of its row's cdf.
template <class T>
__global__ void multinomial_pick_kernel(int64_t* out, const T* probs, const double* cdf,
                                        int64_t numel, int64_t samples, int64_t c, uint64_t seed,
                                        uint64_t offset) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < numel;
       e += int64_t(blockDim.x) * gridDim.x) {
    const int64_t r = e / samples;
    out[e] = common::multinomial_pick(probs + r * c, cdf + r * c, c,
                                      common::multinomial_uniform(seed, offset, e));
  }
}

// Without replacement (several samples): a block per row draws its samples in turn, each drawn
// category leaving the row (weight -1) and the cdf recomputed.
template <class T>
__global__ void multinomial_draw_kernel(int64_t* out, const T* probs, double* w, double* cdf,
                                        int64_t rows, int64_t samples, int64_t c, uint64_t seed,
                                        uint64_t offset) {
  __shared__ double tot[kChunks];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    double* wr = w + r * c;
    double* cr = cdf + r * c;
    for (int64_t k = threadIdx.x; k < c; k += blockDim.x)
      wr[k] = static_cast<double>(probs[r * c + k]);
    __syncthreads();
    for (int64_t s = 0; s < samples; ++s) {
      block_cdf(wr, cr, c, tot);
      if (threadIdx.x == 0) {
        const int64_t e = r * samples + s;
        const int64_t k =
            cr[c - 1] > 0
                ? common::multinomial_pick(wr, cr, c, common::multinomial_uniform(seed, offset, e))
                : common::multinomial_first_left(wr, c);
        out[e] = k;
        wr[k] = -1;
      }
      __syncthreads();
    }
  }
}

// probs [N, C] contiguous float32/float64 (rows valid), out [N, S] int64 contiguous.
void multinomial_kernel(const Tensor& out, const Tensor& probs, uint64_t seed, uint64_t offset,
                        bool replacement) {
  const int64_t rows = out.size(0), samples = out.size(1), c = probs.size(1);
  if (rows == 0 || samples == 0) return;
  refuse_in_capture("multinomial", out.device().index());
  DeviceGuard guard(out.device().index());
  const bool one_cdf = common::multinomial_one_cdf(replacement, samples);
  const Tensor cdf = empty_on({rows, c}, kFloat64, out.device());
  const unsigned row_blocks = grid_blocks(rows, 1, kMaxBlocks);
  EMBER_DISPATCH_FLOATING_TYPES(probs.dtype(), "multinomial", [&] {
    const scalar_t* p = probs.data_ptr<scalar_t>();
    if (one_cdf) {
      multinomial_cdf_kernel<scalar_t>
          <<<row_blocks, kChunks, 0, current_stream()>>>(p, cdf.data_ptr<double>(), rows, c);
      EMBER_CUDA_KERNEL_CHECK("multinomial");
      const int64_t numel = rows * samples;
      multinomial_pick_kernel<scalar_t>
          <<<grid_blocks(numel, kBlock, kMaxBlocks), kBlock, 0, current_stream()>>>(
              out.data_ptr<int64_t>(), p, cdf.data_ptr<double>(), numel, samples, c, seed, offset);
    } else {
      const Tensor w = empty_on({rows, c}, kFloat64, out.device());
      multinomial_draw_kernel<scalar_t><<<row_blocks, kChunks, 0, current_stream()>>>(
          out.data_ptr<int64_t>(), p, w.data_ptr<double>(), cdf.data_ptr<double>(), rows, samples,
          c, seed, offset);
    }
    EMBER_CUDA_KERNEL_CHECK("multinomial");
  });
}

}  // namespace

void register_random_kernels() {
  register_kernel<Op::uniform>(kCUDA, &uniform_kernel);
  register_kernel<Op::normal>(kCUDA, &normal_kernel);
  register_kernel<Op::randint>(kCUDA, &common::randint_kernel<fill_in_range>);
  register_kernel<Op::random_from_to>(kCUDA, &common::random_from_to_kernel<fill_in_range>);
  register_kernel<Op::multinomial>(kCUDA, &multinomial_kernel);
}

void write_philox_state(uint64_t* state, uint64_t seed, uint64_t offset, cudaStream_t stream) {
  write_philox_state_kernel<<<1, 1, 0, stream>>>(state, seed, offset);
  EMBER_CUDA_KERNEL_CHECK("cuda::Graph::replay (random state)");
}

}  // namespace cuda
}  // namespace ember
