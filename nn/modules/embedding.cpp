// Embedding: parameter setup (normal(0, 1), padding row zeroed), lookup and printing.
#include <ember/nn/modules/embedding.h>

#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/nn/functional.h>
#include <ember/nn/init.h>

namespace ember::nn {

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options) : options(std::move(options)) { reset(); }

void EmbeddingImpl::reset() {
  const int64_t n = options.num_embeddings();
  EMBER_CHECK(n >= 0 && options.embedding_dim() >= 0,
              "Embedding: num_embeddings and embedding_dim must be non-negative, got ", n, " and ",
              options.embedding_dim());
  if (options.padding_idx().has_value()) {
    int64_t pad = *options.padding_idx();
    EMBER_CHECK(pad >= -n && pad < n, "Embedding: padding_idx ", pad,
                " must be within num_embeddings ", n);
    if (pad < 0) options.padding_idx(pad + n);
  }
  EMBER_CHECK(!options.max_norm().has_value(), "Embedding: max_norm is not supported");
  EMBER_CHECK(!options.scale_grad_by_freq() && !options.sparse(),
              "Embedding: scale_grad_by_freq and sparse are not supported");
  const Tensor& given = options._weight();
  if (given.defined()) {
    EMBER_CHECK(given.dim() == 2 && given.size(0) == n && given.size(1) == options.embedding_dim(),
                "Embedding: _weight must have shape [", n, ", ", options.embedding_dim(), "]");
    weight = register_parameter("weight", given);
  } else {
    weight = register_parameter("weight", ember::empty({n, options.embedding_dim()}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx().has_value()) {
    NoGradGuard no_grad;
    weight[*options.padding_idx()].fill_(0);
  }
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return functional::embedding(
      indices, weight, functional::EmbeddingFuncOptions().padding_idx(options.padding_idx()));
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << "Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx().has_value()) stream << ", padding_idx=" << *options.padding_idx();
  stream << ")";
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  EMBER_CHECK(embeddings.defined() && embeddings.dim() == 2,
              "Embedding::from_pretrained: expected a 2-D embeddings tensor");
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings.detach().clone())
                          .padding_idx(options.padding_idx()));
  embedding->weight.set_requires_grad(!options.freeze());
  return embedding;
}

}  // namespace ember::nn
