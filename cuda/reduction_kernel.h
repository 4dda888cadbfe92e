// cuda::ReductionKernel, as CuPy's: a map expression over each element, a reduce expression
// combining two values, a post-map writing the outputs, and an identity, compiled at run time
// (through cuda::Module and its disk cache). Public; no CUDA headers (cuda/reduction_kernel.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ember/cuda/elementwise_kernel.h>

namespace ember {
namespace cuda {

// ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm"):
// - Parameters as ElementwiseKernel's ("TYPE name", placeholders, "raw TYPE name" inputs).
// - map_expr is computed for each element from the inputs' values (and `i`, the element's
//   flat index in the broadcast inputs); reduce_expr combines two reduced values `a` and `b`;
//   post_map_expr sees the result as `a` and assigns the outputs; `identity` starts each
//   reduction (and is the result over no element). Values are of `reduce_type` (default: the
//   first output's type).
// - call(args) reduces over all elements (0-dim outputs); call(args, dim, keepdim) over one
//   dim of the broadcast inputs. One block per output element reduces its elements in a
//   grid-stride loop and a shared-memory tree (reduce_expr must be associative and
//   commutative, as CuPy's).
class ReductionKernel {
 public:
  ReductionKernel(const std::string& in_params, const std::string& out_params,
                  const std::string& map_expr, const std::string& reduce_expr,
                  const std::string& post_map_expr, const std::string& identity,
                  const std::string& name = "reduction_kernel", const std::string& reduce_type = "",
                  const std::vector<std::string>& options = {}, const std::string& preamble = "");
  ~ReductionKernel();

  std::vector<Tensor> call(const std::vector<KernelValue>& args,
                           std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  // The only output, reduced over all elements.
  template <class... A>
  Tensor operator()(const A&... args) const {
    std::vector<Tensor> out = call({KernelValue(args)...});
    EMBER_CHECK(out.size() == 1, "cuda::ReductionKernel(", name_, "): the kernel has ", out.size(),
                " outputs; use call()");
    return out[0];
  }

  // The CUDA source for these parameter dtypes (inputs, then outputs; `scalar[k]`: input k a
  // scalar), as a call compiles it.
  std::string source(const std::vector<ScalarType>& dtypes,
                     const std::vector<bool>& scalar = {}) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_, map_, reduce_, post_map_, identity_, reduce_type_, preamble_;
  std::vector<std::string> options_;
  std::vector<ElementwiseKernel::Param> in_, out_;
  struct Cache;
  std::shared_ptr<Cache> cache_;
};

}  // namespace cuda
}  // namespace ember
