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

struct ElementwiseKernel::Cache : detail::ModuleCache {};

namespace {
using namespace detail;  // cuda/kernel_params.h
constexpr const char* kElementwiseKernel = "cuda::ElementwiseKernel";
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
  EMBER_CHECK(is_identifier(name), kElementwiseKernel, ": the name '", name,
              "' is not a C identifier");
  in_ = parse_params(kElementwiseKernel, name, "input", in_params);
  out_ = parse_params(kElementwiseKernel, name, "output", out_params);
  check_param_names(kElementwiseKernel, name, in_, out_, {"i", "n"},
                    "i and n are the index and the element count");
}

ElementwiseKernel::~ElementwiseKernel() = default;

std::string ElementwiseKernel::source(const std::vector<ScalarType>& dtypes,
                                      const std::vector<bool>& scalar) const {
  EMBER_CHECK(dtypes.size() == in_.size() || dtypes.size() == in_.size() + out_.size(),
              kElementwiseKernel, "(", name_, "): ", dtypes.size(), " dtypes for ", in_.size(),
              " inputs");
  std::vector<Param> all = in_;
  all.insert(all.end(), out_.begin(), out_.end());
  const auto bound = bind_placeholders(kElementwiseKernel, name_, all, dtypes);
  const ParamCode code =
      param_code(kElementwiseKernel, name_, in_, out_, bound, scalar, "    ", "i", "i");
  std::ostringstream src;
  src << preamble_ << "\nextern \"C\" __global__ void " << name_ << "(" << code.params
      << ", long long n) {\n"
      << code.typedefs
      << "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n"
      << "       i += (long long)blockDim.x * gridDim.x) {\n"
      << code.loads << code.stores << "    " << operation_ << ";\n  }\n}\n";
  return src.str();
}

std::vector<Tensor> ElementwiseKernel::call(const std::vector<KernelValue>& args) const {
  const PreparedCall c = prepare_call(kElementwiseKernel, name_, in_, out_, args);
  const Function function = cache_->get(
      c, name_, [&] { return Module(source(c.dtypes, c.scalar), options_, {}, name_ + ".cu"); });
  PackedCall packed = pack_call(kElementwiseKernel, name_, in_, out_, args, c, c.shape);
  int64_t numel = 1;
  for (int64_t s : c.shape) numel *= s;
  packed.args.push_back(to_arg(static_cast<long long>(numel)));
  if (numel > 0) {
    const int64_t blocks = std::min<int64_t>((numel + 255) / 256, 65535);
    function.launch_packed(Dim3(static_cast<unsigned>(blocks)), Dim3(256), 0, packed.args);
  }
  return packed.finish();
}

}  // namespace cuda
}  // namespace ember
