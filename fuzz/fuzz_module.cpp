// Fuzz target: cuda::Module's argument packing and launch checks (cuda/launch_args.h), without
// NVRTC or a GPU: any launch shape, parameter list and argument list must pack or throw
// ember::Error; a packed launch must match the kernel's parameters one for one.
#include <cstdint>
#include <string>
#include <vector>

#include <ember/core/functions.h>
#include <ember/core/tensor.h>
#include <ember/cuda/launch_args.h>
#include <ember/cuda/module.h>

#include "fuzz_util.h"

namespace {

using ember::cuda::Dim3;
using ember::cuda::detail::KernelArg;
using ember::cuda::detail::to_arg;

// A dimension: mostly small, sometimes 0 or past CUDA's limits.
unsigned dim(ember_fuzz::Bytes& in) {
  const uint8_t b = in.u8();
  switch (b % 8) {
    case 0:
      return 0;
    case 1:
      return 65535u + b;
    case 2:
      return 0xffffffffu - b;
    default:
      return 1u + b % 40;
  }
}

// One argument as a user would write it (each C++ scalar type, a pointer, a tensor).
KernelArg argument(ember_fuzz::Bytes& in) {
  const uint8_t kind = in.u8();
  const int64_t v = in.any();
  switch (kind % 14) {
    case 0:
      return to_arg(static_cast<float>(v));
    case 1:
      return to_arg(static_cast<double>(v));
    case 2:
      return to_arg(static_cast<int8_t>(v));
    case 3:
      return to_arg(static_cast<uint8_t>(v));
    case 4:
      return to_arg(static_cast<int16_t>(v));
    case 5:
      return to_arg(static_cast<uint16_t>(v));
    case 6:
      return to_arg(static_cast<int32_t>(v));
    case 7:
      return to_arg(static_cast<uint32_t>(v));
    case 8:
      return to_arg(static_cast<int64_t>(v));
    case 9:
      return to_arg(static_cast<uint64_t>(v));
    case 10:
      return to_arg(v != 0);
    case 11:
      return to_arg(reinterpret_cast<float*>(static_cast<uintptr_t>(v)));
    case 12: {  // a CUDA tensor on some device, as tensor_arg packs one
      KernelArg a = to_arg(static_cast<const void*>(nullptr));
      a.what = "tensor";
      a.device = static_cast<int>(in.u8() % 3);
      return a;
    }
    default:  // a real tensor: a CPU one, or an undefined one (refused by tensor_arg)
      return to_arg(in.u8() % 2 ? ember::zeros({2}) : ember::Tensor());
  }
}

}  // namespace

// Input: grid x, y, z and block x, y, z (one byte each), shared memory (two bytes, KiB), the
// parameter count and sizes (a byte each), the argument count, then the arguments.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember_fuzz::Bytes in(data, size);
  const Dim3 grid(dim(in), dim(in), dim(in)), block(dim(in), dim(in), dim(in));
  size_t shared = in.u8();
  shared = (shared | static_cast<size_t>(in.u8()) << 8) << 10;
  std::vector<size_t> params(in.u8() % 10);
  for (size_t& p : params) {
    const uint8_t b = in.u8();
    p = b < 200 ? size_t(1) << (b % 4) : b;  // 1, 2, 4, 8 bytes, or odd sizes
  }
  std::vector<KernelArg> args;
  std::string error;
  try {
    const size_t count = in.u8() % 10;
    for (size_t i = 0; i < count; ++i) args.push_back(argument(in));
    std::vector<void*> pointers;
    ember::cuda::detail::check_launch("fuzzed", grid, block, shared, size_t(227) << 10, params, 0,
                                      args, pointers);
    // Packed: one pointer per parameter, each to its argument's bytes of the parameter's size.
    if (pointers.size() != params.size()) ember_fuzz::finding("pointer count != parameter count");
    for (size_t i = 0; i < params.size(); ++i) {
      if (pointers[i] != args[i].bytes) ember_fuzz::finding("pointer not to the argument's bytes");
      if (args[i].size != params[i]) ember_fuzz::finding("argument size != parameter size");
      if (args[i].device > 0) ember_fuzz::finding("a tensor on another device was packed");
    }
    const unsigned long long threads = 1ull * block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || grid.x == 0 || grid.y > 65535 || grid.z > 65535)
      ember_fuzz::finding("a launch shape CUDA refuses was packed");
  } catch (const ember::Error& e) {
    error = e.what();
    if (error.find("cuda::Function::launch") == std::string::npos &&
        error.find("built without CUDA") == std::string::npos)
      ember_fuzz::finding("an error that names no op: " + error);
  }
  if (ember_fuzz::verbose()) std::fprintf(stderr, "%s\n", error.empty() ? "packed" : error.c_str());
  return 0;
}
