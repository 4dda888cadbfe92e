// CPU copy (any dtype pair, any strides) and fill kernels. Same-dtype work moves bits by
// element size (1, 4 or 8 bytes), which needs 3 loops instead of one per dtype.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>

namespace ember {
namespace cpu {
namespace {

// An unsigned integer type of exactly kBytes bytes, for dtype-blind moves.
template <size_t kBytes>
struct BitsOf;
template <>
struct BitsOf<1> {
  using type = uint8_t;
};
template <>
struct BitsOf<4> {
  using type = uint32_t;
};
template <>
struct BitsOf<8> {
  using type = uint64_t;
};

// Calls body(U{}) with U the unsigned type as wide as dtype's elements.
template <class Body>
void dispatch_by_size(ScalarType dtype, const char* name, const Body& body) {
  switch (element_size(dtype)) {
    case 1:
      return body(uint8_t{});
    case 4:
      return body(uint32_t{});
    case 8:
      return body(uint64_t{});
    default:
      EMBER_THROW(name, ": dtype ", dtype, " is not supported");
  }
}

// static_cast<D>(x), except for a floating x that is NaN, infinite or beyond D's range (undefined
// behaviour in C++, reported by UBSan): it converts through int64, as PyTorch's CPU converts to
// uint8, with NaN and values beyond int64 giving INT64_MIN (x86's "integer indefinite"), then
// wraps to D. The same as static_cast wherever static_cast is defined.
template <class D, class S>
D convert(S x) {
  if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D> && !std::is_same_v<D, bool>) {
    constexpr S kTwo63 = static_cast<S>(9223372036854775808.0);
    const int64_t wide = x >= -kTwo63 && x < kTwo63 ? static_cast<int64_t>(x) : INT64_MIN;
    return static_cast<D>(wide);
  } else {
    return static_cast<D>(x);
  }
}

// dst and src: same shape, any of the six dtypes, any strides; they do not overlap
// (except dst == src exactly, a no-op copy).
void copy_kernel(const Tensor& dst, const Tensor& src, bool /*non_blocking*/) {
  const int64_t numel = dst.numel();
  if (numel == 0) return;
  if (dst.dtype() == src.dtype()) {
    const size_t esize = dst.element_size();
    if (dst.is_contiguous() && src.is_contiguous()) {
      auto* d = static_cast<char*>(dst.data_ptr());
      const auto* s = static_cast<const char*>(src.data_ptr());
      if (d == s) return;
      // memcpy is already at bandwidth; chunks only spread it over the threads.
      parallel_range(numel, kParallelGrain * 4, [&](int64_t begin, int64_t end) {
        std::memcpy(d + begin * esize, s + begin * esize, (end - begin) * esize);
      });
      return;
    }
    dispatch_by_size(dst.dtype(), "copy", [&](auto tag) {
      using U = decltype(tag);
      unary_loop<U, U>(dst, src, [](U x) { return x; });
    });
    return;
  }
  EMBER_DISPATCH_ALL_TYPES(dst.dtype(), "copy", [&] {
    using D = scalar_t;
    EMBER_DISPATCH_ALL_TYPES(src.dtype(), "copy", [&] {
      // C++'s conversions: x != 0 for bool, truncation toward zero for integers.
      unary_loop<D, scalar_t>(dst, src, [](scalar_t x) { return convert<D>(x); });
    });
  });
}

template <class U>
void fill_bits(const Tensor& out, U bits) {
  nullary_loop<U>(out, [bits] { return bits; });
}

// out[...] = value converted to out's dtype, over any strides.
void fill_kernel(const Tensor& out, const Scalar& value) {
  EMBER_DISPATCH_ALL_TYPES(out.dtype(), "fill", [&] {
    const scalar_t v = value.to<scalar_t>();
    dispatch_by_size(out.dtype(), "fill", [&](auto tag) {
      using U = decltype(tag);
      if constexpr (sizeof(U) == sizeof(scalar_t)) {
        U bits;
        std::memcpy(&bits, &v, sizeof(U));
        fill_bits<U>(out, bits);
      }
    });
  });
}

}  // namespace

void register_copy_kernels() {
  register_kernel<Op::copy>(kCPU, &copy_kernel);
  register_kernel<Op::fill>(kCPU, &fill_kernel);
}

}  // namespace cpu
}  // namespace ember
