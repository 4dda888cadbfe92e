// Creation functions: empty/zeros/ones/full, ranges, eye, random tensors, tensor(),
// scalar_tensor, from_blob and the *_like forms. Options pick dtype, device and grad.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <ember/core/checks.h>
#include <ember/core/grad_mode.h>
#include <ember/core/device_hooks.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/core/generator.h>

namespace ember {

namespace {

// Elements of storage a (sizes, strides) geometry spans: 0 when any size is 0, else one
// past the furthest element. Negative strides are an error naming op.
int64_t storage_extent(const char* op, IntArrayRef sizes, IntArrayRef strides) {
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(strides[i] >= 0, op, ": negative stride ", strides[i], " in ", strides);
    empty = empty || sizes[i] == 0;
  }
  if (empty) return 0;
  int64_t extent = 1, step = 0;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &step);
    overflow |= __builtin_add_overflow(extent, step, &extent);
  }
  EMBER_CHECK(!overflow, op, ": sizes ", sizes, " and strides ", strides,
              " reach further than int64 can count");
  return extent;
}

inline void check_sizes(const char* op, IntArrayRef sizes) {
  for (int64_t s : sizes) {
    if (__builtin_expect(s < 0, 0)) EMBER_THROW(op, ": negative dimension ", s, " in size ", sizes);
  }
}

// Applies options.requires_grad() to a freshly made tensor.
inline Tensor finish(const char* op, Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) {
    EMBER_CHECK(t.is_floating_point(), op,
                ": requires_grad=True needs a floating-point dtype (only floating-point tensors "
                "can require gradients), got dtype ",
                t.dtype());
    t.unsafeGetTensorImpl()->set_requires_grad(true);
  }
  return t;
}

inline void fill(const Tensor& t, const Scalar& value) {
  if (t.numel() > 0) kernel<Op::fill>(t.device().type())(t, value);
}

// Random fills: reserve the counters the scheme in generator.h prescribes, then let the
// device's kernel draw from (seed, offset).
void fill_random(Op op, const Tensor& t, int words_per_element, const Scalar& a, const Scalar& b) {
  if (t.numel() == 0) return;
  PhiloxSeed s = next_philox(random_counters(t.numel(), words_per_element));
  DeviceType d = t.device().type();
  switch (op) {
    case Op::uniform:
      kernel<Op::uniform>(d)(t, s.seed, s.offset, a, b);
      break;
    case Op::normal:
      kernel<Op::normal>(d)(t, s.seed, s.offset, a, b);
      break;
    default:
      kernel<Op::randint>(d)(t, s.seed, s.offset, a, b);
      break;
  }
}

// Fills a new 1-D CPU tensor of `dtype` with value(i), then moves it to `device`.
template <class F>
Tensor host_sequence(const char* op, int64_t n, ScalarType dtype, Device device, F value) {
  Tensor t = empty_on(op, {n}, dtype, Device(kCPU));
  EMBER_DISPATCH_NUMERIC_TYPES(dtype, op, [&] {
    scalar_t* p = static_cast<scalar_t*>(t.data_ptr());
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<scalar_t>(value(i));
  });
  return t.to(device);
}

inline ScalarType scalar_default_dtype(const Scalar& v) {
  return v.isBoolean() ? kBool : v.isIntegral() ? kInt64 : default_float_dtype();
}

inline TensorOptions like_options(const Tensor& t, const TensorOptions& o) {
  EMBER_CHECK(t.defined(), "*_like: the tensor is undefined");
  return TensorOptions()
      .dtype(o.has_dtype() ? o.dtype() : t.dtype())
      .device(o.has_device() ? o.device() : t.device())
      .requires_grad(o.requires_grad());
}

}  // namespace

// ---- uninitialized, constant ----

