// The convolution front-ends of nn/layer_ops.h: validation with LibTorch's messages, "same"
// padding, unbatched and 1-d inputs as views of the 2-d case, and three differentiable
// primitives over core/ops.def's kernels (conv2d, conv2d_backward_input = the transposed
// convolution, conv2d_backward_weight). Each primitive's gradients are the other two, so
// create_graph records a double backward of any order.
#include <algorithm>
#include <string>

#include <ember/autograd/function_node.h>
#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/native.h>
#include <ember/nn/layer_ops.h>

namespace ember {
namespace {

using autograd::FunctionNode;
using autograd::tensor_list;

// ---- the three primitives: contiguous 4-d operands of one float dtype and device ----

Tensor conv_input_grad(const Tensor& grad_out, const Tensor& weight, IntArrayRef input_sizes,
                       const ConvArgs& args, const char* node_name);
Tensor conv_weight_grad(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_sizes,
                        const ConvArgs& args);

DimVector conv_out_sizes(IntArrayRef in, IntArrayRef w, const ConvArgs& a) {
  DimVector s{in[0], w[0], 0, 0};
  for (int i = 0; i < 2; ++i) {
    s[2 + i] =
        (in[2 + i] + 2 * a.padding[i] - a.dilation[i] * (w[2 + i] - 1) - 1) / a.stride[i] + 1;
  }
  return s;
}

// y = conv(x, w) + b. Gradients: x <- conv_input_grad(g, w), w <- conv_weight_grad(g, x),
// b <- g summed over N, H, W.
Tensor conv_primitive(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& args) {
  Tensor out = empty_on(conv_out_sizes(x.sizes(), w.sizes(), args), x.dtype(), x.device());
  native::conv2d(out, x, w, b, args);
  if (!autograd::should_record(x, w, b)) return out;
  return autograd::record(
      "ConvolutionBackward0", "conv2d", {x, w, b}, out,
      {autograd::needs_grad(w) ? x : Tensor(), autograd::needs_grad(x) ? w : Tensor()},
      [args](FunctionNode& n, const tensor_list& g) -> tensor_list {
        const Tensor go = g[0].contiguous();
        tensor_list r(3);
        if (n.should_compute_output(0)) {
          r[0] = conv_input_grad(go, n.saved(1), n.input_sizes(0), args,
                                 "ConvolutionBackwardBackward0");
        }
        if (n.should_compute_output(1))
          r[1] = conv_weight_grad(go, n.saved(0), n.input_sizes(1), args);
        if (n.should_compute_output(2)) r[2] = go.sum({0, 2, 3});
        return r;
      });
}

// gx = conv^T(g, w) of shape input_sizes. Gradients: g <- conv(h, w), w <- conv_weight_grad(g, h).
Tensor conv_input_grad(const Tensor& grad_out, const Tensor& weight, IntArrayRef input_sizes,
                       const ConvArgs& args, const char* node_name) {
  Tensor out = empty_on(input_sizes, grad_out.dtype(), grad_out.device());
  native::conv2d_backward_input(out, grad_out, weight, args);
  if (!autograd::should_record(grad_out, weight)) return out;
  return autograd::record(node_name, "conv_transpose2d", {grad_out, weight}, out,
                          {autograd::needs_grad(weight) ? grad_out : Tensor(),
                           autograd::needs_grad(grad_out) ? weight : Tensor()},
                          [args](FunctionNode& n, const tensor_list& g) -> tensor_list {
                            const Tensor h = g[0].contiguous();
                            tensor_list r(2);
                            if (n.should_compute_output(0))
                              r[0] = conv_primitive(h, n.saved(1), Tensor(), args);
                            if (n.should_compute_output(1))
                              r[1] = conv_weight_grad(n.saved(0), h, n.input_sizes(1), args);
                            return r;
                          });
}

// gw[o, c, kh, kw] = sum g[n, o, ., .] x[n, c, ., .] shifted. Gradients: g <- conv(x, h),
// x <- conv_input_grad(g, h).
Tensor conv_weight_grad(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_sizes,
                        const ConvArgs& args) {
  Tensor out = empty_on(weight_sizes, grad_out.dtype(), grad_out.device());
  native::conv2d_backward_weight(out, grad_out, input, args);
  if (!autograd::should_record(grad_out, input)) return out;
  return autograd::record("ConvolutionBackwardBackward0", "conv2d_backward_weight",
                          {grad_out, input}, out,
                          {autograd::needs_grad(input) ? grad_out : Tensor(),
                           autograd::needs_grad(grad_out) ? input : Tensor()},
                          [args](FunctionNode& n, const tensor_list& g) -> tensor_list {
                            const Tensor h = g[0].contiguous();
                            tensor_list r(2);
                            if (n.should_compute_output(0))
                              r[0] = conv_primitive(n.saved(1), h, Tensor(), args);
                            if (n.should_compute_output(1)) {
                              r[1] = conv_input_grad(n.saved(0), h, n.input_sizes(1), args,
                                                     "ConvolutionBackwardBackward0");
                            }
                            return r;
                          });
}

// ---- validation ----

// A 1- or n-element int list expanded to n values, as LibTorch's expand_param_if_needed.
void expand(const char* op, const char* what, IntArrayRef v, int n, int64_t* out) {
  EMBER_CHECK(v.size() == 1 || static_cast<int>(v.size()) == n, op, ": expected ", what,
              " to be a single integer value or a list of ", n,
              " values to match the convolution "
              "dimensions, but got ",
              what, "=", shape_str(v));
  for (int i = 0; i < n; ++i) out[i] = v.size() == 1 ? v[0] : v[i];
}

void check_float_operands(const char* op, const Tensor& input, const Tensor& weight,
                          const Tensor& bias) {
  EMBER_CHECK(input.defined() && weight.defined(), op, ": input and weight must be defined");
  EMBER_CHECK(input.dtype() == kFloat32 || input.dtype() == kFloat64, op,
              ": expected a float32 or float64 input, got ", input.dtype());
  EMBER_CHECK(weight.dtype() == input.dtype(), op, ": input type (", input.dtype(),
              ") and weight type (", weight.dtype(), ") should be the same");
  check_same_device(op, input, weight);
  if (bias.defined()) {
    EMBER_CHECK(bias.dtype() == input.dtype(), op, ": input type (", input.dtype(),
                ") and bias type (", bias.dtype(), ") should be the same");
    check_same_device(op, input, bias);
  }
}

// dims: 1 or 2 (spatial dims of the op). Returns whether the input was unbatched.
bool check_conv_dims(const char* op, const Tensor& input, const Tensor& weight, int dims) {
  EMBER_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, op, ": expected ", dims + 1,
              "D (unbatched) or ", dims + 2,
              "D (batched) input, but got input of size: ", shape_str(input.sizes()));
  EMBER_CHECK(weight.dim() == dims + 2, op, ": expected a ", dims + 2,
              "D weight, but got weight of size ", shape_str(weight.sizes()));
  return input.dim() == dims + 1;
}

// Checks a 4-d conv on x [N, C, H, W] with w [O, C / groups, KH, KW] and b [O].
void check_conv2d(const char* op, const Tensor& x, const Tensor& w, const Tensor& b,
                  const ConvArgs& a) {
  const int64_t groups = a.groups;
  EMBER_CHECK(groups > 0, op, ": non-positive groups is not supported, got groups=", groups);
  for (int i = 0; i < 2; ++i) {
    EMBER_CHECK(a.stride[i] > 0, op, ": non-positive stride is not supported");
    EMBER_CHECK(a.dilation[i] > 0, op, ": dilation should be greater than zero");
    EMBER_CHECK(a.padding[i] >= 0, op, ": negative padding is not supported");
  }
  EMBER_CHECK(w.size(0) % groups == 0, op, ": expected weight of size ", shape_str(w.sizes()),
              " to have out_channels divisible by groups=", groups);
  EMBER_CHECK(w.size(1) * groups == x.size(1), op, ": given groups=", groups, ", weight of size ",
              shape_str(w.sizes()), ", expected input", shape_str(x.sizes()), " to have ",
              w.size(1) * groups, " channels, but got ", x.size(1), " channels instead");
  if (b.defined()) {
    EMBER_CHECK(b.dim() == 1 && b.size(0) == w.size(0), op, ": given weight of size ",
                shape_str(w.sizes()), ", expected bias to be 1-dimensional with ", w.size(0),
                " elements, but got bias of size ", shape_str(b.sizes()), " instead");
  }
  for (int i = 0; i < 2; ++i) {
    const int64_t padded = x.size(2 + i) + 2 * a.padding[i];
    const int64_t span = a.dilation[i] * (w.size(2 + i) - 1) + 1;
    EMBER_CHECK(span <= padded, op, ": calculated padded input size per channel: (",
                x.size(2) + 2 * a.padding[0], " x ", x.size(3) + 2 * a.padding[1],
                "). Kernel size: (", a.dilation[0] * (w.size(2) - 1) + 1, " x ",
                a.dilation[1] * (w.size(3) - 1) + 1,
                "). Kernel size can't be greater than actual input size (input ",
                shape_str(x.sizes()), ", weight ", shape_str(w.sizes()), ")");
  }
}

// The 4-d convolution after validation: contiguous operands to the primitive.
Tensor conv2d_impl(const char* op, const Tensor& x, const Tensor& w, const Tensor& b,
                   const ConvArgs& a) {
  check_conv2d(op, x, w, b, a);
  if (x.numel() == 0 || w.numel() == 0) {
    // Empty batch or channels: PyTorch returns an empty (or zero + bias) output.
    DimVector s = conv_out_sizes(x.sizes(), w.sizes(), a);
    Tensor out = zeros(s, TensorOptions().dtype(x.dtype()).device(x.device()));
    return b.defined() ? out + b.view({1, -1, 1, 1}) : out;
  }
  return conv_primitive(x.contiguous(), w.contiguous(), b.defined() ? b.contiguous() : b, a);
}

// The geometry of a conv with `dims` spatial dims in the 2-d form (a 1-d conv fills [1]).
ConvArgs conv_args(const char* op, int dims, IntArrayRef stride, IntArrayRef padding,
                   IntArrayRef dilation, int64_t groups) {
  ConvArgs a;
  const int first = 2 - dims;
  expand(op, "stride", stride, dims, &a.stride[first]);
  expand(op, "padding", padding, dims, &a.padding[first]);
  expand(op, "dilation", dilation, dims, &a.dilation[first]);
  a.groups = groups;
  return a;
}

// A 1-d or 2-d, batched or unbatched conv's operands as the 4-d ones the primitives take:
// input [N, C, H, W] ([N, C, L] as [N, C, 1, L]), weight [O, C / groups, KH, KW].
struct Lifted {
  Tensor x, w;
  int dims;
  bool unbatched;
  // The 4-d result back in the caller's form.
  Tensor lower(Tensor out) const {
    if (dims == 1) out = out.squeeze(2);
    return unbatched ? out.squeeze(0) : out;
  }
};

Lifted lift(const char* op, int dims, const Tensor& input, const Tensor& weight,
            const Tensor& bias) {
  check_float_operands(op, input, weight, bias);
  const bool unbatched = check_conv_dims(op, input, weight, dims);
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  return {dims == 1 ? x.unsqueeze(2) : x, dims == 1 ? weight.unsqueeze(2) : weight, dims,
          unbatched};
}

Tensor conv_ints(const char* op, int dims, const Tensor& input, const Tensor& weight,
                 const Tensor& bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                 int64_t groups) {
  const Lifted l = lift(op, dims, input, weight, bias);
  const ConvArgs a = conv_args(op, dims, stride, padding, dilation, groups);
  return l.lower(conv2d_impl(op, l.x, l.w, bias, a));
}

// "same" and "valid" as PyTorch's _convolution_mode: "same" needs stride 1; an odd total
// padding d (k - 1) puts the extra row/column at the end (bottom/right) by padding the input.
Tensor conv_named(const char* op, int dims, const Tensor& input, const Tensor& weight,
                  const Tensor& bias, IntArrayRef stride, ConvPaddingName padding,
                  IntArrayRef dilation, int64_t groups) {
  const std::string_view name = padding.name();
  EMBER_CHECK(name == "same" || name == "valid", op, ": invalid padding string '",
              std::string(name), "' (expected 'same' or 'valid')");
  const Lifted l = lift(op, dims, input, weight, bias);
  ConvArgs a = conv_args(op, dims, stride, 0, dilation, groups);
  Tensor x4 = l.x;
  const Tensor& w4 = l.w;
  if (name == "same") {
    for (int i = 0; i < 2; ++i) {
      EMBER_CHECK(a.stride[i] == 1, op,
                  ": padding='same' is not supported for strided convolutions");
    }
    DimVector extra;  // constant_pad_nd pairs, last dim first
    bool asymmetric = false;
    for (int i = 1; i >= 0; --i) {
      const int64_t total = a.dilation[i] * (w4.size(2 + i) - 1);
      a.padding[i] = total / 2;
      extra.push_back(0);
      extra.push_back(total % 2);
      asymmetric = asymmetric || total % 2 != 0;
    }
    if (asymmetric) x4 = constant_pad_nd(x4, extra, 0);
  }
  return l.lower(conv2d_impl(op, x4, w4, bias, a));
}

Tensor conv_transpose_impl(const char* op, int dims, const Tensor& input, const Tensor& weight,
                           const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
                           IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  const Lifted l = lift(op, dims, input, weight, bias);
  const ConvArgs a = conv_args(op, dims, stride, padding, dilation, groups);
  int64_t out_pad[2] = {0, 0};
  expand(op, "output_padding", output_padding, dims, &out_pad[2 - dims]);
  const Tensor& x4 = l.x;
  const Tensor& w4 = l.w;
  EMBER_CHECK(groups > 0, op, ": non-positive groups is not supported, got groups=", groups);
  // weight [C_in, C_out / groups, KH, KW]: conv's weight with C_in as its output channels.
  EMBER_CHECK(w4.size(0) == x4.size(1), op, ": given transposed=1, weight of size ",
              shape_str(weight.sizes()), ", expected input", shape_str(input.sizes()), " to have ",
              w4.size(0), " channels, but got ", x4.size(1), " channels instead");
  EMBER_CHECK(w4.size(0) % groups == 0, op, ": expected weight of size ", shape_str(weight.sizes()),
              " to have in_channels divisible by groups=", groups);
  const int64_t out_channels = w4.size(1) * groups;
  if (bias.defined()) {
    EMBER_CHECK(bias.dim() == 1 && bias.size(0) == out_channels, op, ": given weight of size ",
                shape_str(weight.sizes()), ", expected bias to be 1-dimensional with ",
                out_channels, " elements, but got bias of size ", shape_str(bias.sizes()),
                " instead");
  }
  DimVector out_sizes{x4.size(0), out_channels, 0, 0};
  for (int i = 0; i < 2; ++i) {
    EMBER_CHECK(a.stride[i] > 0, op, ": non-positive stride is not supported");
    EMBER_CHECK(a.dilation[i] > 0, op, ": dilation should be greater than zero");
    EMBER_CHECK(a.padding[i] >= 0, op, ": negative padding is not supported");
    EMBER_CHECK(out_pad[i] >= 0 && (out_pad[i] < a.stride[i] || out_pad[i] < a.dilation[i]), op,
                ": output padding must be smaller than either stride or dilation, but got "
                "output_padding=",
                out_pad[i], ", stride=", a.stride[i], ", dilation=", a.dilation[i]);
    out_sizes[2 + i] = (x4.size(2 + i) - 1) * a.stride[i] - 2 * a.padding[i] +
                       a.dilation[i] * (w4.size(2 + i) - 1) + out_pad[i] + 1;
  }
  EMBER_CHECK(out_sizes[2] > 0 && out_sizes[3] > 0, op, ": given input size ",
              shape_str(input.sizes()), ", weight ", shape_str(weight.sizes()),
              ", the calculated output size ", shape_str(IntArrayRef(out_sizes).slice(2, 2)),
              " is too small");
  Tensor out;
  if (x4.numel() == 0 || w4.numel() == 0) {
    out = zeros(out_sizes, TensorOptions().dtype(input.dtype()).device(input.device()));
  } else {
    out = conv_input_grad(x4.contiguous(), w4.contiguous(), out_sizes, a, "ConvolutionBackward0");
  }
  if (bias.defined()) out = out + bias.view({1, -1, 1, 1});
  return l.lower(out);
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_ints("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              ConvPaddingName padding, IntArrayRef dilation, int64_t groups) {
  return conv_named("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_ints("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              ConvPaddingName padding, IntArrayRef dilation, int64_t groups) {
  return conv_named("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return conv_transpose_impl("conv_transpose1d", 1, input, weight, bias, stride, padding,
                             output_padding, groups, dilation);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return conv_transpose_impl("conv_transpose2d", 2, input, weight, bias, stride, padding,
                             output_padding, groups, dilation);
}

}  // namespace ember
