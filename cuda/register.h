// The CUDA backend's registration entry point, called by ember::init_backends() in
// CUDA builds. Declaration only: no CUDA headers, so core/ can include it.
#pragma once

namespace ember {
namespace cuda {

// Installs the CUDA allocator and kernels when a CUDA device is present; otherwise it
// registers nothing, CUDA reports unavailable and CPU work goes on.
void register_backend();

}  // namespace cuda
}  // namespace ember
