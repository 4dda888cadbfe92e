// cuda::ElementwiseKernel, as CuPy's: typed parameter lists and a loop body compiled at run
// time (through cuda::Module and its disk cache), called on tensors and scalars. Public; no
// CUDA headers (cuda/elementwise_kernel.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ember/core/scalar.h>
#include <ember/core/tensor.h>

namespace ember {
namespace cuda {

class Module;

// A kernel argument: a tensor or a C++ number.
struct KernelValue {
  KernelValue(const Tensor& t) : tensor(t), is_tensor(true) {}  // NOLINT: implicit by design
  KernelValue(double v) : scalar(v) {}                          // NOLINT
  KernelValue(float v) : scalar(static_cast<double>(v)) {}      // NOLINT
  KernelValue(int64_t v) : scalar(v) {}                         // NOLINT
  KernelValue(int v) : scalar(static_cast<int64_t>(v)) {}       // NOLINT
  KernelValue(bool v) : scalar(v) {}                            // NOLINT
  Tensor tensor;
  Scalar scalar;
  bool is_tensor = false;
};

// ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * x + y", "squared_sum"):
// - Parameters are "TYPE name" separated by commas. TYPE is a dtype name (float32, float64,
//   float16, bfloat16, int64, int32, uint8, bool; also float, double, int, long, half) or a
//   one-word placeholder such as T, bound to the dtype of the first tensor passed for it.
//   "raw TYPE name" passes a pointer to the whole (contiguous) tensor instead of one element.
// - In the body, each input is the value of its element (const), each output a reference to
//   its element; `i` is the element's flat index and `n` the element count. `preamble` is code
//   placed before the kernel (helper __device__ functions).
// - A call takes the inputs, then optionally the outputs. Tensor inputs are broadcast together
//   and made contiguous (a copy where they are not), converted to the parameter's dtype
//   where they differ; scalars pass by value. Outputs are allocated (the broadcast shape, the
//   parameter's dtype) unless given; a given output must have the broadcast shape and dtype,
//   and is written through a contiguous copy when it is not contiguous.
// - One Module per combination of placeholder dtypes and scalar/tensor inputs, compiled on
//   first use and kept (and cached on disk).
class ElementwiseKernel {
 public:
  ElementwiseKernel(const std::string& in_params, const std::string& out_params,
                    const std::string& operation, const std::string& name = "elementwise_kernel",
                    const std::vector<std::string>& options = {}, const std::string& preamble = "");
  ~ElementwiseKernel();

  // The outputs (one per output parameter).
  std::vector<Tensor> call(const std::vector<KernelValue>& args) const;
  // The only output (throws when the kernel has several: use call()).
  template <class... A>
  Tensor operator()(const A&... args) const {
    std::vector<Tensor> out = call({KernelValue(args)...});
    EMBER_CHECK(out.size() == 1, "cuda::ElementwiseKernel(", name_, "): the kernel has ",
                out.size(), " outputs; use call()");
    return out[0];
  }

  // The CUDA source for inputs of these dtypes given as tensors (`scalar[k]` true: input k
  // passed as a scalar), as a call compiles it; for reading, and for tests.
  std::string source(const std::vector<ScalarType>& dtypes,
                     const std::vector<bool>& scalar = {}) const;
  const std::string& name() const { return name_; }

  struct Param {
    std::string type;  // a dtype name or a placeholder
    std::string name;
    bool raw = false;
  };

 private:
  std::string name_, operation_, preamble_;
  std::vector<std::string> options_;
  std::vector<Param> in_, out_;
  struct Cache;  // the compiled modules per signature, behind a mutex
  std::shared_ptr<Cache> cache_;
};

}  // namespace cuda
}  // namespace ember
