// TensorImpl geometry and the Tensor methods that are not views or math: metadata
// access, data_ptr/item, autograd flags, contiguous/clone/detach, copy_ and to().
#include <ember/core/tensor.h>

#include <cstring>

#include <ember/core/recording.h>
#include <ember/core/checks.h>
#include <ember/core/device_hooks.h>
#include <ember/core/dispatch.h>
#include <ember/core/grad_mode.h>

namespace ember {

namespace detail {
std::atomic<int64_t> g_unsubmitted_cuda_ops{0};
void (*g_submit_cuda_ops)() = nullptr;  // set by cuda::register_backend()

void throw_undefined(const char* call) {
  EMBER_THROW(call,
              " called on an undefined Tensor (a default-constructed Tensor, or the grad() "
              "of a tensor no backward has reached yet)");
}
}  // namespace detail

// ---- TensorImpl ----

namespace {
// numel and contiguity. Contiguous means row-major: size-1 dims may have any stride
// (they never move the pointer), and an empty tensor is contiguous, as in PyTorch.
// Internal linkage so the constructor inlines it (exported functions are not inlined
// in a -fPIC library).
inline void compute_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t* numel,
                             bool* contiguous) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(n, s, &n);
  EMBER_CHECK(!overflow, "Tensor: shape ", sizes, " has more elements than int64 can count");
  *numel = n;
  bool c = true;
  if (n != 0) {
    int64_t expected = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      if (sizes[i] == 1) continue;
      if (strides[i] != expected) {
        c = false;
        break;
      }
      expected *= sizes[i];
    }
  }
  *contiguous = c;
}
}  // namespace

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      dtype_(dtype) {
  EMBER_CHECK(sizes.size() == strides.size(), "TensorImpl: sizes ", sizes, " and strides ", strides,
              " differ in length");
  compute_geometry(sizes_, strides_, &numel_, &is_contiguous_);
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  EMBER_CHECK(sizes.size() == strides.size(), "set_geometry: sizes ", sizes, " and strides ",
              strides, " differ in length");
  sizes_ = sizes;
  strides_ = strides;
  storage_offset_ = storage_offset;
  refresh();
}

void TensorImpl::set_data(const TensorImpl& other) {
  storage_ = other.storage_;
  dtype_ = other.dtype_;
  sizes_ = other.sizes_;
  strides_ = other.strides_;
  storage_offset_ = other.storage_offset_;
  is_view_ = false;
  refresh();
}

void TensorImpl::refresh() { compute_geometry(sizes_, strides_, &numel_, &is_contiguous_); }

// ---- metadata ----

int64_t Tensor::size(int64_t dim) const {
  int64_t n = impl_->dim();
  EMBER_CHECK(n > 0, "size: dim ", dim, " is out of range for a 0-dim tensor (it has no dims)");
  return impl_->sizes()[wrap_dim("size", dim, n)];
}

int64_t Tensor::stride(int64_t dim) const {
  int64_t n = impl_->dim();
  EMBER_CHECK(n > 0, "stride: dim ", dim, " is out of range for a 0-dim tensor (it has no dims)");
  return impl_->strides()[wrap_dim("stride", dim, n)];
}

namespace {
const char* type_word(ScalarType t) {
  switch (t) {
    case kUInt8:
      return "Byte";
    case kInt32:
      return "Int";
    case kInt64:
      return "Long";
    case kFloat32:
      return "Float";
    case kFloat64:
      return "Double";
    case kBool:
      return "Bool";
    case kFloat16:
      return "Half";
    case kBFloat16:
      return "BFloat16";
    default:
      return "Undefined";
  }
}
}  // namespace

std::string Tensor::toString() const {
  if (!defined()) return "UndefinedType";
  return detail::str(is_cuda() ? "CUDA" : "CPU", type_word(dtype()), "Type{", sizes(), "}");
}

template <class T>
T* Tensor::data_ptr() const {
  EMBER_CHECK(defined(), "data_ptr: the tensor is undefined");
  constexpr ScalarType want = CppTypeToScalarType<T>::value;
  EMBER_CHECK(dtype() == want, "data_ptr: expected dtype ", want, " but the tensor is ", dtype());
  return static_cast<T*>(data_ptr());
}

template <class T>
T Tensor::item() const {
  EMBER_CHECK(defined(), "item: the tensor is undefined");
  EMBER_CHECK(numel() == 1, "item: a Tensor with ", numel(),
              " elements cannot be converted to a Scalar");
  Tensor src = is_cuda() ? to(kCPU) : *this;  // waits for the GPU, as LibTorch's item does
  const void* p = src.data_ptr();
  constexpr ScalarType want = CppTypeToScalarType<T>::value;
  if (src.dtype() == want) return *static_cast<const T*>(p);
  // Another type: converted as LibTorch's item<T>() does, refusing values that overflow T.
  const Scalar value = src.item();
  check_fits("item", value, want);
  return value.to<T>();
}

void Tensor::check_accessor(int64_t dims, ScalarType dtype) const {
  EMBER_CHECK(defined(), "accessor: the tensor is undefined");
  EMBER_CHECK(dim() == dims, "accessor: expected ", dims, " dims but the tensor has ", dim());
  EMBER_CHECK(this->dtype() == dtype, "accessor: expected dtype ", dtype, " but the tensor is ",
              this->dtype());
  EMBER_CHECK(is_cpu(), "accessor: the tensor is on ", device(), "; accessors read CPU tensors");
}

