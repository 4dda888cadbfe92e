// Free functions of the ember namespace: creation, math, reductions, linear algebra,
// indexing and joining, with LibTorch's names, argument order and defaults.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string_view>
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
// More random ops (core/ops_random.cpp): bernoulli draws 0/1 in self's dtype with probability
// self (or p); multinomial draws int64 category indices from the rows of 1-D/2-D probabilities.
Tensor bernoulli(const Tensor& self);
Tensor bernoulli(const Tensor& self, double p);
Tensor bernoulli(const Tensor& self, const Tensor& p);
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false);
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
// Its state, as torch.get_rng_state()/set_rng_state(): a 16-element uint8 CPU tensor, the
// seed then the Philox counter offset (little-endian uint64s, the layout of PyTorch's CUDA
// generator state). Setting a state got earlier makes the random ops that follow repeat
// exactly; a tensor of another dtype, shape or device throws ember::Error.
Tensor get_rng_state();
void set_rng_state(const Tensor& new_state);
namespace cuda {
// torch.cuda's spelling. CPU and CUDA random ops draw from one generator (core/generator.h),
// so this is the same state as ember::get_rng_state(): setting either sets both.
Tensor get_rng_state();
void set_rng_state(const Tensor& new_state);
}  // namespace cuda

// CPU threads used by large ops (defaults to the number of cores). n must be 1 to 1024; a
// system that refuses to start that many threads makes the next large op throw ember::Error.
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
// The scalar forms LibTorch has for the binary rows (the scalar promotes as a wrapped number).
Tensor fmod(const Tensor& a, const Scalar& b);
Tensor remainder(const Tensor& a, const Scalar& b);
Tensor remainder(const Scalar& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Scalar& b);
Tensor copysign(const Tensor& a, const Scalar& b);
Tensor xlogy(const Tensor& a, const Scalar& b);
Tensor xlogy(const Scalar& a, const Tensor& b);
Tensor bitwise_and(const Tensor& a, const Scalar& b);
Tensor bitwise_or(const Tensor& a, const Scalar& b);
Tensor bitwise_xor(const Tensor& a, const Scalar& b);
Tensor bitwise_left_shift(const Tensor& a, const Scalar& b);
Tensor bitwise_right_shift(const Tensor& a, const Scalar& b);
Tensor bitwise_left_shift(const Scalar& a, const Tensor& b);
Tensor bitwise_right_shift(const Scalar& a, const Tensor& b);
Tensor bitwise_not(const Tensor& t);  // ~t: integer and bool tensors
Tensor logical_xor(const Tensor& a, const Tensor& b);
// rounding_mode: nullopt (true division), "trunc" or "floor" (integer dtypes stay integer).
Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode);
Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode);
Tensor true_divide(const Tensor& a, const Tensor& b);
Tensor true_divide(const Tensor& a, const Scalar& b);
Tensor rsub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);  // b - alpha * a
Tensor rsub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
Tensor square(const Tensor& t);  // pow(t, 2): integers stay integer
Tensor sgn(const Tensor& t);     // sign, for real tensors
Tensor fix(const Tensor& t);     // trunc
Tensor round(const Tensor& t, int64_t decimals);
Tensor isnan(const Tensor& t);
Tensor isinf(const Tensor& t);
Tensor isposinf(const Tensor& t);
Tensor isneginf(const Tensor& t);
Tensor isfinite(const Tensor& t);
// NaN -> nan (0), inf -> posinf (the dtype's largest), -inf -> neginf (its lowest).
Tensor nan_to_num(const Tensor& t, std::optional<double> nan = std::nullopt,
                  std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor addcmul(const Tensor& t, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& t, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor max(const Tensor& a, const Tensor& b);  // maximum
Tensor min(const Tensor& a, const Tensor& b);  // minimum
Tensor clamp(const Tensor& t, const std::optional<Tensor>& min,
             const std::optional<Tensor>& max = std::nullopt);
Tensor clamp_min(const Tensor& t, const Scalar& min);
Tensor clamp_max(const Tensor& t, const Scalar& max);
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});
Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b);
Tensor masked_fill(const Tensor& t, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& t, const Tensor& mask, const Tensor& value);  // value: 0-dim
// where(cond, 1.0, 0.0) is of the default float dtype, where(cond, 1, 0) int64 (LibTorch's).
Tensor where(const Tensor& condition, const Scalar& a, const Scalar& b);
// where(cond): cond.nonzero() as one int64 tensor per dim (LibTorch's nonzero_numpy).
std::vector<Tensor> where(const Tensor& condition);
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
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);

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

