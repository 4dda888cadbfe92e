// clip_grad_norm_ and clip_grad_value_ over the public Tensor API, as PyTorch: the total norm
// is the norm of the per-gradient norms, and each gradient is scaled by
// min(1, max_norm / (total + 1e-6)) as a device tensor (no_sync_: no value travels to the host).
#include <ember/nn/clip_grad.h>

#include <cmath>
#include <limits>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember {
namespace nn {
namespace utils {

Tensor clip_grad_norm_no_sync_(const std::vector<Tensor>& parameters, double max_norm,
                               double norm_type, bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  grads.reserve(parameters.size());
  for (const Tensor& p : parameters) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return scalar_tensor(0.0);
  const Device device = grads[0].device();
  for (const Tensor& g : grads) {
    EMBER_CHECK(g.device() == device, "clip_grad_norm_: gradients on ", device, " and ", g.device(),
                "; all must be on one device");
  }
  const bool inf_norm = std::isinf(norm_type) && norm_type > 0;
  Tensor total;
  if (grads.size() == 1) {
    total = inf_norm ? grads[0].abs().amax() : grads[0].norm(norm_type);
  } else {
    std::vector<Tensor> norms;
    norms.reserve(grads.size());
    // float64 gradients next to float32 ones: the stack takes the widest dtype
    for (const Tensor& g : grads) norms.push_back(inf_norm ? g.abs().amax() : g.norm(norm_type));
    const ScalarType dt = norms[0].dtype();
    bool mixed = false;
    for (const Tensor& n : norms) mixed |= n.dtype() != dt;
    if (mixed)
      for (Tensor& n : norms) n = n.to(kFloat64);
    Tensor stacked = stack(norms);
    total = inf_norm ? stacked.amax() : stacked.norm(norm_type);
  }
  if (error_if_nonfinite) {
    const double v = total.item<double>();
    EMBER_CHECK(std::isfinite(v), "clip_grad_norm_: the total norm of order ", norm_type,
                " for gradients from `parameters` is non-finite, so it cannot be clipped. To "
                "disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=false`");
  }
  // clip_coef = min(max_norm / (total + 1e-6), 1), kept on the device
  Tensor coef = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (Tensor& g : grads) g.mul_(coef.dtype() == g.dtype() ? coef : coef.to(g.dtype()));
  return total;
}

Tensor clip_grad_norm_no_sync_(std::initializer_list<Tensor> parameters, double max_norm,
                               double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_no_sync_(std::vector<Tensor>(parameters), max_norm, norm_type,
                                 error_if_nonfinite);
}

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_no_sync_(parameters, max_norm, norm_type, error_if_nonfinite)
      .item<double>();
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    if (!p.defined() || !p.grad().defined()) continue;
    p.mutable_grad().clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace utils
}  // namespace nn
}  // namespace ember
