// The CUDA backend's registration entry point, called by backends/'s register_backends() in
// CUDA builds. Declaration only: no CUDA headers.
#pragma once

namespace ember {
namespace cuda {

// Fills core's device hooks (core/device_hooks.h), then installs the CUDA allocator and
// kernels when a CUDA device is present; otherwise it registers no kernel, CUDA reports
// unavailable and CPU work goes on.
void register_backend();

}  // namespace cuda
}  // namespace ember
