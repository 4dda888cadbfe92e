// The backward engine: walks the graph from the roots in reverse topological order
// (iteratively), runs each node once all of its gradients have arrived, and either
// accumulates into leaves (backward) or captures the gradients of given inputs (grad).
#pragma once

#include <optional>

#include <ember/autograd/node.h>

namespace ember::autograd {

class Engine {
 public:
  class GraphTask;  // one backward pass (engine.cpp)

  // roots[i] receives root_grads[i]. With `captures` non-empty, the gradients arriving at
  // those edges are returned (one per capture) and only nodes on a path to them run.
  static tensor_list execute(ArrayRef<Edge> roots, TensorList root_grads, bool keep_graph,
                             bool create_graph, ArrayRef<Edge> captures);
};

}  // namespace ember::autograd
