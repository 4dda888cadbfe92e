// The losses of nn/functional_loss.h written with public ops (so autograd and every backend
// come for free), with PyTorch's formulas and reductions; cross_entropy with class indices
// goes to the fused kernels (nn/cross_entropy.cpp). Also ember::nll_loss & co (ATen forms).
#include <ember/nn/functional_loss.h>

#include <limits>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember {
namespace nn {

const char* reduction_name(Reduction r) {
  switch (r) {
    case Reduction::kNone:
      return "kNone";
    case Reduction::kMean:
      return "kMean";
    case Reduction::kSum:
      return "kSum";
    case Reduction::kBatchMean:
      return "kBatchMean";
  }
  return "an unknown reduction";
}

namespace functional {
namespace {

Tensor reduce(const char* name, const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::kNone:
      return loss;
    case Reduction::kMean:
      return loss.mean();
    case Reduction::kSum:
      return loss.sum();
    default:
      EMBER_THROW(name, ": reduction ", reduction_name(r),
                  " is not supported (expected kNone, kMean or kSum)");
  }
}

void check_defined(const char* name, const Tensor& input, const Tensor& target) {
  EMBER_CHECK(input.defined() && target.defined(), name, ": input and target must be defined");
  EMBER_CHECK(input.is_floating_point(), name, ": expected a floating point input, got ",
              input.dtype());
}

// mse_loss & co broadcast the target as PyTorch does (PyTorch also warns when shapes differ).
void check_broadcast(const char* name, const Tensor& input, const Tensor& target) {
  check_defined(name, input, target);
  broadcast_shapes(name, input.sizes(), target.sizes());
}

void check_same_shape(const char* name, const Tensor& input, const Tensor& target) {
  EMBER_CHECK(input.sizes().equals(target.sizes()), name, ": expected a target of the input's ",
              "shape ", shape_str(input.sizes()), ", got ", shape_str(target.sizes()));
}

// LibTorch takes int64 or uint8 class indices; uint8 ones compute as int64.
Tensor class_indices(const Tensor& target) {
  return target.defined() && target.dtype() == kUInt8 ? target.to(kInt64) : target;
}

// The class dim (1, or 0 for an unbatched [C] input) and the checks nll_loss and the
// class-index cross_entropy share.
int64_t check_class_targets(const char* name, const Tensor& input, const Tensor& target,
                            const Tensor& weight, int64_t ignore_index) {
  check_defined(name, input, target);
  EMBER_CHECK(target.dtype() == kInt64, name, ": expected int64 class indices as target, got ",
              target.dtype());
  check_same_device(name, input, target);
  const int64_t cdim = detail::class_dim_of(name, input, target);
  const int64_t classes = input.size(cdim);
  if (weight.defined()) {
    EMBER_CHECK(weight.dim() == 1 && weight.size(0) == classes, name,
                ": expected a weight of shape [", classes, "], got ", shape_str(weight.sizes()));
    check_same_device(name, input, weight);
  }
  if (target.is_cpu()) {  // on CUDA this would need a sync; gather guards its reads there
    const Tensor t = target.contiguous();
    const int64_t* p = t.data_ptr<int64_t>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) {
      EMBER_CHECK(p[i] == ignore_index || (p[i] >= 0 && p[i] < classes), name, ": target ", p[i],
                  " is out of bounds for ", classes, " classes (ignore_index is ", ignore_index,
                  ")");
    }
  }
  return cdim;
}

// weight [C] viewed to broadcast along dim `cdim` of a tensor of `ndim` dims.
Tensor class_weight_view(const Tensor& weight, int64_t cdim, int64_t ndim) {
  DimVector shape(ndim, 1);
  shape[cdim] = weight.size(0);
  return weight.view(shape);
}

// The weight of each target (w[t], or 1) on non-ignored positions, 0 on ignored ones.
Tensor target_weights(const Tensor& target, const Tensor& weight, const Tensor& valid,
                      ScalarType dtype) {
  Tensor w = valid.to(dtype);
  if (!weight.defined()) return w;
  const Tensor safe = where(valid, target, Scalar(0));
  return w * weight.to(dtype).index_select(0, safe.reshape({-1})).view(target.sizes());
}

// log(x) clamped at -100 as PyTorch's binary_cross_entropy, with a finite gradient at 0.
Tensor clamped_log(const Tensor& x) {
  const Tensor positive = x.gt(0);
  return clamp(where(positive, log(where(positive, x, Scalar(1.0))), Scalar(-100.0)),
               Scalar(-100.0));
}

// ATen's nll_loss: [C] (unbatched), [N, C] or [N, C, d...] input; uint8 targets as int64.
Tensor nll_loss_any_dim(const Tensor& input, const Tensor& target_in,
                        const NLLLossFuncOptions& options) {
  const char* name = "nll_loss";
  const Tensor target = class_indices(target_in);
  const int64_t cdim =
      check_class_targets(name, input, target, options.weight(), options.ignore_index());
  const Tensor valid = target.ne(options.ignore_index());
  const Tensor safe = where(valid, target, Scalar(0));
  const Tensor picked = input.gather(cdim, safe.unsqueeze(cdim)).squeeze(cdim);
  const Tensor w = target_weights(target, options.weight(), valid, input.dtype());
  const Tensor losses = -(picked * w);
  if (options.reduction() != kMean) return reduce(name, losses, options.reduction());
  // PyTorch's weighted mean; with every target ignored it is NaN and the gradient 0 (dividing
  // by the zero total itself would make the gradient 0 * inf).
  const Tensor total = w.sum();
  const Tensor nonzero = total.ne(0);
  return where(nonzero, losses.sum() / where(nonzero, total, Scalar(1.0)),
               Scalar(std::numeric_limits<double>::quiet_NaN()));
}

}  // namespace

