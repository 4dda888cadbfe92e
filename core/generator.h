// The global generator: a seed and an offset into a counter-based Philox stream,
// so that every device draws the same numbers for the same (seed, offset).
// Backend-facing: random kernels receive (seed, offset) and consume numel counters.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember {

struct PhiloxSeed {
  uint64_t seed;
  uint64_t offset;
};

// Reserves `count` counters (4 random 32-bit words each) and returns where they start.
PhiloxSeed next_philox(uint64_t count);
uint64_t default_seed();

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