// ---- linear algebra composites (core/ops_linalg2.cpp): products by matmul/bmm ----
// An optional list of dims, as LibTorch's OptionalIntArrayRef: nullopt, {1}, {0, 1}, a vector.
class OptionalIntArrayRef {
 public:
  OptionalIntArrayRef() = default;
  OptionalIntArrayRef(std::nullopt_t) {}                              // NOLINT
  OptionalIntArrayRef(IntArrayRef dims) : has_(true), dims_(dims) {}  // NOLINT
  OptionalIntArrayRef(std::initializer_list<int64_t> dims)            // NOLINT: valid for
      : has_(true), dims_(dims) {}                                    // the full expression
  OptionalIntArrayRef(const std::vector<int64_t>& dims) : has_(true), dims_(dims) {}  // NOLINT
  bool has_value() const { return has_; }
  explicit operator bool() const { return has_; }
  IntArrayRef value() const { return dims_; }
  IntArrayRef operator*() const { return dims_; }

 private:
  bool has_ = false;
  IntArrayRef dims_;
};
Tensor dot(const Tensor& self, const Tensor& tensor);  // 1-D only, same dtypes
Tensor vdot(const Tensor& self, const Tensor& other);
Tensor inner(const Tensor& self, const Tensor& other);
Tensor outer(const Tensor& self, const Tensor& vec2);
Tensor ger(const Tensor& self, const Tensor& vec2);
Tensor mv(const Tensor& self, const Tensor& vec);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              const Scalar& beta = 1, const Scalar& alpha = 1);
// "ij,jk->ik", "bij,bjk->bik", "ii", "ii->i", "i,j->ij", "...ij,...jk->...ik", implicit outputs.
Tensor einsum(std::string_view equation, TensorList tensors);
Tensor trace(const Tensor& self);  // integer inputs give int64, as LibTorch
Tensor kron(const Tensor& self, const Tensor& other);
Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self,
                 IntArrayRef dims_other);
// dim left out: the first dim of size 3 (LibTorch's deprecated default); linalg_cross: -1.
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim = std::nullopt);
Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim = -1);
Tensor linalg_vector_norm(const Tensor& self, const Scalar& ord = 2, OptionalIntArrayRef dim = {},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, std::string_view ord = "fro",
                          IntArrayRef dim = {-2, -1}, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt);
