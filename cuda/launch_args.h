// The checks a runtime kernel's launch makes before cudaLaunchKernel (cuda::Function): the
// launch shape, the argument count, and each argument's size and device against the kernel's
// parameters. CUDA-free, so that the fuzz target fuzz_module reaches it without a GPU.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <ember/core/error.h>
#include <ember/cuda/module.h>

namespace ember {
namespace cuda {
namespace detail {

// CUDA's launch limits (every device of compute capability 5.0 or later).
constexpr unsigned kMaxGridX = 2147483647u, kMaxGridYZ = 65535u;
constexpr unsigned kMaxBlockXY = 1024u, kMaxBlockZ = 64u, kMaxBlockThreads = 1024u;

// Throws ember::Error naming the kernel for a launch that can't be made; else fills `pointers`
// (one per argument, into args' bytes) for cudaLaunchKernel. `param_sizes` are the kernel's
// parameter sizes, `module_device` the device it was compiled for, `max_shared_bytes` the most
// dynamic shared memory a block may ask for on that device.
inline void check_launch(const std::string& name, Dim3 grid, Dim3 block, size_t shared_bytes,
                         size_t max_shared_bytes, const std::vector<size_t>& param_sizes,
                         int module_device, std::vector<KernelArg>& args,
                         std::vector<void*>& pointers) {
  const char* const op = "cuda::Function::launch(";
  EMBER_CHECK(
      grid.x >= 1 && grid.y >= 1 && grid.z >= 1 && block.x >= 1 && block.y >= 1 && block.z >= 1, op,
      name, "): grid and block sizes must be at least 1, got grid (", grid.x, ", ", grid.y, ", ",
      grid.z, ") and block (", block.x, ", ", block.y, ", ", block.z, ")");
  EMBER_CHECK(grid.x <= kMaxGridX && grid.y <= kMaxGridYZ && grid.z <= kMaxGridYZ, op, name,
              "): grid (", grid.x, ", ", grid.y, ", ", grid.z, ") exceeds CUDA's limits (",
              kMaxGridX, ", ", kMaxGridYZ, ", ", kMaxGridYZ, ")");
  EMBER_CHECK(block.x <= kMaxBlockXY && block.y <= kMaxBlockXY && block.z <= kMaxBlockZ, op, name,
              "): block (", block.x, ", ", block.y, ", ", block.z, ") exceeds CUDA's limits (",
              kMaxBlockXY, ", ", kMaxBlockXY, ", ", kMaxBlockZ, ")");
  const unsigned long long threads =  // at most 1024 * 1024 * 64 here
      static_cast<unsigned long long>(block.x) * block.y * block.z;
  EMBER_CHECK(threads <= kMaxBlockThreads, op, name, "): block (", block.x, ", ", block.y, ", ",
              block.z, ") has ", threads, " threads; CUDA allows at most ", kMaxBlockThreads);
  EMBER_CHECK(shared_bytes <= max_shared_bytes, op, name, "): ", shared_bytes,
              " bytes of dynamic shared memory; the device allows at most ", max_shared_bytes);
  EMBER_CHECK(args.size() == param_sizes.size(), op, name, "): the kernel takes ",
              param_sizes.size(), " arguments, got ", args.size());
  pointers.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    EMBER_CHECK(args[i].device < 0 || args[i].device == module_device, op, name, "): argument ", i,
                " is a tensor on cuda:", args[i].device,
                " but the module runs on cuda:", module_device);
    EMBER_CHECK(param_sizes[i] == args[i].size, op, name, "): argument ", i, " is a ", args[i].what,
                " (", args[i].size, " bytes) but the kernel's parameter ", i, " has ",
                param_sizes[i], " bytes");
    pointers[i] = args[i].bytes;
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace ember