Scalar Tensor::item() const {
  EMBER_CHECK(defined(), "item: the tensor is undefined");
  ScalarType t = dtype();
  if (t == kBool) return Scalar(item<bool>());
  if (t == kFloat32) return Scalar(item<float>());
  if (t == kFloat64) return Scalar(item<double>());
  if (t == kUInt8) return Scalar(static_cast<int64_t>(item<uint8_t>()));
  if (t == kInt32) return Scalar(static_cast<int64_t>(item<int32_t>()));
  EMBER_CHECK(t == kInt64, "item: ", dtype_name(t), " tensors are not supported");
  return Scalar(item<int64_t>());
}

#define EMBER_INSTANTIATE(T)               \
  template T* Tensor::data_ptr<T>() const; \
  template T Tensor::item<T>() const;
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
EMBER_INSTANTIATE(int32_t)
EMBER_INSTANTIATE(int64_t)
EMBER_INSTANTIATE(uint8_t)
EMBER_INSTANTIATE(bool)
#undef EMBER_INSTANTIATE

// ---- copies ----

Tensor Tensor::contiguous() const {
  check_defined("contiguous", *this);
  if (is_contiguous()) return *this;
  return clone();
}

// The copy is always contiguous (LibTorch would keep a dense permuted layout; ember's
// kernels prefer row-major anyway).
Tensor Tensor::clone() const {
  EMBER_CHECK(defined(), "clone: the tensor is undefined");
  if (autograd::should_record(*this)) return detail::recorded::clone(*this);
  Tensor out = empty_on(sizes(), dtype(), device());
  if (numel() > 0) kernel<Op::copy>(device().type())(out, *this, false);
  return out;
}

Tensor Tensor::detach() const {
  EMBER_CHECK(defined(), "detach: the tensor is undefined");
  return Tensor(std::make_shared<TensorImpl>(impl_->storage(), dtype(), sizes(), strides(),
                                             storage_offset()));
}

// Drops the graph history: no grad flag and no autograd metadata (grad included).
Tensor& Tensor::detach_() const {
  EMBER_CHECK(defined(), "detach_: the tensor is undefined");
  impl_->set_requires_grad(false);
  impl_->autograd_meta().reset();
  return self_();
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) const {
  EMBER_CHECK(defined() && src.defined(), "copy_: the ", defined() ? "source" : "destination",
              " tensor is undefined");
  if (is_same(src)) return self_();
  if (autograd::should_record(*this, src)) {
    detail::recorded::copy_(self_(), src, non_blocking);
    return self_();
  }
  Tensor s = src;
  if (!src.sizes().equals(sizes())) {
    IntArrayRef ds = sizes(), ss = src.sizes();
    EMBER_CHECK(is_expandable_to(ss, ds), "copy_: source of shape ", ss,
                " cannot be broadcast to destination of shape ", ds);
    s = src.expand(ds);
  }
  if (numel() > 0) {
    // Reading and writing one storage through different views could read already
    // written values: copy the source out first.
    if (s.impl()->storage() == impl_->storage()) s = s.clone();
    DeviceType where = (is_cuda() || s.is_cuda()) ? kCUDA : kCPU;
    kernel<Op::copy>(where)(*this, s, non_blocking);
  }
  impl_->storage()->bump_version();
  return self_();
}

// ---- conversions ----

Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking, bool copy) const {
  EMBER_CHECK(defined(), "to: the tensor is undefined");
  if (autograd::should_record(*this)) {
    return detail::recorded::to(*this, device, dtype, non_blocking, copy);
  }
  Device here = this->device();
  bool same_device;
  if (device.type() != here.type()) {
    same_device = false;
  } else if (device.is_cpu()) {
    same_device = true;
  } else {  // "cuda" without an index means the current device
    int index = device.has_index() ? device.index() : device_hooks().current_device();
    same_device = index == here.index();
    device = Device(kCUDA, index);
  }
  if (same_device && dtype == this->dtype() && !copy) return *this;
  Tensor out = empty_on("to", sizes(), dtype, device);
  if (numel() > 0) {
    DeviceType where = (device.is_cuda() || here.is_cuda()) ? kCUDA : kCPU;
    kernel<Op::copy>(where)(out, *this, non_blocking);
  }
  return out;
}

Tensor Tensor::to(ScalarType dtype, bool non_blocking, bool copy) const {
  EMBER_CHECK(defined(), "to: the tensor is undefined");
  return to(device(), dtype, non_blocking, copy);
}

Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  EMBER_CHECK(defined(), "to: the tensor is undefined");
  return to(device, dtype(), non_blocking, copy);
}

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  EMBER_CHECK(defined(), "to: the tensor is undefined");
  return to(options.has_device() ? options.device() : device(),
            options.has_dtype() ? options.dtype() : dtype(), non_blocking, copy);
}

Tensor Tensor::to(const Tensor& other, bool non_blocking, bool copy) const {
  EMBER_CHECK(other.defined(), "to: the target tensor is undefined");
  return to(other.device(), other.dtype(), non_blocking, copy);
}

Tensor Tensor::cpu() const { return to(Device(kCPU)); }

Tensor Tensor::cuda() const { return to(Device(kCUDA)); }

Tensor Tensor::pin_memory() const {
  EMBER_CHECK(defined(), "pin_memory: the tensor is undefined");
  EMBER_CHECK(is_cpu(), "pin_memory: only CPU tensors can be pinned, got a tensor on ", device());
  if (is_pinned()) return *this;  // as in LibTorch
  return device_hooks().pin_memory(*this);
}

bool Tensor::is_pinned() const {
  return defined() && is_cpu() && device_hooks().is_pinned(data_ptr());
}

}  // namespace ember
