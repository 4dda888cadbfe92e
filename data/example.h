// Example: one (data, target) pair, the unit that datasets return and transforms map, as
// LibTorch's torch::data::Example. A batch is a std::vector of them until Stack<> collates it.
#pragma once

#include <utility>

#include <ember/core/tensor.h>

namespace ember {
namespace data {

template <class Data = Tensor, class Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

}  // namespace data
}  // namespace ember