Tensor empty(IntArrayRef sizes, const TensorOptions& options) {
  check_sizes("empty", sizes);
  return finish("empty", empty_on("empty", sizes, options.dtype(), options.device()), options);
}

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  check_sizes("empty_strided", sizes);
  EMBER_CHECK(sizes.size() == strides.size(), "empty_strided: sizes ", sizes, " and strides ",
              strides, " differ in length");
  // Storage for the farthest element the strides reach.
  const int64_t extent = storage_extent("empty_strided", sizes, strides);
  ScalarType dtype = options.dtype();
  Storage storage =
      make_storage(static_cast<size_t>(extent) * element_size(dtype), options.device());
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
  return finish("empty_strided", t, options);
}

Tensor zeros(IntArrayRef sizes, const TensorOptions& options) {
  check_sizes("zeros", sizes);
  Tensor t = empty_on("zeros", sizes, options.dtype(), options.device());
  fill(t, 0);
  return finish("zeros", t, options);
}

Tensor ones(IntArrayRef sizes, const TensorOptions& options) {
  check_sizes("ones", sizes);
  Tensor t = empty_on("ones", sizes, options.dtype(), options.device());
  fill(t, 1);
  return finish("ones", t, options);
}

Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options) {
  check_sizes("full", sizes);
  ScalarType dtype = options.has_dtype() ? options.dtype() : scalar_default_dtype(value);
  check_fits("full", value, dtype);
  Tensor t = empty_on("full", sizes, dtype, options.device());
  fill(t, value);
  return finish("full", t, options);
}

// In place, as LibTorch's: drawn into self when it is contiguous and records no history, else
// into a fresh tensor copied in (copy_ refuses a leaf that requires grad, as LibTorch does).
namespace {
Tensor& random_fill_(Tensor& self, Op op, const char* name, double a, double b) {
  EMBER_CHECK(self.is_floating_point(), name, ": expected a floating-point tensor, got ",
              self.dtype());
  const int words = self.dtype() == kFloat64 ? 2 : 1;
  if (self.is_contiguous() && !autograd::should_record(self)) {
    fill_random(op, self, words, a, b);
    self.impl()->storage()->bump_version();
  } else {
    Tensor values = empty_on(self.sizes(), self.dtype(), self.device());
    fill_random(op, values, words, a, b);
    self.copy_(values);
  }
  return self;
}
}  // namespace

Tensor& Tensor::uniform_(double from, double to) const {
  EMBER_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  return random_fill_(self_(), Op::uniform, "uniform_", from, to);
}

Tensor& Tensor::normal_(double mean, double std) const {
  EMBER_CHECK(std >= 0.0, "normal_: expects std >= 0.0, but found std ", std);
  return random_fill_(self_(), Op::normal, "normal_", mean, std);
}

// ---- ranges ----

