// cuda::ElementwiseKernel (cuda/elementwise_kernel.h): parses the parameter lists, generates a
// grid-stride kernel per dtype signature, compiles it with cuda::Module, and launches it over
// broadcast, contiguous tensors.
#include <ember/cuda/elementwise_kernel.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/cuda/api.h>
#include <ember/cuda/module.h>

namespace ember {
namespace cuda {

struct ElementwiseKernel::Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<Module>> modules;
};

namespace {

using Param = ElementwiseKernel::Param;

struct TypeName {
  const char* name;
  ScalarType dtype;
};
constexpr TypeName kTypes[] = {
    {"float32", kFloat32}, {"float", kFloat32}, {"float64", kFloat64}, {"double", kFloat64},
    {"int32", kInt32},     {"int", kInt32},     {"int64", kInt64},     {"long", kInt64},
    {"uint8", kUInt8},     {"bool", kBool},
};

bool dtype_of(const std::string& type, ScalarType* out) {
  for (const TypeName& t : kTypes) {
    if (type == t.name) {
      *out = t.dtype;
      return true;
    }
  }
  return false;
}

const char* c_type(ScalarType t) {
  switch (t) {
    case kFloat32:
      return "float";
    case kFloat64:
      return "double";
    case kInt32:
      return "int";
    case kInt64:
      return "long long";
    case kUInt8:
      return "unsigned char";
    case kBool:
      return "bool";
    default:
      return nullptr;
  }
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// "float32 x, raw T y" -> params; throws naming the kernel and the bad entry.
std::vector<Param> parse_params(const std::string& kernel, const char* which,
                                const std::string& list) {
  std::vector<Param> out;
  std::stringstream all(list);
  std::string entry;
  while (std::getline(all, entry, ',')) {
    std::stringstream words(entry);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    Param p;
    if (w.size() == 3 && w[0] == "raw") {
      p.raw = true;
      w.erase(w.begin());
    }
    EMBER_CHECK(w.size() == 2 && is_identifier(w[0]) && is_identifier(w[1]),
                "cuda::ElementwiseKernel(", kernel, "): ", which, " parameter '", entry,
                "' is not \"TYPE name\" or \"raw TYPE name\"");
    p.type = w[0];
    p.name = w[1];
    ScalarType dt;
    const bool placeholder = !dtype_of(p.type, &dt);
    EMBER_CHECK(!placeholder || std::isupper(static_cast<unsigned char>(p.type[0])),
                "cuda::ElementwiseKernel(", kernel, "): unknown type '", p.type, "' in ", which,
                " parameter '", entry,
                "' (float32, float64, int32, int64, uint8, bool, or a placeholder such as T)");
    out.push_back(p);
  }
  return out;
}

// Binds the placeholders: from the dtypes of the inputs, then of the given outputs.
std::map<std::string, ScalarType> bind_placeholders(const std::string& kernel,
                                                    const std::vector<Param>& params,
                                                    const std::vector<ScalarType>& dtypes) {
  std::map<std::string, ScalarType> bound;
  for (size_t k = 0; k < params.size() && k < dtypes.size(); ++k) {
    ScalarType dt;
    if (dtype_of(params[k].type, &dt)) continue;
    auto [it, fresh] = bound.emplace(params[k].type, dtypes[k]);
    EMBER_CHECK(fresh || it->second == dtypes[k], "cuda::ElementwiseKernel(", kernel,
                "): ", params[k].type, " is bound to ", it->second, " and to ", dtypes[k], " (",
                params[k].name, ")");
  }
  return bound;
}

ScalarType resolve(const std::string& kernel, const Param& p,
                   const std::map<std::string, ScalarType>& bound) {
  ScalarType dt;
  if (dtype_of(p.type, &dt)) return dt;
  auto it = bound.find(p.type);
  EMBER_CHECK(it != bound.end(), "cuda::ElementwiseKernel(", kernel, "): nothing binds ", p.type,
              " (the type of ", p.name, "): pass a tensor for it");
  return it->second;
}

const char* checked_c_type(const std::string& kernel, const Param& p, ScalarType t) {
  const char* c = c_type(t);
  EMBER_CHECK(c != nullptr, "cuda::ElementwiseKernel(", kernel, "): ", p.name, " would be ", t,
              ", which runtime kernels do not take (float32, float64, int32, int64, uint8, bool)");
  return c;
}

}  // namespace

ElementwiseKernel::ElementwiseKernel(const std::string& in_params, const std::string& out_params,
                                     const std::string& operation, const std::string& name,
                                     const std::vector<std::string>& options,
                                     const std::string& preamble)
    : name_(name),
      operation_(operation),
      preamble_(preamble),
      options_(options),
      cache_(std::make_shared<Cache>()) {
  EMBER_CHECK(is_identifier(name), "cuda::ElementwiseKernel: the name '", name,
              "' is not a C identifier");
  in_ = parse_params(name, "input", in_params);
  out_ = parse_params(name, "output", out_params);
  EMBER_CHECK(!out_.empty(), "cuda::ElementwiseKernel(", name, "): no output parameter");
  std::set<std::string> seen = {"i", "n"};
  for (const auto* list : {&in_, &out_}) {
    for (const Param& p : *list) {
      EMBER_CHECK(seen.insert(p.name).second, "cuda::ElementwiseKernel(", name, "): the name '",
                  p.name, "' is used twice (i and n are the index and the element count)");
    }
  }
  for (const Param& p : out_) {
    EMBER_CHECK(!p.raw, "cuda::ElementwiseKernel(", name, "): output ", p.name, " can't be raw");
  }
}

ElementwiseKernel::~ElementwiseKernel() = default;

std::string ElementwiseKernel::source(const std::vector<ScalarType>& dtypes,
                                      const std::vector<bool>& scalar) const {
  EMBER_CHECK(dtypes.size() == in_.size() || dtypes.size() == in_.size() + out_.size(),
              "cuda::ElementwiseKernel(", name_, "): ", dtypes.size(), " dtypes for ", in_.size(),
              " inputs");
  std::vector<Param> all = in_;
  all.insert(all.end(), out_.begin(), out_.end());
  const auto bound = bind_placeholders(name_, all, dtypes);
  std::ostringstream params, loads;
  for (size_t k = 0; k < all.size(); ++k) {
    const Param& p = all[k];
    const bool input = k < in_.size();
    const ScalarType t = resolve(name_, p, bound);
    const std::string c = checked_c_type(name_, p, t);
    params << (k ? ", " : "");
    if (input && k < scalar.size() && scalar[k]) {
      params << c << " " << p.name << "_value_";
      loads << "    const " << c << " " << p.name << " = " << p.name << "_value_;\n";
    } else if (p.raw) {
      params << "const " << c << "* __restrict__ " << p.name;
    } else if (input) {
      params << "const " << c << "* __restrict__ " << p.name << "_ptr_";
      loads << "    const " << c << " " << p.name << " = " << p.name << "_ptr_[i];\n";
    } else {
      params << c << "* __restrict__ " << p.name << "_ptr_";
      loads << "    " << c << "& " << p.name << " = " << p.name << "_ptr_[i];\n";
    }
  }
  std::ostringstream src;
  src << preamble_ << "\nextern \"C\" __global__ void " << name_ << "(" << params.str()
      << ", long long n) {\n";
  for (const auto& [placeholder, t] : bound) {  // the body may name them: (T)a
    src << "  typedef " << c_type(t) << " " << placeholder << ";\n";
  }
  src << "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n"
      << "       i += (long long)blockDim.x * gridDim.x) {\n"
      << loads.str() << "    " << operation_ << ";\n  }\n}\n";
  return src.str();
}

std::vector<Tensor> ElementwiseKernel::call(const std::vector<KernelValue>& args) const {
  const size_t n_in = in_.size(), n_out = out_.size();
  EMBER_CHECK(args.size() == n_in || args.size() == n_in + n_out, "cuda::ElementwiseKernel(", name_,
              "): takes ", n_in, " inputs (and optionally ", n_out, " outputs), got ", args.size(),
              " arguments");
  // Devices and broadcasting: over the element-wise tensor inputs and the given outputs.
  std::vector<Tensor> shaped;
  int device = -1;
  for (size_t k = 0; k < args.size(); ++k) {
    const bool output = k >= n_in;
    const Param& p = output ? out_[k - n_in] : in_[k];
    if (!args[k].is_tensor) {
      EMBER_CHECK(!output && !p.raw, "cuda::ElementwiseKernel(", name_, "): ", p.name,
                  " must be a tensor, got a number");
      continue;
    }
    const Tensor& t = args[k].tensor;
    EMBER_CHECK(t.defined(), "cuda::ElementwiseKernel(", name_, "): ", p.name, " is undefined");
    EMBER_CHECK(t.is_cuda(), "cuda::ElementwiseKernel(", name_, "): ", p.name,
                " must be a CUDA tensor, got one on ", t.device());
    EMBER_CHECK(device < 0 || t.device().index() == device, "cuda::ElementwiseKernel(", name_,
                "): tensors on cuda:", device, " and ", t.device());
    device = t.device().index();
    if (!p.raw && !output) shaped.push_back(t);
  }
  EMBER_CHECK(device >= 0 || is_available(), "cuda::ElementwiseKernel(", name_,
              "): no CUDA device is available");
  if (device < 0) device = current_device();
  std::vector<int64_t> shape;
  if (!shaped.empty()) {
    std::vector<Tensor> b = broadcast_tensors(shaped);
    shape = b[0].sizes().vec();
  }
  for (size_t k = n_in; k < args.size(); ++k) {
    EMBER_CHECK(args[k].tensor.sizes().vec() == shape, "cuda::ElementwiseKernel(", name_,
                "): output ", out_[k - n_in].name, " has shape ", args[k].tensor.sizes(),
                " but the inputs broadcast to ", IntArrayRef(shape));
  }
  // Dtypes: inputs as given (scalars: int64 for integers, float64 else), then bound outputs.
  std::vector<ScalarType> dtypes;
  std::vector<bool> scalar;
  for (size_t k = 0; k < args.size(); ++k) {
    scalar.push_back(!args[k].is_tensor);
    dtypes.push_back(args[k].is_tensor                  ? args[k].tensor.dtype()
                     : args[k].scalar.isFloatingPoint() ? kFloat64
                     : args[k].scalar.isBoolean()       ? kBool
                                                        : kInt64);
  }
  std::vector<Param> all = in_;
  all.insert(all.end(), out_.begin(), out_.end());
  // Placeholders: bound by tensors first; a scalar binds one only where no tensor does.
  std::vector<Param> tensor_params, scalar_params;
  std::vector<ScalarType> tensor_dtypes, scalar_dtypes;
  for (size_t k = 0; k < args.size(); ++k) {
    (args[k].is_tensor ? tensor_params : scalar_params).push_back(all[k]);
    (args[k].is_tensor ? tensor_dtypes : scalar_dtypes).push_back(dtypes[k]);
  }
  auto bound = bind_placeholders(name_, tensor_params, tensor_dtypes);
  for (const auto& [type, dt] : bind_placeholders(name_, scalar_params, scalar_dtypes))
    bound.emplace(type, dt);
  std::vector<ScalarType> resolved;
  for (const Param& p : all) resolved.push_back(resolve(name_, p, bound));

  // The module for this signature.
  std::string signature;
  for (size_t k = 0; k < n_in; ++k) {
    signature += std::string(dtype_name(resolved[k])) + (scalar[k] ? "s," : "t,");
  }
  for (size_t k = n_in; k < all.size(); ++k) signature += dtype_name(resolved[k]);
  std::shared_ptr<Module> module;
  {
    std::lock_guard<std::mutex> lock(cache_->mu);
    std::shared_ptr<Module>& m = cache_->modules[signature];
    if (!m) {
      m = std::make_shared<Module>(source(resolved, scalar), options_, std::vector<std::string>{},
                                   name_ + ".cu");
    }
    module = m;
  }

  // Arguments: inputs converted to their parameter's dtype, broadcast and contiguous; outputs
  // allocated, or given (through a contiguous copy when they are not contiguous).
  std::vector<detail::KernelArg> packed;
  std::vector<Tensor> keep, outputs, write_back;
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  for (size_t k = 0; k < n_in; ++k) {
    if (scalar[k]) {
      const Scalar& s = args[k].scalar;
      switch (resolved[k]) {
        case kFloat32:
          packed.push_back(detail::to_arg(s.to<float>()));
          break;
        case kFloat64:
          packed.push_back(detail::to_arg(s.to<double>()));
          break;
        case kInt32:
          packed.push_back(detail::to_arg(s.to<int32_t>()));
          break;
        case kInt64:
          packed.push_back(detail::to_arg(s.to<int64_t>()));
          break;
        case kUInt8:
          packed.push_back(detail::to_arg(s.to<uint8_t>()));
          break;
        default:
          packed.push_back(detail::to_arg(s.to<bool>()));
          break;
      }
      continue;
    }
    Tensor t = args[k].tensor.to(resolved[k]);
    if (!in_[k].raw) t = t.expand(shape);
    t = t.contiguous();
    keep.push_back(t);
    packed.push_back(detail::to_arg(t));
  }
  for (size_t k = n_in; k < all.size(); ++k) {
    Tensor out;
    if (k < args.size()) {
      out = args[k].tensor;
      EMBER_CHECK(out.dtype() == resolved[k], "cuda::ElementwiseKernel(", name_, "): output ",
                  all[k].name, " is ", out.dtype(), " but the kernel writes ", resolved[k]);
      outputs.push_back(out);
      if (!out.is_contiguous())
        out = empty(shape, TensorOptions(resolved[k]).device(Device(kCUDA, device)));
      write_back.push_back(out);
    } else {
      out = empty(shape, TensorOptions(resolved[k]).device(Device(kCUDA, device)));
      outputs.push_back(out);
      write_back.push_back(out);
    }
    packed.push_back(detail::to_arg(out));
  }
  packed.push_back(detail::to_arg(static_cast<long long>(numel)));
  if (numel > 0) {
    const int64_t blocks = std::min<int64_t>((numel + 255) / 256, 65535);
    module->function(name_).launch_packed(Dim3(static_cast<unsigned>(blocks)), Dim3(256), 0,
                                          packed);
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (!write_back[j].is_same(outputs[j])) outputs[j].copy_(write_back[j]);
  }
  return outputs;
}

}  // namespace cuda
}  // namespace ember
