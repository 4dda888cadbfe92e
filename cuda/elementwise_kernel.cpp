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
#include <ember/cuda/kernel_params.h>
#include <ember/cuda/module.h>

namespace ember {
namespace cuda {

struct ElementwiseKernel::Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<Module>> modules;
};

namespace {
using namespace detail;  // cuda/kernel_params.h
constexpr const char* kWhat = "cuda::ElementwiseKernel";
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
  EMBER_CHECK(is_identifier(name), kWhat, ": the name '", name, "' is not a C identifier");
  in_ = parse_params(kWhat, name, "input", in_params);
  out_ = parse_params(kWhat, name, "output", out_params);
  check_param_names(kWhat, name, in_, out_, {"i", "n"},
                    "i and n are the index and the element count");
}

ElementwiseKernel::~ElementwiseKernel() = default;

std::string ElementwiseKernel::source(const std::vector<ScalarType>& dtypes,
                                      const std::vector<bool>& scalar) const {
  EMBER_CHECK(dtypes.size() == in_.size() || dtypes.size() == in_.size() + out_.size(), kWhat, "(",
              name_, "): ", dtypes.size(), " dtypes for ", in_.size(), " inputs");
  std::vector<Param> all = in_;
  all.insert(all.end(), out_.begin(), out_.end());
  const auto bound = bind_placeholders(kWhat, name_, all, dtypes);
  std::ostringstream params, loads;
  for (size_t k = 0; k < all.size(); ++k) {
    const Param& p = all[k];
    const bool input = k < in_.size();
    const ScalarType t = resolve(kWhat, name_, p.type, p.name, bound);
    const std::string c = checked_c_type(kWhat, name_, p.name, t);
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
  const size_t n_in = in_.size();
  const PreparedCall c = prepare_call(kWhat, name_, in_, out_, args);
  const std::vector<int64_t>& shape = c.shape;
  const std::vector<bool>& scalar = c.scalar;
  const std::vector<ScalarType>& resolved = c.dtypes;
  const int device = c.device;
  std::vector<Param> all = in_;
  all.insert(all.end(), out_.begin(), out_.end());
  for (size_t k = n_in; k < args.size(); ++k) {
    EMBER_CHECK(args[k].tensor.sizes().vec() == shape, kWhat, "(", name_, "): output ", all[k].name,
                " has shape ", args[k].tensor.sizes(), " but the inputs broadcast to ",
                IntArrayRef(shape));
  }

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
      packed.push_back(scalar_kernel_arg(args[k].scalar, resolved[k]));
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
      EMBER_CHECK(out.dtype() == resolved[k], kWhat, "(", name_, "): output ", all[k].name, " is ",
                  out.dtype(), " but the kernel writes ", resolved[k]);
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
