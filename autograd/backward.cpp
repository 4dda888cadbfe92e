// backward() and grad(): check the roots and their gradients as PyTorch does, then hand
// the graph to the engine. Also AnomalyMode and the Tensor::backward method.
#include <ember/autograd/autograd.h>

#include <atomic>

#include <ember/autograd/accumulate_grad.h>
#include <ember/autograd/engine.h>
#include <ember/core/checks.h>
#include <ember/core/functions.h>

namespace ember::autograd {

namespace {

std::atomic<bool> g_anomaly{false};

// The edge and the starting gradient of root i (out), checked as PyTorch checks them.
void make_root(const char* op, size_t i, const Tensor& out, Tensor g, Edge* edge, Tensor* grad) {
  EMBER_CHECK(out.defined(), op, ": tensor ", i, " is undefined");
  *edge = gradient_edge(out);
  EMBER_CHECK(edge->is_valid(), op, ": element ", i,
              " of tensors does not require grad and does not have a grad_fn");
  if (!g.defined()) {
    EMBER_CHECK(out.numel() == 1, op,
                ": grad can be implicitly created only for scalar outputs (tensor ", i,
                " has shape ", out.sizes(), ")");
    g = ones_like(out);
  } else {
    EMBER_CHECK(g.sizes().equals(out.sizes()), op, ": Mismatch in shape: grad_output[", i,
                "] has a shape of ", g.sizes(), " and output[", i, "] has a shape of ",
                out.sizes());
    EMBER_CHECK(g.device() == out.device(), op, ": grad_output[", i, "] is on ", g.device(),
                " but output[", i, "] is on ", out.device());
    if (g.dtype() != out.dtype()) g = g.to(out.dtype());
  }
  *grad = std::move(g);
}

void make_roots(const char* op, const tensor_list& outputs, const tensor_list& grad_outputs,
                std::vector<Edge>* roots, tensor_list* grads) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), op, ": got ",
              outputs.size(), " tensors and ", grad_outputs.size(), " gradients");
  roots->resize(outputs.size());
  grads->resize(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    make_root(op, i, outputs[i], grad_outputs.empty() ? Tensor() : grad_outputs[i], &(*roots)[i],
              &(*grads)[i]);
  }
}

}  // namespace

void backward(const tensor_list& tensors, const tensor_list& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph, const tensor_list& inputs) {
  std::vector<Edge> roots;
  tensor_list grads;
  make_roots("backward", tensors, grad_tensors, &roots, &grads);
  if (inputs.empty()) {
    Engine::execute(roots, grads, retain_graph.value_or(create_graph), create_graph, {});
    return;
  }
  // Only the inputs' gradients: the engine captures them, then they accumulate into .grad()
  // as a leaf's would (an input the tensors don't depend on gets nothing).
  std::vector<Edge> captures;
  for (size_t j = 0; j < inputs.size(); ++j) {
    EMBER_CHECK(inputs[j].defined() && inputs[j].requires_grad(), "backward: input ", j,
                " of `inputs` does not require grad");
    captures.push_back(gradient_edge(inputs[j]));
  }
  tensor_list result =
      Engine::execute(roots, grads, retain_graph.value_or(create_graph), create_graph, captures);
  for (size_t j = 0; j < result.size(); ++j) {
    if (!result[j].defined()) continue;
    Tensor g = create_graph ? result[j] : result[j].detach().clone();  // owned, contiguous
    Tensor& acc = inputs[j].mutable_grad();
    acc = acc.defined() ? acc + g : g;
  }
}

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                 const tensor_list& grad_outputs, std::optional<bool> retain_graph,
                 bool create_graph, bool allow_unused) {
  std::vector<Edge> roots;
  tensor_list grads;
  make_roots("grad", outputs, grad_outputs, &roots, &grads);
  EMBER_CHECK(!inputs.empty(), "grad: no inputs given");
  std::vector<Edge> captures;
  for (size_t j = 0; j < inputs.size(); ++j) {
    EMBER_CHECK(inputs[j].defined() && inputs[j].requires_grad(), "grad: input ", j,
                " (one of the differentiated Tensors) does not require grad");
    captures.push_back(gradient_edge(inputs[j]));
  }
  tensor_list result =
      Engine::execute(roots, grads, retain_graph.value_or(create_graph), create_graph, captures);
  for (size_t j = 0; j < result.size(); ++j) {
    EMBER_CHECK(result[j].defined() || allow_unused, "grad: input ", j,
                " (one of the differentiated Tensors) appears to not have been used in the "
                "graph; set allow_unused=true if this is the desired behavior");
    // A gradient that arrived from the graph keeps history only under create_graph.
    if (result[j].defined() && !create_graph) result[j] = result[j].detach();
  }
  return result;
}

bool AnomalyMode::is_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled) { g_anomaly.store(enabled); }

DetectAnomalyGuard::DetectAnomalyGuard() : prev_(AnomalyMode::is_enabled()) {
  AnomalyMode::set_enabled(true);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_); }

}  // namespace ember::autograd

namespace ember {

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph,
                      bool create_graph) const {
  EMBER_CHECK(defined(), "backward: the tensor is undefined");
  autograd::Edge root;
  Tensor grad;
  autograd::make_root("backward", 0, *this, gradient, &root, &grad);
  autograd::Engine::execute(root, grad, retain_graph.value_or(create_graph), create_graph, {});
}

}  // namespace ember
