// The global backend flags of core/context.h: relaxed atomics, since a convolution reads them
// on every call and a setting only has to be seen by the calls that start after it.
#include <ember/core/context.h>

#include <atomic>

#include <ember/core/dispatch.h>
#include <ember/core/functions.h>

namespace ember {
namespace {
std::atomic<bool> g_benchmark{false};
std::atomic<bool> g_deterministic{false};
std::atomic<bool> g_deterministic_algorithms{false};
std::atomic<int> g_allow_tf32_cudnn{-1};  // -1: follow the float32 matmul precision
std::atomic<bool> g_tunable{false};
}  // namespace

void Context::setBenchmarkCuDNN(bool on) { g_benchmark.store(on, std::memory_order_relaxed); }
bool Context::benchmarkCuDNN() const { return g_benchmark.load(std::memory_order_relaxed); }
void Context::setDeterministicCuDNN(bool on) {
  g_deterministic.store(on, std::memory_order_relaxed);
}
bool Context::deterministicCuDNN() const { return g_deterministic.load(std::memory_order_relaxed); }
void Context::setDeterministicAlgorithms(bool on, bool /*warn_only*/) {
  g_deterministic_algorithms.store(on, std::memory_order_relaxed);
}
bool Context::deterministicAlgorithms() const {
  return g_deterministic_algorithms.load(std::memory_order_relaxed);
}
void Context::setAllowTF32CuDNN(bool on) {
  g_allow_tf32_cudnn.store(on ? 1 : 0, std::memory_order_relaxed);
}
bool Context::allowTF32CuDNN() const {
  const int v = g_allow_tf32_cudnn.load(std::memory_order_relaxed);
  return v < 0 ? float32_matmul_allows_tf32() : v == 1;
}
void Context::setAllowTF32CuBLAS(bool on) { set_float32_matmul_precision(on ? "high" : "highest"); }
bool Context::allowTF32CuBLAS() const { return float32_matmul_allows_tf32(); }
void Context::setFloat32MatmulPrecision(const std::string& precision) {
  set_float32_matmul_precision(precision);
}

Context& globalContext() {
  static Context context;
  return context;
}

namespace cudnn {
void set_benchmark(bool on) { globalContext().setBenchmarkCuDNN(on); }
bool benchmark() { return globalContext().benchmarkCuDNN(); }
void set_deterministic(bool on) { globalContext().setDeterministicCuDNN(on); }
bool deterministic() { return globalContext().deterministicCuDNN(); }
void set_allow_tf32(bool on) { globalContext().setAllowTF32CuDNN(on); }
bool allow_tf32() { return globalContext().allowTF32CuDNN(); }
}  // namespace cudnn

namespace cuda {
namespace tunable {
void enable(bool on) { g_tunable.store(on, std::memory_order_relaxed); }
bool is_enabled() { return g_tunable.load(std::memory_order_relaxed); }
}  // namespace tunable
}  // namespace cuda

}  // namespace ember
