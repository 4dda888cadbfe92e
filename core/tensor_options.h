// TensorOptions: dtype, device and requires_grad for creation functions, with the
// LibTorch builders (TensorOptions().dtype(kFloat64).device(kCUDA)) and bare forms.
#pragma once

#include <type_traits>

#include <ember/core/device.h>
#include <ember/core/dtype.h>

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype), has_dtype_(true) {}  // NOLINT
  TensorOptions(Device device) : device_(device), has_device_(true) {}  // NOLINT
  TensorOptions(DeviceType type) : device_(type), has_device_(true) {}  // NOLINT
  // Only real strings ("cuda:0"): a template, so that a literal 0 (as in arange(0, 5, 0))
  // does not convert to a null const char* and make calls ambiguous.
  template <class T,
            std::enable_if_t<std::is_same<T, const char*>::value || std::is_same<T, char*>::value,
                             int> = 0>
  TensorOptions(T device) : device_(device), has_device_(true) {}  // NOLINT

  TensorOptions dtype(ScalarType d) const {
    TensorOptions o = *this;
    o.dtype_ = d;
    o.has_dtype_ = true;
    return o;
  }
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    o.has_device_ = true;
    return o;
  }
  TensorOptions requires_grad(bool r) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }

  // Without a dtype, the default one (set_default_dtype), read when asked, as LibTorch's.
  ScalarType dtype() const { return has_dtype_ ? dtype_ : default_float_dtype(); }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  bool has_dtype() const { return has_dtype_; }
  bool has_device() const { return has_device_; }

 private:
  ScalarType dtype_ = kFloat32;
  Device device_ = Device(kCPU);
  bool requires_grad_ = false;
  bool has_dtype_ = false;
  bool has_device_ = false;
};

inline TensorOptions dtype(ScalarType d) { return TensorOptions().dtype(d); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

}  // namespace ember
