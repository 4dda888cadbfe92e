// Internal: how core reaches autograd's recording forms without including autograd/: pointers
// (core/recorded.def) and per-op tables (core/elementwise.def's rows) that
// autograd::register_recorders() fills when the backends register. Not installed.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <ember/core/dispatch.h>
#include <ember/core/error.h>
#include <ember/core/tensor.h>

namespace ember::detail {

using TensorPair = std::tuple<Tensor, Tensor>;

// Where a pointer starts: registers everything (init_backends(), which runs
// autograd::register_recorders()), then calls the form now in the slot. Constant-initialized,
// so no static initializer runs; normally never called, since a tensor that requires grad
// exists only after the first allocation registered the backends.
template <class Fn>
struct Unregistered;
template <class R, class... A>
struct Unregistered<R (*)(A...)> {
  template <R (**slot)(A...)>
  static R call(A... args) {
    init_backends();
    EMBER_CHECK(*slot != &call<slot>, "autograd: internal error, recording forms not registered");
    return (*slot)(std::forward<A>(args)...);
  }
};

namespace recorded {
#define EMBER_RECORDED(id, function, ret, params) extern ret(*id) params;
#include <ember/core/recorded.def>
#undef EMBER_RECORDED
}  // namespace recorded

// The recording forms of core/elementwise.def's rows, by op.
using UnaryRecorder = Tensor (*)(const Tensor&);
using BinaryRecorder = Tensor (*)(const Tensor&, const Tensor&);
extern UnaryRecorder g_unary_recorders[kNumOps];
extern BinaryRecorder g_binary_recorders[kNumOps];

template <class F>
F recorder(F* table, Op op) {
  F f = table[static_cast<int>(op)];
  if (__builtin_expect(f == nullptr, 0)) {
    init_backends();
    f = table[static_cast<int>(op)];
    EMBER_CHECK(f != nullptr, op_name(op), ": internal error, no recording form registered");
  }
  return f;
}

inline Tensor record_unary(Op op, const Tensor& t) { return recorder(g_unary_recorders, op)(t); }
inline Tensor record_binary(Op op, const Tensor& a, const Tensor& b) {
  return recorder(g_binary_recorders, op)(a, b);
}

}  // namespace ember::detail
