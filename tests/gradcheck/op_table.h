// The op table, in the spirit of PyTorch's OpInfo: every differentiable op with generators
// of sample inputs. test_gradcheck runs gradcheck (and gradgradcheck) on every entry, on the
// CPU and, when a GPU is present, on CUDA, where it also checks the outputs and gradients
// against the CPU's (parity); an entry with a naive reference is checked against it too.
#pragma once

#include <ember/ember.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace optable {

using ember::Device;
using ember::Tensor;
using tensor_list = std::vector<Tensor>;
using Shape = std::vector<int64_t>;

struct Sample {
  std::string desc;    // "broadcast [2, 3] x [3]"
  tensor_list inputs;  // float64; the ones that require grad are checked
  // The inputs in float32 for the float32 parity pass, where casting each input won't do (a
  // module's parameters: table_rnn.cpp); empty: each float64 input cast.
  std::function<tensor_list()> float32 = nullptr;
};

struct OpEntry {
  std::string name;  // "mul", "sum/dim keepdim"
  std::function<tensor_list(const tensor_list&)> fn;
  std::function<std::vector<Sample>(Device)> samples;
  bool gradgrad = true;  // also run gradgradcheck
  double atol = 1e-5;
  double rtol = 1e-3;
  // Optional: the same outputs computed naively (loops in double over accessors, not the
  // op's kernels), compared with fn's on the CPU samples.
  std::function<tensor_list(const tensor_list&)> ref = nullptr;
};

// All entries, in registration order.
std::vector<OpEntry>& registry();

// `static optable::Register reg({...entries...});` in each table file.
struct Register {
  explicit Register(std::vector<OpEntry> entries) {
    for (auto& e : entries) registry().push_back(std::move(e));
  }
};

enum class Layout { Contiguous, Transposed, Stepped };

// A float64 leaf of `shape` on `device` that requires grad, with values uniform in
// [lo, hi); values within `gap` of zero are pushed away from it (kinks of abs, relu...).
// Transposed and Stepped give non-contiguous leaves (a permuted or sliced view, detached).
Tensor input(const Shape& shape, Device device, Layout layout = Layout::Contiguous, double lo = -2,
             double hi = 2, double gap = 0);
// The same without requires_grad (indices, masks and constants are made by the entries).
Tensor constant(const Shape& shape, Device device, double lo = -2, double hi = 2);

// One-output adaptor: fn1([](const tensor_list& x) { return x[0] * x[1]; }).
inline std::function<tensor_list(const tensor_list&)> fn1(
    std::function<Tensor(const tensor_list&)> f) {
  return [f = std::move(f)](const tensor_list& x) { return tensor_list{f(x)}; };
}

}  // namespace optable
