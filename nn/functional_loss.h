// Loss functions, as LibTorch's torch::nn::functional losses and their options classes:
// cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss binary_cross_entropy
// binary_cross_entropy_with_logits kl_div. The options are the modules' options (nn/loss.h),
// with LibTorch's aliases (F::CrossEntropyFuncOptions == nn::CrossEntropyLossOptions).
#pragma once

#include <cstdint>
#include <utility>

#include <ember/core/tensor.h>
#include <ember/nn/arg.h>

namespace ember {
namespace nn {

// How a loss reduces its per-element values; spelled ember::kMean etc., as torch::kMean.
enum class Reduction : uint8_t { kNone = 0, kMean = 1, kSum = 2, kBatchMean = 3 };
const char* reduction_name(Reduction r);

}  // namespace nn

inline constexpr nn::Reduction kNone = nn::Reduction::kNone;
inline constexpr nn::Reduction kMean = nn::Reduction::kMean;
inline constexpr nn::Reduction kSum = nn::Reduction::kSum;
inline constexpr nn::Reduction kBatchMean = nn::Reduction::kBatchMean;

// LibTorch's ATen spelling, torch::Reduction::Sum (at::Reduction): the same values, so a ported
// `ember::nll_loss(x, y, {}, ember::Reduction::Sum)` or `Reduction::Reduction r = Reduction::Mean`
// means what it did. (LibTorch's is a plain enum that also converts to int64_t; this is not.)
namespace Reduction {
using Reduction = nn::Reduction;
inline constexpr nn::Reduction None = nn::Reduction::kNone;
inline constexpr nn::Reduction Mean = nn::Reduction::kMean;
inline constexpr nn::Reduction Sum = nn::Reduction::kSum;
}  // namespace Reduction

namespace nn {

// Options: `CrossEntropyLossOptions().weight(w).ignore_index(3)`; each setter returns the
// options, each getter of the same name reads them (EMBER_ARG, as LibTorch's TORCH_ARG).
struct CrossEntropyLossOptions {
  EMBER_ARG(Tensor, weight);  // [C], a weight per class
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(Reduction, reduction) = kMean;  // kNone, kMean, kSum
  EMBER_ARG(double, label_smoothing) = 0.0;
};

struct NLLLossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(Reduction, reduction) = kMean;
};

// MSELossOptions(kSum) as LibTorch's constructor from the reduction.
struct MSELossOptions {
  MSELossOptions(Reduction r = kMean) : reduction_(r) {}  // NOLINT: implicit as in LibTorch
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct L1LossOptions {
  L1LossOptions(Reduction r = kMean) : reduction_(r) {}  // NOLINT
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct SmoothL1LossOptions {
  SmoothL1LossOptions(Reduction r = kMean) : reduction_(r) {}  // NOLINT
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(double, beta) = 1.0;  // below beta the loss is quadratic; 0: l1_loss
};

struct BCELossOptions {
  EMBER_ARG(Tensor, weight);  // broadcast to the input's shape
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct BCEWithLogitsLossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(Tensor, pos_weight);  // weight of the positive term, per class
};

struct KLDivLossOptions {
  KLDivLossOptions(Reduction r = kMean) : reduction_(r) {}  // NOLINT
  EMBER_ARG(Reduction, reduction) = kMean;  // kBatchMean is the mathematically right one
  EMBER_ARG(bool, log_target) = false;
};

namespace functional {

using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using KLDivFuncOptions = KLDivLossOptions;

// input [N, C], [N, C, d1, ...] or [C] (logits). target: class indices (int64, [N, d1, ...]
// or []) or class probabilities (floating, input's shape). Class-index targets of float32 or
// float64 logits run the fused kernels (one launch forward, one backward on CUDA).
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options = {});
// input: log-probabilities of cross_entropy's shapes; target: class indices.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options = {});
// input: probabilities in [0, 1]; each log is clamped at -100, as PyTorch does.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});
// input: logits (the stable form: no exp overflow for large |input|).
Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {});
// input: log-probabilities; target: probabilities (log-probabilities with log_target).
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});

namespace detail {
// The two forms of cross_entropy with class-index targets, for tests and benchmarks:
// the fused kernels (float32/float64 input) and log_softmax + nll_loss from public ops.
Tensor cross_entropy_fused(const Tensor& input, const Tensor& target,
                           const CrossEntropyFuncOptions& options);
Tensor cross_entropy_composite(const Tensor& input, const Tensor& target,
                               const CrossEntropyFuncOptions& options);
// The class dim of a class-index loss's input (1, or 0 for an unbatched [C] one), after checking
// that input has a dim and target has input's shape without the class dim; `name` leads errors.
int64_t class_dim_of(const char* name, const Tensor& input, const Tensor& target);
}  // namespace detail

}  // namespace functional
}  // namespace nn

// LibTorch's ATen forms (torch::nll_loss(self, target, weight, reduction, ignore_index)...).
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                          nn::Reduction reduction = kMean, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);
Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                nn::Reduction reduction = kMean, int64_t ignore_index = -100);
Tensor mse_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction = kMean);
Tensor l1_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction = kMean);
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction = kMean,
                      double beta = 1.0);
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                            nn::Reduction reduction = kMean);
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const Tensor& weight = {}, const Tensor& pos_weight = {},
                                        nn::Reduction reduction = kMean);
Tensor kl_div(const Tensor& self, const Tensor& target, nn::Reduction reduction = kMean,
              bool log_target = false);

}  // namespace ember
