// The losses of nn/functional_loss_more.h written with public ops (autograd and every device
// for free), with PyTorch's formulas: ATen's for huber, margin_ranking, hinge_embedding,
// cosine_embedding, soft_margin, multi(label)_margin, triplet_margin and poisson_nll, and
// torch.nn.functional's for multilabel_soft_margin. Target values are checked on the CPU
// only (a check on CUDA would cost a synchronization; LibTorch asserts on the device there).
#include <ember/nn/functional_loss_more.h>

#include <cmath>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/nn/functional_distance.h>
#include <ember/nn/activation_ops.h>

namespace ember {
namespace {

Tensor reduce(const char* name, const Tensor& loss, nn::Reduction r) {
  switch (r) {
    case nn::Reduction::kNone:
      return loss;
    case nn::Reduction::kMean:
      return loss.mean();
    case nn::Reduction::kSum:
      return loss.sum();
    default:
      EMBER_THROW(name, ": reduction ", nn::reduction_name(r),
                  " is not supported (expected kNone, kMean or kSum)");
  }
}

void check_inputs(const char* name, std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors)
    EMBER_CHECK(t->defined(), name, ": expected defined tensors, got an undefined one");
}

void check_floating(const char* name, const Tensor& input) {
  EMBER_CHECK(input.is_floating_point(), name, ": expected a floating point input, got ",
              input.dtype());
}

// Class-index targets: int64, each in [lo, classes) (checked on the CPU only).
void check_class_targets(const char* name, const Tensor& target, int64_t lo, int64_t classes) {
  EMBER_CHECK(target.dtype() == kInt64, name, ": expected an int64 (Long) target, got ",
              target.dtype());
  if (!target.is_cpu() || target.numel() == 0) return;
  NoGradGuard no_grad;
  const bool bad = target.lt(lo).logical_or(target.ge(classes)).any().item<bool>();
  EMBER_CHECK(!bad, name, ": target values out of range: each must be in [", lo, ", ", classes,
              ")");
}

// [C] or [N, C] inputs (0-dim as one class): the [N, C] view and whether it was unbatched.
Tensor as_batch(const char* name, const Tensor& input) {
  EMBER_CHECK(input.dim() <= 2, name, ": expected a 0D, 1D or 2D input, got ",
              shape_str(input.sizes()));
  if (input.dim() == 2) return input;
  return input.reshape({1, input.dim() == 0 ? 1 : input.size(0)});
}

}  // namespace

Tensor huber_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction, double delta) {
  const char* name = "huber_loss";
  check_inputs(name, {&self, &target});
  check_floating(name, self);
  broadcast_shapes(name, self.sizes(), target.sizes());
  EMBER_CHECK(delta > 0, name, ": huber_loss does not support non-positive values for delta.");
  const Tensor z = (self - target).abs();
  return reduce(name, where(z.lt(delta), z * z * 0.5, (z - 0.5 * delta) * delta), reduction);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           double margin, nn::Reduction reduction) {
  const char* name = "margin_ranking_loss";
  check_inputs(name, {&input1, &input2, &target});
  return reduce(name, (-target * (input1 - input2) + margin).clamp_min(0), reduction);
}

Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin,
                            nn::Reduction reduction) {
  const char* name = "hinge_embedding_loss";
  check_inputs(name, {&self, &target});
  const Tensor zeros = ember::zeros_like(self);
  const Tensor margin_clamp = (margin - self).clamp_min(0);
  const Tensor output_margin = where(target.ne(1), margin_clamp, zeros);
  const Tensor output_self = where(target.ne(-1), self, zeros);
  return reduce(name, output_margin + output_self, reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             double margin, nn::Reduction reduction) {
  const char* name = "cosine_embedding_loss";
  check_inputs(name, {&input1, &input2, &target});
  const int64_t targ_dim = target.dim();
  EMBER_CHECK(targ_dim == 1 || targ_dim == 0, name,
              ": 0D or 1D target tensor expected, multi-target not supported");
  if (targ_dim == 1) {
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2, name, ": 1D target tensor expects 2D ",
                "input tensors, but found inputs with sizes ", shape_str(input1.sizes()), " and ",
                shape_str(input2.sizes()), ".");
  } else {
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1, name, ": 0D target tensor expects 1D ",
                "input tensors, but found inputs with sizes ", shape_str(input1.sizes()), " and ",
                shape_str(input2.sizes()), ".");
  }
  constexpr double kEpsilon = 1e-12;
  const Tensor prod_sum = (input1 * input2).sum({targ_dim});
  const Tensor mag_square1 = (input1 * input1).sum({targ_dim}) + kEpsilon;
  const Tensor mag_square2 = (input2 * input2).sum({targ_dim}) + kEpsilon;
  const Tensor cos = prod_sum / (mag_square1 * mag_square2).sqrt();
  const Tensor zeros = ember::zeros_like(cos);
  const Tensor output_pos = where(target.eq(1), 1 - cos, zeros);
  const Tensor output_neg = where(target.eq(-1), (cos - margin).clamp_min(0), zeros);
  return reduce(name, output_pos + output_neg, reduction);
}

