// Grad mode: a thread-local switch that says whether ops record the graph, the guards that
// flip it for a scope (NoGradGuard, AutoGradMode, EnableGradGuard), and should_record, the
// recording decision core's entry points take first. In core/, which owns the decision;
// autograd/ does the recording. <ember/autograd/grad_mode.h> forwards here.
#pragma once

#include <ember/core/tensor.h>

namespace ember {

namespace autograd::detail {
// initial-exec: one TLS load instead of a __tls_get_addr call on every op.
inline thread_local bool grad_enabled __attribute__((tls_model("initial-exec"))) = true;
}  // namespace autograd::detail

struct GradMode {
  static bool is_enabled() { return autograd::detail::grad_enabled; }
  static void set_enabled(bool enabled) { autograd::detail::grad_enabled = enabled; }
};

// Sets grad mode for a scope and restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

// Nothing recorded inside the scope (LibTorch's torch::NoGradGuard).
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

// Recording back on inside a no-grad scope (PyTorch's torch.enable_grad()).
struct EnableGradGuard : AutoGradMode {
  EnableGradGuard() : AutoGradMode(true) {}
};

namespace autograd {
// True when an op on these inputs must record a node: grad mode is on and some defined
// input requires grad. Two loads on the fast path; core's entry points call it first.
inline bool needs_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }
template <class... Ts>
inline bool should_record(const Ts&... inputs) {
  return GradMode::is_enabled() && (needs_grad(inputs) || ...);
}
inline bool should_record_list(TensorList inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs) {
    if (needs_grad(t)) return true;
  }
  return false;
}
}  // namespace autograd

}  // namespace ember