// ord left out: the 2-norm of the flattened input (dim nullopt) or of each vector/matrix of dim.
Tensor linalg_norm(const Tensor& self, const std::optional<Scalar>& ord = std::nullopt,
                   OptionalIntArrayRef dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& self, std::string_view ord, OptionalIntArrayRef dim = {},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
// A string literal is a string_view, not a Scalar (through Scalar's bool constructor); a null
// pointer (linalg_norm(x, 0), which LibTorch rejects as ambiguous) throws.
Tensor linalg_norm(const Tensor& self, const char* ord, OptionalIntArrayRef dim = {},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
namespace linalg {  // torch::linalg::
inline Tensor cross(const Tensor& input, const Tensor& other, int64_t dim = -1) {
  return linalg_cross(input, other, dim);
}
inline Tensor vector_norm(const Tensor& self, const Scalar& ord = 2, OptionalIntArrayRef dim = {},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_vector_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor matrix_norm(const Tensor& self, const Scalar& ord, IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_matrix_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor matrix_norm(const Tensor& self, std::string_view ord = "fro",
                          IntArrayRef dim = {-2, -1}, bool keepdim = false,
                          std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_matrix_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor matrix_norm(const Tensor& self, const char* ord, IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_matrix_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor norm(const Tensor& self, const std::optional<Scalar>& ord = std::nullopt,
                   OptionalIntArrayRef dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor norm(const Tensor& self, std::string_view ord, OptionalIntArrayRef dim = {},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_norm(self, ord, dim, keepdim, dtype);
}
inline Tensor norm(const Tensor& self, const char* ord, OptionalIntArrayRef dim = {},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_norm(self, ord, dim, keepdim, dtype);
}
}  // namespace linalg

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
// The scatter family (core/ops_scatter.cpp). reduce: "add" or "multiply" (scatter);
// "sum", "prod", "mean", "amax", "amin" (scatter_reduce).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               std::string_view reduce);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
               std::string_view reduce);
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self = true);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// int64 counts; with weights, float32 weights give float32 and any other dtype float64.
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = {},
                int64_t minlength = 0);
// unique (core/ops_unique.cpp): (values, inverse, counts); inverse and counts are empty [0]
// tensors unless asked for. CUDA inputs are computed on a host copy (a data-dependent size).
std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool sorted = true,
                                   bool return_inverse = false);
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted = true,
                                            bool return_inverse = false,
                                            bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted = true,
                                              bool return_inverse = false,
                                              bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self,
                                                      bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive(const Tensor& self, int64_t dim,
                                                          bool return_inverse = false,
                                                          bool return_counts = false);
// ATen's forms of indexing (core/ops_indexing.cpp): one optional index tensor per dim.
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate = false);
Tensor& index_put_(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                   const Tensor& values, bool accumulate = false);
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor nonzero(const Tensor& t);
Tensor argwhere(const Tensor& t);

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

// ---- shape ops (core/ops_shape.cpp): copies unless marked as views ----
Tensor flip(const Tensor& t, IntArrayRef dims);
Tensor fliplr(const Tensor& t);
Tensor flipud(const Tensor& t);
// Empty dims: the flattened tensor rolled by shifts[0], in the input's shape.
Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims = {});
Tensor rot90(const Tensor& t, int64_t k = 1, IntArrayRef dims = {0, 1});
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor triu(const Tensor& t, int64_t diagonal = 0);
// [2, N] int64 (row, column) indices of the lower / upper triangle of a row x col matrix.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0,
                    const TensorOptions& options = kInt64);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0,
                    const TensorOptions& options = kInt64);
// 1-D: the square matrix with t on that diagonal; 2-D: a copy of that diagonal.
Tensor diag(const Tensor& t, int64_t diagonal = 0);
Tensor diagonal(const Tensor& t, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);  // view
Tensor diag_embed(const Tensor& t, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
// One argument: [0 repeated repeats[0] times, 1 repeated repeats[1] times, ...].
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& t, int64_t repeats,
                         std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor tile(const Tensor& t, IntArrayRef dims);
// Views (expand) of the 0-D/1-D inputs; indexing "ij" (matrix) or "xy" (Cartesian).
std::vector<Tensor> meshgrid(TensorList tensors);  // "ij"
std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing);
// Views:
Tensor movedim(const Tensor& t, IntArrayRef source, IntArrayRef destination);
Tensor movedim(const Tensor& t, int64_t source, int64_t destination);
Tensor moveaxis(const Tensor& t, IntArrayRef source, IntArrayRef destination);
Tensor moveaxis(const Tensor& t, int64_t source, int64_t destination);
Tensor swapaxes(const Tensor& t, int64_t axis0, int64_t axis1);
Tensor swapdims(const Tensor& t, int64_t dim0, int64_t dim1);
Tensor broadcast_to(const Tensor& t, IntArrayRef size);
std::vector<Tensor> broadcast_tensors(TensorList tensors);
Tensor unflatten(const Tensor& t, int64_t dim, IntArrayRef sizes);
Tensor squeeze(const Tensor& t, IntArrayRef dim);
Tensor adjoint(const Tensor& t);
Tensor atleast_1d(const Tensor& t);
Tensor atleast_2d(const Tensor& t);
Tensor atleast_3d(const Tensor& t);
std::vector<Tensor> atleast_1d(TensorList tensors);
std::vector<Tensor> atleast_2d(TensorList tensors);
std::vector<Tensor> atleast_3d(TensorList tensors);
std::vector<Tensor> split(const Tensor& t, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& t, IntArrayRef split_sizes, int64_t dim = 0);
// Copies:
Tensor hstack(TensorList tensors);
Tensor vstack(TensorList tensors);
Tensor row_stack(TensorList tensors);
Tensor dstack(TensorList tensors);
Tensor column_stack(TensorList tensors);
Tensor narrow_copy(const Tensor& t, int64_t dim, int64_t start, int64_t length);

