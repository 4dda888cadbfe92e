// CPU random kernels (uniform, normal, randint, random_from_to, multinomial) over the Philox
// stream. They follow the scheme at the top of core/generator.h exactly, so CUDA draws the same.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <ember/common/multinomial_math.h>
#include <ember/common/random_math.h>

#include <ember/core/checks.h>
#include <ember/core/dispatch.h>
#include <ember/core/generator.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>

namespace ember {
namespace cpu {
namespace {

// One Philox call (10 rounds) costs about 10 ns, so chunks of counters are smaller.
constexpr int64_t kRandomGrain = 2048;  // counters

// Calls fill(o) with o contiguous: out itself (core allocates contiguous outputs) or, for
// a strided view, a temporary then copied into it, so views still get row-major order.
template <class Fill>
void fill_contiguous(const Tensor& out, const Fill& fill) {
  if (out.numel() == 0) return;
  if (out.is_contiguous()) return fill(out);
  Tensor tmp = empty_on(out.sizes(), out.dtype(), out.device());
  fill(tmp);
  kernel<Op::copy>(kCPU)(out, tmp, false);
}

// Fills out (row-major element order) counter by counter: counter offset + c yields the
// elements [c * kPerCounter, (c + 1) * kPerCounter) through gen(words, values). The result
// depends only on (seed, offset), never on how the range is split over threads.
template <class T, int kPerCounter, class Gen>
void philox_fill(const Tensor& out, uint64_t seed, uint64_t offset, const Gen& gen) {
  fill_contiguous(out, [&](const Tensor& o) {
    T* dst = static_cast<T*>(o.data_ptr());
    const int64_t numel = o.numel();
    const int64_t ncounters = (numel + kPerCounter - 1) / kPerCounter;
    parallel_range(ncounters, kRandomGrain, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        T values[kPerCounter];
        gen(philox4x32(seed, offset + static_cast<uint64_t>(c)), values);
        const int64_t first = c * kPerCounter;
        const int64_t n = std::min<int64_t>(kPerCounter, numel - first);
        for (int64_t j = 0; j < n; ++j) dst[first + j] = values[j];
      }
    });
  });
}

// [a, b): float32 uses one word per element, float64 two.
void uniform_kernel(const Tensor& out, uint64_t seed, uint64_t offset, const Scalar& a,
                    const Scalar& b) {
  if (out.dtype() == kFloat32) {
    const float lo = a.to<float>(), range = b.to<float>() - lo;
    philox_fill<float, 4>(out, seed, offset, [=](const Philox4& w, float* v) {
      for (int j = 0; j < 4; ++j) v[j] = std::fma(range, uint_to_unit_float(w.v[j]), lo);
    });
  } else if (out.dtype() == kFloat64) {
    const double lo = a.to<double>(), range = b.to<double>() - lo;
    philox_fill<double, 2>(out, seed, offset, [=](const Philox4& w, double* v) {
      for (int j = 0; j < 2; ++j)
        v[j] = std::fma(range, uints_to_unit_double(w.v[2 * j], w.v[2 * j + 1]), lo);
    });
  } else {
    EMBER_THROW("uniform: dtype ", out.dtype(), " is not supported (needs float32 or float64)");
  }
}

// Box-Muller on (u1, u2): the pair (r cos t, r sin t) for two consecutive elements.
// 1 - u1 lies in (0, 1], so the log is finite.
template <class T>
void box_muller(T u1, T u2, T mean, T stddev, T* pair) {
  const T r = std::sqrt(T(-2) * std::log(T(1) - u1));
  const T theta = static_cast<T>(2.0 * M_PI) * u2;
  pair[0] = std::fma(stddev, r * std::cos(theta), mean);
  pair[1] = std::fma(stddev, r * std::sin(theta), mean);
}

// float32 normal, kBlock pairs at a time: Philox words into (u1, u2) arrays, then the
// same Box-Muller with Eigen's vectorized log, sqrt, sin and cos (within 1-2 ulp of
// libm's; scalar libm calls made this 10x slower than uniform).
void normal_float(const Tensor& out, uint64_t seed, uint64_t offset, float mean, float stddev) {
  constexpr int64_t kBlock = 256;  // pairs; even, so every block starts on a counter
  using Array = Eigen::Array<float, Eigen::Dynamic, 1>;
  fill_contiguous(out, [&](const Tensor& o) {
    float* dst = static_cast<float*>(o.data_ptr());
    const int64_t numel = o.numel(), npairs = (numel + 1) / 2;
    const int64_t nblocks = (npairs + kBlock - 1) / kBlock;
    parallel_range(nblocks, kRandomGrain / kBlock, [&](int64_t begin, int64_t end) {
      alignas(64) float r[kBlock], theta[kBlock], cos_t[kBlock], sin_t[kBlock];
      for (int64_t block = begin; block < end; ++block) {
        const int64_t p0 = block * kBlock, np = std::min(kBlock, npairs - p0);
        for (int64_t p = 0; p < np; p += 2) {  // pair p0 + p and p0 + p + 1 share a counter
          const Philox4 w = philox4x32(seed, offset + static_cast<uint64_t>((p0 + p) / 2));
          r[p] = uint_to_unit_float(w.v[0]);
          theta[p] = uint_to_unit_float(w.v[1]);
          r[p + 1] = uint_to_unit_float(w.v[2]);
          theta[p + 1] = uint_to_unit_float(w.v[3]);
        }
        Eigen::Map<Array> R(r, np), Theta(theta, np);
        R = (-2.0f * (1.0f - R).log()).sqrt();
        Theta *= static_cast<float>(2.0 * M_PI);
        Eigen::Map<Array>(cos_t, np) = Theta.cos();
        Eigen::Map<Array>(sin_t, np) = Theta.sin();
        for (int64_t p = 0; p < np; ++p) {
          const int64_t k = 2 * (p0 + p);
          dst[k] = std::fma(stddev, r[p] * cos_t[p], mean);
          if (k + 1 < numel) dst[k + 1] = std::fma(stddev, r[p] * sin_t[p], mean);
        }
      }
    });
  });
}

// a = mean, b = std. float32: two pairs per counter; float64: one pair per counter.
void normal_kernel(const Tensor& out, uint64_t seed, uint64_t offset, const Scalar& a,
                   const Scalar& b) {
  if (out.dtype() == kFloat32) {
    normal_float(out, seed, offset, a.to<float>(), b.to<float>());
  } else if (out.dtype() == kFloat64) {
    const double mean = a.to<double>(), stddev = b.to<double>();
    philox_fill<double, 2>(out, seed, offset, [=](const Philox4& w, double* v) {
      box_muller(uints_to_unit_double(w.v[0], w.v[1]), uints_to_unit_double(w.v[2], w.v[3]), mean,
                 stddev, v);
    });
  } else {
    EMBER_THROW("normal: dtype ", out.dtype(), " is not supported (needs float32 or float64)");
  }
}

// [low, low + range), two words (64 bits) per element (common::random_in_range), any dtype.
void fill_in_range(const char* op, const Tensor& out, uint64_t seed, uint64_t offset, int64_t low,
                   uint64_t range) {
  EMBER_DISPATCH_ALL_TYPES(out.dtype(), op, [&] {
    philox_fill<scalar_t, 2>(out, seed, offset, [=](const Philox4& w, scalar_t* v) {
      for (int j = 0; j < 2; ++j) {
        v[j] =
            static_cast<scalar_t>(common::random_in_range(w.v[2 * j], w.v[2 * j + 1], low, range));
      }
    });
  });
}

// The canonical cumulative sums of a row (core/generator.h): chunk by chunk, each chunk's
// running sum added to the sum of the chunks before it.
template <class W>
void canonical_cdf(const W* w, double* cdf, int64_t c) {
  const int64_t len = common::multinomial_chunk_len(c);
  double pre = 0;
  for (int64_t begin = 0; begin < c; begin += len) {
    const int64_t end = std::min(c, begin + len);
    double s = 0;
    for (int64_t k = begin; k < end; ++k) {
      s += common::multinomial_weight(w[k]);
      cdf[k] = pre + s;
    }
    pre = pre + s;
  }
}

// probs [N, C] contiguous float32/float64 (rows valid), out [N, S] int64 contiguous.
void multinomial_kernel(const Tensor& out, const Tensor& probs, uint64_t seed, uint64_t offset,
                        bool replacement) {
  const int64_t rows = out.size(0), samples = out.size(1), c = probs.size(1);
  const bool one_cdf = common::multinomial_one_cdf(replacement, samples);
  int64_t* dst = out.data_ptr<int64_t>();
  EMBER_DISPATCH_FLOATING_TYPES(probs.dtype(), "multinomial", [&] {
    const scalar_t* p = probs.data_ptr<scalar_t>();
    const int64_t work = c * (one_cdf ? 1 : samples) + samples;
    const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / std::max<int64_t>(1, work));
    parallel_range(rows, grain, [&](int64_t begin, int64_t end) {
      std::vector<double> w(one_cdf ? 0 : c), cdf(c);
      for (int64_t r = begin; r < end; ++r) {
        const scalar_t* row = p + r * c;
        if (one_cdf) {
          canonical_cdf(row, cdf.data(), c);
          for (int64_t s = 0; s < samples; ++s) {
            const int64_t e = r * samples + s;
            dst[e] = common::multinomial_pick(row, cdf.data(), c,
                                              common::multinomial_uniform(seed, offset, e));
          }
          continue;
        }
        // Without replacement: one category at a time, each leaving the row (weight -1).
        for (int64_t k = 0; k < c; ++k) w[k] = static_cast<double>(row[k]);
        for (int64_t s = 0; s < samples; ++s) {
          const int64_t e = r * samples + s;
          canonical_cdf(w.data(), cdf.data(), c);
          const int64_t k = cdf[c - 1] > 0 ? common::multinomial_pick(
                                                 w.data(), cdf.data(), c,
                                                 common::multinomial_uniform(seed, offset, e))
                                           : common::multinomial_first_left(w.data(), c);
          w[k] = -1;
          dst[e] = k;
        }
      }
    });
  });
}

}  // namespace

void register_random_kernels() {
  register_kernel<Op::uniform>(kCPU, &uniform_kernel);
  register_kernel<Op::normal>(kCPU, &normal_kernel);
  register_kernel<Op::randint>(kCPU, &common::randint_kernel<fill_in_range>);
  register_kernel<Op::random_from_to>(kCPU, &common::random_from_to_kernel<fill_in_range>);
  register_kernel<Op::multinomial>(kCPU, &multinomial_kernel);
}

}  // namespace cpu
}  // namespace ember
