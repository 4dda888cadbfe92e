// Internal: the recording forms of the reductions (see grad_elementwise.h). Not installed.
#pragma once

#include <optional>

#include <ember/core/tensor.h>

namespace ember::autograd::recorded {

Tensor sum(const Tensor& t, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype);

}  // namespace ember::autograd::recorded