// LibTorch's C++ F::nll_loss refuses an unbatched [C] input (torch::nll_loss takes it).
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  EMBER_CHECK(!input.defined() || input.dim() >= 2, "nll_loss: expected 2 or more dimensions (got ",
              input.dim(), ")");
  return nll_loss_any_dim(input, target, options);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options) {
  EMBER_CHECK(input.defined() && target.defined(),
              "cross_entropy: input and target must be defined");
  if (!target.is_floating_point())
    return detail::cross_entropy_fused(input, class_indices(target), options);
  // Class probabilities: -sum_c w_c p_c log softmax(x)_c per position.
  const char* name = "cross_entropy";
  check_defined(name, input, target);
  check_same_shape(name, input, target);
  EMBER_CHECK(input.dim() >= 1, name, ": expected an input of 1 or more dims, got a 0-dim one");
  const int64_t cdim = input.dim() == 1 ? 0 : 1;
  const int64_t classes = input.size(cdim);
  const double eps = options.label_smoothing();
  EMBER_CHECK(eps >= 0 && eps <= 1, name, ": label_smoothing must be in [0, 1], got ", eps);
  const Tensor logp = log_softmax(input, cdim);
  const Tensor p = eps > 0 ? target * (1 - eps) + eps / classes : target;
  Tensor prod = logp * p;
  if (options.weight().defined()) {
    EMBER_CHECK(options.weight().dim() == 1 && options.weight().size(0) == classes, name,
                ": expected a weight of shape [", classes, "], got ",
                shape_str(options.weight().sizes()));
    prod = prod * class_weight_view(options.weight(), cdim, input.dim());
  }
  const Tensor losses = -prod.sum(cdim);
  if (options.reduction() == kMean) {  // over the positions, not the weights
    if (input.numel() == 0)
      return full({}, std::numeric_limits<double>::quiet_NaN(), input.options());
    return losses.sum() / static_cast<double>(input.numel() / classes);
  }
  return reduce(name, losses, options.reduction());
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  check_broadcast("mse_loss", input, target);
  const Tensor d = input - target;
  return reduce("mse_loss", d * d, options.reduction());
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  check_broadcast("l1_loss", input, target);
  return reduce("l1_loss", (input - target).abs(), options.reduction());
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options) {
  const char* name = "smooth_l1_loss";
  check_broadcast(name, input, target);
  const double beta = options.beta();
  EMBER_CHECK(beta >= 0, name, ": beta must not be negative, got ", beta);
  const Tensor d = (input - target).abs();
  if (beta == 0) return reduce(name, d, options.reduction());
  const Tensor loss = where(d.lt(beta), d * d * (0.5 / beta), d - 0.5 * beta);
  return reduce(name, loss, options.reduction());
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options) {
  const char* name = "binary_cross_entropy";
  check_defined(name, input, target);
  check_same_shape(name, input, target);
  // As LibTorch's CPU kernel: inputs outside [0, 1] are an error (NaN passes, as there). On
  // CUDA, where LibTorch raises a device-side assert, the check would cost a synchronization:
  // there the loss comes out NaN instead.
  if (input.is_cpu() && input.numel() > 0) {
    NoGradGuard no_grad;
    EMBER_CHECK(!logical_or(input<0, input> 1).any().item<bool>(), name,
                ": all elements of input should be between 0 and 1");
  }
  Tensor loss = -(target * clamped_log(input) + (1 - target) * clamped_log(1 - input));
  if (options.weight().defined()) loss = loss * options.weight();
  return reduce(name, loss, options.reduction());
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  const char* name = "binary_cross_entropy_with_logits";
  check_defined(name, input, target);
  check_same_shape(name, input, target);
  // log(1 + exp(-x)) = m + log(exp(-m) + exp(-x - m)) with m = max(-x, 0): no overflow, and
  // the gradient is right at x == 0 whatever relu's subgradient there.
  const Tensor m = relu(-input);
  const Tensor softplus_neg = m + log(exp(-m) + exp(-input - m));
  Tensor loss;
  if (options.pos_weight().defined()) {
    const Tensor log_weight = (options.pos_weight() - 1) * target + 1;
    loss = (1 - target) * input + log_weight * softplus_neg;
  } else {
    loss = (1 - target) * input + softplus_neg;
  }
  if (options.weight().defined()) loss = loss * options.weight();
  return reduce(name, loss, options.reduction());
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  const char* name = "kl_div";
  check_defined(name, input, target);
  Tensor loss;
  if (options.log_target()) {
    loss = target.exp() * (target - input);
  } else {  // xlogy(t, t) - t * input, with 0 log 0 = 0
    const Tensor positive = target.gt(0);
    loss = target * log(where(positive, target, Scalar(1.0))) - target * input;
  }
  if (options.reduction() == kBatchMean) {
    const Tensor total = loss.sum();
    return input.dim() == 0 ? total : total / static_cast<double>(input.size(0));
  }
  return reduce(name, loss, options.reduction());
}

