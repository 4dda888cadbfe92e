// Tensor: a cheap handle (shared pointer) to a TensorImpl that holds dtype, device,
// sizes, strides, storage offset and a shared Storage. Methods mirror LibTorch's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/accessor.h>
#include <ember/core/array_ref.h>
#include <ember/core/device.h>
#include <ember/core/dtype.h>
#include <ember/core/error.h>
#include <ember/core/scalar.h>
#include <ember/core/storage.h>
#include <ember/core/tensor_options.h>

namespace ember {

namespace autograd {
struct AutogradMeta;  // defined by autograd/; core only holds the pointer
class Node;
}  // namespace autograd
using autograd::AutogradMeta;

class TensorImpl {
 public:
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t storage_offset);

  const Storage& storage() const { return storage_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t storage_offset() const { return storage_offset_; }
  int64_t numel() const { return numel_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  bool is_contiguous() const { return is_contiguous_; }
  void* data() const {
    return static_cast<char*>(storage_->data()) +
           storage_offset_ * static_cast<int64_t>(element_size(dtype_));
  }

  // Changes the view's geometry in place (used by views and by resizing an empty tensor).
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  // Points this tensor at other memory, dtype and geometry, keeping its identity and autograd
  // state (Tensor::set_data, used by Module::to to move parameters in place).
  void set_data(const TensorImpl& other);

  bool requires_grad() const { return requires_grad_; }
  void set_requires_grad(bool r) { requires_grad_ = r; }
  // Made by a view op (view, slice, select, ...): shares memory with a base tensor.
  bool is_view() const { return is_view_; }
  void set_is_view(bool v) { is_view_ = v; }
  std::shared_ptr<AutogradMeta>& autograd_meta() { return autograd_meta_; }

 private:
  void refresh();  // recomputes numel and contiguity

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  bool requires_grad_ = false;
  bool is_view_ = false;
  std::shared_ptr<AutogradMeta> autograd_meta_;
};

class Tensor;
using TensorList = ArrayRef<Tensor>;
namespace indexing {
class TensorIndex;  // core/indexing.h
}  // namespace indexing

namespace detail {
// Small CUDA ops the backend recorded but has not launched yet (cuda/batch.h), and the
// function that launches them. data_ptr() of a CUDA tensor calls it first, so whatever the
// caller does with the pointer (a kernel of its own, on any stream) comes after those ops.
extern std::atomic<int64_t> g_unsubmitted_cuda_ops;
extern void (*g_submit_cuda_ops)();
// The error of a call on an undefined tensor (Tensor::checked).
[[noreturn]] void throw_undefined(const char* call);
}  // namespace detail

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  // Assigning to a named tensor rebinds it; assigning to a temporary (`x[1] = y`,
  // `x.select(1, 0) = 2.5`) writes into the view's elements, as LibTorch's does.
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  Tensor& operator=(Tensor&& src) && { return copy_(src); }
  Tensor& operator=(const Scalar& value) && { return fill_(value); }

  // ---- metadata ----
  // An undefined tensor (default-constructed; grad() before any backward) answers defined(),
  // requires_grad() (false), is_same and use_count; everything else throws an ember::Error
  // naming the call, as LibTorch's undefined tensors do.
  bool defined() const { return impl_ != nullptr; }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  IntArrayRef sizes() const { return checked("sizes()").sizes(); }
  IntArrayRef strides() const { return checked("strides()").strides(); }
  int64_t size(int64_t dim) const;  // negative dims count from the end
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return checked("dim()").dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return checked("numel()").numel(); }
  ScalarType dtype() const { return checked("dtype()").dtype(); }
  ScalarType scalar_type() const { return checked("scalar_type()").dtype(); }
  Device device() const { return checked("device()").device(); }
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_contiguous() const { return checked("is_contiguous()").is_contiguous(); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  int64_t storage_offset() const { return checked("storage_offset()").storage_offset(); }
  size_t element_size() const { return ember::element_size(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  long use_count() const { return impl_.use_count(); }
  std::string toString() const;  // "CPUFloatType{[2, 3]}"-like summary

  void* data_ptr() const {
    if (detail::g_unsubmitted_cuda_ops.load(std::memory_order_acquire) != 0 && is_cuda())
      detail::g_submit_cuda_ops();
    return checked("data_ptr()").data();
  }
  template <class T>
  T* data_ptr() const;  // checks that T matches dtype()
  template <class T>
  T* data() const {  // LibTorch's older name of data_ptr<T>()
    return data_ptr<T>();
  }
  // a[i][j] access to a CPU tensor of dtype T and N dims (core/accessor.h), as LibTorch's;
  // not on a temporary, whose sizes would die with it.
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    check_accessor(static_cast<int64_t>(N), CppTypeToScalarType<T>::value);
    return TensorAccessor<T, N>(static_cast<T*>(data_ptr()), sizes().data(), strides().data());
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  template <class T>
  T item() const;  // one element, converted to T; copies from the GPU
  Scalar item() const;

  // ---- views (share storage) ----
  Tensor view(IntArrayRef sizes) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor t() const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  // More views (core/ops_shape.cpp)
  Tensor squeeze(IntArrayRef dim) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const;
  Tensor moveaxis(int64_t source, int64_t destination) const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor swapdims(int64_t dim0, int64_t dim1) const;
  Tensor broadcast_to(IntArrayRef size) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor T() const;   // all dims reversed
  Tensor mT() const;  // last two dims swapped (batches of matrices)
  Tensor mH() const;  // mT (ember's dtypes are real)
  Tensor H() const;   // t() of a matrix
  Tensor adjoint() const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  // In-place views: change this tensor's geometry (every handle to it sees the change).
  Tensor& squeeze_() const;
  Tensor& squeeze_(int64_t dim) const;
  Tensor& squeeze_(IntArrayRef dim) const;
  Tensor& unsqueeze_(int64_t dim) const;
  Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  Tensor& t_() const;
  Tensor& swapaxes_(int64_t axis0, int64_t axis1) const;
  Tensor& swapdims_(int64_t dim0, int64_t dim1) const;
  // Shape ops that copy (core/ops_shape.cpp)
  Tensor flip(IntArrayRef dims) const;
  Tensor fliplr() const;
  Tensor flipud() const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0) const;
  Tensor& triu_(int64_t diagonal = 0) const;
  Tensor diag(int64_t diagonal = 0) const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor tile(IntArrayRef dims) const;
  Tensor narrow_copy(int64_t dim, int64_t start, int64_t length) const;

  // ---- copies, conversions ----
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor detach() const;
  Tensor& detach_() const;
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  // Exact matches for x.to(kCUDA) and x.to("cuda:0"), which Device and TensorOptions
  // would otherwise both accept (an ambiguous call).
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false) const {
    return to(Device(type), non_blocking, copy);
  }
  Tensor to(const char* device, bool non_blocking = false, bool copy = false) const {
    return to(Device(device), non_blocking, copy);
  }
  Tensor cpu() const;
  Tensor cuda() const;
  // New tensors with this tensor's dtype and device unless `options` say otherwise.
  Tensor new_empty(IntArrayRef sizes, const TensorOptions& options = {}) const;
  Tensor new_zeros(IntArrayRef sizes, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef sizes, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options = {}) const;
  // A contiguous copy of a CPU tensor in page-locked host memory, from which copies to the
  // GPU can be asynchronous (non_blocking); throws without a GPU. No autograd history.
  Tensor pin_memory() const;
  bool is_pinned() const;  // in page-locked host memory
  Tensor toType(ScalarType dtype) const { return to(dtype); }
  Tensor type_as(const Tensor& other) const { return to(other.dtype()); }

  // ---- autograd (defined in autograd/) ----
  bool requires_grad() const { return impl_ != nullptr && impl_->requires_grad(); }
  // Only floating-point tensors can require grad; only leaves can stop requiring it.
  Tensor& requires_grad_(bool r = true) const;
  Tensor& set_requires_grad(bool r) const { return requires_grad_(r); }
  // The accumulated gradient of a leaf (or of a tensor that called retain_grad());
  // undefined until a backward pass reaches it.
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  // Accumulates the gradients of this tensor into the leaves' grad(). `gradient` may be
  // left out for a one-element tensor; retain_graph defaults to create_graph.
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  // The node that made this tensor (null for leaves): grad_fn()->name() is "MulBackward0".
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  bool is_leaf() const;
  uint32_t output_nr() const;
  int64_t _version() const;  // the storage's version counter, bumped by in-place ops
  void retain_grad() const;
  bool retains_grad() const;
  // hook(grad) runs when this tensor's gradient is computed; returning a defined
  // Tensor replaces the gradient. Returns a handle for remove_hook.
  template <class F>
  unsigned register_hook(F&& hook) const {
    if constexpr (std::is_void_v<std::invoke_result_t<F&, const Tensor&>>) {
      return register_hook_impl([h = std::forward<F>(hook)](const Tensor& g) mutable {
        h(g);
        return Tensor();
      });
    } else {
      return register_hook_impl(std::function<Tensor(const Tensor&)>(std::forward<F>(hook)));
    }
  }
  void remove_hook(unsigned handle) const;
  Tensor data() const { return detach(); }  // the values without history
  // Makes this tensor (every handle to it) use new_data's memory, dtype, device and shape,
  // keeping requires_grad, grad and hooks, as LibTorch's set_data. Module::to uses it so that
  // optimizers holding the parameters keep working after a move.
  void set_data(const Tensor& new_data) const;

  // ---- elementwise math ----
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
// maximum(other), minimum(other): the binary rows of core/elementwise.def
#define EMBER_BINARY(name, ...) Tensor name(const Tensor& other) const;
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
  Tensor neg() const;
  Tensor abs() const;
  Tensor relu() const;
// exp() ... gelu(): the rows of core/elementwise.def
#define EMBER_UNARY_FLOAT(name, ...) \
  Tensor name() const;               \
  Tensor& name##_() const;
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#define EMBER_BINARY(name, ...) Tensor& name##_(const Tensor& other) const;
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
  Tensor fmod(const Scalar& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor floor_divide(const Scalar& other) const;
  Tensor copysign(const Scalar& other) const;
  Tensor xlogy(const Scalar& other) const;
  Tensor bitwise_and(const Scalar& other) const;
  Tensor bitwise_or(const Scalar& other) const;
  Tensor bitwise_xor(const Scalar& other) const;
  Tensor bitwise_left_shift(const Scalar& other) const;
  Tensor bitwise_right_shift(const Scalar& other) const;
  Tensor& fmod_(const Scalar& other) const;
  Tensor& remainder_(const Scalar& other) const;
  Tensor bitwise_not() const;
  Tensor& bitwise_not_() const;
  Tensor operator~() const { return bitwise_not(); }
  Tensor& operator&=(const Tensor& o) const { return bitwise_and_(o); }
  Tensor& operator|=(const Tensor& o) const { return bitwise_or_(o); }
  Tensor& operator^=(const Tensor& o) const { return bitwise_xor_(o); }
  Tensor logical_xor(const Tensor& other) const;
  Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor div(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  Tensor true_divide(const Tensor& other) const;
  Tensor true_divide(const Scalar& other) const;
  Tensor square() const;
  Tensor sgn() const;
  Tensor fix() const;
  Tensor round(int64_t decimals) const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isposinf() const;
  Tensor isneginf() const;
  Tensor isfinite() const;
  Tensor nan_to_num(std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor isclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                 bool equal_nan = false) const;
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;
  bool equal(const Tensor& other) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  Tensor max(const Tensor& other) const;
  Tensor min(const Tensor& other) const;
  Tensor clamp(const std::optional<Tensor>& min,
               const std::optional<Tensor>& max = std::nullopt) const;
  Tensor& relu_() const;
  Tensor& pow_(const Scalar& exponent) const;
  Tensor& pow_(const Tensor& exponent) const;
  // In-place comparisons: self = (self op other), in self's dtype.
  Tensor& eq_(const Scalar& other) const;
  Tensor& eq_(const Tensor& other) const;
  Tensor& ne_(const Scalar& other) const;
  Tensor& ne_(const Tensor& other) const;
  Tensor& lt_(const Scalar& other) const;
  Tensor& lt_(const Tensor& other) const;
  Tensor& le_(const Scalar& other) const;
  Tensor& le_(const Tensor& other) const;
  Tensor& gt_(const Scalar& other) const;
  Tensor& gt_(const Tensor& other) const;
  Tensor& ge_(const Scalar& other) const;
  Tensor& ge_(const Tensor& other) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const { return clamp(min, std::nullopt); }
  Tensor clamp_max(const Scalar& max) const { return clamp(std::nullopt, max); }
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor where(const Tensor& condition, const Tensor& other) const;  // condition ? *this : other
  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_not() const;

  // ---- in place (bump the storage version) ----
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& mul_(const Tensor& other) const;
  Tensor& mul_(const Scalar& other) const;
  Tensor& div_(const Tensor& other) const;
  Tensor& div_(const Scalar& other) const;
  // In-place random fills, as LibTorch's: uniform in [from, to), normal (mean, std).
  Tensor& uniform_(double from = 0, double to = 1) const;
  Tensor& normal_(double mean = 0, double std = 1) const;
  // More random ops (core/ops_random.cpp), as LibTorch's. random_(): integers in [0, 2^24]
  // (float32), [0, 2^53] (float64) or [0, the dtype's max]; random_(to): [0, to).
  Tensor bernoulli() const;
  Tensor bernoulli(double p) const;
  Tensor& bernoulli_(double p = 0.5) const;
  Tensor& bernoulli_(const Tensor& p) const;
  Tensor& random_() const;
  Tensor& random_(int64_t to) const;
  Tensor& random_(int64_t from, std::optional<int64_t> to) const;
  Tensor& exponential_(double lambd = 1) const;
  Tensor& geometric_(double p) const;
  Tensor& log_normal_(double mean = 1, double std = 2) const;
  Tensor& cauchy_(double median = 0, double sigma = 1) const;
  Tensor multinomial(int64_t num_samples, bool replacement = false) const;
  Tensor& fill_(const Scalar& value) const;
  Tensor& zero_() const;
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;

  // ---- reductions ----
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dim, bool keepdim = false,
             std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor var(bool unbiased = true) const;
  Tensor var(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor std(bool unbiased = true) const;
  Tensor std(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  // var(1) and std(0) reduce over that dim, as LibTorch's own C++-only overloads do (gh-40287:
  // int -> bool outranks int -> IntArrayRef, so without them var(1) would mean unbiased);
  // var({1}) and std({1}) mean a dim list, not `unbiased` (an initializer_list overload
  // outranks the int -> bool conversion).
  Tensor var(int dim) const {
    const int64_t d = dim;
    return var(IntArrayRef(d));
  }
  Tensor std(int dim) const {
    const int64_t d = dim;
    return std(IntArrayRef(d));
  }
  Tensor var(std::initializer_list<int64_t> dim, bool unbiased = true, bool keepdim = false) const {
    return var(IntArrayRef(dim), unbiased, keepdim);
  }
  Tensor std(std::initializer_list<int64_t> dim, bool unbiased = true, bool keepdim = false) const {
    return std(IntArrayRef(dim), unbiased, keepdim);
  }
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const Scalar& p, IntArrayRef dim, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  // Sorting, selection, scans and more reductions (core/ops_sort.cpp), as the free functions.
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1,
                                  bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(bool stable, int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor& cumsum_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor& cumprod_(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logsumexp(IntArrayRef dim, bool keepdim = false) const;
  Tensor nansum(IntArrayRef dim = {}, bool keepdim = false,
                std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor nanmean(IntArrayRef dim = {}, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor count_nonzero(IntArrayRef dim) const;
  Tensor count_nonzero(std::optional<int64_t> dim = std::nullopt) const;

  // ---- linear algebra, softmax, indexing ----
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  // t.index({Slice(), 0}), t.index({mask}), t.index_put_({idx, "..."}, v): LibTorch's
  // indexing (core/indexing.h). Ints, slices, None and Ellipsis give views; tensors copy.
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<std::optional<Tensor>>& indices) const;  // ATen's index.Tensor
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& rhs) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& v) const;
  Tensor& index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                     bool accumulate = false) const;
  Tensor index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate = false) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;  // value: 0-dim
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  Tensor nonzero() const;   // [n, dim] int64 coordinates of the nonzero elements
  Tensor argwhere() const;  // the same as nonzero()
  // Linear-algebra composites (core/ops_linalg2.cpp) and the scatter family
  // (core/ops_scatter.cpp), as the free functions of the same names.
  Tensor dot(const Tensor& tensor) const;
  Tensor vdot(const Tensor& other) const;
  Tensor inner(const Tensor& other) const;
  Tensor outer(const Tensor& vec2) const;
  Tensor ger(const Tensor& vec2) const;
  Tensor mv(const Tensor& vec) const;
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  Tensor& addmv_(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  Tensor addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
              const Scalar& alpha = 1) const;
  Tensor& addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
                const Scalar& alpha = 1) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  Tensor& baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                   const Scalar& alpha = 1) const;
  Tensor addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                const Scalar& alpha = 1) const;
  Tensor& addbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                  const Scalar& alpha = 1) const;
  Tensor trace() const;
  Tensor kron(const Tensor& other) const;
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src,
                 std::string_view reduce) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value,
                 std::string_view reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                   std::string_view reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                   std::string_view reduce) const;
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self = true) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                     const Scalar& alpha = 1) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor bincount(const std::optional<Tensor>& weights = {}, int64_t minlength = 0) const;

  // ---- operators ----
  Tensor operator-() const { return neg(); }
  Tensor& operator+=(const Tensor& o) { return add_(o); }
  Tensor& operator+=(const Scalar& o) { return add_(o); }
  Tensor& operator-=(const Tensor& o) { return sub_(o); }
  Tensor& operator-=(const Scalar& o) { return sub_(o); }
  Tensor& operator*=(const Tensor& o) { return mul_(o); }
  Tensor& operator*=(const Scalar& o) { return mul_(o); }
  Tensor& operator/=(const Tensor& o) { return div_(o); }
  Tensor& operator/=(const Scalar& o) { return div_(o); }

 private:
  void check_accessor(int64_t dims, ScalarType dtype) const;
  // In-place methods are const, as LibTorch's (a Tensor is a handle; they change its
  // elements): `x.grad().zero_()` and `for (const auto& p : params) p.mul_(2)` compile.
  Tensor& self_() const { return const_cast<Tensor&>(*this); }
  const TensorImpl& checked(const char* call) const {
    if (__builtin_expect(impl_ == nullptr, 0)) detail::throw_undefined(call);
    return *impl_;
  }
  unsigned register_hook_impl(std::function<Tensor(const Tensor&)> hook) const;
  std::shared_ptr<TensorImpl> impl_;
};

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor operator%(const Tensor& a, const Tensor& b);  // remainder
Tensor operator%(const Tensor& a, const Scalar& b);
Tensor operator%(const Scalar& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Tensor& b);  // bitwise_and
Tensor operator&(const Tensor& a, const Scalar& b);
Tensor operator&(const Scalar& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);  // bitwise_or
Tensor operator|(const Tensor& a, const Scalar& b);
Tensor operator|(const Scalar& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);  // bitwise_xor
Tensor operator^(const Tensor& a, const Scalar& b);
Tensor operator^(const Scalar& a, const Tensor& b);
Tensor operator&&(const Tensor& a, const Tensor& b);
Tensor operator||(const Tensor& a, const Tensor& b);
Tensor operator!(const Tensor& a);

// PyTorch-style printing: values, then dtype/device when not float32 CPU.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace ember

#include <ember/core/indexing.h>  // Slice, None, Ellipsis: the arguments of index()
