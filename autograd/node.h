// The recorded graph: a Node per differentiable op (its backward rule, what it saved,
// edges to the nodes of its inputs), SavedVariable with its version check, AutogradMeta.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::autograd {

using Variable = Tensor;  // LibTorch's name (torch::autograd::Variable is at::Tensor)
using tensor_list = std::vector<Tensor>;
using variable_list = tensor_list;  // LibTorch's name
using Hook = std::function<Tensor(const Tensor&)>;

class Node;

// Where a gradient goes: input `input_nr` of `function` (input = gradient slot, i.e.
// the forward output it belongs to).
struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};

// The edges of a node: most nodes have one or two, kept inline (no allocation).
class EdgeList {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Edge* begin() { return data(); }
  Edge* end() { return data() + size_; }
  const Edge* begin() const { return data(); }
  const Edge* end() const { return data() + size_; }
  Edge& operator[](size_t i) { return data()[i]; }
  const Edge& operator[](size_t i) const { return data()[i]; }
  void reserve(size_t n) {
    if (n > kInline && heap_.capacity() < n) {
      heap_.reserve(n);
      spill();
    }
  }
  void push_back(Edge e) {
    if (size_ == kInline && heap_.empty()) spill();
    if (size_ < kInline && heap_.empty()) {
      inline_[size_] = std::move(e);
    } else {
      heap_.push_back(std::move(e));
    }
    ++size_;
  }
  void clear() {
    for (size_t i = 0; i < kInline; ++i) inline_[i] = Edge();
    heap_.clear();
    size_ = 0;
  }

 private:
  static constexpr size_t kInline = 2;
  Edge* data() { return heap_.empty() ? inline_ : heap_.data(); }
  const Edge* data() const { return heap_.empty() ? inline_ : heap_.data(); }
  void spill() {  // moves the inline edges to the heap vector (from then on the only store)
    if (!heap_.empty()) return;
    for (size_t i = 0; i < size_; ++i) heap_.push_back(std::move(inline_[i]));
  }
  Edge inline_[kInline];
  std::vector<Edge> heap_;
  size_t size_ = 0;
};

// What a gradient arriving at one slot must look like (the forward output's geometry).
struct InputMeta {
  DimVector sizes;
  ScalarType dtype = kFloat32;
  Device device = Device(kCPU);
};

// A node of the backward graph. Slots (inputs) receive the gradients of the forward
// op's outputs; next_edges lead to the nodes of the forward op's inputs.
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();  // releases long chains iteratively (no recursion)
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // PyTorch's style: "MulBackward0", "AccumulateGrad".
  virtual std::string name() const = 0;
  // The forward op that recorded the node ("mul"); empty for leaves.
  virtual const char* forward_op() const { return ""; }
  // One gradient per slot in, one per next edge out (undefined where none flows).
  virtual tensor_list apply(tensor_list&& grads) = 0;
  // Frees saved tensors after a backward without retain_graph.
  virtual void release_variables() {}
  // False when the backward rule is not itself recorded (no double backward).
  virtual bool supports_double_backward() const { return true; }
  // False: slots that got no gradient reach apply() undefined instead of as zeros.
  virtual bool materialize_grads() const { return true; }
  // View ops mark their nodes; in-place ops on their outputs are refused.
  virtual bool is_view() const { return false; }

  uint32_t num_inputs() const { return num_inputs_; }
  const InputMeta& input_meta(uint32_t i) const { return i == 0 ? meta0_ : more_meta_[i - 1]; }
  uint32_t add_input_meta(const Tensor& t);  // returns the slot number
  const EdgeList& next_edges() const { return next_edges_; }
  EdgeList& mutable_next_edges() { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }
  // Whether gradient i of apply's result is wanted (its edge leads somewhere).
  bool should_compute_output(size_t i) const {
    return i < next_edges_.size() && next_edges_[i].is_valid();
  }
  uint64_t sequence_nr() const { return sequence_nr_; }

  // Hooks on a non-leaf tensor run on the gradient of its slot before apply.
  unsigned add_tensor_pre_hook(uint32_t slot, Hook hook);
  bool remove_tensor_pre_hook(unsigned id);
  // retain_grad(): the slot's gradient is stored into that tensor's grad().
  void add_retained_grad(uint32_t slot, const std::shared_ptr<TensorImpl>& impl);

 protected:
  EdgeList next_edges_;
  InputMeta meta0_;  // most nodes have one slot: kept inline
  std::vector<InputMeta> more_meta_;
  uint32_t num_inputs_ = 0;

 private:
  friend class Engine;
  struct PreHook {
    unsigned id;
    uint32_t slot;
    Hook fn;
  };
  struct Retained {
    uint32_t slot;
    std::weak_ptr<TensorImpl> impl;
  };
  uint64_t sequence_nr_;
  std::vector<PreHook> pre_hooks_;
  std::vector<Retained> retained_;
  // Engine bookkeeping for the backward pass in progress (one pass at a time per node).
  uint64_t epoch_ = 0;
  int32_t dependencies_ = 0;
  bool needed_ = true;
  // The gradients gathered so far for each slot (slot 0 inline).
  Tensor buffer0_;
  tensor_list buffer_more_;
  Tensor& slot(uint32_t i) { return i == 0 ? buffer0_ : buffer_more_[i - 1]; }
  void reset_buffer(uint32_t n) {
    buffer0_ = Tensor();
    buffer_more_.clear();
    if (n > 1) buffer_more_.resize(n - 1);
  }
};

// A tensor saved for backward: keeps its data and the storage version it had, and
// refuses to be used after an in-place change or after release. An output saved by
// its own node is kept without history (no reference cycle) and gets it back on unpack.
class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const Tensor& t, bool is_output);
  // `owner` is the node that saved it; used for messages and to restore output history.
  Tensor unpack(const Node* owner) const;
  bool defined() const { return defined_; }
  void reset();

 private:
  Tensor data_;
  std::weak_ptr<Node> grad_fn_weak_;  // unused for inputs
  int64_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool defined_ = false;
  bool released_ = false;
};

// The autograd state of one tensor, created on first need.
struct AutogradMeta {
  Tensor grad;
  std::shared_ptr<Node> grad_fn;           // null for leaves
  std::shared_ptr<Node> grad_accumulator;  // leaves only (AccumulateGrad)
  uint32_t output_nr = 0;
  bool retains_grad = false;
  std::vector<std::pair<unsigned, Hook>> leaf_hooks;  // leaves only
};

// ---- helpers used by the recording code, the engine and custom functions ----

// The meta of t, created when missing.
AutogradMeta& get_meta(const Tensor& t);
inline AutogradMeta* meta_or_null(const Tensor& t) {
  return t.defined() ? t.unsafeGetTensorImpl()->autograd_meta().get() : nullptr;
}
// The edge a gradient for t flows into: its grad_fn slot, its leaf accumulator, or none.
Edge gradient_edge(const Tensor& t);
// Makes t an output of fn: grad_fn, slot number and requires_grad.
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn);
// A fresh handle to t's data and geometry with no autograd state.
Tensor shallow_alias(const Tensor& t);

// Nodes alive now, in this process (for leak tests and debugging).
int64_t live_node_count();

}  // namespace ember::autograd
