// AccumulateGrad: the node at a leaf that requires grad; it runs the leaf's hooks and
// adds the incoming gradient into the leaf's .grad(), as PyTorch does.
#pragma once

#include <ember/autograd/node.h>

namespace ember::autograd {

// The leaf owns its accumulator (through its AutogradMeta) and the accumulator refers
// back to the leaf weakly, so one accumulator serves every graph the leaf takes part in;
// gradients for a leaf that no longer exists are dropped (nobody could read them).
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(const Tensor& variable);
  std::string name() const override { return "AccumulateGrad"; }
  tensor_list apply(tensor_list&& grads) override;

 private:
  std::weak_ptr<TensorImpl> variable_;
};

// The leaf's accumulator, created on first use.
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);
unsigned next_hook_id();

}  // namespace ember::autograd
