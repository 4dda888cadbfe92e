// gradcheck / gradgradcheck: compare the gradients autograd computes with float64 central
// differences, element by element, and report the worst element when they disagree.
#pragma once

#include <functional>
#include <string>

#include <ember/autograd/node.h>

namespace ember::autograd {

struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // |analytic - numeric| <= atol + rtol * |numeric|
  double rtol = 1e-3;
  bool raise = true;  // throw an ember::Error describing the failure (else return false)
};

using GradcheckFn = std::function<tensor_list(const tensor_list&)>;

// Checks d fn(inputs) / d inputs[i] for every input that requires grad (float64, and not
// overlapping in memory). On failure the message names the input, the element (index),
// the output, and the analytic and numeric values of the worst element.
bool gradcheck(const GradcheckFn& fn, const tensor_list& inputs,
               const GradcheckOptions& options = {});
bool gradcheck(const std::function<Tensor(const tensor_list&)>& fn, const tensor_list& inputs,
               const GradcheckOptions& options = {});

// Checks the second derivatives: gradcheck of (inputs, grad_outputs) -> grad(fn(inputs),
// inputs, grad_outputs, create_graph=true), with random grad_outputs.
bool gradgradcheck(const GradcheckFn& fn, const tensor_list& inputs,
                   const GradcheckOptions& options = {});
bool gradgradcheck(const std::function<Tensor(const tensor_list&)>& fn, const tensor_list& inputs,
                   const GradcheckOptions& options = {});

}  // namespace ember::autograd
