// Distances and normalization by a norm, as LibTorch's: F::normalize, F::cosine_similarity,
// F::pairwise_distance, F::pdist and their options, and the ATen forms (ember::cdist, ...).
// Composites of public ops (nn/functional_distance.cpp); autograd differentiates them.
#pragma once

#include <cstdint>
#include <optional>

#include <ember/core/tensor.h>
#include <ember/nn/arg.h>

namespace ember {
namespace nn {

struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};

struct PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};

namespace functional {

using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;

struct NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
  EMBER_ARG(std::optional<Tensor>, out) = std::nullopt;  // written in place when given
};

// input / max(||input||_p over dim, eps).
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});
// sum(x1 x2) / sqrt(max(||x1||^2 ||x2||^2, eps^2)) over dim, x1 and x2 broadcast together
// (PyTorch 2.x's formula: zero vectors give 0).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options = {});
// ||x1 - x2 + eps||_p over the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options = {});
// input [N, M]: the p-norm distances of the rows i < j, in row-major order ([N (N - 1) / 2]).
Tensor pdist(const Tensor& input, double p = 2);

}  // namespace functional
}  // namespace nn

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2, double eps = 1e-6,
                         bool keepdim = false);
Tensor pdist(const Tensor& self, double p = 2);
// x1 [*, P, M], x2 [*, R, M] -> [*, P, R]: the p-norm distance of every pair of rows.
// compute_mode is accepted for source compatibility (the result is computed directly).
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2,
             std::optional<int64_t> compute_mode = std::nullopt);

}  // namespace ember
