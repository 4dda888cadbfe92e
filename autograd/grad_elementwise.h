// Internal: the recording forms of the elementwise ops. Core's entry points call them
// when autograd::should_record(inputs...) holds; each runs the op untracked and records
// its node. Not installed.
#pragma once

#include <optional>

#include <ember/core/tensor.h>

namespace ember::autograd::recorded {

// ---- binary arithmetic ----
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha);
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha);
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Scalar& b);
Tensor pow(const Tensor& a, const Tensor& exponent);
Tensor pow(const Tensor& a, const Scalar& exponent);
Tensor pow(const Scalar& base, const Tensor& exponent);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);

// ---- unary ----
Tensor neg(const Tensor& t);
Tensor abs(const Tensor& t);
Tensor exp(const Tensor& t);
Tensor log(const Tensor& t);
Tensor log1p(const Tensor& t);
Tensor sqrt(const Tensor& t);
Tensor rsqrt(const Tensor& t);
Tensor sin(const Tensor& t);
Tensor cos(const Tensor& t);
Tensor tanh(const Tensor& t);
Tensor sigmoid(const Tensor& t);
Tensor relu(const Tensor& t);
Tensor gelu(const Tensor& t);
Tensor clamp(const Tensor& t, const std::optional<Scalar>& min, const std::optional<Scalar>& max);

// ---- where, masked_fill ----
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor masked_fill(const Tensor& t, const Tensor& mask, const Scalar& value);

// ---- in place: record the out-of-place op's node and rebase self's history ----
void add_(Tensor& self, const Tensor& other, const Scalar& alpha);
void add_(Tensor& self, const Scalar& other, const Scalar& alpha);
void sub_(Tensor& self, const Tensor& other, const Scalar& alpha);
void sub_(Tensor& self, const Scalar& other, const Scalar& alpha);
void mul_(Tensor& self, const Tensor& other);
void mul_(Tensor& self, const Scalar& other);
void div_(Tensor& self, const Tensor& other);
void div_(Tensor& self, const Scalar& other);
void clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max);
void masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
// fill_ / zero_: self's new value depends on nothing; its node passes no gradient back.
void fill_(Tensor& self, const Scalar& value);

}  // namespace ember::autograd::recorded