Tensor arange(const Scalar& end, const TensorOptions& options) {
  return arange(Scalar(int64_t(0)), end, Scalar(int64_t(1)), options);
}

Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, Scalar(int64_t(1)), options);
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options) {
  bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  ScalarType dtype = options.has_dtype() ? options.dtype()
                     : integral          ? kInt64
                                         : default_float_dtype();
  double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  EMBER_CHECK(st != 0, "arange: step must be nonzero");
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "arange: start ", start, " and end ", end,
              " must be finite");
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "arange: start ", start, " and end ", end,
              " are inconsistent with the sign of step ", step);
  int64_t n;
  if (integral) {  // exact for large int64 ranges, where doubles would round
    // In uint64, where |end - start| and |step| can't overflow.
    const int64_t a = start.toLong(), b = end.toLong(), c = step.toLong();
    const uint64_t span = c > 0 ? uint64_t(b) - uint64_t(a) : uint64_t(a) - uint64_t(b);
    const uint64_t magnitude = c > 0 ? uint64_t(c) : uint64_t(0) - uint64_t(c);
    const uint64_t count = span == 0 ? 0 : (span - 1) / magnitude + 1;
    EMBER_CHECK(count <= uint64_t(INT64_MAX), "arange: the range [", start, ", ", end,
                ") with step ", step, " has more elements than int64 can count");
    n = static_cast<int64_t>(count);
  } else {
    double nd = std::ceil((e - s) / st);
    EMBER_CHECK(nd < 9.0e18, "arange: the range [", start, ", ", end, ") with step ", step,
                " has too many elements");
    n = static_cast<int64_t>(nd);
  }
  Tensor t;
  if (integral && is_integral(dtype, false)) {
    int64_t a = start.toLong(), c = step.toLong();
    t = host_sequence("arange", n, dtype, options.device(), [&](int64_t i) { return a + i * c; });
  } else {
    t = host_sequence("arange", n, dtype, options.device(), [&](int64_t i) { return s + i * st; });
  }
  return finish("arange", t, options);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  double a = start.toDouble(), b = end.toDouble();
  double step = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
  int64_t half = steps / 2;
  // PyTorch's symmetric form: the first half counts up from start, the second half down
  // from end, so both ends are exact (one step gives start).
  Tensor t = host_sequence("linspace", steps, options.dtype(), options.device(), [&](int64_t i) {
    if (steps == 1) return a;
    return i < half ? a + step * static_cast<double>(i)
                    : b - step * static_cast<double>(steps - 1 - i);
  });
  return finish("linspace", t, options);
}

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }

Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  EMBER_CHECK(n >= 0 && m >= 0, "eye: sizes must be non-negative, got n=", n, " and m=", m);
  ScalarType dtype = options.dtype();
  Tensor t = empty_on("eye", {n, m}, dtype, Device(kCPU));
  if (n * m > 0) {
    std::memset(t.data_ptr(), 0, t.nbytes());  // all-zero bits are 0 in every dtype
    EMBER_DISPATCH_ALL_TYPES(dtype, "eye", [&] {
      scalar_t* p = static_cast<scalar_t*>(t.data_ptr());
      for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = static_cast<scalar_t>(1);
    });
  }
  return finish("eye", t.to(options.device()), options);
}

// ---- random ----

Tensor rand(IntArrayRef sizes, const TensorOptions& options) {
  check_sizes("rand", sizes);
  ScalarType dtype = options.dtype();
  EMBER_CHECK(is_floating_point(dtype), "rand: dtype ", dtype,
              " is not supported (needs a floating dtype)");
  Tensor t = empty_on("rand", sizes, dtype, options.device());
  fill_random(Op::uniform, t, dtype == kFloat64 ? 2 : 1, 0.0, 1.0);
  return finish("rand", t, options);
}

Tensor randn(IntArrayRef sizes, const TensorOptions& options) {
  check_sizes("randn", sizes);
  ScalarType dtype = options.dtype();
  EMBER_CHECK(is_floating_point(dtype), "randn: dtype ", dtype,
              " is not supported (needs a floating dtype)");
  Tensor t = empty_on("randn", sizes, dtype, options.device());
  fill_random(Op::normal, t, dtype == kFloat64 ? 2 : 1, 0.0, 1.0);
  return finish("randn", t, options);
}

Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options) {
  return randint(0, high, sizes, options);
}

// randint's dtype is int64 unless given, as in PyTorch.
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options) {
  check_sizes("randint", sizes);
  EMBER_CHECK(low < high, "randint: expected low < high, got low=", low, " and high=", high);
  ScalarType dtype = options.has_dtype() ? options.dtype() : kInt64;
  // As PyTorch's random_(from, to): both ends must fit an integer dtype (an int64 range
  // drawn into uint8 would wrap).
  const int64_t lowest = dtype == kUInt8 ? 0 : dtype == kInt32 ? INT32_MIN : INT64_MIN;
  const int64_t highest = dtype == kUInt8 ? 255 : dtype == kInt32 ? INT32_MAX : INT64_MAX;
  EMBER_CHECK(!is_integral(dtype, /*include_bool=*/false) || (low >= lowest && high - 1 <= highest),
              "randint: the range [", low, ", ", high, ") does not fit dtype ", dtype);
  Tensor t = empty_on("randint", sizes, dtype, options.device());
  fill_random(Op::randint, t, 2, low, high);
  return finish("randint", t, options);
}

