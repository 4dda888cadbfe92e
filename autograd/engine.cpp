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
#include <ember/autograd/grad_mode.h>
#include <ember/core/checks.h>

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

tensor_list Engine::execute(ArrayRef<Edge> roots, TensorList root_grads, bool keep_graph,
                            bool create_graph, ArrayRef<Edge> captures) {
  const uint64_t epoch = g_epoch.fetch_add(1, std::memory_order_relaxed) + 1;
  const bool capture_mode = !captures.empty();
  ScratchLease lease;
  std::vector<Node*>& nodes = lease.s->nodes;
  std::vector<Node*>& stack = lease.s->stack;
  auto visit = [&](Node* n) {
    n->epoch_ = epoch;
    n->dependencies_ = 0;
    n->needed_ = !capture_mode;
    n->reset_buffer(n->num_inputs());
    nodes.push_back(n);
    stack.push_back(n);
  };
  for (const Edge& r : roots) {
    if (r.function->epoch_ != epoch) visit(r.function.get());
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges_) {
      if (!e.function) continue;
      Node* c = e.function.get();
      if (c->epoch_ != epoch) visit(c);
      ++c->dependencies_;
    }
  }

  // grad(): a node runs only if a capture lies below it (post-order pass over the DAG).
  if (capture_mode) {
    auto is_target = [&](const Node* n) {
      for (const Edge& c : captures) {
        if (c.function.get() == n) return true;
      }
      return false;
    };
    // (visit() left needed_ false for every node.) Iterative post-order DFS: children land in
    // `order` before their parents.
    std::vector<std::pair<Node*, size_t>> frames;
    std::vector<Node*> order;
    const uint64_t mark = g_epoch.fetch_add(1, std::memory_order_relaxed) + 1;
    for (const Edge& r : roots) {
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
    // order is a post-order: children before parents. needed_ = some child reaches.
    for (Node* n : order) {
      bool child_reaches = false;
      for (const Edge& e : n->next_edges_) {
        Node* c = e.function.get();
        if (c && (is_target(c) || c->needed_)) child_reaches = true;
      }
      n->needed_ = child_reaches;
    }
    for (Node* n : nodes) n->epoch_ = epoch;
  }

  for (size_t i = 0; i < roots.size(); ++i) {
    Tensor& slot = roots[i].function->slot(roots[i].input_nr);
    slot = slot.defined() ? slot + root_grads[i] : root_grads[i];
  }

  tensor_list captured(captures.size());
  std::vector<Node*>& ready = lease.s->heap;  // a max-heap on sequence number
  auto push = [&](Node* n) {
    ready.push_back(n);
    std::push_heap(ready.begin(), ready.end(), LaterFirst());
  };
  std::vector<Node*>& queued = lease.s->queued;
  for (const Edge& r : roots) {
    Node* n = r.function.get();
    if (n->dependencies_ == 0 && std::find(queued.begin(), queued.end(), n) == queued.end()) {
      queued.push_back(n);
      push(n);
    }
  }

  AutoGradMode mode(create_graph);
  const bool anomaly = AnomalyMode::is_enabled();
  try {
    while (!ready.empty()) {
      std::pop_heap(ready.begin(), ready.end(), LaterFirst());
      Node* n = ready.back();
      ready.pop_back();
      tensor_list& grads = lease.s->grads;
      grads.clear();  // valid even after a callee moved from it
      grads.resize(n->num_inputs());
      for (uint32_t i = 0; i < n->num_inputs(); ++i) grads[i] = std::move(n->slot(i));

      for (const auto& h : n->pre_hooks_) {
        if (!grads[h.slot].defined()) continue;
        Tensor r = h.fn(grads[h.slot]);
        if (r.defined()) grads[h.slot] = r;
      }
      for (const auto& r : n->retained_) {
        std::shared_ptr<TensorImpl> impl = r.impl.lock();
        const Tensor& g = grads[r.slot];
        if (!impl || !g.defined()) continue;
        auto& meta = impl->autograd_meta();
        if (!meta) meta = std::make_shared<AutogradMeta>();
        meta->grad =
            meta->grad.defined() ? meta->grad + g : (create_graph ? g : g.detach().clone());
      }
      for (size_t c = 0; c < captures.size(); ++c) {
        if (captures[c].function.get() != n) continue;
        const Tensor& g = grads[captures[c].input_nr];
        if (g.defined()) captured[c] = captured[c].defined() ? captured[c] + g : g;
      }
      if (!n->needed_) continue;

      bool any = false;
      for (size_t i = 0; i < grads.size(); ++i) {
        if (grads[i].defined()) any = true;
      }
      tensor_list outs;
      if (any) {
        // Slots nothing arrived at count as zeros (PyTorch materializes them too).
        for (size_t i = 0; i < grads.size() && n->materialize_grads(); ++i) {
          if (!grads[i].defined()) {
            const InputMeta& m = n->input_meta(i);
            grads[i] = zeros(m.sizes, TensorOptions().dtype(m.dtype).device(m.device));
          }
        }
        if (create_graph && !n->supports_double_backward()) {
          EMBER_THROW(n->name(), " (forward op '", n->forward_op(),
                      "'): the backward of this op is not differentiable, so create_graph=true "
                      "cannot build a graph through it");
        }
        outs = n->apply(std::move(grads));
        EMBER_CHECK(outs.size() == n->num_outputs() || (outs.empty() && n->num_outputs() == 0),
                    "Function ", n->name(), " returned an incorrect number of gradients (expected ",
                    n->num_outputs(), ", got ", outs.size(), ")");
      }
      if (!keep_graph) n->release_variables();

      for (size_t i = 0; i < n->next_edges_.size(); ++i) {
        const Edge& e = n->next_edges_[i];
        if (!e.function) continue;
        Node* c = e.function.get();
        if (any && outs[i].defined()) {
          Tensor g = validate(*n, i, e, std::move(outs[i]));
          if (anomaly) check_finite(*n, i, g);
          Tensor& slot = c->slot(e.input_nr);
          slot = slot.defined() ? slot + g : std::move(g);
        }
        if (--c->dependencies_ == 0) push(c);
      }
    }
  } catch (...) {
    for (Node* n : nodes) n->reset_buffer(0);
    throw;
  }
  for (Node* n : nodes) n->reset_buffer(0);
  lease.s->grads.clear();
  return captured;
}

}  // namespace ember::autograd
