// The dispatcher's table, op names derived from ops.def, the missing-kernel error and
// init_backends(), which runs backends/'s register_backends() exactly once.
#include <ember/core/dispatch.h>

#include <atomic>
#include <mutex>

namespace ember {

namespace detail {
void* g_kernels[kNumDeviceTypes][kNumOps] = {};

[[noreturn]] __attribute__((cold, noinline)) void missing_kernel(Op op, DeviceType device) {
#ifdef EMBER_WITH_CUDA
  const char* hint = device == kCUDA ? " (is a CUDA device available?)" : "";
#else
  const char* hint = device == kCUDA ? " (ember was built without CUDA)" : "";
#endif
  EMBER_THROW(op_name(op), ": no kernel for device ", device, hint);
}
}  // namespace detail

namespace {
constexpr const char* kOpNames[kNumOps] = {
#define EMBER_OP(name, sig, grad) #name,
#include <ember/core/ops.def>
#undef EMBER_OP
};

std::atomic<bool> g_backends_ready{false};
std::mutex g_init_mutex;
// Set while this thread registers backends: a backend that allocates during its own
// registration must not wait for itself.
thread_local bool t_initializing = false;
}  // namespace

const char* op_name(Op op) {
  int i = static_cast<int>(op);
  return i >= 0 && i < kNumOps ? kOpNames[i] : "unknown_op";
}

bool has_kernel(Op op, DeviceType device) {
  init_backends();
  return detail::g_kernels[static_cast<int>(device)][static_cast<int>(op)] != nullptr;
}

void init_backends() {
  if (__builtin_expect(g_backends_ready.load(std::memory_order_acquire), 1)) return;
  if (t_initializing) return;
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_backends_ready.load(std::memory_order_relaxed)) return;
  t_initializing = true;
  struct Reset {
    ~Reset() { t_initializing = false; }
  } reset;
  register_backends();
  g_backends_ready.store(true, std::memory_order_release);
}

}  // namespace ember
