// Internal: the node type every built-in op records (a named rule over saved tensors),
// and the helpers the per-family recording files use. Not installed.
#pragma once

#include <functional>
#include <initializer_list>
#include <utility>

#include <ember/autograd/node.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember::autograd {

class FunctionNode final : public Node {
 public:
  // rule(node, grads) returns one gradient per forward input (undefined where
  // !node.should_compute_output(i)). Rules are written with ember's public ops, so a
  // backward run with create_graph records them too.
  using Rule = std::function<tensor_list(FunctionNode&, const tensor_list&)>;
  enum Flags : uint8_t { kNone = 0, kView = 1, kNoDoubleBackward = 2 };

  FunctionNode(const char* name, const char* op, Rule rule, uint8_t flags)
      : name_(name), op_(op), rule_(std::move(rule)), flags_(flags) {}

  std::string name() const override { return name_; }
  const char* forward_op() const override { return op_; }
  tensor_list apply(tensor_list&& grads) override;
  void release_variables() override;
  bool supports_double_backward() const override { return !(flags_ & kNoDoubleBackward); }
  bool is_view() const override { return flags_ & kView; }

  // The i-th saved tensor; throws if it was modified in place or released.
  Tensor saved(size_t i) const { return saved_[i].unpack(this); }
  // The shape of forward input i (valid where should_compute_output(i)).
  IntArrayRef input_sizes(size_t i) const {
    const Edge& e = next_edges_[i];
    return e.function->input_meta(e.input_nr).sizes;
  }
  void add_edge(const Tensor& input) { next_edges_.push_back(gradient_edge(input)); }
  void reserve_saved(size_t n) { saved_.reserve(n); }
  void save(const Tensor& t, bool is_output) { saved_.emplace_back(t, is_output); }

 private:
  const char* name_;
  const char* op_;
  Rule rule_;
  uint8_t flags_;
  std::vector<SavedVariable> saved_;
};

// Runs the forward computation with recording off (the entry point re-entered).
template <class F>
inline auto untracked(F&& f) {
  AutoGradMode off(false);
  return f();
}

// Records `out` as the single output of a node named `name` for forward op `op`, with
// edges to `inputs` and the tensors of `saves` kept for backward (`out` itself may be one).
Tensor record(const char* name, const char* op, std::initializer_list<Tensor> inputs,
              const Tensor& out, std::initializer_list<Tensor> saves, FunctionNode::Rule rule,
              uint8_t flags = FunctionNode::kNone);
// The same over lists (cat, stack, multi-output ops). Undefined outputs are skipped;
// `differentiable[i] == false` marks outputs that get no history (indices).
std::shared_ptr<FunctionNode> record_node(const char* name, const char* op, TensorList inputs,
                                          TensorList outputs, TensorList saves,
                                          FunctionNode::Rule rule,
                                          uint8_t flags = FunctionNode::kNone);

// grad summed down to `shape` (the inverse of broadcasting), with public ops.
Tensor sum_to(const Tensor& grad, IntArrayRef shape);

// ---- in-place ops ----

// Throws when self may not be modified in place under autograd: a leaf that requires
// grad, or a view whose base has history.
void check_inplace(const char* op, const Tensor& self);
// Runs an in-place op with recording: `compute(old)` computes the new value out of place
// from `old` (self's value before the op, with self's history); the result is written
// into self, which takes the result's history. `saves_self`: compute keeps `old` for
// backward, so it gets its own copy of the data.
Tensor& record_inplace(const char* op, Tensor& self, bool saves_self,
                       const std::function<Tensor(const Tensor& old)>& compute);

}  // namespace ember::autograd
