// Free functions of the ember namespace: creation, math, reductions, linear algebra,
// indexing and joining, with LibTorch's names, argument order and defaults.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include <ember/core/tensor.h>

namespace ember {

// ---- creation ----
Tensor empty(IntArrayRef sizes, const TensorOptions& options = {});
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor zeros(IntArrayRef sizes, const TensorOptions& options = {});
Tensor ones(IntArrayRef sizes, const TensorOptions& options = {});
// dtype follows the value (bool, int64, float32) unless options say otherwise, as in PyTorch.
Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options = {});
Tensor arange(const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options = {});
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});
Tensor rand(IntArrayRef sizes, const TensorOptions& options = {});   // uniform [0, 1)
Tensor randn(IntArrayRef sizes, const TensorOptions& options = {});  // standard normal
Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options = kInt64);
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options = kInt64);
Tensor randperm(int64_t n, const TensorOptions& options = kInt64);
Tensor empty_like(const Tensor& t, const TensorOptions& options = {});
Tensor zeros_like(const Tensor& t, const TensorOptions& options = {});
Tensor ones_like(const Tensor& t, const TensorOptions& options = {});
Tensor full_like(const Tensor& t, const Scalar& value, const TensorOptions& options = {});
Tensor rand_like(const Tensor& t, const TensorOptions& options = {});
Tensor randn_like(const Tensor& t, const TensorOptions& options = {});
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options = {});

// tensor({1.f, 2.f}) copies values into a new 1-D tensor; the dtype follows T.
template <class T>
Tensor tensor(ArrayRef<T> values, const TensorOptions& options = {});
template <class T>
Tensor tensor(std::initializer_list<T> values, const TensorOptions& options = {}) {
  return tensor(ArrayRef<T>(values), options);
}
template <class T>
Tensor tensor(const std::vector<T>& values, const TensorOptions& options = {}) {
  return tensor(ArrayRef<T>(values), options);
}
namespace detail {
// A literal shaped from a flat one is a leaf: requires_grad is applied after the reshape.
Tensor literal_leaf(const Tensor& t, const TensorOptions& options);
}  // namespace detail
// tensor(3), tensor(2.5, kLong): a 0-dim tensor, with the dtype rule of the list forms.
template <class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
Tensor tensor(T value, const TensorOptions& options = {}) {
  return detail::literal_leaf(
      tensor(ArrayRef<T>(value), options.requires_grad(false)).view(IntArrayRef()), options);
}
// Nested literals, as LibTorch's: tensor({{1, 2}, {3, 4}}) is [2, 2] int64; rows must match.
template <class T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> rows,
              const TensorOptions& options = {}) {
  const int64_t n = static_cast<int64_t>(rows.size());
  const int64_t m = n ? static_cast<int64_t>(rows.begin()->size()) : 0;
  std::unique_ptr<T[]> flat(new T[static_cast<size_t>(n * m)]);
  int64_t k = 0;
  for (const auto& row : rows) {
    EMBER_CHECK(static_cast<int64_t>(row.size()) == m, "tensor: expected each row to have ", m,
                " values, got one of ", row.size());
    for (const T& v : row) flat[static_cast<size_t>(k++)] = v;
  }
  Tensor flat_t =
      tensor(ArrayRef<T>(flat.get(), static_cast<size_t>(n * m)), options.requires_grad(false));
  return detail::literal_leaf(flat_t.view({n, m}), options);
}
Tensor stack(TensorList tensors, int64_t dim);  // declared again below, with its default
template <class T>
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> planes,
              const TensorOptions& options = {}) {
  std::vector<Tensor> parts;
  for (const auto& plane : planes) parts.push_back(tensor(plane, options.requires_grad(false)));
  EMBER_CHECK(!parts.empty(), "tensor: an empty nested list has no shape");
  return detail::literal_leaf(stack(parts, 0), options);
}
Tensor scalar_tensor(const Scalar& value, const TensorOptions& options = {});

// Wraps memory the caller owns (no copy); the deleter, if given, runs when the last view dies.
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, void (*deleter)(void*),
                 const TensorOptions& options = {});

