// The device hooks table: the answers of a build without CUDA until the CUDA backend's
// registration installs its own (core/device_hooks.h).
#include <ember/core/device_hooks.h>

#include <ember/core/dispatch.h>
#include <ember/core/error.h>
#include <ember/core/tensor.h>

namespace ember {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  EMBER_THROW(what, ": ember was built without CUDA (no GPU support)");
}

int no_current_device() { no_cuda("cuda::current_device"); }
Tensor no_pin_memory(const Tensor&) { no_cuda("pin_memory"); }
bool no_is_pinned(const void*) { return false; }

// Constant-initialized (no static constructor); written while init_backends() holds its
// lock, read after it.
DeviceHooks g_hooks = {&no_current_device, &no_pin_memory, &no_is_pinned};
}  // namespace

const DeviceHooks& device_hooks() {
  init_backends();  // one acquire load once the backends are up
  return g_hooks;
}

void set_device_hooks(const DeviceHooks& hooks) { g_hooks = hooks; }

}  // namespace ember
