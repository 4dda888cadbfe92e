// The loss modules of nn/loss.h: buffers for the class weights, forward through the
// functional forms with the buffers (which module->to() may have moved), PyTorch-style printing.
#include <ember/nn/loss.h>

#include <sstream>

#include <ember/nn/loss_print.h>

namespace ember::nn {
namespace F = functional;

using detail::loss_fields;
using detail::print_loss;
using detail::reduction_text;

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options)
    : options(options) {
  reset();
}
void CrossEntropyLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::cross_entropy(input, target, o.weight(weight));
}
void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const {
  std::ostringstream first;
  if (options.ignore_index() != -100) first << "ignore_index=" << options.ignore_index();
  if (options.label_smoothing() != 0) {
    first << (options.ignore_index() != -100 ? ", " : "")
          << "label_smoothing=" << options.label_smoothing();
  }
  print_loss(stream, "CrossEntropyLoss", first.str(), options.reduction());
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options) : options(options) { reset(); }
void NLLLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::nll_loss(input, target, o.weight(weight));
}
void NLLLossImpl::pretty_print(std::ostream& stream) const {
  std::ostringstream first;
  if (options.ignore_index() != -100) first << "ignore_index=" << options.ignore_index();
  print_loss(stream, "NLLLoss", first.str(), options.reduction());
}

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options);
}
void MSELossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "MSELoss", "", options.reduction());
}

Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options);
}
void L1LossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "L1Loss", "", options.reduction());
}

Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options);
}
void SmoothL1LossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "SmoothL1Loss",
             options.beta() != 1.0 ? loss_fields({{"beta", options.beta()}}) : "",
             options.reduction());
}

BCELossImpl::BCELossImpl(const BCELossOptions& options) : options(options) { reset(); }
void BCELossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::binary_cross_entropy(input, target, o.weight(weight));
}
void BCELossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "BCELoss", "", options.reduction());
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options)
    : options(options) {
  reset();
}
void BCEWithLogitsLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::binary_cross_entropy_with_logits(input, target,
                                             o.weight(weight).pos_weight(pos_weight));
}
void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "BCEWithLogitsLoss", "", options.reduction());
}

Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options);
}
void KLDivLossImpl::pretty_print(std::ostream& stream) const {
  stream << "KLDivLoss(" << reduction_text(options.reduction());
  if (options.log_target()) {
    stream << (*reduction_text(options.reduction()) ? ", " : "") << "log_target=true";
  }
  stream << ")";
}

}  // namespace ember::nn
