// The backend registry, above core (as ggml's registry above ggml-base): register_backends(),
// which core's init_backends() calls once, lazily, registers each backend compiled in.
#include <ember/autograd/recorders.h>
#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#ifdef EMBER_WITH_CUDA
#include <ember/cuda/register.h>
#endif

namespace ember {

void register_backends() {
  cpu::check_cpu();  // before any kernel built for x86-64-v3 runs
  cpu::register_backend();
  autograd::register_recorders();  // core's tables of recording forms (core/recording.h)
#ifdef EMBER_WITH_CUDA
  cuda::register_backend();  // the device hooks always; kernels only when a GPU is present
#endif
}

}  // namespace ember
