// The pooling front-ends of nn/layer_ops.h: argument expansion and PyTorch's output-size
// rule (ceil_mode included), unbatched and 1-d inputs as views of the 2-d case, and the
// differentiable primitives over core/ops.def's pool kernels. avg pooling and its backward
// are each other's adjoints; max pooling's backward is a scatter by the saved indices whose
// own gradient is a gather, so every order of derivative records.
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

// ---- primitives on contiguous [N, C, H, W] float tensors ----

Tensor avg_pool_backward_primitive(const Tensor& grad_out, IntArrayRef input_sizes,
                                   const PoolArgs& args, const char* node_name);

Tensor avg_pool_primitive(const Tensor& x, IntArrayRef out_sizes, const PoolArgs& args,
                          const char* node_name, const char* op) {
  Tensor out = empty_on(out_sizes, x.dtype(), x.device());
  native::avg_pool2d(out, x, args);
  if (!autograd::should_record(x)) return out;
  return autograd::record(
      node_name, op, {x}, out, {}, [args](FunctionNode& n, const tensor_list& g) -> tensor_list {
        return {avg_pool_backward_primitive(g[0].contiguous(), n.input_sizes(0), args,
                                            "AvgPool2DBackwardBackward0")};
      });
}

Tensor avg_pool_backward_primitive(const Tensor& grad_out, IntArrayRef input_sizes,
                                   const PoolArgs& args, const char* node_name) {
  Tensor grad_in = empty_on(input_sizes, grad_out.dtype(), grad_out.device());
  native::avg_pool2d_backward(grad_in, grad_out, args);
  if (!autograd::should_record(grad_out)) return grad_in;
  return autograd::record(node_name, "avg_pool2d_backward", {grad_out}, grad_in, {},
                          [args](FunctionNode& n, const tensor_list& g) -> tensor_list {
                            return {avg_pool_primitive(g[0].contiguous(), n.input_sizes(0), args,
                                                       "AvgPool2DBackwardBackward1", "avg_pool2d")};
                          });
}

// grad_in[n, c, indices[n, c, o]] += grad_out[n, c, o]; its gradient gathers by the indices.
Tensor max_pool_backward_primitive(const Tensor& grad_out, const Tensor& indices,
                                   IntArrayRef input_sizes, const PoolArgs& args) {
  Tensor grad_in = empty_on(input_sizes, grad_out.dtype(), grad_out.device());
  native::max_pool2d_backward(grad_in, grad_out, indices, args);
  if (!autograd::should_record(grad_out)) return grad_in;
  return autograd::record("MaxPool2DWithIndicesBackwardBackward0", "max_pool2d_backward",
                          {grad_out}, grad_in, {indices},
                          [](FunctionNode& n, const tensor_list& g) -> tensor_list {
                            const Tensor idx = n.saved(0);
                            const int64_t rows = idx.size(0) * idx.size(1);
                            const Tensor h = g[0].reshape({rows, -1});
                            return {h.gather(1, idx.reshape({rows, -1})).view(idx.sizes())};
                          });
}

std::tuple<Tensor, Tensor> max_pool_primitive(const Tensor& x, IntArrayRef out_sizes,
                                              const PoolArgs& args, const char* node_name,
                                              const char* op) {
  Tensor out = empty_on(out_sizes, x.dtype(), x.device());
  Tensor indices = empty_on(out_sizes, kInt64, x.device());
  native::max_pool2d(out, indices, x, args);
  if (autograd::should_record(x)) {
    autograd::record_node(node_name, op, {x}, {out, indices}, {indices},
                          [args](FunctionNode& n, const tensor_list& g) -> tensor_list {
                            return {max_pool_backward_primitive(g[0].contiguous(), n.saved(0),
                                                                n.input_sizes(0), args)};
                          });
  }
  return {out, indices};
}

// ---- validation and sizes ----

struct Pool2d {
  const char* op;
  bool unbatched = false;
  int dims = 2;  // spatial dims of the public op (1: a [N, C, 1, L] view)
};

void check_float(const Pool2d& p, const Tensor& self) {
  EMBER_CHECK(self.defined(), p.op, ": input must be defined");
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64, p.op,
              ": expected a float32 or float64 input, got ", self.dtype());
}

