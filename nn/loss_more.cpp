// The loss modules of nn/loss_more.h: class-weight buffers (moved by module->to()) and
// PyTorch-style printing that leaves default options out.
#include <ember/nn/loss_more.h>

#include <sstream>

#include <ember/nn/loss_print.h>

namespace ember::nn {
namespace F = functional;

using detail::loss_fields;
using detail::print_loss;

void HuberLossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "HuberLoss",
             options.delta() != 1.0 ? loss_fields({{"delta", options.delta()}}) : "",
             options.reduction());
}

void HingeEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "HingeEmbeddingLoss", loss_fields({{"margin", options.margin()}}),
             options.reduction());
}

void SoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "SoftMarginLoss", "", options.reduction());
}

void MultiLabelMarginLossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "MultiLabelMarginLoss", "", options.reduction());
}

void PoissonNLLLossImpl::pretty_print(std::ostream& stream) const {
  std::ostringstream os;
  os << "log_input=" << (options.log_input() ? "true" : "false")
     << ", full=" << (options.full() ? "true" : "false") << ", eps=" << options.eps();
  print_loss(stream, "PoissonNLLLoss", os.str(), options.reduction());
}

void MarginRankingLossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "MarginRankingLoss", loss_fields({{"margin", options.margin()}}),
             options.reduction());
}

void CosineEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "CosineEmbeddingLoss", loss_fields({{"margin", options.margin()}}),
             options.reduction());
}

void TripletMarginLossImpl::pretty_print(std::ostream& stream) const {
  std::ostringstream os;
  os << loss_fields({{"margin", options.margin()}, {"p", options.p()}, {"eps", options.eps()}})
     << ", swap=" << (options.swap() ? "true" : "false");
  print_loss(stream, "TripletMarginLoss", os.str(), options.reduction());
}

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(
    const MultiLabelSoftMarginLossOptions& options)
    : options(options) {
  reset();
}
void MultiLabelSoftMarginLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::multilabel_soft_margin_loss(input, target, o.weight(weight));
}
void MultiLabelSoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  print_loss(stream, "MultiLabelSoftMarginLoss", "", options.reduction());
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& options) : options(options) {
  reset();
}
void MultiMarginLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::multi_margin_loss(input, target, o.weight(weight));
}
void MultiMarginLossImpl::pretty_print(std::ostream& stream) const {
  std::ostringstream os;
  os << "p=" << options.p() << ", margin=" << options.margin();
  print_loss(stream, "MultiMarginLoss", os.str(), options.reduction());
}

}  // namespace ember::nn
