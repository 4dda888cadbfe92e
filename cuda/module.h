// Runtime-compiled CUDA kernels, as PyCUDA's SourceModule and CuPy's RawKernel: CUDA C++
// source compiled by NVRTC for the current GPU, its kernels launched with tensors and scalars
// as arguments on the current stream. Public; no CUDA headers (see cuda/module.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/cuda/api.h>

namespace ember {
namespace cuda {

// Grid and block sizes: {32}, {32, 4}, {8, 8, 2}.
struct Dim3 {
  Dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}  // NOLINT
  unsigned x, y, z;
};

namespace detail {
// One kernel argument as the launch passes it: the bytes of a value and what it came from
// (for the error when it doesn't match the kernel's parameter).
struct KernelArg {
  alignas(8) unsigned char bytes[8];
  size_t size;
  const char* what;  // "tensor", "int32", "float", ...
  int device = -1;   // a tensor's CUDA device
};
KernelArg tensor_arg(const Tensor& t);
template <class T>
KernelArg scalar_arg(T value, const char* type_name) {
  static_assert(sizeof(T) <= 8, "kernel arguments are at most 8 bytes");
  static_assert(std::is_trivially_copyable<T>::value, "a kernel argument is copied bytewise");
  KernelArg a;
  std::memcpy(a.bytes, &value, sizeof(T));
  a.size = sizeof(T);
  a.what = type_name;
  return a;
}
inline KernelArg to_arg(const Tensor& t) { return tensor_arg(t); }
inline KernelArg to_arg(float v) { return scalar_arg(v, "float"); }
inline KernelArg to_arg(double v) { return scalar_arg(v, "double"); }
inline KernelArg to_arg(int8_t v) { return scalar_arg(v, "int8"); }
inline KernelArg to_arg(uint8_t v) { return scalar_arg(v, "uint8"); }
inline KernelArg to_arg(int16_t v) { return scalar_arg(v, "int16"); }
inline KernelArg to_arg(uint16_t v) { return scalar_arg(v, "uint16"); }
inline KernelArg to_arg(int32_t v) { return scalar_arg(v, "int32"); }
inline KernelArg to_arg(uint32_t v) { return scalar_arg(v, "uint32"); }
inline KernelArg to_arg(int64_t v) { return scalar_arg(v, "int64"); }
inline KernelArg to_arg(uint64_t v) { return scalar_arg(v, "uint64"); }
inline KernelArg to_arg(long long v) { return scalar_arg(v, "int64"); }
inline KernelArg to_arg(unsigned long long v) { return scalar_arg(v, "uint64"); }
inline KernelArg to_arg(bool v) { return scalar_arg(v, "bool"); }
// A raw device pointer (e.g. from another library), passed as is.
template <class T>
KernelArg to_arg(T* p) {
  return scalar_arg(static_cast<const void*>(p), "pointer");
}
struct ModuleImpl;

// What compiling a module gives: the cubin, the lowered (mangled) name of each name
// expression, NVRTC's log, and whether it came from the disk cache.
struct CompiledModule {
  std::string cubin;
  std::vector<std::pair<std::string, std::string>> lowered_names;
  std::string log;
  bool from_cache = false;
};
// Compiles `source` for `arch` (e.g. "sm_90"; an -arch/--gpu-architecture option wins) through
// the disk cache (cuda/kernel_cache.h) or NVRTC. Needs no GPU. Throws ember::Error with
// NVRTC's whole log when the source does not compile.
// `headers`: (include name, contents) pairs that #include "name" finds before any folder.
using Headers = std::vector<std::pair<std::string, std::string>>;
CompiledModule compile_module(const std::string& source, const std::vector<std::string>& options,
                              const std::vector<std::string>& name_expressions,
                              const std::string& name, const std::string& arch,
                              const Headers& headers = {});
// How many times this process ran NVRTC's compiler (the disk cache's tests).
int64_t nvrtc_compilations();
}  // namespace detail

class Module;

// One __global__ function of a Module. Cheap to copy; keeps its module alive.
class Function {
 public:
  // Launches on the current stream of the module's device, which must be current. Tensors
  // pass as pointers to their data (CUDA tensors on that device only); C++ scalars pass by
  // value and must have the size of the kernel's parameter (write 1024, 2.0f, int64_t{n}).
  // The number of arguments and their sizes are checked against the kernel; types can't be
  // (an int 2 for a float parameter passes the int's bits: write 2.0f).
  template <class... Args>
  void launch(Dim3 grid, Dim3 block, const Args&... args) const {
    launch_with_shared(grid, block, 0, args...);
  }
  // On `stream` instead of the current one (as CuPy's stream= argument).
  template <class... Args>
  void launch_on(const Stream& stream, Dim3 grid, Dim3 block, size_t shared_bytes,
                 const Args&... args) const {
    StreamGuard guard(stream);
    launch_with_shared(grid, block, shared_bytes, args...);
  }
  // The same with `shared_bytes` of dynamic shared memory (extern __shared__).
  template <class... Args>
  void launch_with_shared(Dim3 grid, Dim3 block, size_t shared_bytes, const Args&... args) const {
    std::vector<detail::KernelArg> packed{detail::to_arg(args)...};
    launch_packed(grid, block, shared_bytes, packed);
  }

