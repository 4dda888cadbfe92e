// ember's autograd, all of it: grad mode and guards, backward() and grad(), tensor hooks,
// custom functions, anomaly detection, gradcheck and the Graphviz dump of a graph.
#pragma once

#include <optional>
#include <string>

#include <ember/autograd/anomaly.h>
#include <ember/autograd/function.h>
#include <ember/autograd/gradcheck.h>
#include <ember/autograd/node.h>
#include <ember/core/grad_mode.h>

namespace ember::autograd {

// Accumulates d(sum of tensors[i] * grad_tensors[i]) into the .grad() of every leaf, or
// only of `inputs` when given (leaves or not). A missing grad_tensors[i] means ones for a
// one-element tensor. retain_graph defaults to create_graph.
void backward(const tensor_list& tensors, const tensor_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const tensor_list& inputs = {});

// Returns d(sum of outputs[i] * grad_outputs[i]) / d inputs[j] without touching .grad().
// allow_unused: an input the outputs do not depend on gets an undefined tensor instead
// of an error.
tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                 const tensor_list& grad_outputs = {},
                 std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                 bool allow_unused = false);

// The graph behind `t` as Graphviz dot text: one box per node (name, output shapes),
// leaves with their shapes, edges from each node to the nodes of its inputs.
std::string to_dot(const Tensor& t);
std::string to_dot(const tensor_list& roots);

}  // namespace ember::autograd
