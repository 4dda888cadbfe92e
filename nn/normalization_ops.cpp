// ember::batch_norm, group_norm and instance_norm (nn/layer_ops.h). Training-mode batch norm
// (and instance norm with input statistics, a batch norm over [1, N C, *]) runs the batch_norm
// kernels of core/ops.def: one statistics pass and one normalizing pass forward, one reduction
// and one elementwise pass backward; under create_graph its backward is written with public
// ops instead, so double backward records. Evaluation mode and group_norm are composites of
// public ops (statistics on a small tensor, then y = x * scale + shift). Semantics and
// messages follow PyTorch's.
#include <cstdint>
#include <string>
#include <tuple>

#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/nn/layer_ops.h>

namespace ember {
namespace {

using autograd::tensor_list;

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

// batch_norm's and instance_norm's checks: the input, then each per-channel tensor given.
void check_stats_input(const char* op, const Tensor& input, const Tensor& weight,
                       const Tensor& bias, const Tensor& running_mean, const Tensor& running_var) {
  check_input(op, input);
  check_channels(op, "running_mean", running_mean, input);
  check_channels(op, "running_var", running_var, input);
  check_channels(op, "weight", weight, input);
  check_channels(op, "bias", bias, input);
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

// ---- training-mode batch norm over the batch_norm kernels ----

// The backward of y = (x - mean) invstd w + b over x [N, C, S] with batch statistics, written
// with public ops (so that create_graph records it): the statistics are recomputed from x,
// which makes the second derivative see their dependence on x.
tensor_list batch_norm_backward_composite(const Tensor& dy, const Tensor& x, const Tensor& w,
                                          double eps, bool need_x, bool need_w, bool need_b) {
  const DimVector dims = {0, 2};
  const Tensor mean = x.mean(dims, /*keepdim=*/true);
  const Tensor invstd = (x.var(dims, /*unbiased=*/false, /*keepdim=*/true) + eps).rsqrt();
  const Tensor xhat = (x - mean) * invstd;
  tensor_list grads(3);
  if (need_x) {
    const Tensor gy = w.defined() ? dy * w.view({1, -1, 1}) : dy;
    grads[0] = invstd * (gy - gy.mean(dims, true) - xhat * (gy * xhat).mean(dims, true));
  }
  if (need_w) grads[1] = (dy * xhat).sum(dims);
  if (need_b) grads[2] = dy.sum(dims);
  return grads;
}

// y = (x - mean) / sqrt(var + eps) * weight + bias over the input grouped as `groups` = [A, C, S]
// (batch norm: [N, C, S]; instance norm: [1, N C, S]), with the biased statistics of each of
// the C channels; returns y in the input's shape (a tensor of its own, not a view, so that
// in-place ops on it work), with its node when anything requires grad, and the mean and the
// biased var [C] (no history). weight and bias are [C] or undefined.
std::tuple<Tensor, Tensor, Tensor> batch_norm_train(const Tensor& input, IntArrayRef groups,
                                                    const Tensor& weight, const Tensor& bias,
                                                    double eps) {
  const Device dev = input.device();
  const ScalarType dt = input.dtype();
  const int64_t channels = groups[1];
  const DimVector shape(groups);
  Tensor mean = empty_on({channels}, dt, dev);
  Tensor var = empty_on({channels}, dt, dev);
  Tensor invstd = empty_on({channels}, dt, dev);
  Tensor out = empty_on(input.sizes(), dt, dev);
  // [C] operands as the kernels take them: the input's dtype, contiguous, no history.
  auto plain = [dt](const Tensor& t) { return t.defined() ? t.detach().to(dt).contiguous() : t; };
  const Tensor x = input.detach().contiguous().view(shape);
  native::batch_norm_stats(mean, var, invstd, x, eps);
  native::batch_norm_apply(out.view(shape), x, mean, invstd, plain(weight), plain(bias));
  if (!autograd::should_record(input, weight, bias)) return {out, mean, var};
  using autograd::FunctionNode;
  out = autograd::record(
      "NativeBatchNormBackward0", "batch_norm", {input, weight, bias}, out,
      {input, weight, mean, invstd},
      [eps, plain, shape](FunctionNode& n, const tensor_list& g) -> tensor_list {
        const Tensor in = n.saved(0), w = n.saved(1);
        const bool need_x = n.should_compute_output(0);
        const bool need_w = n.should_compute_output(1), need_b = n.should_compute_output(2);
        if (GradMode::is_enabled()) {
          tensor_list grads = batch_norm_backward_composite(g[0].reshape(shape), in.reshape(shape),
                                                            w, eps, need_x, need_w, need_b);
          if (need_x) grads[0] = grads[0].reshape(in.sizes());
          return grads;
        }
        const Tensor dy = g[0].contiguous().view(shape);
        const Tensor xs = in.contiguous().view(shape);
        const Tensor mu = n.saved(2), istd = n.saved(3);
        const Device d = dy.device();
        const int64_t c = shape[1];
        Tensor sum_dy = empty_on({c}, dy.dtype(), d), sum_dy_xmu = empty_on({c}, dy.dtype(), d);
        native::batch_norm_backward_reduce(sum_dy, sum_dy_xmu, dy, xs, mu);
        tensor_list grads(3);
        if (need_x) {
          grads[0] = empty_on(in.sizes(), dy.dtype(), d);
          native::batch_norm_backward_apply(grads[0].view(shape), dy, xs, mu, istd, plain(w),
                                            sum_dy, sum_dy_xmu);
        }
        if (need_w) grads[1] = (sum_dy_xmu * istd).to(w.dtype());
        if (need_b) grads[2] = sum_dy;
        return grads;
      });
  return {out, mean, var};
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled) {
  (void)cudnn_enabled;
  const char* op = "batch_norm";
  check_stats_input(op, input, weight, bias, running_mean, running_var);
  const int64_t channels = input.size(1);
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
  Tensor out, mean, var;
  if (input.dtype() == kFloat32 || input.dtype() == kFloat64) {
    const int64_t spatial = input.numel() / (input.size(0) * channels);
    std::tie(out, mean, var) =
        batch_norm_train(input, {input.size(0), channels, spatial}, w, b, eps);
  } else {  // other floating dtypes (the kernels take float32 and float64): the composite
    const DimVector dims = dims_from(input, 2, /*with_batch=*/true);
    mean = input.mean(dims);
    var = input.var(dims, /*unbiased=*/false);
    out = scale_shift(input, mean, var, w, b, eps, view);
  }
  if (running_mean.defined()) update_running(as_channels(running_mean), mean, momentum);
  if (running_var.defined()) {
    const double n = static_cast<double>(input.numel() / channels);
    update_running(as_channels(running_var), var * (n / (n - 1.0)), momentum);
  }
  return out;
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
  check_stats_input(op, input, weight, bias, running_mean, running_var);
  const int64_t n = input.size(0);
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
  // Statistics per (sample, channel): as PyTorch, a batch norm over [1, N C, *] with weight and
  // bias repeated N times; the running stats take the statistics' average over N.
  const int64_t channels = input.size(1);
  Tensor mean, var, out;
  if (input.dtype() == kFloat32 || input.dtype() == kFloat64) {
    auto repeat = [&](const Tensor& t) {
      return t.defined() ? t.unsqueeze(0).expand({n, channels}).reshape({n * channels}) : t;
    };
    std::tie(out, mean, var) =
        batch_norm_train(input, {1, n * channels, spatial}, repeat(w), repeat(b), eps);
    mean = mean.view({n, channels});
    var = var.view({n, channels});
  } else {
    const DimVector dims = dims_from(input, 2, /*with_batch=*/false);
    mean = input.mean(dims);
    var = input.var(dims, /*unbiased=*/false);
    out = scale_shift(input, mean, var, w, b, eps, channel_view(input, n));
  }
  if (running_mean.defined()) {
    update_running(as_channels(running_mean), mean.detach().mean({0}), momentum);
  }
  if (running_var.defined()) {
    const double s = static_cast<double>(spatial);
    update_running(as_channels(running_var), var.detach().mean({0}) * (s / (s - 1.0)), momentum);
  }
  return out;
}

}  // namespace ember