Tensor soft_margin_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction) {
  const char* name = "soft_margin_loss";
  check_inputs(name, {&self, &target});
  return reduce(name, ember::log1p(ember::exp(-self * target)), reduction);
}

// Per sample: the sum over its targets j (the entries before the first -1) and the non-target
// classes i of max(0, 1 - (x[j] - x[i])), divided by C.
Tensor multilabel_margin_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction) {
  const char* name = "multilabel_margin_loss";
  check_inputs(name, {&self, &target});
  check_floating(name, self);
  EMBER_CHECK(target.sizes().equals(self.sizes()) && self.dim() <= 2, name,
              ": inconsistent target size: ", shape_str(target.sizes()),
              " for input of size: ", shape_str(self.sizes()));
  const Tensor x = as_batch(name, self);
  const int64_t classes = x.size(1);
  check_class_targets(name, target, -1, classes);
  const Tensor t = target.reshape(x.sizes());
  const TensorOptions opts = x.options();
  // valid[n, k]: no -1 at or before slot k (a count through an upper-triangular matmul).
  const Tensor ar = ember::arange(classes, TensorOptions().dtype(kInt64).device(x.device()));
  const Tensor upper = ar.unsqueeze(1).le(ar.unsqueeze(0)).to(opts.dtype());   // [m <= k]
  const Tensor valid = ember::matmul(t.eq(-1).to(opts.dtype()), upper).eq(0);  // [N, C]
  const Tensor idx = t.clamp_min(0);
  // is_target[n, i]: class i is one of the valid targets.
  const Tensor hits = idx.unsqueeze(2).eq(ar).logical_and(valid.unsqueeze(2));  // [N, k, i]
  const Tensor is_target = hits.any(1);                                         // [N, C]
  const Tensor xj = x.gather(1, idx);                                           // [N, k]
  const Tensor z = (1 - (xj.unsqueeze(2) - x.unsqueeze(1))).clamp_min(0);       // [N, k, i]
  const Tensor keep = valid.unsqueeze(2).logical_and(is_target.logical_not().unsqueeze(1));
  Tensor loss = where(keep, z, 0.0).sum({1, 2}) / static_cast<double>(classes);
  if (self.dim() < 2) loss = loss.reshape({});
  return reduce(name, loss, reduction);
}

