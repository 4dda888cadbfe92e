// cuda::Module and cuda::Function (cuda/module.h): NVRTC compiles the source to a cubin for
// the current device, the runtime's library API (cudaLibraryLoadData, CUDA 12+) loads it, and
// launches go through cudaLaunchKernel on the current stream, arguments checked first.
#include <ember/cuda/module.h>

#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <ember/cuda/api.h>
#include <ember/cuda/check.h>
#include <ember/cuda/kernel_cache.h>
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
  std::vector<std::pair<std::string, std::string>> lowered_names;  // name expression, mangled
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

std::atomic<int64_t> g_nvrtc_compilations{0};

bool starts_with(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// Length-prefixed fields: a CompiledModule as a cache entry's payload and back.
void put_field(std::string& out, const std::string& field) {
  const uint64_t n = field.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out += field;
}
bool get_field(const std::string& in, size_t& pos, std::string* field) {
  uint64_t n = 0;
  if (in.size() - pos < sizeof n) return false;
  std::memcpy(&n, in.data() + pos, sizeof n);
  pos += sizeof n;
  if (in.size() - pos < n) return false;
  *field = in.substr(pos, n);
  pos += n;
  return true;
}
std::string serialize(const detail::CompiledModule& m) {
  std::string out;
  put_field(out, m.cubin);
  put_field(out, m.log);
  put_field(out, std::to_string(m.lowered_names.size()));
  for (const auto& [expr, lowered] : m.lowered_names) {
    put_field(out, expr);
    put_field(out, lowered);
  }
  return out;
}
bool deserialize(const std::string& in, detail::CompiledModule* m) {
  size_t pos = 0;
  std::string count;
  if (!get_field(in, pos, &m->cubin) || !get_field(in, pos, &m->log) ||
      !get_field(in, pos, &count) || count.empty() || count.size() > 6)
    return false;
  for (int64_t i = 0, n = std::stoll(count); i < n; ++i) {
    std::string expr, lowered;
    if (!get_field(in, pos, &expr) || !get_field(in, pos, &lowered)) return false;
    m->lowered_names.emplace_back(std::move(expr), std::move(lowered));
  }
  return pos == in.size() && !m->cubin.empty();
}

// The cache key: everything the compiled code depends on.
std::string cache_key(const std::string& source, const std::vector<std::string>& options,
                      const std::vector<std::string>& name_expressions, const std::string& name,
                      const detail::Headers& headers) {
  detail::KeyHasher h;
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  h.add("ember kernel 1, NVRTC " + std::to_string(major) + "." + std::to_string(minor));
  h.add(name);
  h.add(source);
  for (const std::string& o : options) {
    h.add(o);
    if (starts_with(o, "--include-path="))
      h.add_path(o.substr(15));
    else if (starts_with(o, "-I") && o.size() > 2)
      h.add_path(o.substr(2));
  }
  h.add("name expressions");
  for (const std::string& e : name_expressions) h.add(e);
  h.add("headers");
  for (const auto& [include_name, contents] : headers) {
    h.add(include_name);
    h.add(contents);
  }
  return h.hex();
}

}  // namespace

