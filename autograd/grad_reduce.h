// Internal: the recording forms of the reductions (see grad_elementwise.h). Not installed.
#pragma once

#include <optional>
#include <tuple>

#include <ember/core/tensor.h>

namespace ember::autograd::recorded {

// dim = {} is the full reduction (SumBackward0 / MeanBackward0).
Tensor sum(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype);
Tensor mean(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype);
// dim = nullopt is the full product.
Tensor prod(const Tensor& t, std::optional<int64_t> dim, bool keepdim,
            std::optional<ScalarType> dtype);
// max() / min() of all elements (the gradient is split evenly among ties).
Tensor max_all(const Tensor& t, bool is_max);
// max(dim) / min(dim): (values, indices); the gradient goes to the index position.
std::tuple<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max);
// amax / amin (even split among ties).
Tensor amax(const Tensor& t, IntArrayRef dim, bool keepdim, bool is_max);
Tensor var(const Tensor& t, IntArrayRef dim, bool unbiased, bool keepdim);
Tensor norm(const Tensor& t, const Scalar& p, IntArrayRef dim, bool keepdim, bool full);

}  // namespace ember::autograd::recorded
