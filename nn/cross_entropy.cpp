// The fused cross entropy's front-end (class-index targets): validation, the reshape of
// [N, C, d...] inputs to rows of C logits, the kernel calls of core/ops.def's cross_entropy
// and cross_entropy_backward, and the autograd node. A backward run with create_graph
// uses the same gradient written with public ops, so double backward works.
#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/nn/functional_loss.h>

namespace ember::nn::functional::detail {
namespace {

constexpr const char* kName = "cross_entropy";

int64_t reduction_code(Reduction r) {
  EMBER_CHECK(r == kNone || r == kMean || r == kSum, kName, ": reduction ", reduction_name(r),
              " is not supported (expected kNone, kMean or kSum)");
  return static_cast<int64_t>(r);  // 0 none, 1 mean, 2 sum: the kernels' codes
}

// Class indices are checked on the host for CPU tensors only: on CUDA it would cost a
// device-to-host copy and a sync, so the kernels make such rows NaN instead.
void check_targets(const Tensor& target, int64_t classes, int64_t ignore_index) {
  if (!target.is_cpu()) return;
  const int64_t* t = target.data_ptr<int64_t>();
  for (int64_t i = 0, n = target.numel(); i < n; ++i) {
    EMBER_CHECK(t[i] == ignore_index || (t[i] >= 0 && t[i] < classes), kName, ": target ", t[i],
                " is out of bounds for ", classes, " classes (ignore_index is ", ignore_index, ")");
  }
}

// d loss / d x of the rows x [M, C] from public ops (used under create_graph): with
// q_c = (1 - eps) w_t [c == t] + eps / C w_c on non-ignored rows (0 on ignored ones) and
// s = sum_c q_c, the gradient is scale * (softmax(x) * s - q).
Tensor composite_grad(const Tensor& grad, const Tensor& x, const Tensor& target,
                      const Tensor& weight, const Tensor& aux, const CrossEntropyArgs& args) {
  const int64_t classes = x.size(1);
  const double eps = args.label_smoothing;
  const Tensor valid = target.ne(args.ignore_index);
  const Tensor safe = where(valid, target, Scalar(0));
  const Tensor validf = valid.to(x.dtype());
  Tensor coef = validf * (1 - eps);
  if (weight.defined()) coef = coef * weight.index_select(0, safe);
  Tensor q = ember::one_hot(safe, classes).to(x.dtype()) * coef.unsqueeze(1);
  if (eps > 0) {
    const Tensor per_class = weight.defined() ? weight.unsqueeze(0) : ones_like(x);
    q = q + per_class * validf.unsqueeze(1) * (eps / classes);
  }
  const Tensor s = q.sum(1, true);
  Tensor scale = grad;
  if (args.reduction == 0) scale = grad.unsqueeze(1);
  if (args.reduction == 1) scale = grad / aux.select(0, 0);
  return (softmax(x, 1) * s - q) * scale;
}

// The kernels on rows: x [M, C], t [M], w [C] or undefined, all contiguous.
Tensor fused_rows(const Tensor& x, const Tensor& t, const Tensor& w, const CrossEntropyArgs& args) {
  const int64_t rows = x.size(0);
  const Device device = x.device();
  Tensor out =
      args.reduction == 0 ? empty_on({rows}, x.dtype(), device) : empty_on({}, x.dtype(), device);
  Tensor lse = empty_on({rows}, x.dtype(), device);
  Tensor aux = empty_on({2}, x.dtype(), device);
  native::cross_entropy(out, lse, aux, x, t, w, args);
  if (!autograd::should_record(x)) return out;
  const bool has_weight = w.defined();
  return autograd::record(
      "CrossEntropyLossBackward0", kName, {x}, out, {x, t, w, lse, aux},
      [args, has_weight](autograd::FunctionNode& n,
                         const autograd::tensor_list& g) -> autograd::tensor_list {
        const Tensor x = n.saved(0), t = n.saved(1), lse = n.saved(3), aux = n.saved(4);
        const Tensor w = has_weight ? n.saved(2) : Tensor();
        if (GradMode::is_enabled()) return {composite_grad(g[0], x, t, w, aux, args)};
        Tensor grad_input = empty_on(x.sizes(), x.dtype(), x.device());
        const Tensor grad = g[0].dtype() == x.dtype() ? g[0].contiguous() : g[0].to(x.dtype());
        native::cross_entropy_backward(grad_input, grad.contiguous(), x, t, w, lse, aux, args);
        return {grad_input};
      });
}

}  // namespace

Tensor cross_entropy_fused(const Tensor& input, const Tensor& target,
                           const CrossEntropyFuncOptions& options) {
  EMBER_CHECK(input.defined() && target.defined(), kName, ": input and target must be defined");
  EMBER_CHECK(input.dtype() == kFloat32 || input.dtype() == kFloat64, kName,
              ": expected float32 or float64 logits, got ", input.dtype());
  EMBER_CHECK(target.dtype() == kInt64, kName, ": expected int64 class indices as target, got ",
              target.dtype(), " (class probabilities must have the input's shape ",
              shape_str(input.sizes()), ")");
  check_same_device(kName, input, target);
  const int64_t classes = input.size(class_dim_of(kName, input, target));
  EMBER_CHECK(classes > 0, kName, ": input of shape ", shape_str(input.sizes()), " has no classes");
  const Tensor& weight = options.weight();
  if (weight.defined()) {
    EMBER_CHECK(weight.dim() == 1 && weight.size(0) == classes, kName,
                ": expected a weight of shape [", classes, "], got ", shape_str(weight.sizes()));
    EMBER_CHECK(weight.is_floating_point(), kName, ": expected a floating point weight, got ",
                weight.dtype());
    check_same_device(kName, input, weight);
  }
  const double eps = options.label_smoothing();
  EMBER_CHECK(eps >= 0 && eps <= 1, kName, ": label_smoothing must be in [0, 1], got ", eps);
  CrossEntropyArgs args;
  args.reduction = reduction_code(options.reduction());
  args.ignore_index = options.ignore_index();
  args.label_smoothing = eps;

  // Rows of C logits: [N, C, d...] -> [N, d..., C] -> [M, C] (a copy; recorded as views).
  Tensor x = input;
  if (input.dim() == 1) {
    x = input.unsqueeze(0);
  } else if (input.dim() > 2) {
    DimVector perm;
    perm.push_back(0);
    for (int64_t d = 2; d < input.dim(); ++d) perm.push_back(d);
    perm.push_back(1);
    x = input.permute(perm).reshape({-1, classes});
  }
  x = x.contiguous();
  const Tensor t = target.reshape({-1}).contiguous();
  check_targets(t, classes, args.ignore_index);
  const Tensor w = weight.defined() ? weight.detach().to(input.dtype()).contiguous() : Tensor();
  Tensor out = fused_rows(x, t, w, args);
  return args.reduction == 0 && input.dim() != 2 ? out.view(target.sizes()) : out;
}

}  // namespace ember::nn::functional::detail