// The [N, C, H, W] view of a 1-d or 2-d pool's input (unbatched, 1-d lifted).
Tensor lift(Pool2d& p, const Tensor& self) {
  check_float(p, self);
  const int64_t d = self.dim();
  EMBER_CHECK(d == p.dims + 1 || d == p.dims + 2, p.op, ": expected ", p.dims + 1, "D or ",
              p.dims + 2, "D (batch mode) input, but got input of size ", shape_str(self.sizes()));
  p.unbatched = d == p.dims + 1;
  Tensor x = p.unbatched ? self.unsqueeze(0) : self;
  if (p.dims == 1) x = x.unsqueeze(2);
  for (int64_t i = 1; i < x.dim(); ++i) {
    EMBER_CHECK(x.size(i) > 0, p.op,
                ": expected input with non-zero sizes in every dim but the "
                "batch dim, but got input of size ",
                shape_str(self.sizes()));
  }
  return x;
}

Tensor lower(const Pool2d& p, Tensor t) {
  if (p.dims == 1) t = t.squeeze(2);
  return p.unbatched ? t.squeeze(0) : t;
}

// v (1 or p.dims values) into out[2] (the 1-d form fills [1], leaving [0] at fill).
void expand(const Pool2d& p, const char* what, IntArrayRef v, int64_t fill, int64_t out[2]) {
  EMBER_CHECK(v.size() == 1 || static_cast<int>(v.size()) == p.dims, p.op, ": ", what,
              " must either be a single int, or a tuple of ", p.dims, " ints, got ", shape_str(v));
  out[0] = fill;
  for (int i = 0; i < p.dims; ++i) out[2 - p.dims + i] = v.size() == 1 ? v[0] : v[i];
}

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  const int64_t span = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

PoolArgs window_args(const Pool2d& p, IntArrayRef kernel_size, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation) {
  PoolArgs a;
  expand(p, "kernel_size", kernel_size, 1, a.kernel);
  if (stride.empty()) {
    a.stride[0] = a.kernel[0];
    a.stride[1] = a.kernel[1];
    if (p.dims == 1) a.stride[0] = 1;
  } else {
    expand(p, "stride", stride, 1, a.stride);
  }
  expand(p, "padding", padding, 0, a.padding);
  expand(p, "dilation", dilation, 1, a.dilation);
  for (int i = 0; i < 2; ++i) {
    EMBER_CHECK(a.kernel[i] > 0, p.op, ": kernel size should be greater than zero, but got ",
                shape_str(kernel_size));
    EMBER_CHECK(a.stride[i] > 0, p.op, ": stride should be greater than zero, but got ",
                shape_str(stride));
    EMBER_CHECK(a.dilation[i] > 0, p.op, ": dilation should be greater than zero, but got ",
                shape_str(dilation));
    const int64_t span = (a.kernel[i] - 1) * a.dilation[i] + 1;
    EMBER_CHECK(a.padding[i] >= 0 && a.padding[i] <= span / 2, p.op,
                ": pad should be at most half of effective kernel size, but got pad=", a.padding[i],
                ", kernel_size=", a.kernel[i], " and dilation=", a.dilation[i]);
  }
  return a;
}

DimVector window_out_sizes(const Pool2d& p, const Tensor& x, const Tensor& self, const PoolArgs& a,
                           bool ceil_mode) {
  DimVector s{x.size(0), x.size(1), 0, 0};
  for (int i = 0; i < 2; ++i) {
    s[2 + i] = pooled_size(x.size(2 + i), a.kernel[i], a.padding[i], a.stride[i], a.dilation[i],
                           ceil_mode);
  }
  EMBER_CHECK(s[2] >= 1 && s[3] >= 1, p.op, ": output size ",
              shape_str(IntArrayRef(s).slice(4 - p.dims, p.dims)), " is too small for input ",
              shape_str(self.sizes()));
  return s;
}

DimVector adaptive_out_sizes(const Pool2d& p, const Tensor& x, IntArrayRef output_size) {
  EMBER_CHECK(
      static_cast<int>(output_size.size()) == p.dims || (output_size.size() == 1 && p.dims == 2),
      p.op, ": output_size must be ", p.dims, " ints, got ", shape_str(output_size));
  DimVector s{x.size(0), x.size(1), 1, 0};
  for (int i = 0; i < p.dims; ++i) {
    const int64_t v = output_size.size() == 1 ? output_size[0] : output_size[i];
    EMBER_CHECK(v >= 0, p.op,
                ": elements of output_size must be greater than or equal to 0 but "
                "received ",
                shape_str(output_size));
    s[4 - p.dims + i] = v;
  }
  return s;
}