namespace detail {

int64_t class_dim_of(const char* name, const Tensor& input, const Tensor& target) {
  EMBER_CHECK(input.dim() >= 1, name, ": expected an input of 1 or more dims, got a 0-dim one");
  const int64_t cdim = input.dim() == 1 ? 0 : 1;
  DimVector expected(input.sizes());
  expected.erase(static_cast<size_t>(cdim));
  EMBER_CHECK(target.sizes().equals(expected), name, ": expected a target of shape ",
              shape_str(expected), " for input of shape ", shape_str(input.sizes()), ", got ",
              shape_str(target.sizes()));
  return cdim;
}

Tensor cross_entropy_composite(const Tensor& input, const Tensor& target,
                               const CrossEntropyFuncOptions& options) {
  const char* name = "cross_entropy";
  const Tensor& weight = options.weight();
  const int64_t cdim = check_class_targets(name, input, target, weight, options.ignore_index());
  const double eps = options.label_smoothing();
  EMBER_CHECK(eps >= 0 && eps <= 1, name, ": label_smoothing must be in [0, 1], got ", eps);
  const Tensor logp = log_softmax(input, cdim);
  const Tensor nll = nll_loss_any_dim(logp, target,
                                      NLLLossOptions()
                                          .weight(weight)
                                          .ignore_index(options.ignore_index())
                                          .reduction(options.reduction()));
  if (eps == 0) return nll;
  // PyTorch's smoothing term: -sum_c w_c log p_c per position, 0 where ignored, and the mean
  // divided by nll_loss's denominator (the target weights of the non-ignored positions).
  const Tensor weighted =
      weight.defined() ? logp * class_weight_view(weight, cdim, input.dim()) : logp;
  const Tensor valid = target.ne(options.ignore_index());
  const Tensor smooth = where(valid, -weighted.sum(cdim), Scalar(0.0));
  Tensor term;
  if (options.reduction() == kMean) {
    term = smooth.sum() / target_weights(target, weight, valid, input.dtype()).sum();
  } else {
    term = reduce(name, smooth, options.reduction());
  }
  const int64_t classes = input.size(cdim);
  return nll * (1 - eps) + term * (eps / classes);
}

}  // namespace detail
}  // namespace functional
}  // namespace nn

// ---- the ATen forms ----
namespace F = nn::functional;

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight,
                          nn::Reduction reduction, int64_t ignore_index, double label_smoothing) {
  return F::cross_entropy(self, target,
                          F::CrossEntropyFuncOptions()
                              .weight(weight)
                              .reduction(reduction)
                              .ignore_index(ignore_index)
                              .label_smoothing(label_smoothing));
}
Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight,
                nn::Reduction reduction, int64_t ignore_index) {
  return F::nll_loss_any_dim(
      self, target,
      F::NLLLossFuncOptions().weight(weight).reduction(reduction).ignore_index(ignore_index));
}
Tensor mse_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction) {
  return F::mse_loss(self, target, reduction);
}
Tensor l1_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction) {
  return F::l1_loss(self, target, reduction);
}
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, nn::Reduction reduction,
                      double beta) {
  return F::smooth_l1_loss(self, target, F::SmoothL1LossFuncOptions(reduction).beta(beta));
}
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight,
                            nn::Reduction reduction) {
  return F::binary_cross_entropy(
      self, target, F::BinaryCrossEntropyFuncOptions().weight(weight).reduction(reduction));
}
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const Tensor& weight, const Tensor& pos_weight,
                                        nn::Reduction reduction) {
  return F::binary_cross_entropy_with_logits(self, target,
                                             F::BinaryCrossEntropyWithLogitsFuncOptions()
                                                 .weight(weight)
                                                 .pos_weight(pos_weight)
                                                 .reduction(reduction));
}
Tensor kl_div(const Tensor& self, const Tensor& target, nn::Reduction reduction, bool log_target) {
  return F::kl_div(self, target, F::KLDivFuncOptions(reduction).log_target(log_target));
}

}  // namespace ember
