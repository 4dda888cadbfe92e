// The modules of nn/modules/distance.h: PyTorch-style printing (their forwards are inline,
// calls of F::cosine_similarity and F::pairwise_distance).
#include <ember/nn/modules/distance.h>

namespace ember::nn {

void CosineSimilarityImpl::pretty_print(std::ostream& stream) const {
  stream << "CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}

void PairwiseDistanceImpl::pretty_print(std::ostream& stream) const {
  stream << "PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
         << ", keepdim=" << (options.keepdim() ? "true" : "false") << ")";
}

}  // namespace ember::nn
