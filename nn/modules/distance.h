// Distance modules, as LibTorch's: CosineSimilarity and PairwiseDistance, forwarding to
// F::cosine_similarity and F::pairwise_distance (nn/functional_distance.h).
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/functional_distance.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>

namespace ember::nn {

class CosineSimilarityImpl : public Module {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return functional::cosine_similarity(input1, input2, options);
  }
  void pretty_print(std::ostream& stream) const override;
  CosineSimilarityOptions options;
};
EMBER_BUILTIN_MODULE(CosineSimilarity);

class PairwiseDistanceImpl : public Module {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return functional::pairwise_distance(input1, input2, options);
  }
  void pretty_print(std::ostream& stream) const override;
  PairwiseDistanceOptions options;
};
EMBER_BUILTIN_MODULE(PairwiseDistance);

}  // namespace ember::nn
