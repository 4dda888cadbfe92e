// Internal: the recording forms of softmax, indexing and joining (see grad_elementwise.h).
// Not installed.
#pragma once

#include <optional>

#include <ember/core/tensor.h>

namespace ember::autograd::recorded {

Tensor softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype);
Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<ScalarType> dtype);
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
void scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor cat(TensorList tensors, int64_t dim);

}  // namespace ember::autograd::recorded
