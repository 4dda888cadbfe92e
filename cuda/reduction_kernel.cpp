// cuda::ReductionKernel (cuda/reduction_kernel.h): generates, per dtype signature, a kernel in
// which one 256-thread block reduces the elements of one output ([outer, reduced, inner]
// geometry over contiguous broadcast inputs), and launches it through cuda::Module.
#include <ember/cuda/reduction_kernel.h>

#include <map>
#include <mutex>
#include <sstream>

#include <ember/core/checks.h>
#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/cuda/kernel_params.h>
#include <ember/cuda/module.h>

namespace ember {
namespace cuda {

struct ReductionKernel::Cache : detail::ModuleCache {};

namespace {
using namespace detail;  // cuda/kernel_params.h
constexpr const char* kReductionKernel = "cuda::ReductionKernel";
constexpr int kThreads = 256;
}  // namespace

ReductionKernel::ReductionKernel(const std::string& in_params, const std::string& out_params,
                                 const std::string& map_expr, const std::string& reduce_expr,
                                 const std::string& post_map_expr, const std::string& identity,
                                 const std::string& name, const std::string& reduce_type,
                                 const std::vector<std::string>& options,
                                 const std::string& preamble)
    : name_(name),
      map_(map_expr),
      reduce_(reduce_expr),
      post_map_(post_map_expr),
      identity_(identity),
      reduce_type_(reduce_type),
      preamble_(preamble),
      options_(options),
      cache_(std::make_shared<Cache>()) {
  EMBER_CHECK(is_identifier(name), kReductionKernel, ": the name '", name,
              "' is not a C identifier");
  in_ = parse_params(kReductionKernel, name, "input", in_params);
  out_ = parse_params(kReductionKernel, name, "output", out_params);
  check_param_names(kReductionKernel, name, in_, out_, {"a", "b", "i"},
                    "a and b are the reduced values, i the element's index");
  EMBER_CHECK(!map_.empty() && !reduce_.empty() && !identity_.empty(), kReductionKernel, "(", name,
              "): the map and reduce expressions and the identity can't be empty");
  EMBER_CHECK(reduce_type_.empty() || is_identifier(reduce_type_), kReductionKernel, "(", name,
              "): reduce type '", reduce_type_, "' is not a type name");
}

ReductionKernel::~ReductionKernel() = default;

std::string ReductionKernel::source(const std::vector<ScalarType>& dtypes,
                                    const std::vector<bool>& scalar) const {
  EMBER_CHECK(dtypes.size() == in_.size() + out_.size(), kReductionKernel, "(", name_,
              "): ", dtypes.size(), " dtypes for ", in_.size() + out_.size(), " parameters");
  std::vector<ElementwiseKernel::Param> all = in_;
  all.insert(all.end(), out_.begin(), out_.end());
  const auto bound = bind_placeholders(kReductionKernel, name_, all, dtypes);
  const std::string reduce_type = reduce_type_.empty() ? out_[0].type : reduce_type_;
  const ScalarType rt = resolve(kReductionKernel, name_, reduce_type, "the reduced values", bound);
  const ParamCode code =
      param_code(kReductionKernel, name_, in_, out_, bound, scalar, "      ", "i", "o");
  std::ostringstream src;
  src << preamble_ << "\nextern \"C\" __global__ void " << name_ << "(" << code.params
      << ", long long outer, long long reduced, long long inner) {\n"
      << code.typedefs;
  src << "  typedef " << checked_c_type(kReductionKernel, name_, "the reduced values", rt)
      << " reduce_type;\n"
      << "  __shared__ reduce_type partial_[" << kThreads << "];\n"
      << "  for (long long o = blockIdx.x; o < outer * inner; o += gridDim.x) {\n"
      << "    const long long outer_ = o / inner, inner_ = o % inner;\n"
      << "    reduce_type acc_ = (reduce_type)(" << identity_ << ");\n"
      << "    for (long long r = threadIdx.x; r < reduced; r += blockDim.x) {\n"
      << "      const long long i = (outer_ * reduced + r) * inner + inner_;\n"
      << code.loads << "      const reduce_type a = acc_, b = (reduce_type)(" << map_ << ");\n"
      << "      acc_ = (" << reduce_ << ");\n"
      << "    }\n"
      << "    partial_[threadIdx.x] = acc_;\n"
      << "    __syncthreads();\n"
      << "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
      << "      if (threadIdx.x < s) {\n"
      << "        const reduce_type a = partial_[threadIdx.x], b = partial_[threadIdx.x + s];\n"
      << "        partial_[threadIdx.x] = (" << reduce_ << ");\n"
      << "      }\n"
      << "      __syncthreads();\n"
      << "    }\n"
      << "    if (threadIdx.x == 0) {\n"
      << "      const reduce_type a = partial_[0];\n"
      << code.stores << "      " << post_map_ << ";\n"
      << "    }\n"
      << "    __syncthreads();\n"
      << "  }\n}\n";
  return src.str();
}

std::vector<Tensor> ReductionKernel::call(const std::vector<KernelValue>& args,
                                          std::optional<int64_t> dim, bool keepdim) const {
  const PreparedCall c = prepare_call(kReductionKernel, name_, in_, out_, args);
  const std::vector<int64_t>& shape = c.shape;
  // [outer, reduced, inner] and the outputs' shape.
  int64_t outer = 1, reduced = 1, inner = 1;
  std::vector<int64_t> out_shape;
  if (dim.has_value()) {
    const int64_t ndim = static_cast<int64_t>(shape.size());
    const int64_t d = wrap_dim(kReductionKernel, *dim, ndim);  // 0-dim inputs take -1 and 0
    for (int64_t k = 0; k < ndim; ++k) {
      if (k < d) outer *= shape[k];
      if (k == d) reduced = shape[k];
      if (k > d) inner *= shape[k];
      if (k != d) out_shape.push_back(shape[k]);
      if (k == d && keepdim) out_shape.push_back(1);
    }
  } else {
    for (int64_t s : shape) reduced *= s;
    if (keepdim) out_shape.assign(shape.size(), 1);
  }
  const Function function = cache_->get(
      c, name_, [&] { return Module(source(c.dtypes, c.scalar), options_, {}, name_ + ".cu"); });
  PackedCall packed = pack_call(kReductionKernel, name_, in_, out_, args, c, out_shape);
  for (int64_t v : {outer, reduced, inner})
    packed.args.push_back(to_arg(static_cast<long long>(v)));
  const int64_t n_out = outer * inner;
  if (n_out > 0) {
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(n_out, 65535));
    function.launch_packed(Dim3(blocks), Dim3(kThreads), 0, packed.args);
  }
  return packed.finish();
}

}  // namespace cuda
}  // namespace ember
