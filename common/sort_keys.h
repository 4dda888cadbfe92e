// Order-preserving unsigned keys of the sortable dtypes, shared by the CPU and CUDA sorts: keys
// compare as the values do, NaN (any NaN) is the largest key and -0.0 equals +0.0 (PyTorch's).
// 32-bit keys also decode back to their values (decode), but for zero's and NaN's.
#pragma once

#include <cstdint>
#include <cstring>

#include <ember/core/host_device.h>

namespace ember::common {

template <class T>
struct SortKey;

template <>
struct SortKey<float> {
  using Bits = uint32_t;
  static EMBER_HOST_DEVICE Bits of(float x) {
    if (x != x) return 0xFFFFFFFFu;
    if (x == 0) x = 0.0f;
    Bits u;
    memcpy(&u, &x, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
  static EMBER_HOST_DEVICE bool is_nan(Bits k) { return k == 0xFFFFFFFFu; }
  // The value of key k into *x, unless k is zero's or NaN's key (false), whose sign or payload
  // the key lost: the caller reads those from the input.
  static EMBER_HOST_DEVICE bool decode(Bits k, float* x) {
    if (k == 0x80000000u || k == 0xFFFFFFFFu) return false;
    const Bits u = (k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k;
    memcpy(x, &u, sizeof u);
    return true;
  }
};

template <>
struct SortKey<double> {
  using Bits = uint64_t;
  static EMBER_HOST_DEVICE Bits of(double x) {
    if (x != x) return ~uint64_t(0);
    if (x == 0) x = 0.0;
    Bits u;
    memcpy(&u, &x, sizeof u);
    const uint64_t sign = uint64_t(1) << 63;
    return (u & sign) ? ~u : (u | sign);
  }
  static EMBER_HOST_DEVICE bool is_nan(Bits k) { return k == ~uint64_t(0); }
};

template <>
struct SortKey<int32_t> {
  using Bits = uint32_t;
  static EMBER_HOST_DEVICE Bits of(int32_t x) { return uint32_t(x) ^ 0x80000000u; }
  static EMBER_HOST_DEVICE bool is_nan(Bits) { return false; }
  static EMBER_HOST_DEVICE bool decode(Bits k, int32_t* x) {
    *x = int32_t(k ^ 0x80000000u);
    return true;
  }
};

template <>
struct SortKey<int64_t> {
  using Bits = uint64_t;
  static EMBER_HOST_DEVICE Bits of(int64_t x) { return uint64_t(x) ^ (uint64_t(1) << 63); }
  static EMBER_HOST_DEVICE bool is_nan(Bits) { return false; }
};

template <>
struct SortKey<uint8_t> {
  using Bits = uint32_t;
  static EMBER_HOST_DEVICE Bits of(uint8_t x) { return x; }
  static EMBER_HOST_DEVICE bool is_nan(Bits) { return false; }
  static EMBER_HOST_DEVICE bool decode(Bits k, uint8_t* x) {
    *x = uint8_t(k);
    return true;
  }
};

template <>
struct SortKey<bool> {
  using Bits = uint32_t;
  static EMBER_HOST_DEVICE Bits of(bool x) { return x ? 1u : 0u; }
  static EMBER_HOST_DEVICE bool is_nan(Bits) { return false; }
  static EMBER_HOST_DEVICE bool decode(Bits k, bool* x) {
    *x = k != 0;
    return true;
  }
};

// The key in the requested direction: descending keys are complemented (NaN first, equal values
// still in their original order).
template <class T>
EMBER_HOST_DEVICE typename SortKey<T>::Bits directed_key(T x, bool descending) {
  const typename SortKey<T>::Bits k = SortKey<T>::of(x);
  return descending ? typename SortKey<T>::Bits(~k) : k;
}

// cummax/cummin's step (PyTorch's): x replaces the running value when it is NaN, or when neither
// is NaN and x >= (cummax) or <= (cummin) it, so ties move the index to the later element.
template <bool kMax, class T>
EMBER_HOST_DEVICE bool cum_takes(T x, T running) {
  const bool x_nan = x != x, r_nan = running != running;
  return x_nan || (!r_nan && (kMax ? x >= running : x <= running));
}

}  // namespace ember::common
