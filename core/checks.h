// Helpers that core's op front-ends share: dim wrapping, broadcasting, type
// promotion, device checks and output allocation. Backend-facing, not public.
#pragma once

#include <ember/core/dispatch.h>
#include <ember/core/tensor.h>

namespace ember {

// Wraps a possibly negative dim into [0, ndim); throws "op: dim 3 is out of range
// for a tensor of 2 dims (expected in [-2, 1])". A 0-dim tensor accepts dims -1 and 0.
int64_t wrap_dim(const char* op, int64_t dim, int64_t ndim);

// Broadcast result of two shapes; throws "op: shapes [2, 3] and [4] cannot be
// broadcast (dim 1: 3 vs 4)".
DimVector broadcast_shapes(const char* op, IntArrayRef a, IntArrayRef b);
// Whether `shape` broadcasts to `desired` without changing `desired` (expand's rule).
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);

// Wrapped dims of a list; throws "op: dim 1 appears multiple times in the list of dims"
// (PyTorch's dim_list_to_bitset).
DimVector unique_dims(const char* op, IntArrayRef dims, int64_t ndim);

// Row-major strides for sizes.
DimVector contiguous_strides(IntArrayRef sizes);

// Throws "op: expected all tensors on one device, got cpu and cuda:0".
void check_same_device(const char* op, const Tensor& a, const Tensor& b);

// PyTorch's result_type: dimensioned tensors win over 0-dim tensors of the same
// category; a higher category (bool < integer < floating) always wins.
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);

// Shape as "[2, 3]".
std::string shape_str(IntArrayRef sizes);

// A new view of t's storage with the given geometry and t's offset, without the bounds
// checks of as_strided: for front-ends that build a geometry they know is valid.
Tensor restride(const Tensor& t, IntArrayRef sizes, IntArrayRef strides);
// A 0-dim tensor seen as [1] (a view), so that kernels always get a dim to work along.
Tensor as_1d(const Tensor& t);

// A new contiguous tensor on device (no autograd). A failed allocation throws naming the
// tensor ("... (for a float32 tensor of shape [2, 3] on cuda:0)"), and `op` when given
// ("zeros: ..."): sizes whose bytes overflow int64, out of memory, no GPU.
Tensor empty_on(IntArrayRef sizes, ScalarType dtype, Device device);
Tensor empty_on(const char* op, IntArrayRef sizes, ScalarType dtype, Device device);
// Throws "op: value V cannot be converted to type T without overflow" as LibTorch does (full,
// fill_, item<T>).
void check_fits(const char* op, const Scalar& value, ScalarType dtype);
// scalar_tensor without check_fits: the scalar operands of binary ops and where, which wrap
// (uint8 + 300) as LibTorch's wrapped numbers do (core/creation.cpp).
Tensor wrapped_scalar_tensor(const Scalar& value, const TensorOptions& options);

// Throws "op: got an undefined Tensor (...)" when any of `tensors` is undefined: the check of
// an op's inputs before it reads their dtype or shape.
[[noreturn]] void throw_undefined_input(const char* op);
template <class... Ts>
inline void check_defined(const char* op, const Ts&... tensors) {
  if (__builtin_expect(!(tensors.defined() && ...), 0)) throw_undefined_input(op);
}

// Runs f, an op a composite is built on; an ember::Error it throws (other than out of memory)
// is thrown again with "op: " in front, so that the message names the op the user called.
template <class F>
decltype(auto) named_errors(const char* op, F&& f) {
  try {
    return f();
  } catch (const OutOfMemoryError&) {
    throw;
  } catch (const Error& e) {
    EMBER_THROW(op, ": ", e.what());
  }
}

// Sorted, unique, wrapped reduction dims; an empty list means every dim.
DimVector reduction_dims(const char* op, IntArrayRef dims, int64_t ndim);

// For copy kernels and CUDA launches: shapes and strides with size-1 dims dropped
// and contiguous neighbours merged, so most iterations become one flat loop.
struct StridedGeometry {
  DimVector sizes;       // collapsed sizes, outermost first
  DimVector strides[3];  // per operand, in elements
};
StridedGeometry collapse_dims(IntArrayRef sizes, const IntArrayRef* strides, int noperands);

}  // namespace ember