// Fisher-Yates on the CPU from the randint words of the Philox stream, then moved.
Tensor randperm(int64_t n, const TensorOptions& options) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  ScalarType dtype = options.has_dtype() ? options.dtype() : kInt64;
  int64_t limit = dtype == kUInt8     ? 256
                  : dtype == kInt32   ? (int64_t(1) << 31)
                  : dtype == kFloat32 ? (int64_t(1) << 24)
                  : dtype == kFloat64 ? (int64_t(1) << 53)
                  : dtype == kInt64   ? INT64_MAX
                                      : 0;
  EMBER_CHECK(n <= limit, "randperm: n=", n, " does not fit in dtype ", dtype);
  Tensor t = empty_on({n}, kInt64, Device(kCPU));
  int64_t* p = static_cast<int64_t*>(t.data_ptr());
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  if (n > 1) {
    PhiloxSeed s = next_philox(random_counters(n - 1, 2));
    Philox4 w{};
    for (int64_t i = n - 1; i >= 1; --i) {
      uint64_t d = static_cast<uint64_t>(n - 1 - i);
      if (d % 2 == 0) w = philox4x32(s.seed, s.offset + d / 2);
      int j = static_cast<int>(d % 2);
      uint64_t v = (static_cast<uint64_t>(w.v[2 * j]) << 32) | w.v[2 * j + 1];
      int64_t r = static_cast<int64_t>(v % static_cast<uint64_t>(i + 1));
      std::swap(p[i], p[r]);
    }
  }
  return finish("randperm", t.to(options.device(), dtype), options);
}

// ---- *_like ----

Tensor empty_like(const Tensor& t, const TensorOptions& options) {
  return empty(t.sizes(), like_options(t, options));
}
Tensor zeros_like(const Tensor& t, const TensorOptions& options) {
  return zeros(t.sizes(), like_options(t, options));
}
Tensor ones_like(const Tensor& t, const TensorOptions& options) {
  return ones(t.sizes(), like_options(t, options));
}
Tensor full_like(const Tensor& t, const Scalar& value, const TensorOptions& options) {
  return full(t.sizes(), value, like_options(t, options));
}
Tensor rand_like(const Tensor& t, const TensorOptions& options) {
  return rand(t.sizes(), like_options(t, options));
}
Tensor randn_like(const Tensor& t, const TensorOptions& options) {
  return randn(t.sizes(), like_options(t, options));
}
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options) {
  return randint(low, high, t.sizes(), like_options(t, options));
}

// ---- new_* (LibTorch's Tensor::new_zeros & co: this tensor's dtype and device unless given) ----

Tensor Tensor::new_empty(IntArrayRef sizes, const TensorOptions& options) const {
  return empty(sizes, like_options(*this, options));
}
Tensor Tensor::new_zeros(IntArrayRef sizes, const TensorOptions& options) const {
  return zeros(sizes, like_options(*this, options));
}
Tensor Tensor::new_ones(IntArrayRef sizes, const TensorOptions& options) const {
  return ones(sizes, like_options(*this, options));
}
Tensor Tensor::new_full(IntArrayRef sizes, const Scalar& value,
                        const TensorOptions& options) const {
  return full(sizes, value, like_options(*this, options));
}

// ---- from values ----

namespace {
template <class T>
struct ValueDtype {
  static constexpr ScalarType value = CppTypeToScalarType<T>::value;
};
// `long long` is a distinct type from int64_t (long) on LP64 systems; both mean int64.
template <>
struct ValueDtype<long long> {
  static constexpr ScalarType value = kInt64;
};

// The dtype as LibTorch's torch::tensor gives it (compute_desired_dtype): integers (int,
// int64_t) -> int64, floating values (float, double) -> the default dtype (float32 unless
// set_default_dtype changed it), bool -> bool, uint8_t -> uint8; an explicit dtype wins.
ScalarType literal_dtype(ScalarType own) {
  if (own == kInt32 || own == kInt64) return kInt64;
  if (own == kFloat32 || own == kFloat64) return default_float_dtype();
  return own;
}
}  // namespace

