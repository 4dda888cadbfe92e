// The loss modules of nn/loss_more.h: class-weight buffers (moved by module->to()) and
// PyTorch-style printing that leaves default options out.
#include <ember/nn/loss_more.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>

namespace ember::nn {
namespace F = functional;

namespace {
// "reduction=sum" when not the default mean, as PyTorch's repr leaves defaults out.
const char* reduction_text(Reduction r) {
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

// Name(first, reduction=...), the reduction only when not the default.
void print(std::ostream& stream, const char* name, const std::string& first, Reduction r) {
  stream << name << "(" << first;
  if (*reduction_text(r)) stream << (first.empty() ? "" : ", ") << reduction_text(r);
  stream << ")";
}

std::string fields(std::initializer_list<std::pair<const char*, double>> values) {
  std::ostringstream os;
  const char* sep = "";
  for (const auto& [key, value] : values) {
    os << sep << key << "=" << value;
    sep = ", ";
  }
  return os.str();
}
}  // namespace

void HuberLossImpl::pretty_print(std::ostream& stream) const {
  print(stream, "HuberLoss", options.delta() != 1.0 ? fields({{"delta", options.delta()}}) : "",
        options.reduction());
}

void HingeEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  print(stream, "HingeEmbeddingLoss", fields({{"margin", options.margin()}}), options.reduction());
}

void SoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  print(stream, "SoftMarginLoss", "", options.reduction());
}

void MultiLabelMarginLossImpl::pretty_print(std::ostream& stream) const {
  print(stream, "MultiLabelMarginLoss", "", options.reduction());
}

void PoissonNLLLossImpl::pretty_print(std::ostream& stream) const {
  std::ostringstream os;
  os << "log_input=" << (options.log_input() ? "true" : "false")
     << ", full=" << (options.full() ? "true" : "false") << ", eps=" << options.eps();
  print(stream, "PoissonNLLLoss", os.str(), options.reduction());
}

void MarginRankingLossImpl::pretty_print(std::ostream& stream) const {
  print(stream, "MarginRankingLoss", fields({{"margin", options.margin()}}), options.reduction());
}

void CosineEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  print(stream, "CosineEmbeddingLoss", fields({{"margin", options.margin()}}), options.reduction());
}

void TripletMarginLossImpl::pretty_print(std::ostream& stream) const {
  std::ostringstream os;
  os << fields({{"margin", options.margin()}, {"p", options.p()}, {"eps", options.eps()}})
     << ", swap=" << (options.swap() ? "true" : "false");
  print(stream, "TripletMarginLoss", os.str(), options.reduction());
}

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(
    const MultiLabelSoftMarginLossOptions& options)
    : options(options) {
  weight = register_buffer("weight", options.weight());
}
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::multilabel_soft_margin_loss(input, target, o.weight(weight));
}
void MultiLabelSoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  print(stream, "MultiLabelSoftMarginLoss", "", options.reduction());
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& options) : options(options) {
  weight = register_buffer("weight", options.weight());
}
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  auto o = options;
  return F::multi_margin_loss(input, target, o.weight(weight));
}
void MultiMarginLossImpl::pretty_print(std::ostream& stream) const {
  std::ostringstream os;
  os << "p=" << options.p() << ", margin=" << options.margin();
  print(stream, "MultiMarginLoss", os.str(), options.reduction());
}

}  // namespace ember::nn
