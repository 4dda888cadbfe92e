// cuda::Module and cuda::Function (cuda/module.h): NVRTC compiles the source to a cubin for
// the current device, the runtime's library API (cudaLibraryLoadData, CUDA 12+) loads it, and
// launches go through cudaLaunchKernel on the current stream, arguments checked first.
#include <ember/cuda/module.h>

#include <cuda_runtime.h>
#include <nvrtc.h>

#include <string>
#include <vector>

#include <ember/cuda/api.h>
#include <ember/cuda/check.h>
#include <ember/cuda/launch_args.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace detail {

// The library is never unloaded: a kernel launched from a Module that dies right after the
// (asynchronous) launch must still find its code.
struct ModuleImpl {
  cudaLibrary_t library = nullptr;
  int device = 0;
  std::string log;
};

KernelArg tensor_arg(const Tensor& t) {
  EMBER_CHECK(t.defined(), "cuda::Function::launch: an undefined tensor as a kernel argument");
  EMBER_CHECK(t.is_cuda(), "cuda::Function::launch: kernel arguments must be CUDA tensors, got a ",
              t.dtype(), " tensor on ", t.device());
  KernelArg a = scalar_arg(static_cast<const void*>(t.data_ptr()), "tensor");  // submits
  a.device = t.device().index();
  return a;
}

}  // namespace detail

namespace {

#define EMBER_NVRTC_CHECK(expr, what)                                    \
  do {                                                                   \
    nvrtcResult ember_nvrtc_r_ = (expr);                                 \
    EMBER_CHECK(ember_nvrtc_r_ == NVRTC_SUCCESS, "cuda::Module: ", what, \
                " failed: ", nvrtcGetErrorString(ember_nvrtc_r_));       \
  } while (0)

// Destroys the NVRTC program however compile() leaves.
struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p != nullptr) nvrtcDestroyProgram(&p);
  }
};

std::string program_log(nvrtcProgram p) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);  // the terminating NUL
  return log;
}

// A cubin of `source` for the architecture of `device`, and NVRTC's log.
std::vector<char> compile(const std::string& source, const std::vector<std::string>& options,
                          const std::string& name, int device, std::string& log) {
  cudaDeviceProp prop{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  Program program;
  EMBER_NVRTC_CHECK(
      nvrtcCreateProgram(&program.p, source.c_str(), name.c_str(), 0, nullptr, nullptr),
      "nvrtcCreateProgram");
  std::vector<std::string> all = {
      "--gpu-architecture=sm_" + std::to_string(prop.major) + std::to_string(prop.minor),
      "-std=c++17"};
  all.insert(all.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const std::string& o : all) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(program.p, static_cast<int>(argv.size()), argv.data());
  log = program_log(program.p);
  EMBER_CHECK(r == NVRTC_SUCCESS, "cuda::Module: compiling ", name, " for sm_", prop.major,
              prop.minor, " failed (", nvrtcGetErrorString(r), "):\n", log);
  size_t size = 0;
  EMBER_NVRTC_CHECK(nvrtcGetCUBINSize(program.p, &size), "nvrtcGetCUBINSize");
  std::vector<char> cubin(size);
  EMBER_NVRTC_CHECK(nvrtcGetCUBIN(program.p, cubin.data()), "nvrtcGetCUBIN");
  return cubin;
}

}  // namespace

Module::Module(const std::string& source, const std::vector<std::string>& options,
               const std::string& name) {
  EMBER_CHECK(is_available(), "cuda::Module: no CUDA device is available");
  impl_ = std::make_shared<detail::ModuleImpl>();
  impl_->device = current_device();
  const std::vector<char> cubin = compile(source, options, name, impl_->device, impl_->log);
  EMBER_CUDA_CHECK(
      cudaLibraryLoadData(&impl_->library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
}

Function Module::function(const std::string& name) const {
  cudaKernel_t kernel = nullptr;
  const cudaError_t err = cudaLibraryGetKernel(&kernel, impl_->library, name.c_str());
  if (err != cudaSuccess) {
    cudaGetLastError();
    EMBER_THROW("cuda::Module::function: no __global__ function named '", name, "' in the module (",
                cudaGetErrorName(err), "); declare it extern \"C\" or pass its mangled name");
  }
  return Function(impl_, kernel, name);
}

int Module::device_index() const { return impl_->device; }
const std::string& Module::log() const { return impl_->log; }

int Function::num_params() const {
  int n = 0;
  size_t offset = 0, size = 0;
  for (;; ++n) {
    const cudaError_t err = cudaFuncGetParamInfo(handle_, static_cast<size_t>(n), &offset, &size);
    if (err == cudaSuccess) continue;
    cudaGetLastError();
    // The query one past the last parameter fails with an invalid value, by design.
    EMBER_CHECK(err == cudaErrorInvalidValue, "cuda::Function(", name_,
                "): cudaFuncGetParamInfo failed: ", cudaGetErrorName(err));
    return n;
  }
}

void Function::launch_packed(Dim3 grid, Dim3 block, size_t shared_bytes,
                             std::vector<detail::KernelArg>& args) const {
  const int device = current_device();
  EMBER_CHECK(device == module_->device, "cuda::Function::launch(", name_,
              "): the module was compiled for cuda:", module_->device, " but cuda:", device,
              " is current");
  std::vector<size_t> param_sizes;
  for (size_t offset = 0, size = 0;; param_sizes.push_back(size)) {
    const cudaError_t err = cudaFuncGetParamInfo(handle_, param_sizes.size(), &offset, &size);
    if (err == cudaSuccess) continue;
    cudaGetLastError();  // the query one past the last parameter fails, by design
    EMBER_CHECK(err == cudaErrorInvalidValue, "cuda::Function(", name_,
                "): cudaFuncGetParamInfo failed: ", cudaGetErrorName(err));
    break;
  }
  int optin = 0;  // dynamic shared memory past 48 KiB needs the kernel's opt-in (below)
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  std::vector<void*> pointers;
  detail::check_launch(name_, grid, block, shared_bytes, static_cast<size_t>(optin), param_sizes,
                       module_->device, args, pointers);
  if (shared_bytes > (size_t(48) << 10)) {
    EMBER_CUDA_CHECK(cudaFuncSetAttribute(static_cast<const void*>(handle_),
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(shared_bytes)));
  }
  // The tensors' data_ptr() (when packed) submitted recorded small ops; current_stream()
  // submits those of this stream.
  EMBER_CUDA_CHECK(cudaLaunchKernel(static_cast<const void*>(handle_), dim3(grid.x, grid.y, grid.z),
                                    dim3(block.x, block.y, block.z), pointers.data(), shared_bytes,
                                    current_stream()));
  ::ember::cuda::detail::check_kernel(name_.c_str(), __FILE__, __LINE__);
}

}  // namespace cuda
}  // namespace ember
