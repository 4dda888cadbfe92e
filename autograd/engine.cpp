// The backward engine. One pass: discover the graph from the roots with an explicit
// stack (counting, for every node, the edges that feed it), then run nodes from a queue
// ordered by sequence number (latest forward op first) as their counts reach zero.
#include <ember/autograd/engine.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>

#include <ember/autograd/anomaly.h>
#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>
#include <ember/core/grad_mode.h>

namespace ember::autograd {

namespace {

std::atomic<uint64_t> g_epoch{0};

// Scratch vectors reused across backward passes (no allocations for small graphs); one set
// per nesting level, since a hook or custom backward may run a backward of its own.
struct Scratch {
  std::vector<Node*> nodes, stack, queued, heap;
  tensor_list grads;
};
#define EMBER_TLS thread_local __attribute__((tls_model("initial-exec")))
EMBER_TLS std::vector<std::unique_ptr<Scratch>> t_scratch;
EMBER_TLS size_t t_depth = 0;

struct ScratchLease {
  ScratchLease() {
    if (t_scratch.size() <= t_depth) t_scratch.push_back(std::make_unique<Scratch>());
    s = t_scratch[t_depth++].get();
    s->nodes.clear();
    s->stack.clear();
    s->queued.clear();
    s->heap.clear();
  }
  ~ScratchLease() { --t_depth; }
  Scratch* s;
};

struct LaterFirst {
  bool operator()(const Node* a, const Node* b) const {
    return a->sequence_nr() < b->sequence_nr();
  }
};

// A gradient produced by `fn` for slot `e.input_nr` of `e.function`, made to match what
// that slot expects: broadcast gradients are summed back, dtypes cast back.
Tensor validate(const Node& fn, size_t index, const Edge& e, Tensor g) {
  const InputMeta& want = e.function->input_meta(e.input_nr);
  if (!g.sizes().equals(want.sizes)) {
    EMBER_CHECK(is_expandable_to(want.sizes, g.sizes()), "Function ", fn.name(),
                " returned an invalid gradient at index ", index, " - got ", g.sizes(),
                " but expected shape compatible with ", IntArrayRef(want.sizes));
    g = sum_to(g, want.sizes);
  }
  EMBER_CHECK(g.device() == want.device, "Function ", fn.name(),
              " returned an invalid gradient at index ", index, " - expected device ", want.device,
              " but got ", g.device());
  if (g.dtype() != want.dtype) g = g.to(want.dtype);
  return g;
}

void check_finite(const Node& fn, size_t index, const Tensor& g) {
  if (!g.is_floating_point() || g.numel() == 0) return;
  NoGradGuard no_grad;
  const bool has_nan = ne(g, g).any().item<bool>();
  const bool has_inf =
      !has_nan && eq(abs(g), std::numeric_limits<double>::infinity()).any().item<bool>();
  if (has_nan || has_inf) {
    EMBER_THROW("Function '", fn.name(), "' returned ", has_nan ? "nan" : "inf", " values in its ",
                index, "th output (the gradient for input ", index, " of the forward op '",
                fn.forward_op(), "'); detected by DetectAnomalyGuard");
  }
}

}  // namespace

// One backward pass, in three phases: discover() walks the graph from the roots, counting
// the edges into every node; mark_needed() (autograd::grad only) keeps the nodes that lead to
// a captured input; run() executes nodes from a max-heap on sequence number as their counts
// reach zero, run_node() being one node's work.
class Engine::GraphTask {
 public:
  GraphTask(ArrayRef<Edge> roots, bool keep_graph, bool create_graph, ArrayRef<Edge> captures)
      : roots_(roots),
        captures_(captures),
        keep_graph_(keep_graph),
        create_graph_(create_graph),
        epoch_(g_epoch.fetch_add(1, std::memory_order_relaxed) + 1),
        captured_(captures.size()) {}

