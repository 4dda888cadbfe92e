// Internal: the recording forms of the linear-algebra ops (see grad_elementwise.h).
// (matmul and linear need none: core writes them with public ops.) Not installed.
#pragma once

#include <ember/core/tensor.h>

namespace ember::autograd::recorded {

Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha);

}  // namespace ember::autograd::recorded
