// Internal: the recording forms of the linear-algebra ops (see grad_elementwise.h).
// matmul and linear record as graphs of public ops (mm, bmm, addmm, views). Not installed.
#pragma once

#include <ember/core/tensor.h>

namespace ember::autograd::recorded {

Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha);
// Shapes already checked by the caller.
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias);

}  // namespace ember::autograd::recorded