template <class T>
Tensor tensor(ArrayRef<T> values, const TensorOptions& options) {
  constexpr ScalarType own = ValueDtype<T>::value;
  static_assert(sizeof(T) == (own == kInt64 || own == kFloat64   ? 8
                              : own == kInt32 || own == kFloat32 ? 4
                                                                 : 1),
                "tensor(): C++ type and dtype sizes differ");
  Tensor t = empty_on({static_cast<int64_t>(values.size())}, own, Device(kCPU));
  if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
  Tensor out = t.to(options.device(), options.has_dtype() ? options.dtype() : literal_dtype(own));
  return finish("tensor", out, options);
}

template Tensor tensor<float>(ArrayRef<float>, const TensorOptions&);
template Tensor tensor<double>(ArrayRef<double>, const TensorOptions&);
template Tensor tensor<int32_t>(ArrayRef<int32_t>, const TensorOptions&);
template Tensor tensor<int64_t>(ArrayRef<int64_t>, const TensorOptions&);
template Tensor tensor<long long>(ArrayRef<long long>, const TensorOptions&);
template Tensor tensor<uint8_t>(ArrayRef<uint8_t>, const TensorOptions&);
template Tensor tensor<bool>(ArrayRef<bool>, const TensorOptions&);

namespace detail {
Tensor literal_leaf(const Tensor& t, const TensorOptions& options) {
  return options.requires_grad() ? finish("tensor", t.detach(), options) : t;
}
}  // namespace detail

// LibTorch's scalar_tensor: 0-dim, float32 unless options give a dtype.
// A value that does not fit the dtype throws (300 for uint8), as in LibTorch.
Tensor scalar_tensor(const Scalar& value, const TensorOptions& options) {
  check_fits("scalar_tensor", value, options.dtype());
  return wrapped_scalar_tensor(value, options);
}

// The binary ops' scalar operands: uint8 + 300 wraps the 300, as LibTorch's wrapped numbers do.
Tensor wrapped_scalar_tensor(const Scalar& value, const TensorOptions& options) {
  Tensor t = empty_on("scalar_tensor", {}, options.dtype(), options.device());
  fill(t, value);
  return finish("scalar_tensor", t, options);
}

// ---- from_blob ----

namespace {
void call_user_deleter(void* ptr, void* ctx) { reinterpret_cast<void (*)(void*)>(ctx)(ptr); }

Tensor wrap_blob(void* data, IntArrayRef sizes, IntArrayRef strides, void (*deleter)(void*),
                 const TensorOptions& options) {
  EMBER_CHECK(data != nullptr, "from_blob: data pointer is null");
  check_sizes("from_blob", sizes);
  EMBER_CHECK(sizes.size() == strides.size(), "from_blob: sizes ", sizes, " and strides ", strides,
              " differ in length");
  init_backends();  // kernels must be there even if no tensor was allocated yet
  const int64_t extent = storage_extent("from_blob", sizes, strides);
  Device device = options.device();
  if (device.is_cuda() && !device.has_index())
    device = Device(kCUDA, device_hooks().current_device());
  if (device.is_cuda()) {  // a CUDA tensor needs the CUDA backend: none without a GPU
    try {
      (void)get_allocator(kCUDA);
    } catch (const Error& e) {
      EMBER_THROW("from_blob: ", e.what(), " (for memory on ", device, ")");
    }
  }
  DataPtr dp;
  dp.ptr = data;
  if (deleter) {
    dp.ctx = reinterpret_cast<void*>(deleter);
    dp.deleter = &call_user_deleter;
  }
  ScalarType dtype = options.dtype();
  auto storage =
      std::make_shared<StorageImpl>(dp, static_cast<size_t>(extent) * element_size(dtype), device);
  Tensor t(std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
  return finish("from_blob", t, options);
}
}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return wrap_blob(data, sizes, contiguous_strides(sizes), nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  return wrap_blob(data, sizes, strides, nullptr, options);
}

Tensor from_blob(void* data, IntArrayRef sizes, void (*deleter)(void*),
                 const TensorOptions& options) {
  return wrap_blob(data, sizes, contiguous_strides(sizes), deleter, options);
}

}  // namespace ember
