// AccumulateGrad: the node at a leaf that requires grad; it runs the leaf's hooks and
// adds the incoming gradient into the leaf's .grad(), as PyTorch does.
#pragma once

#include <ember/autograd/node.h>

namespace ember::autograd {

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  tensor_list apply(tensor_list&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

// The leaf's accumulator, created on first use and shared while the graph holds it.
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);
unsigned next_hook_id();

}  // namespace ember::autograd
