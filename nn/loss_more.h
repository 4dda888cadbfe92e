// More loss modules, as LibTorch's: HuberLoss MarginRankingLoss HingeEmbeddingLoss
// CosineEmbeddingLoss SoftMarginLoss MultiLabelSoftMarginLoss MultiLabelMarginLoss
// MultiMarginLoss TripletMarginLoss PoissonNLLLoss, forwarding to nn/functional_loss_more.h.
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/functional_loss_more.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>

namespace ember::nn {

// A loss of (input, target) whose options hold no tensor.
#define EMBER_LOSS_MODULE2(Name, fn)                                             \
  class Name##Impl : public Module {                                             \
   public:                                                                       \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {} \
    Tensor forward(const Tensor& input, const Tensor& target) {                  \
      return functional::fn(input, target, options);                             \
    }                                                                            \
    void pretty_print(std::ostream& stream) const override;                      \
    Name##Options options;                                                       \
  };                                                                             \
  EMBER_BUILTIN_MODULE(Name)

// A loss of (input1, input2, target).
#define EMBER_LOSS_MODULE3(Name, fn)                                                   \
  class Name##Impl : public Module {                                                   \
   public:                                                                             \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {}       \
    Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) { \
      return functional::fn(input1, input2, target, options);                          \
    }                                                                                  \
    void pretty_print(std::ostream& stream) const override;                            \
    Name##Options options;                                                             \
  };                                                                                   \
  EMBER_BUILTIN_MODULE(Name)

EMBER_LOSS_MODULE2(HuberLoss, huber_loss);
EMBER_LOSS_MODULE2(HingeEmbeddingLoss, hinge_embedding_loss);
EMBER_LOSS_MODULE2(SoftMarginLoss, soft_margin_loss);
EMBER_LOSS_MODULE2(MultiLabelMarginLoss, multilabel_margin_loss);
EMBER_LOSS_MODULE2(PoissonNLLLoss, poisson_nll_loss);
EMBER_LOSS_MODULE3(MarginRankingLoss, margin_ranking_loss);
EMBER_LOSS_MODULE3(CosineEmbeddingLoss, cosine_embedding_loss);
EMBER_LOSS_MODULE3(TripletMarginLoss, triplet_margin_loss);
#undef EMBER_LOSS_MODULE2
#undef EMBER_LOSS_MODULE3

// The class weights are a buffer, so module->to(kCUDA) moves them.
class MultiLabelSoftMarginLossImpl : public Module {
 public:
  explicit MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options = {});
  // (Re)registers the class-weight buffers from the options, as LibTorch's (used by clone()).
  void reset();
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MultiLabelSoftMarginLossOptions options;
  Tensor weight;
};
EMBER_BUILTIN_MODULE(MultiLabelSoftMarginLoss);

class MultiMarginLossImpl : public Module {
 public:
  explicit MultiMarginLossImpl(const MultiMarginLossOptions& options = {});
  // (Re)registers the class-weight buffers from the options, as LibTorch's (used by clone()).
  void reset();
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MultiMarginLossOptions options;
  Tensor weight;
};
EMBER_BUILTIN_MODULE(MultiMarginLoss);

}  // namespace ember::nn
