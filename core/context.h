// Global backend flags, as LibTorch's at::globalContext() and torch.backends.cudnn: cuDNN's
// benchmark mode, deterministic algorithms and TF32 use. Read by cuda/cudnn_conv.cpp on every
// convolution (relaxed atomic loads), settable from any thread at any time.
#pragma once

#include <string>

namespace ember {

class Context {
 public:
  // benchmark: time every cuDNN algorithm once per convolution shape and keep the fastest
  // (torch.backends.cudnn.benchmark); off: cuDNN's heuristics pick (the default).
  void setBenchmarkCuDNN(bool on);
  bool benchmarkCuDNN() const;
  // deterministic: only algorithms that give bitwise-repeatable results.
  void setDeterministicCuDNN(bool on);
  bool deterministicCuDNN() const;
  // deterministic algorithms (torch.use_deterministic_algorithms): ops whose CUDA kernels
  // accumulate with atomics in a varying order (index_put_ with accumulate, index_add) take a
  // bitwise-repeatable path instead. Off by default, as LibTorch's.
  void setDeterministicAlgorithms(bool on, bool warn_only = false);
  bool deterministicAlgorithms() const;
  // TF32 in float32 convolutions. Until set, it follows set_float32_matmul_precision (TF32 only
  // for "high" and "medium"; the default "highest" keeps full float32). PyTorch's own default
  // for cuDNN is TF32 on: set this, or the precision, to compare like for like.
  void setAllowTF32CuDNN(bool on);
  bool allowTF32CuDNN() const;
  // TF32 in float32 matmuls: the same switch as set_float32_matmul_precision ("high" / "highest").
  void setAllowTF32CuBLAS(bool on);
  bool allowTF32CuBLAS() const;
  void setFloat32MatmulPrecision(const std::string& precision);
};

Context& globalContext();

namespace cudnn {
// torch.backends.cudnn's switches (the same flags as globalContext()'s).
void set_benchmark(bool on);
bool benchmark();
void set_deterministic(bool on);
bool deterministic();
void set_allow_tf32(bool on);
bool allow_tf32();
// Whether this build has cuDNN and a GPU it can use.
bool is_available();
}  // namespace cudnn

namespace cuda {
namespace tunable {
// torch.cuda.tunable's switch for ember's float32 products on CUDA: when enabled, the first
// call of each product shape (outside a CUDA graph capture) times cuBLASLt's candidate
// algorithms on its operands and keeps the fastest for the process (a host synchronization
// then, none after). Off by default, as PyTorch's: the choice depends on timing, so results
// may differ in the last bits from run to run.
void enable(bool on = true);
bool is_enabled();
}  // namespace tunable
}  // namespace cuda

}  // namespace ember
