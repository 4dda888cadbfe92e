// The recording forms of core/elementwise.def's rows, expanded from each row's node, saved
// tensors and derivatives, and register_recorders(), which hands them and the forms of
// core/recorded.def to core's tables.
#include <ember/autograd/function_node.h>
#include <ember/autograd/recorders.h>
#include <ember/core/functions.h>
#include <ember/core/recording.h>

namespace ember::autograd {

namespace {

Tensor kept(FunctionNode& n, size_t i) { return n.saved(i); }

// A unary row: x is the input, y the result; `saved` names the one backward keeps.
#define EMBER_UNARY_FLOAT(name, formula, reference, node, saved, derivative, ...) \
  Tensor record_##name(const Tensor& x) {                                         \
    Tensor y = untracked([&] { return ember::name(x); });                         \
    return record(node, #name, {x}, y, {saved},                                   \
                  [](FunctionNode& n, const tensor_list& grads) -> tensor_list {  \
                    const Tensor& g = grads[0];                                   \
                    const Tensor& saved = kept(n, 0);                             \
                    return {derivative};                                          \
                  });                                                             \
  }
// A binary row: both inputs are saved; each gradient only when its input needs one.
#define EMBER_BINARY(name, types, formula, reference, node, grad_a, grad_b, ...)     \
  [[maybe_unused]] Tensor record_##name(const Tensor& a, const Tensor& b) {          \
    Tensor y = untracked([&] { return ember::name(a, b); });                         \
    return record(node, #name, {a, b}, y, {a, b},                                    \
                  [](FunctionNode& n, const tensor_list& grads) -> tensor_list {     \
                    const Tensor &g = grads[0], a = kept(n, 0), b = kept(n, 1);      \
                    return {n.should_compute_output(0) ? Tensor(grad_a) : Tensor(),  \
                            n.should_compute_output(1) ? Tensor(grad_b) : Tensor()}; \
                  });                                                                \
  }
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_BINARY

}  // namespace

namespace recorded {
std::string grad_fn_name(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : ""; }
}  // namespace recorded

void register_recorders() {
#define EMBER_RECORDED(id, function, ret, params) \
  ember::detail::recorded::id = static_cast<ret(*) params>(&recorded::function);
#include <ember/core/recorded.def>
#undef EMBER_RECORDED
#define EMBER_UNARY_FLOAT(name, ...) \
  ember::detail::g_unary_recorders[static_cast<int>(Op::name)] = &record_##name;
// Bits and Integer rows (bitwise ops) have no gradient: no form (integers never record).
#define EMBER_BINARY(name, types, ...) EMBER_REGISTER_##types(name)
#define EMBER_REGISTER_DIFFERENTIABLE(name) \
  ember::detail::g_binary_recorders[static_cast<int>(Op::name)] = &record_##name;
#define EMBER_REGISTER_All(name) EMBER_REGISTER_DIFFERENTIABLE(name)
#define EMBER_REGISTER_Numeric(name) EMBER_REGISTER_DIFFERENTIABLE(name)
#define EMBER_REGISTER_Float(name) EMBER_REGISTER_DIFFERENTIABLE(name)
#define EMBER_REGISTER_Bits(name)
#define EMBER_REGISTER_Integer(name)
#include <ember/core/elementwise.def>
#undef EMBER_UNARY_FLOAT
#undef EMBER_BINARY
#undef EMBER_REGISTER_DIFFERENTIABLE
#undef EMBER_REGISTER_All
#undef EMBER_REGISTER_Numeric
#undef EMBER_REGISTER_Float
#undef EMBER_REGISTER_Bits
#undef EMBER_REGISTER_Integer
}

}  // namespace ember::autograd
