// to_dot: the recorded graph as Graphviz text, for debugging models: one box per backward
// node (name and the shapes of the gradients it receives), leaves with their shapes.
#include <ember/autograd/autograd.h>

#include <sstream>
#include <unordered_map>

#include <ember/autograd/accumulate_grad.h>
#include <ember/core/checks.h>

namespace ember::autograd {

namespace {

std::string shapes_of(const Node& n) {
  std::ostringstream os;
  for (uint32_t i = 0; i < n.num_inputs(); ++i) {
    if (i) os << " ";
    os << IntArrayRef(n.input_meta(i).sizes);
  }
  return os.str();
}

}  // namespace

std::string to_dot(const tensor_list& roots) {
  std::ostringstream os;
  os << "digraph autograd {\n  node [shape=box, fontname=\"monospace\"];\n";
  std::unordered_map<const Node*, int> id;
  std::vector<const Node*> stack;
  auto visit = [&](const Node* n) {
    auto it = id.find(n);
    if (it != id.end()) return it->second;
    const int k = static_cast<int>(id.size());
    id.emplace(n, k);
    stack.push_back(n);
    os << "  n" << k << " [label=\"" << n->name();
    if (auto* acc = dynamic_cast<const AccumulateGrad*>(n)) {
      os << "\\nleaf " << IntArrayRef(acc->input_meta(0).sizes)
         << "\", style=filled, fillcolor=lightblue];\n";
    } else {
      os << "\\n" << shapes_of(*n) << "\"];\n";
    }
    return k;
  };
  for (size_t r = 0; r < roots.size(); ++r) {
    Edge e = gradient_edge(roots[r]);
    if (!e.is_valid()) continue;
    const int k = visit(e.function.get());
    os << "  out" << r << " [label=\"output " << r << "\\n"
       << roots[r].sizes() << "\", shape=ellipse];\n  out" << r << " -> n" << k << ";\n";
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    const int from = id.at(n);
    for (const Edge& e : n->next_edges()) {
      if (!e.function) continue;
      const int to = visit(e.function.get());
      os << "  n" << from << " -> n" << to << ";\n";
    }
  }
  os << "}\n";
  return os.str();
}

std::string to_dot(const Tensor& t) { return to_dot(tensor_list{t}); }

}  // namespace ember::autograd