  // The same with arguments already packed by detail::to_arg (for wrappers that build the
  // argument list at run time, as cuda::ElementwiseKernel).
  void launch_packed(Dim3 grid, Dim3 block, size_t shared_bytes,
                     std::vector<detail::KernelArg>& args) const;

  const std::string& name() const { return name_; }
  int num_params() const { return static_cast<int>(param_sizes_->size()); }  // as the driver says

 private:
  friend class Module;
  Function(std::shared_ptr<detail::ModuleImpl> module, void* handle, std::string name);

  std::shared_ptr<detail::ModuleImpl> module_;
  void* handle_;  // CUfunction
  std::string name_;
  // Queried once from the driver: each parameter's size, and the opt-in limit of dynamic
  // shared memory on the module's device (a launch then asks the driver nothing).
  std::shared_ptr<const std::vector<size_t>> param_sizes_;
  size_t shared_optin_ = 0;
};

// CUDA C++ source compiled with NVRTC for the current device's architecture (-arch=sm_XY,
// -std=c++17 and the extra `options`, e.g. {"-DN=4", "-I/path", "--use_fast_math"}). A compile
// error throws ember::Error with NVRTC's log. Kernels are looked up by their name as
// compiled: declare them extern "C" (or pass the mangled name), or, for templates, list them
// as name expressions ({"scale<float>"}) and look them up by those. The compiled code stays
// loaded until the process ends (as CuPy's kernel cache), so a launch never outlives its code.
//
// Compiled modules are cached on disk (~/.cache/ember/kernels, or $EMBER_KERNEL_CACHE; "0"
// turns it off; $EMBER_KERNEL_CACHE_MAX_MB caps it, default 1024, least recently used out
// first), keyed by the source, options, name expressions, the files under -I directories,
// the architecture and NVRTC's version: a second process compiles nothing.
class Module {
 public:
  // headers: ("name.h", contents) pairs, found by #include "name.h" (PyCUDA's and CuPy's
  // users pass -I folders; this needs no file).
  explicit Module(const std::string& source, const std::vector<std::string>& options = {},
                  const std::vector<std::string>& name_expressions = {},
                  const std::string& name = "module.cu", const detail::Headers& headers = {});
  Function function(const std::string& name) const;
  int device_index() const;
  const std::string& log() const;  // NVRTC's messages (warnings) for a successful compile

 private:
  std::shared_ptr<detail::ModuleImpl> impl_;
};

}  // namespace cuda
}  // namespace ember
