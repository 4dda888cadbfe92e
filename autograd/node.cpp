// Node bookkeeping (sequence numbers, slot metadata, hooks, iterative teardown),
// SavedVariable's version check, and the per-tensor autograd metadata helpers.
#include <ember/autograd/node.h>

#include <atomic>

#include <ember/autograd/accumulate_grad.h>
#include <ember/core/checks.h>
#include <ember/core/grad_mode.h>

namespace ember::autograd {

namespace {
std::atomic<uint64_t> g_sequence_nr{0};
std::atomic<unsigned> g_hook_id{0};
std::atomic<int64_t> g_live_nodes{0};
}  // namespace

// ---- Node ----

Node::Node() : sequence_nr_(g_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {
  g_live_nodes.fetch_add(1, std::memory_order_relaxed);
}

int64_t live_node_count() { return g_live_nodes.load(std::memory_order_relaxed); }

// A graph of 100,000 nodes would overflow the stack if each destructor destroyed the
// next one recursively: the nodes this one frees last are queued and freed by a loop in
// the outermost destructor instead.
Node::~Node() {
  g_live_nodes.fetch_sub(1, std::memory_order_relaxed);
  thread_local std::vector<std::shared_ptr<Node>> pending
      __attribute__((tls_model("initial-exec")));
  thread_local bool draining __attribute__((tls_model("initial-exec"))) = false;
  for (Edge& e : next_edges_) {
    if (e.function && e.function.use_count() == 1) pending.push_back(std::move(e.function));
  }
  if (draining) return;
  draining = true;
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    n.reset();  // may queue more
  }
  draining = false;
}

uint32_t Node::add_input_meta(const Tensor& t) {
  InputMeta m{DimVector(t.sizes()), t.dtype(), t.device()};
  if (num_inputs_ == 0) {
    meta0_ = std::move(m);
  } else {
    more_meta_.push_back(std::move(m));
  }
  return num_inputs_++;
}

unsigned Node::add_tensor_pre_hook(uint32_t slot, Hook hook) {
  const unsigned id = g_hook_id.fetch_add(1, std::memory_order_relaxed);
  pre_hooks_.push_back(PreHook{id, slot, std::move(hook)});
  return id;
}

bool Node::remove_tensor_pre_hook(unsigned id) {
  for (auto it = pre_hooks_.begin(); it != pre_hooks_.end(); ++it) {
    if (it->id == id) {
      pre_hooks_.erase(it);
      return true;
    }
  }
  return false;
}

void Node::add_retained_grad(uint32_t slot, const std::shared_ptr<TensorImpl>& impl) {
  for (const Retained& r : retained_) {
    if (r.slot == slot && r.impl.lock() == impl) return;
  }
  retained_.push_back(Retained{slot, impl});
}

unsigned next_hook_id() { return g_hook_id.fetch_add(1, std::memory_order_relaxed); }

// ---- SavedVariable ----

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
  if (!t.defined()) return;
  defined_ = true;
  saved_version_ = t.impl()->storage()->version();
  requires_grad_ = t.requires_grad();
  is_output_ = is_output;
  if (is_output) {
    // Keeping t itself would make a cycle (node -> t -> meta -> node).
    data_ = shallow_alias(t);
    if (AutogradMeta* m = meta_or_null(t)) output_nr_ = m->output_nr;
  } else {
    data_ = t;
  }
}

void SavedVariable::reset() {
  data_ = Tensor();
  released_ = true;
}

Tensor SavedVariable::unpack(const Node* owner) const {
  if (!defined_) return Tensor();
  EMBER_CHECK(!released_, owner->name(), " (forward op '", owner->forward_op(),
              "'): trying to backward through the graph a second time (or to use saved tensors "
              "after they were freed). Saved intermediate values of the graph are freed when you "
              "call backward() or autograd::grad(); pass retain_graph=true to backward through "
              "it again");
  const int64_t now = data_.impl()->storage()->version();
  EMBER_CHECK(now == saved_version_, owner->name(), " (forward op '", owner->forward_op(),
              "'): one of the variables needed for gradient computation has been modified by an "
              "inplace operation: [",
              data_.toString(), "] is at version ", now, "; expected version ", saved_version_,
              " instead");
  if (!is_output_ || !requires_grad_ || !GradMode::is_enabled()) return data_;
  // create_graph: the saved output must lead back to its own node again.
  Tensor t = shallow_alias(data_);
  AutogradMeta& m = get_meta(t);
  m.grad_fn = const_cast<Node*>(owner)->shared_from_this();
  m.output_nr = output_nr_;
  t.unsafeGetTensorImpl()->set_requires_grad(true);
  return t;
}

// ---- meta helpers ----

AutogradMeta& get_meta(const Tensor& t) {
  auto& slot = t.unsafeGetTensorImpl()->autograd_meta();
  if (!slot) slot = std::make_shared<AutogradMeta>();
  return *slot;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return Edge();
  AutogradMeta* m = meta_or_null(t);
  if (m && m->grad_fn) return Edge(m->grad_fn, m->output_nr);
  if (!t.requires_grad()) return Edge();
  return Edge(grad_accumulator(t), 0);
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn) {
  AutogradMeta& m = get_meta(t);
  m.grad_fn = fn;
  m.output_nr = fn->add_input_meta(t);
  t.unsafeGetTensorImpl()->set_requires_grad(true);
}

Tensor shallow_alias(const Tensor& t) {
  return Tensor(std::make_shared<TensorImpl>(t.impl()->storage(), t.dtype(), t.sizes(), t.strides(),
                                             t.storage_offset()));
}

}  // namespace ember::autograd
