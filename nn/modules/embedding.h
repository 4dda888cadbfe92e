// Embedding, as LibTorch's: a lookup table `weight` [num_embeddings, embedding_dim] indexed by
// integer tensors; initialized normal(0, 1) with the padding_idx row zero, which gets no
// gradient.
#pragma once

#include <ostream>

#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/options.h>

namespace ember::nn {

class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);

  void reset();
  void reset_parameters();
  Tensor forward(const Tensor& indices);
  void pretty_print(std::ostream& stream) const override;

  EmbeddingOptions options;
  Tensor weight;
};

EMBER_CLONE_IN_LIBRARY(EmbeddingImpl);
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  // An Embedding whose weight is (a copy of) `embeddings`, frozen unless options.freeze(false).
  static Embedding from_pretrained(const Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