// The global generator: manual_seed makes every random op repeatable, on every device.
void manual_seed(uint64_t seed);

// CPU threads used by large ops (defaults to the number of cores).
void set_num_threads(int n);
int get_num_threads();

// ---- elementwise ----
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Scalar& b);
Tensor pow(const Tensor& a, const Tensor& exponent);
Tensor pow(const Tensor& a, const Scalar& exponent);
Tensor pow(const Scalar& base, const Tensor& exponent);
// maximum, minimum: the binary rows of core/elementwise.def
#define EMBER_BINARY(name, ...) Tensor name(const Tensor& a, const Tensor& b);
#include <ember/core/elementwise.def>
#undef EMBER_BINARY
Tensor neg(const Tensor& t);
Tensor abs(const Tensor& t);
Tensor relu(const Tensor& t);
// exp, log, ... erf, gelu (exact, PyTorch's default): the rows of core/elementwise.def
#define EMBER_UNARY_FLOAT(name, ...) Tensor name(const Tensor& t);
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b);
Tensor masked_fill(const Tensor& t, const Tensor& mask, const Scalar& value);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, const Scalar& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Scalar& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Scalar& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Scalar& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Scalar& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Scalar& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& t);
bool equal(const Tensor& a, const Tensor& b);  // same shape and values
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

// ---- reductions (see the Tensor methods for the dim/keepdim forms) ----
Tensor sum(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor sum(const Tensor& t, IntArrayRef dim, bool keepdim = false,
           std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& t, IntArrayRef dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& t, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& t, int64_t dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor max(const Tensor& t);
std::tuple<Tensor, Tensor> max(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& t);
std::tuple<Tensor, Tensor> min(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& t, IntArrayRef dim = {}, bool keepdim = false);
Tensor amin(const Tensor& t, IntArrayRef dim = {}, bool keepdim = false);
Tensor argmax(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& t, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& t, bool unbiased = true);
Tensor var(const Tensor& t, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& t, bool unbiased = true);
Tensor std(const Tensor& t, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
// var(t, 1), std(t, -1): over that dim, as LibTorch (see Tensor::var(int)).
inline Tensor var(const Tensor& t, int dim) {
  const int64_t d = dim;
  return var(t, IntArrayRef(d));
}
inline Tensor std(const Tensor& t, int dim) {
  const int64_t d = dim;
  return std(t, IntArrayRef(d));
}
inline Tensor var(const Tensor& t, std::initializer_list<int64_t> dim, bool unbiased = true,
                  bool keepdim = false) {
  return var(t, IntArrayRef(dim), unbiased, keepdim);
}
inline Tensor std(const Tensor& t, std::initializer_list<int64_t> dim, bool unbiased = true,
                  bool keepdim = false) {
  return std(t, IntArrayRef(dim), unbiased, keepdim);
}
Tensor norm(const Tensor& t, const Scalar& p = 2);
Tensor norm(const Tensor& t, const Scalar& p, IntArrayRef dim, bool keepdim = false);
Tensor all(const Tensor& t);
Tensor all(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& t);
Tensor any(const Tensor& t, int64_t dim, bool keepdim = false);

// ---- linear algebra ----
Tensor matmul(const Tensor& a, const Tensor& b);  // 1-D to N-D, batch dims broadcast
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

// ---- softmax ----
Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

// ---- indexing, joining ----
Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor stack(TensorList tensors, int64_t dim = 0);
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);

// ---- views as free functions ----
Tensor reshape(const Tensor& t, IntArrayRef sizes);
Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, int64_t dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& t, IntArrayRef dims);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim = 0);
Tensor clone(const Tensor& t);

// ---- float32 matmul precision (as torch.set_float32_matmul_precision) ----
// "highest" (the default): full float32 products. "high": float32 products on CUDA may use
// TF32 tensor cores (10-bit mantissa inputs, float32 accumulation). "medium" is taken as
// "high" (ember has no bfloat16 products). Anything else throws. CPU products ignore it.
void set_float32_matmul_precision(const std::string& precision);
std::string get_float32_matmul_precision();

}  // namespace ember
