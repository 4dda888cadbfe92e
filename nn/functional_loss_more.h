// The margin, embedding and robust losses of torch::nn::functional, with LibTorch's options:
// huber margin_ranking hinge_embedding cosine_embedding soft_margin multilabel_soft_margin
// multilabel_margin multi_margin triplet_margin poisson_nll, and smooth_l1_loss's beta argument.
#pragma once

#include <cstdint>

#include <ember/core/scalar.h>
#include <ember/core/tensor.h>
#include <ember/nn/arg.h>
#include <ember/nn/functional_loss.h>

namespace ember {
namespace nn {

struct HuberLossOptions {
  HuberLossOptions(Reduction r = kMean) : reduction_(r) {}  // NOLINT: implicit as in LibTorch
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(double, delta) = 1.0;
};

struct MarginRankingLossOptions {
  EMBER_ARG(double, margin) = 0;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct HingeEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct CosineEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 0.0;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct SoftMarginLossOptions {
  SoftMarginLossOptions(Reduction r = kMean) : reduction_(r) {}  // NOLINT
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct MultiLabelSoftMarginLossOptions {
  EMBER_ARG(Tensor, weight);  // [C], a weight per class
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct MultiLabelMarginLossOptions {
  MultiLabelMarginLossOptions(Reduction r = kMean) : reduction_(r) {}  // NOLINT
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct MultiMarginLossOptions {
  EMBER_ARG(int64_t, p) = 1;  // 1 or 2
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight);  // [C], a weight per class
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct TripletMarginLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct PoissonNLLLossOptions {
  EMBER_ARG(bool, log_input) = true;
  EMBER_ARG(bool, full) = false;  // adds Stirling's term for target > 1
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(Reduction, reduction) = kMean;
};

namespace functional {

using HuberLossFuncOptions = HuberLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
using MultiLabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using MultiLabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;

// 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere (d = input - target).
Tensor huber_loss(const Tensor& input, const Tensor& target,
                  const HuberLossFuncOptions& options = {});
// LibTorch's `F::smooth_l1_loss(input, target, torch::kMean, /*beta=*/0.5)`: beta given apart
// from the options (whose beta must then be left at its default).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options, double beta);
// max(0, -target (input1 - input2) + margin), target in {1, -1}.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});
// input where target == 1, max(0, margin - input) where target == -1.
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});
// 1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1.
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});
// log(1 + exp(-target input)).
Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& options = {});
// input, target [N, C]: the mean over C of the binary cross-entropy with logits.
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options = {});
// input [N, C] or [C]; target int64 of the same shape: class indices, ended by the first -1.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options = {});
// input [N, C] or [C]; target int64 [N] or []: sum over i != y of
// weight[y] max(0, margin - x[y] + x[i])^p / C.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& options = {});
// max(d(a, p) - d(a, n) + margin, 0), d the pairwise_distance (swap: d(a, n) becomes
// min(d(a, n), d(p, n))).
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& options = {});

}  // namespace functional
}  // namespace nn

// LibTorch's ATen forms.
Tensor huber_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction = kMean,
                  double delta = 1.0);
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin = 0.0, nn::Reduction reduction = kMean);
Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin = 1.0,
                            nn::Reduction reduction = kMean);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin = 0.0, nn::Reduction reduction = kMean);
Tensor soft_margin_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction = kMean);
Tensor multilabel_margin_loss(const Tensor& self, const Tensor& target,
                              nn::Reduction reduction = kMean);
Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p = 1,
                         const Scalar& margin = 1, const Tensor& weight = {},
                         nn::Reduction reduction = kMean);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin = 1.0, double p = 2, double eps = 1e-06, bool swap = false,
                           nn::Reduction reduction = kMean);
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, nn::Reduction reduction);

}  // namespace ember