// ---- sorting, selection, scans and more reductions (core/ops_sort.cpp) ----
// NaN sorts as the largest value; sorts are stable (equal values keep their order) whatever
// `stable` says. (values, int64 indices) pairs, as LibTorch's.
std::tuple<Tensor, Tensor> sort(const Tensor& t, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> sort(const Tensor& t, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false);
Tensor argsort(const Tensor& t, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& t, bool stable, int64_t dim = -1, bool descending = false);
// k out of [0, size] throws "selected index k out of range", as LibTorch. Ties: earlier first.
std::tuple<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim = -1, bool largest = true,
                                bool sorted = true);
std::tuple<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);
// The lower median; median propagates NaN, nanmedian ignores it.
Tensor median(const Tensor& t);
std::tuple<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& t);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim = false);
// The most frequent value (the smallest among equally frequent ones) and its last index.
std::tuple<Tensor, Tensor> mode(const Tensor& t, int64_t dim = -1, bool keepdim = false);
// Integer and bool inputs scan in int64 unless dtype says otherwise, as LibTorch.
Tensor cumsum(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
std::tuple<Tensor, Tensor> cummax(const Tensor& t, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& t, int64_t dim);
// log(sum(exp(t))) over dim, shifted by the maximum; integer inputs give the default float.
Tensor logsumexp(const Tensor& t, IntArrayRef dim, bool keepdim = false);
// dim {}: every dim. NaN counts as 0 (nansum) or not at all (nanmean).
Tensor nansum(const Tensor& t, IntArrayRef dim = {}, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& t, IntArrayRef dim = {}, bool keepdim = false,
               std::optional<ScalarType> dtype = std::nullopt);
Tensor count_nonzero(const Tensor& t, IntArrayRef dim);  // int64
Tensor count_nonzero(const Tensor& t, std::optional<int64_t> dim = std::nullopt);
// var/std with a correction (unbiased is correction 1); dim nullopt: every dim.
Tensor var(const Tensor& t, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
           bool keepdim = false);
Tensor std(const Tensor& t, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
           bool keepdim = false);
// (var or std, mean) pairs, with var's and std's overloads (an int is a dim, as LibTorch's).
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, bool unbiased = true);
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, IntArrayRef dim, bool unbiased = true,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, OptionalIntArrayRef dim,
                                    const std::optional<Scalar>& correction, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, bool unbiased = true);
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, IntArrayRef dim, bool unbiased = true,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, OptionalIntArrayRef dim,
                                    const std::optional<Scalar>& correction, bool keepdim = false);
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& t, int dim) {
  const int64_t d = dim;
  return var_mean(t, IntArrayRef(d));
}
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& t, int dim) {
  const int64_t d = dim;
  return std_mean(t, IntArrayRef(d));
}
inline std::tuple<Tensor, Tensor> var_mean(const Tensor& t, std::initializer_list<int64_t> dim,
                                           bool unbiased = true, bool keepdim = false) {
  return var_mean(t, IntArrayRef(dim), unbiased, keepdim);
}
inline std::tuple<Tensor, Tensor> std_mean(const Tensor& t, std::initializer_list<int64_t> dim,
                                           bool unbiased = true, bool keepdim = false) {
  return std_mean(t, IntArrayRef(dim), unbiased, keepdim);
}

// ---- float32 matmul precision (as torch.set_float32_matmul_precision) ----
// "highest" (the default): full float32 products. "high": float32 products on CUDA may use
// TF32 tensor cores (10-bit mantissa inputs, float32 accumulation). "medium" is taken as
// "high" (ember has no bfloat16 products). Anything else throws. CPU products ignore it.
void set_float32_matmul_precision(const std::string& precision);
std::string get_float32_matmul_precision();

}  // namespace ember
