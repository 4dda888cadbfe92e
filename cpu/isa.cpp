// The CPU check behind init_backends(): a library built for x86-64-v3 (the default; AVX2, FMA,
// BMI2) refuses a CPU without those with an ember::Error at first use instead of dying on an
// illegal instruction. This file alone is compiled for the baseline x86-64 (CMakeLists.txt).
#include <ember/core/error.h>
#include <ember/cpu/kernels.h>

namespace ember {
namespace cpu {

bool cpu_runs_this_build() {
#if defined(EMBER_ISA_X86_64_V3)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi2");
#else
  return true;  // built for this machine (EMBER_NATIVE) or not for x86-64
#endif
}

void check_cpu() {
  EMBER_CHECK(cpu_runs_this_build(), "ember",
              ": this library was built for x86-64-v3 CPUs (AVX2, FMA, BMI2) and this CPU lacks "
              "some of them; rebuild ember on this machine with -DEMBER_NATIVE=ON");
}

}  // namespace cpu
}  // namespace ember