Tensor empty_result(const Tensor& x, IntArrayRef sizes) {
  return empty_on(sizes, x.dtype(), x.device());
}

std::tuple<Tensor, Tensor> max_pool(Pool2d p, const Tensor& self, IntArrayRef kernel_size,
                                    IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                    bool ceil_mode) {
  Tensor x = lift(p, self);
  const PoolArgs a = window_args(p, kernel_size, stride, padding, dilation);
  const DimVector s = window_out_sizes(p, x, self, a, ceil_mode);
  if (x.numel() == 0) {
    return {lower(p, empty_result(x, s)), lower(p, empty_on(s, kInt64, x.device()))};
  }
  auto [out, idx] =
      max_pool_primitive(x.contiguous(), s, a, "MaxPool2DWithIndicesBackward0", "max_pool2d");
  return {lower(p, out), lower(p, idx)};
}

std::tuple<Tensor, Tensor> adaptive_max(Pool2d p, const Tensor& self, IntArrayRef output_size) {
  Tensor x = lift(p, self);
  const DimVector s = adaptive_out_sizes(p, x, output_size);
  if (x.numel() == 0 || s[2] * s[3] == 0) {
    return {lower(p, empty_result(x, s)), lower(p, empty_on(s, kInt64, x.device()))};
  }
  PoolArgs a;
  a.adaptive = true;
  auto [out, idx] =
      max_pool_primitive(x.contiguous(), s, a, "AdaptiveMaxPool2DBackward0", "max_pool2d");
  return {lower(p, out), lower(p, idx)};
}

Tensor adaptive_avg(Pool2d p, const Tensor& self, IntArrayRef output_size) {
  Tensor x = lift(p, self);
  const DimVector s = adaptive_out_sizes(p, x, output_size);
  if (x.numel() == 0 || s[2] * s[3] == 0) return lower(p, empty_result(x, s));
  PoolArgs a;
  a.adaptive = true;
  return lower(
      p, avg_pool_primitive(x.contiguous(), s, a, "AdaptiveAvgPool2DBackward0", "avg_pool2d"));
}

Tensor avg_pool(Pool2d p, const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                std::optional<int64_t> divisor_override) {
  Tensor x = lift(p, self);
  PoolArgs a = window_args(p, kernel_size, stride, padding, 1);
  a.count_include_pad = count_include_pad;
  if (divisor_override) {
    EMBER_CHECK(*divisor_override != 0, p.op, ": divisor must be not zero");
    a.divisor_override = *divisor_override;
  }
  const DimVector s = window_out_sizes(p, x, self, a, ceil_mode);
  if (x.numel() == 0) return lower(p, empty_result(x, s));
  return lower(p, avg_pool_primitive(x.contiguous(), s, a,
                                     p.dims == 1 ? "AvgPool1DBackward0" : "AvgPool2DBackward0",
                                     "avg_pool2d"));
}

}  // namespace

Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool({"max_pool1d", false, 1}, self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool({"max_pool2d", false, 2}, self, kernel_size, stride, padding, dilation, ceil_mode));
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return max_pool({"max_pool1d_with_indices", false, 1}, self, kernel_size, stride, padding,
                  dilation, ceil_mode);
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return max_pool({"max_pool2d_with_indices", false, 2}, self, kernel_size, stride, padding,
                  dilation, ceil_mode);
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  return avg_pool({"avg_pool1d", false, 1}, self, kernel_size, stride, padding, ceil_mode,
                  count_include_pad, std::nullopt);
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return avg_pool({"avg_pool2d", false, 2}, self, kernel_size, stride, padding, ceil_mode,
                  count_include_pad, divisor_override);
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg({"adaptive_avg_pool1d", false, 1}, self, output_size);
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_avg({"adaptive_avg_pool2d", false, 2}, self, output_size);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max({"adaptive_max_pool1d", false, 1}, self, output_size);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  return adaptive_max({"adaptive_max_pool2d", false, 2}, self, output_size);
}

}  // namespace ember