// Per sample: the sum over classes i != y of weight[y] max(0, margin - x[y] + x[i])^p / C.
Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p,
                         const Scalar& margin, const Tensor& weight, nn::Reduction reduction) {
  const char* name = "multi_margin_loss";
  check_inputs(name, {&self, &target});
  check_floating(name, self);
  const int64_t pv = p.to<int64_t>();
  EMBER_CHECK(pv == 1 || pv == 2, name, ": only p == 1 and p == 2 supported");
  const Tensor x = as_batch(name, self);
  const int64_t n = x.size(0), classes = x.size(1);
  EMBER_CHECK(target.dim() <= 1 && target.numel() == n, name, ": inconsistent target size, ",
              "expected ", n, " but got ", shape_str(target.sizes()));
  EMBER_CHECK(!weight.defined() || (weight.dim() <= 1 && weight.numel() == classes), name,
              ": inconsistent weight size, expected ", classes, " but got ",
              weight.defined() ? shape_str(weight.sizes()) : std::string("undefined"));
  check_class_targets(name, target, 0, classes);
  const Tensor y = target.reshape({n, 1});
  const Tensor xy = x.gather(1, y);
  Tensor z = (margin.to<double>() - xy + x).clamp_min(0);
  if (pv == 2) z = z * z;
  if (weight.defined())
    z = z * weight.reshape({classes}).index_select(0, y.reshape({n})).unsqueeze(1);
  const Tensor ar = ember::arange(classes, TensorOptions().dtype(kInt64).device(x.device()));
  Tensor loss = where(ar.ne(y), z, 0.0).sum({1}) / static_cast<double>(classes);
  if (self.dim() < 2) loss = loss.reshape({});
  return reduce(name, loss, reduction);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin, double p, double eps, bool swap,
                           nn::Reduction reduction) {
  const char* name = "triplet_margin_loss";
  check_inputs(name, {&anchor, &positive, &negative});
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(), name,
              ": The anchor, positive, and negative tensors are expected to have the same number ",
              "of dimensions, but got: anchor ", anchor.dim(), "D, positive ", positive.dim(),
              "D, and negative ", negative.dim(), "D inputs");
  const Tensor dist_pos = pairwise_distance(anchor, positive, p, eps);
  Tensor dist_neg = pairwise_distance(anchor, negative, p, eps);
  if (swap) dist_neg = ember::minimum(dist_neg, pairwise_distance(positive, negative, p, eps));
  return reduce(name, (dist_pos - dist_neg + margin).clamp_min(0), reduction);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                        double eps, nn::Reduction reduction) {
  const char* name = "poisson_nll_loss";
  check_inputs(name, {&input, &target});
  Tensor loss =
      log_input ? ember::exp(input) - target * input : input - target * ember::log(input + eps);
  if (full) {
    // Stirling's term where target > 1; elsewhere computed at 2, then dropped (no NaN gradient).
    const Tensor big = target.gt(1);
    const Tensor t = where(big, target, 2.0);
    const Tensor stirling = t * ember::log(t) - t + ember::log(t * (2 * M_PI)) * 0.5;
    loss = loss + where(big, stirling, 0.0);
  }
  return reduce(name, loss, reduction);
}

namespace nn::functional {

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  return ember::huber_loss(input, target, options.reduction(), options.delta());
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options, double beta) {
  EMBER_CHECK(options.beta() == SmoothL1LossFuncOptions().beta(), "smooth_l1_loss: expected beta ",
              "not to be provided in 'options', but got ", options.beta());
  SmoothL1LossFuncOptions o = options;
  return smooth_l1_loss(input, target, o.beta(beta));
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
              "margin_ranking_loss : All input tensors should have same dimension but got sizes: ",
              "input1: ", shape_str(input1.sizes()), ", input2: ", shape_str(input2.sizes()),
              ", target: ", shape_str(target.sizes()));
  return ember::margin_ranking_loss(input1, input2, target, options.margin(), options.reduction());
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options) {
  return ember::hinge_embedding_loss(input, target, options.margin(), options.reduction());
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  return ember::cosine_embedding_loss(input1, input2, target, options.margin(),
                                      options.reduction());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& options) {
  return ember::soft_margin_loss(input, target, options.reduction());
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options) {
  const char* name = "multilabel_soft_margin_loss";
  check_inputs(name, {&input, &target});
  check_floating(name, input);
  EMBER_CHECK(input.dim() >= 1, name, ": expected an input of at least 1 dim, got 0-dim");
  Tensor loss = -(target * ember::log_sigmoid(input) + (1 - target) * ember::log_sigmoid(-input));
  if (options.weight().defined()) loss = loss * options.weight();
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum({class_dim}) / static_cast<double>(input.size(class_dim));
  return reduce(name, loss, options.reduction());
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options) {
  return ember::multilabel_margin_loss(input, target, options.reduction());
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& options) {
  return ember::multi_margin_loss(input, target, options.p(), options.margin(), options.weight(),
                                  options.reduction());
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  return ember::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(),
                                    options.eps(), options.swap(), options.reduction());
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossFuncOptions& options) {
  return ember::poisson_nll_loss(input, target, options.log_input(), options.full(), options.eps(),
                                 options.reduction());
}

}  // namespace nn::functional
}  // namespace ember
