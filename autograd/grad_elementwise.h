// Internal: the recording forms of the elementwise ops. Core's entry points call them
// when autograd::should_record(inputs...) holds; each runs the op untracked and records
// its node. Not installed.
#pragma once

#include <ember/core/tensor.h>

namespace ember::autograd::recorded {

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha);
Tensor mul(const Tensor& a, const Tensor& b);

}  // namespace ember::autograd::recorded
