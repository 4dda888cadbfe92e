// normalize, cosine_similarity, pairwise_distance, pdist and cdist (nn/functional_distance.h)
// as composites of public ops, with PyTorch 2.x's formulas (and its eps placement) so values
// and gradients match; norm's backward is 0 at a zero vector, as PyTorch's.
#include <ember/nn/functional_distance.h>

#include <algorithm>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember {
namespace {

// Integer and bool inputs compute in the default float dtype, as PyTorch's norms.
Tensor as_floating(const Tensor& t) {
  return t.is_floating_point() ? t : t.to(default_float_dtype());
}

}  // namespace

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  EMBER_CHECK(x1.defined() && x2.defined(), "cosine_similarity: inputs must be defined");
  const ScalarType common = promote_types(x1.dtype(), x2.dtype());
  EMBER_CHECK(is_floating_point(common), "cosine_similarity: expected common dtype to be ",
              "floating point, yet common dtype is ", common);
  const DimVector shape = broadcast_shapes("cosine_similarity", x1.sizes(), x2.sizes());
  // Integer inputs are cast to the common dtype; floating ones are kept (as PyTorch).
  const Tensor a = (x1.is_floating_point() ? x1 : x1.to(common)).expand(shape);
  const Tensor b = (x2.is_floating_point() ? x2 : x2.to(common)).expand(shape);
  // Each input is divided by its norm clamped at eps; PyTorch clamps in place under no_grad,
  // so the gradient flows as through the unclamped norm: norm + (clamped - norm).detach().
  auto clamped_norm = [&](const Tensor& t) {
    Tensor n = t.norm(2, {dim}, /*keepdim=*/true);
    Tensor d = n.detach();
    return n + (d.clamp_min(eps) - d);
  };
  return ((a / clamped_norm(a)) * (b / clamped_norm(b))).sum({dim});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  EMBER_CHECK(x1.defined() && x2.defined(), "pairwise_distance: inputs must be defined");
  const int64_t dims = std::max(x1.dim(), x2.dim());
  EMBER_CHECK(dims > 0, "pairwise_distance: expected inputs of at least 1 dim, got 0-dim ones");
  return ember::norm(as_floating(x1) - as_floating(x2) + eps, p, {dims - 1}, keepdim);
}

Tensor pdist(const Tensor& self, double p) {
  EMBER_CHECK(self.defined(), "pdist: input is an undefined tensor");
  EMBER_CHECK(self.dim() == 2, "pdist: pdist only supports 2D tensors, got: ", self.dim(), "D");
  EMBER_CHECK(self.is_floating_point(), "pdist: pdist only supports floating-point dtypes");
  EMBER_CHECK(p >= 0, "pdist: pdist only supports non-negative p values");
  const int64_t n = self.size(0);
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      rows.push_back(i);
      cols.push_back(j);
    }
  const Tensor r = ember::tensor(rows, TensorOptions().dtype(kInt64)).to(self.device());
  const Tensor c = ember::tensor(cols, TensorOptions().dtype(kInt64)).to(self.device());
  return ember::norm(self.index_select(0, r) - self.index_select(0, c), p, {1});
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  EMBER_CHECK(x1.defined() && x2.defined(), "cdist: inputs must be defined");
  EMBER_CHECK(x1.dim() >= 2, "cdist: cdist only supports at least 2D tensors, X1 got: ", x1.dim(),
              "D");
  EMBER_CHECK(x2.dim() >= 2, "cdist: cdist only supports at least 2D tensors, X2 got: ", x2.dim(),
              "D");
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "cdist: X1 and X2 must have the same number of ",
              "columns. X1: ", x1.size(-1), " X2: ", x2.size(-1));
  EMBER_CHECK(x1.is_floating_point(),
              "cdist: cdist only supports floating-point dtypes, X1 got: ", x1.dtype());
  EMBER_CHECK(x2.is_floating_point(),
              "cdist: cdist only supports floating-point dtypes, X2 got: ", x2.dtype());
  EMBER_CHECK(p >= 0, "cdist: cdist only supports non-negative p values");
  EMBER_CHECK(!compute_mode || (*compute_mode >= 0 && *compute_mode <= 2),
              "cdist: possible modes: None, 1, 2, but was: ", compute_mode.value_or(0));
  return ember::norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, {-1});
}

namespace nn::functional {

Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  EMBER_CHECK(input.defined(), "normalize: input is an undefined tensor");
  const Tensor denom =
      input.norm(options.p(), {options.dim()}, /*keepdim=*/true).clamp_min(options.eps());
  Tensor result = input / denom.expand_as(input);
  if (!options.out()) return result;
  Tensor out = *options.out();
  out.copy_(result);
  return out;
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options) {
  return ember::cosine_similarity(x1, x2, options.dim(), options.eps());
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options) {
  return ember::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

Tensor pdist(const Tensor& input, double p) { return ember::pdist(input, p); }

}  // namespace nn::functional
}  // namespace ember