  // Every node reachable from the roots, with its buffer reset and its incoming edge count.
  void discover() {
    std::vector<Node*>& nodes = lease_.s->nodes;
    std::vector<Node*>& stack = lease_.s->stack;
    const bool needed = captures_.empty();
    auto visit = [&](Node* n) {
      n->epoch_ = epoch_;
      n->dependencies_ = 0;
      n->needed_ = needed;
      n->reset_buffer(n->num_inputs());
      nodes.push_back(n);
      stack.push_back(n);
    };
    for (const Edge& r : roots_) {
      if (r.function->epoch_ != epoch_) visit(r.function.get());
    }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next_edges_) {
        if (!e.function) continue;
        Node* c = e.function.get();
        if (c->epoch_ != epoch_) visit(c);
        ++c->dependencies_;
      }
    }
  }

  // grad(): a node runs only if a capture lies below it (discover() left needed_ false for
  // every node). An iterative post-order DFS puts children before their parents.
  void mark_needed() {
    if (captures_.empty()) return;
    auto is_target = [&](const Node* n) {
      for (const Edge& c : captures_) {
        if (c.function.get() == n) return true;
      }
      return false;
    };
    std::vector<std::pair<Node*, size_t>> frames;
    std::vector<Node*> order;
    const uint64_t mark = g_epoch.fetch_add(1, std::memory_order_relaxed) + 1;
    for (const Edge& r : roots_) {
      if (r.function->epoch_ == mark) continue;
      r.function->epoch_ = mark;
      frames.emplace_back(r.function.get(), 0);
      while (!frames.empty()) {
        Node* n = frames.back().first;
        size_t& i = frames.back().second;
        if (i < n->next_edges_.size()) {
          Node* c = n->next_edges_[i++].function.get();
          if (c && c->epoch_ != mark) {
            c->epoch_ = mark;
            frames.emplace_back(c, 0);
          }
          continue;
        }
        order.push_back(n);
        frames.pop_back();
      }
    }
    for (Node* n : order) {  // needed_ = some child is a capture or leads to one
      bool child_reaches = false;
      for (const Edge& e : n->next_edges_) {
        Node* c = e.function.get();
        if (c && (is_target(c) || c->needed_)) child_reaches = true;
      }
      n->needed_ = child_reaches;
    }
    for (Node* n : lease_.s->nodes) n->epoch_ = epoch_;
  }

  // Adds the root gradients to the roots' slots and queues the roots nothing else feeds.
  void schedule_roots(TensorList root_grads) {
    for (size_t i = 0; i < roots_.size(); ++i) {
      Tensor& slot = roots_[i].function->slot(roots_[i].input_nr);
      slot = slot.defined() ? slot + root_grads[i] : root_grads[i];
    }
    std::vector<Node*>& queued = lease_.s->queued;
    for (const Edge& r : roots_) {
      Node* n = r.function.get();
      if (n->dependencies_ == 0 && std::find(queued.begin(), queued.end(), n) == queued.end()) {
        queued.push_back(n);
        push(n);
      }
    }
  }

  // Runs every ready node, latest forward op first; returns the captured gradients.
  tensor_list run() {
    AutoGradMode mode(create_graph_);
    anomaly_ = AnomalyMode::is_enabled();
    std::vector<Node*>& ready = lease_.s->heap;
    try {
      while (!ready.empty()) {
        std::pop_heap(ready.begin(), ready.end(), LaterFirst());
        Node* n = ready.back();
        ready.pop_back();
        run_node(n);
      }
    } catch (...) {
      for (Node* n : lease_.s->nodes) n->reset_buffer(0);
      throw;
    }
    for (Node* n : lease_.s->nodes) n->reset_buffer(0);
    lease_.s->grads.clear();
    return std::move(captured_);
  }

 private:
  void push(Node* n) {
    std::vector<Node*>& ready = lease_.s->heap;  // a max-heap on sequence number
    ready.push_back(n);
    std::push_heap(ready.begin(), ready.end(), LaterFirst());
  }

  // One node: its input gradients through pre-hooks, into retained .grad()s and captures;
  // then (when needed) apply() and the results added to the slots of the next nodes.
  void run_node(Node* n) {
    tensor_list& grads = lease_.s->grads;
    grads.clear();  // valid even after a callee moved from it
    grads.resize(n->num_inputs());
    for (uint32_t i = 0; i < n->num_inputs(); ++i) grads[i] = std::move(n->slot(i));

    for (const auto& h : n->pre_hooks_) {
      if (!grads[h.slot].defined()) continue;
      Tensor r = h.fn(grads[h.slot]);
      if (!r.defined()) continue;
      EMBER_CHECK(r.sizes().equals(grads[h.slot].sizes()), "register_hook: a hook on output ",
                  h.slot, " of ", n->name(), " returned a gradient of shape ", r.sizes(),
                  " for a gradient of shape ", grads[h.slot].sizes());
      grads[h.slot] = r;
    }
    for (const auto& r : n->retained_) {
      std::shared_ptr<TensorImpl> impl = r.impl.lock();
      const Tensor& g = grads[r.slot];
      if (!impl || !g.defined()) continue;
      auto& meta = impl->autograd_meta();
      if (!meta) meta = std::make_shared<AutogradMeta>();
      meta->grad = meta->grad.defined() ? meta->grad + g : (create_graph_ ? g : g.detach().clone());
    }
    for (size_t c = 0; c < captures_.size(); ++c) {
      if (captures_[c].function.get() != n) continue;
      const Tensor& g = grads[captures_[c].input_nr];
      if (g.defined()) captured_[c] = captured_[c].defined() ? captured_[c] + g : g;
    }
    if (!n->needed_) return;

    bool any = false;
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined()) any = true;
    }
    tensor_list outs;
    if (any) outs = apply(n, grads);
    if (!keep_graph_) n->release_variables();

    for (size_t i = 0; i < n->next_edges_.size(); ++i) {
      const Edge& e = n->next_edges_[i];
      if (!e.function) continue;
      Node* c = e.function.get();
      if (any && outs[i].defined()) {
        Tensor g = validate(*n, i, e, std::move(outs[i]));
        if (anomaly_) check_finite(*n, i, g);
        Tensor& slot = c->slot(e.input_nr);
        slot = slot.defined() ? slot + g : std::move(g);
      }
      if (--c->dependencies_ == 0) push(c);
    }
  }

  // n->apply() on grads, with the slots nothing arrived at as zeros (PyTorch materializes them
  // too), and its output count checked.
  tensor_list apply(Node* n, tensor_list& grads) {
    for (size_t i = 0; i < grads.size() && n->materialize_grads(); ++i) {
      if (!grads[i].defined()) {
        const InputMeta& m = n->input_meta(i);
        grads[i] = zeros(m.sizes, TensorOptions().dtype(m.dtype).device(m.device));
      }
    }
    if (create_graph_ && !n->supports_double_backward()) {
      EMBER_THROW(n->name(), " (forward op '", n->forward_op(),
                  "'): the backward of this op is not differentiable, so create_graph=true "
                  "cannot build a graph through it");
    }
    tensor_list outs = n->apply(std::move(grads));
    EMBER_CHECK(outs.size() == n->num_outputs() || (outs.empty() && n->num_outputs() == 0),
                "Function ", n->name(), " returned an incorrect number of gradients (expected ",
                n->num_outputs(), ", got ", outs.size(), ")");
    return outs;
  }

  ArrayRef<Edge> roots_;
  ArrayRef<Edge> captures_;
  bool keep_graph_, create_graph_;
  bool anomaly_ = false;
  uint64_t epoch_;
  ScratchLease lease_;
  tensor_list captured_;
};

tensor_list Engine::execute(ArrayRef<Edge> roots, TensorList root_grads, bool keep_graph,
                            bool create_graph, ArrayRef<Edge> captures) {
  GraphTask task(roots, keep_graph, create_graph, captures);
  task.discover();
  task.mark_needed();
  task.schedule_roots(root_grads);
  return task.run();
}

}  // namespace ember::autograd
