// The loss modules of nn/loss.h: buffers for the class weights, forward through the
// functional forms with the buffers (which module->to() may have moved), PyTorch-style printing.
#include <ember/nn/loss.h>

namespace ember::nn {
namespace F = functional;

namespace {
// ", reduction=sum" when not the default mean, as PyTorch's repr leaves defaults out.
const char* reduction_suffix(Reduction r) {
  switch (r) {
    case Reduction::kNone:
      return "reduction=none";
    case Reduction::kSum:
      return "reduction=sum";
    case Reduction::kBatchMean:
      return "reduction=batchmean";
    default:
      return "";
  }
}
}  // namespace

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options)
    : options(options) {
  weight = register_buffer("weight", options.weight());
}
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::cross_entropy(input, target, o.weight(weight));
}
void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const {
  stream << "CrossEntropyLoss(";
  const char* sep = "";
  if (options.ignore_index() != -100) {
    stream << "ignore_index=" << options.ignore_index();
    sep = ", ";
  }
  if (options.label_smoothing() != 0) {
    stream << sep << "label_smoothing=" << options.label_smoothing();
    sep = ", ";
  }
  if (*reduction_suffix(options.reduction()))
    stream << sep << reduction_suffix(options.reduction());
  stream << ")";
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options) : options(options) {
  weight = register_buffer("weight", options.weight());
}
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::nll_loss(input, target, o.weight(weight));
}
void NLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << "NLLLoss(";
  const char* sep = "";
  if (options.ignore_index() != -100) {
    stream << "ignore_index=" << options.ignore_index();
    sep = ", ";
  }
  if (*reduction_suffix(options.reduction()))
    stream << sep << reduction_suffix(options.reduction());
  stream << ")";
}

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options);
}
void MSELossImpl::pretty_print(std::ostream& stream) const {
  stream << "MSELoss(" << reduction_suffix(options.reduction()) << ")";
}

Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options);
}
void L1LossImpl::pretty_print(std::ostream& stream) const {
  stream << "L1Loss(" << reduction_suffix(options.reduction()) << ")";
}

Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options);
}
void SmoothL1LossImpl::pretty_print(std::ostream& stream) const {
  stream << "SmoothL1Loss(";
  if (options.beta() != 1.0) stream << "beta=" << options.beta();
  if (*reduction_suffix(options.reduction())) {
    stream << (options.beta() != 1.0 ? ", " : "") << reduction_suffix(options.reduction());
  }
  stream << ")";
}

BCELossImpl::BCELossImpl(const BCELossOptions& options) : options(options) {
  weight = register_buffer("weight", options.weight());
}
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::binary_cross_entropy(input, target, o.weight(weight));
}
void BCELossImpl::pretty_print(std::ostream& stream) const {
  stream << "BCELoss(" << reduction_suffix(options.reduction()) << ")";
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options)
    : options(options) {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::binary_cross_entropy_with_logits(input, target,
                                             o.weight(weight).pos_weight(pos_weight));
}
void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const {
  stream << "BCEWithLogitsLoss(" << reduction_suffix(options.reduction()) << ")";
}

Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options);
}
void KLDivLossImpl::pretty_print(std::ostream& stream) const {
  stream << "KLDivLoss(" << reduction_suffix(options.reduction());
  if (options.log_target()) {
    stream << (*reduction_suffix(options.reduction()) ? ", " : "") << "log_target=true";
  }
  stream << ")";
}

}  // namespace ember::nn