namespace detail {

int64_t nvrtc_compilations() { return g_nvrtc_compilations.load(); }

CompiledModule compile_module(const std::string& source, const std::vector<std::string>& options,
                              const std::vector<std::string>& name_expressions,
                              const std::string& name, const std::string& arch,
                              const Headers& headers) {
  std::vector<std::string> all = {"-std=c++17"};
  const bool arch_given = std::any_of(options.begin(), options.end(), [](const std::string& o) {
    return starts_with(o, "-arch") || starts_with(o, "--gpu-architecture");
  });
  if (!arch_given) all.push_back("--gpu-architecture=" + arch);
  all.insert(all.end(), options.begin(), options.end());
  const std::string key = cache_key(source, all, name_expressions, name, headers);
  CompiledModule out;
  std::string entry;
  if (kernel_cache_load(key, &entry)) {
    if (deserialize(entry, &out)) {
      out.from_cache = true;
      return out;
    }
    out = CompiledModule();  // an entry of another layout: compile again and replace it
  }
  Program program;
  std::vector<const char*> header_texts, header_names;
  for (const auto& [include_name, contents] : headers) {
    header_names.push_back(include_name.c_str());
    header_texts.push_back(contents.c_str());
  }
  EMBER_NVRTC_CHECK(
      nvrtcCreateProgram(&program.p, source.c_str(), name.c_str(), static_cast<int>(headers.size()),
                         header_texts.data(), header_names.data()),
      "nvrtcCreateProgram");
  for (const std::string& e : name_expressions) {
    EMBER_NVRTC_CHECK(nvrtcAddNameExpression(program.p, e.c_str()), "nvrtcAddNameExpression");
  }
  std::vector<const char*> argv;
  for (const std::string& o : all) argv.push_back(o.c_str());
  g_nvrtc_compilations.fetch_add(1);
  const nvrtcResult r = nvrtcCompileProgram(program.p, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(program.p);
  EMBER_CHECK(r == NVRTC_SUCCESS, "cuda::Module: compiling ", name, " for ",
              arch_given ? "the architecture given" : arch, " failed (", nvrtcGetErrorString(r),
              "):\n", out.log);
  for (const std::string& e : name_expressions) {
    const char* lowered = nullptr;
    EMBER_NVRTC_CHECK(nvrtcGetLoweredName(program.p, e.c_str(), &lowered), "nvrtcGetLoweredName");
    out.lowered_names.emplace_back(e, lowered);
  }
  size_t size = 0;
  EMBER_NVRTC_CHECK(nvrtcGetCUBINSize(program.p, &size), "nvrtcGetCUBINSize");
  EMBER_CHECK(size > 0, "cuda::Module: NVRTC made no cubin for ", name,
              " (give a real architecture, sm_XY, not compute_XY)");
  out.cubin.resize(size);
  EMBER_NVRTC_CHECK(nvrtcGetCUBIN(program.p, out.cubin.data()), "nvrtcGetCUBIN");
  kernel_cache_store(key, serialize(out));
  return out;
}

}  // namespace detail

Module::Module(const std::string& source, const std::vector<std::string>& options,
               const std::vector<std::string>& name_expressions, const std::string& name,
               const detail::Headers& headers) {
  EMBER_CHECK(is_available(), "cuda::Module: no CUDA device is available");
  impl_ = std::make_shared<detail::ModuleImpl>();
  impl_->device = current_device();
  cudaDeviceProp prop{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&prop, impl_->device));
  detail::CompiledModule compiled = detail::compile_module(
      source, options, name_expressions, name,
      "sm_" + std::to_string(prop.major) + std::to_string(prop.minor), headers);
  impl_->log = std::move(compiled.log);
  impl_->lowered_names = std::move(compiled.lowered_names);
  EMBER_CUDA_CHECK(cudaLibraryLoadData(&impl_->library, compiled.cubin.data(), nullptr, nullptr, 0,
                                       nullptr, nullptr, 0));
}

Function Module::function(const std::string& name) const {
  std::string symbol = name;  // a name expression's lowered name, else the name itself
  for (const auto& [expr, lowered] : impl_->lowered_names) {
    if (expr == name) symbol = lowered;
  }
  cudaKernel_t kernel = nullptr;
  const cudaError_t err = cudaLibraryGetKernel(&kernel, impl_->library, symbol.c_str());
  if (err != cudaSuccess) {
    cudaGetLastError();
    EMBER_THROW("cuda::Module::function: no __global__ function named '", name, "' in the module (",
                cudaGetErrorName(err), "); declare it extern \"C\" or pass its mangled name");
  }
  return Function(impl_, kernel, name);
}

int Module::device_index() const { return impl_->device; }
const std::string& Module::log() const { return impl_->log; }

Function::Function(std::shared_ptr<detail::ModuleImpl> module, void* handle, std::string name)
    : module_(std::move(module)), handle_(handle), name_(std::move(name)) {
  auto sizes = std::make_shared<std::vector<size_t>>();
  for (size_t offset = 0, size = 0;; sizes->push_back(size)) {
    const cudaError_t err = cudaFuncGetParamInfo(handle_, sizes->size(), &offset, &size);
    if (err == cudaSuccess) continue;
    cudaGetLastError();  // the query one past the last parameter fails, by design
    EMBER_CHECK(err == cudaErrorInvalidValue, "cuda::Function(", name_,
                "): cudaFuncGetParamInfo failed: ", cudaGetErrorName(err));
    break;
  }
  param_sizes_ = std::move(sizes);
  int optin = 0;  // dynamic shared memory past 48 KiB needs the kernel's opt-in (launch)
  EMBER_CUDA_CHECK(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, module_->device));
  shared_optin_ = static_cast<size_t>(optin);
}

void Function::launch_packed(Dim3 grid, Dim3 block, size_t shared_bytes,
                             std::vector<detail::KernelArg>& args) const {
  const int device = current_device();
  EMBER_CHECK(device == module_->device, "cuda::Function::launch(", name_,
              "): the module was compiled for cuda:", module_->device, " but cuda:", device,
              " is current");
  std::vector<void*> pointers;
  detail::check_launch(name_, grid, block, shared_bytes, shared_optin_, *param_sizes_,
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
