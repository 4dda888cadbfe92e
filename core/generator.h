// The global generator: a seed and an offset into a counter-based Philox stream,
// so that every device draws the same numbers for the same (seed, offset).
// Backend-facing: random kernels receive (seed, offset) and consume numel counters.
#pragma once

#include <cstdint>

#include <ember/core/host_device.h>

// ---- The random-number scheme (every backend's random kernels follow it exactly) ----
// A random op reserves counters with next_philox(count) and passes the returned (seed,
// offset) to its kernel. Counter c yields four 32-bit words w[0..3] = philox4x32(seed, c).
// Elements are numbered k = 0..numel-1 in row-major (logical) order of `out`, whatever
// out's strides. Each element uses `wpe` words (words per element) and reads the words
// starting at flat word index k * wpe: counter offset + (k * wpe) / 4, word (k * wpe) % 4.
// core reserves ceil(numel * wpe / 4) counters (random_counters() below).
//   uniform float32 (wpe 1): u = uint_to_unit_float(w[k % 4]) of counter offset + k / 4;
//                            out = a + (b - a) * u.
//   uniform float64 (wpe 2): u = uints_to_unit_double(w[2j], w[2j + 1]), j = k % 2, of
//                            counter offset + k / 2; out = a + (b - a) * u.
//   normal (Box-Muller on pairs of elements; pair p = k / 2 holds elements 2p and 2p + 1):
//     float32 (wpe 1): pair p uses counter offset + p / 2, words w[2q], w[2q + 1], q = p % 2:
//                      u1 = uint_to_unit_float(w[2q]), u2 = uint_to_unit_float(w[2q + 1]);
//     float64 (wpe 2): pair p uses counter offset + p, all four words: u1 from
//                      uints_to_unit_double(w[0], w[1]), u2 from (w[2], w[3]);
//     then r = sqrt(-2 * log(1 - u1)) (1 - u1 is in (0, 1], so log is finite),
//     z = r * cos(2 pi u2) for the even element 2p, r * sin(2 pi u2) for the odd one 2p + 1
//     (the last element of an odd numel gets the cos value); out = a + b * z (a mean, b std).
//   randint (wpe 2, any dtype): v = (uint64(w[2j]) << 32) | w[2j + 1], j = k % 2, of counter
//                            offset + k / 2; out = a + (int64)(v % uint64(b - a)) for [a, b).
// float32 maths (cosf, logf) for float32 and double maths for float64 keep CPU and CUDA close.
// randperm (core, on the CPU) draws swap j for step i = n-1..1 from the randint words of
// element d = n-1-i: j = v % (i + 1).
//   random_from_to (wpe 2, any dtype): v as randint's; out = a + (int64)(v % r) for [a, b], with
//                            r = uint64(b) - uint64(a) + 1, or out = (int64)v when r wraps to 0.
//   multinomial (wpe 2 over out's [N, S] elements): u = uints_to_unit_double as uniform float64.
//     Row n's weights w (in double; drawn ones set to -1, counted as 0) have the canonical
//     cumulative sums: the row splits into 256 chunks of L = ceil(C / 256) categories; chunk j's
//     running sum s (from 0, in category order) gives cdf[k] = pre[j] + s, pre[0] = 0,
//     pre[j + 1] = pre[j] + (chunk j's total). Sample s of row n takes the first k with
//     cdf[k] > u * cdf[C - 1] (the last positive-weight k if rounding leaves none). With
//     replacement every sample uses the same cdf; without, sample s = 0..S-1 in turn recomputes
//     the cdf with the drawn categories removed, and once no weight is left takes the first
//     category not drawn yet. Only additions and one product per draw: CPU and CUDA agree bit
//     for bit.
// bernoulli, exponential_, geometric_, log_normal_ and cauchy_ are composites of rand/randn
// (core/ops_random.cpp), so they follow the uniform and normal rows above.

namespace ember {

struct PhiloxSeed {
  uint64_t seed;
  uint64_t offset;
};

// Reserves `count` counters (4 random 32-bit words each) and returns where they start.
PhiloxSeed next_philox(uint64_t count);
uint64_t default_seed();

// Counters a random op over numel elements reserves: ceil(numel * words_per_element / 4).
inline uint64_t random_counters(int64_t numel, int words_per_element) {
  return (static_cast<uint64_t>(numel) * static_cast<uint64_t>(words_per_element) + 3) / 4;
}

// Philox4x32-10: four 32-bit random words for (seed, counter).
struct Philox4 {
  uint32_t v[4];
};
EMBER_HOST_DEVICE inline Philox4 philox4x32(uint64_t seed, uint64_t counter) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0,
           c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Philox4{{c0, c1, c2, c3}};
}

// Uniform float in [0, 1) from 24 random bits; double from 53 bits.
EMBER_HOST_DEVICE inline float uint_to_unit_float(uint32_t x) {
  return (x >> 8) * (1.0f / 16777216.0f);
}
EMBER_HOST_DEVICE inline double uints_to_unit_double(uint32_t hi, uint32_t lo) {
  return ((static_cast<uint64_t>(hi) << 21) ^ (lo >> 11)) * (1.0 / 9007199254740992.0);
}

}  // namespace ember
