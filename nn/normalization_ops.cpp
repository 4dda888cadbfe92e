// ember::batch_norm, group_norm and instance_norm (nn/layer_ops.h) as composites of public
// tensor ops, so every device runs them and autograd (double backward included) comes for
// free. Semantics and messages follow PyTorch's. Each normalizes with statistics reduced to a
// small tensor and then applies y = x * scale + shift, scale and shift folded from the
// statistics, weight and bias on that small tensor: two passes over x after the reductions.
#include <cstdint>
#include <string>

#include <ember/autograd/grad_mode.h>
#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/nn/layer_ops.h>

namespace ember {
namespace {

void check_input(const char* op, const Tensor& input) {
  EMBER_CHECK(input.defined(), op, ": input must be defined");
  EMBER_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dims [N, C, *], got ",
              shape_str(input.sizes()));
  EMBER_CHECK(input.is_floating_point(), op, ": expected a floating-point input, got ",
              input.dtype());
}

// A per-channel tensor (weight, bias, running stats) must hold input.size(1) values.
void check_channels(const char* op, const char* what, const Tensor& t, const Tensor& input) {
  if (!t.defined()) return;
  const int64_t channels = input.size(1);
  EMBER_CHECK(t.numel() == channels, op, ": ", what, " should contain ", channels, " elements not ",
              t.numel(), " (input of shape ", shape_str(input.sizes()), ")");
  EMBER_CHECK(t.device() == input.device(), op, ": expected ", what, " on the input's device ",
              input.device(), ", got ", t.device());
}

// A per-channel tensor as [C] (a view of it: in-place updates reach the caller's tensor).
Tensor as_channels(const Tensor& t) {
  return !t.defined() || t.dim() == 1 ? t : t.view({t.numel()});
}

// [1, C, 1, ...] (or [N, C, 1, ...] with batch > 0), to broadcast [C] or [N, C] over input.
DimVector channel_view(const Tensor& input, int64_t batch) {
  DimVector shape(static_cast<size_t>(input.dim()), 1);
  shape[0] = batch;
  shape[1] = input.size(1);
  return shape;
}

// running = (1 - momentum) running + momentum stat, in place, without history.
void update_running(Tensor running, const Tensor& stat, double momentum) {
  NoGradGuard no_grad;
  running.mul_(1.0 - momentum);
  running.add_(stat.detach().to(running.dtype()), momentum);
}

// y = x * scale + shift, with scale = weight / sqrt(var + eps) and shift = bias - mean scale
// computed on the statistics' shape (view_shape gives their broadcast over x).
Tensor scale_shift(const Tensor& input, const Tensor& mean, const Tensor& var, const Tensor& weight,
                   const Tensor& bias, double eps, IntArrayRef view_shape) {
  Tensor scale = (var + eps).rsqrt();
  if (weight.defined()) scale = scale * weight;
  Tensor shift = mean * scale;
  shift = bias.defined() ? bias - shift : shift.neg();
  return input * scale.reshape(view_shape) + shift.reshape(view_shape);
}

// The dims of input past the first `first` (the reduction dims of the statistics).
DimVector dims_from(const Tensor& input, int64_t first, bool with_batch) {
  DimVector dims;
  if (with_batch) dims.push_back(0);
  for (int64_t d = first; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  const char* op = "batch_norm";
  check_input(op, input);
  const int64_t channels = input.size(1);
  check_channels(op, "running_mean", running_mean, input);
  check_channels(op, "running_var", running_var, input);
  check_channels(op, "weight", weight, input);
  check_channels(op, "bias", bias, input);
  EMBER_CHECK(training || running_mean.defined(), op,
              ": running_mean must be defined in evaluation mode");
  EMBER_CHECK(training || running_var.defined(), op,
              ": running_var must be defined in evaluation mode");
  if (training) {
    const int64_t per_channel = channels > 0 ? input.numel() / channels : 0;
    EMBER_CHECK(per_channel != 1, op,
                ": Expected more than 1 value per channel when training, got input size ",
                shape_str(input.sizes()));
  }
  if (input.numel() == 0) {
    // As PyTorch: a new (empty) tensor that keeps weight and bias in the graph.
    Tensor out = input.clone();
    if (weight.defined() && weight.numel() > 0) out = out * weight.reshape({-1})[0];
    if (bias.defined() && bias.numel() > 0) out = out + bias.reshape({-1})[0];
    return out;
  }
  const DimVector view = channel_view(input, 1);
  const Tensor w = as_channels(weight);
  const Tensor b = as_channels(bias);
  if (!training) {
    return scale_shift(input, as_channels(running_mean).to(input.dtype()),
                       as_channels(running_var).to(input.dtype()), w, b, eps, view);
  }
  // Two reductions over x (mean, biased variance), each to [C].
  const DimVector dims = dims_from(input, 2, /*with_batch=*/true);
  const Tensor mean = input.mean(dims);
  const Tensor var = input.var(dims, /*unbiased=*/false);
  if (running_mean.defined()) update_running(as_channels(running_mean), mean, momentum);
  if (running_var.defined()) {
    const double n = static_cast<double>(input.numel() / channels);
    update_running(as_channels(running_var), var * (n / (n - 1.0)), momentum);
  }
  return scale_shift(input, mean, var, w, b, eps, view);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  const char* op = "group_norm";
  check_input(op, input);
  const int64_t n = input.size(0);
  const int64_t channels = input.size(1);
  EMBER_CHECK(num_groups > 0, op, ": num_groups must be positive, got ", num_groups);
  EMBER_CHECK(channels % num_groups == 0, op,
              ": Expected number of channels in input to be divisible by num_groups, but got "
              "input of shape ",
              shape_str(input.sizes()), " and num_groups=", num_groups);
  for (const Tensor* t : {&weight, &bias}) {
    EMBER_CHECK(!t->defined() || (t->dim() == 1 && t->numel() == channels), op, ": Expected ",
                t == &weight ? "weight" : "bias",
                " to be a vector of size equal to the number of channels in input, but got ",
                t == &weight ? "weight" : "bias", " of shape ", shape_str(t->sizes()),
                " and input of shape ", shape_str(input.sizes()));
  }
  if (input.numel() == 0) return input.clone();
  // Statistics per (sample, group): [N, G, 1], then spread to the group's channels [N, C].
  const Tensor grouped = input.reshape({n, num_groups, -1});
  const Tensor mean = grouped.mean({2}, /*keepdim=*/true);
  const Tensor var = grouped.var({2}, /*unbiased=*/false, /*keepdim=*/true);
  const int64_t per_group = channels / num_groups;
  const Tensor mean_c = mean.expand({n, num_groups, per_group}).reshape({n, channels});
  const Tensor var_c = var.expand({n, num_groups, per_group}).reshape({n, channels});
  return scale_shift(input, mean_c, var_c, weight, bias, eps, channel_view(input, n));
}

Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool use_input_stats,
                     double momentum, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  const char* op = "instance_norm";
  check_input(op, input);
  const int64_t n = input.size(0);
  check_channels(op, "running_mean", running_mean, input);
  check_channels(op, "running_var", running_var, input);
  check_channels(op, "weight", weight, input);
  check_channels(op, "bias", bias, input);
  EMBER_CHECK(use_input_stats || (running_mean.defined() && running_var.defined()), op,
              ": Expected running_mean and running_var to be defined when use_input_stats is "
              "false");
  int64_t spatial = 1;
  for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
  if (use_input_stats) {
    EMBER_CHECK(spatial != 1, op, ": Expected more than 1 spatial element when training, got ",
                "input size ", shape_str(input.sizes()));
  }
  if (input.numel() == 0) return input.clone();
  const Tensor w = as_channels(weight);
  const Tensor b = as_channels(bias);
  if (!use_input_stats) {
    return scale_shift(input, as_channels(running_mean).to(input.dtype()),
                       as_channels(running_var).to(input.dtype()), w, b, eps,
                       channel_view(input, 1));
  }
  // Statistics per (sample, channel): [N, C]. The running stats take their batch average, as
  // PyTorch's instance_norm (batch_norm over [1, N C, *] on repeated stats, then a mean over N).
  const DimVector dims = dims_from(input, 2, /*with_batch=*/false);
  const Tensor mean = input.mean(dims);
  const Tensor var = input.var(dims, /*unbiased=*/false);
  if (running_mean.defined()) {
    update_running(as_channels(running_mean), mean.detach().mean({0}), momentum);
  }
  if (running_var.defined()) {
    const double s = static_cast<double>(spatial);
    update_running(as_channels(running_var), var.detach().mean({0}) * (s / (s - 1.0)), momentum);
  }
  return scale_shift(input, mean, var, w, b, eps, channel_view(input, n));
}

}  // namespace ember
