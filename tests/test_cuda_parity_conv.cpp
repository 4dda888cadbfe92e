// CPU/CUDA parity of the convolution and pooling ops (the conv2d and pool families of
// core/ops.def) through the public front-ends: forward outputs and the input, weight and bias
// gradients of a backward pass, over geometries (stride, padding, dilation, groups, depthwise,
// 1x1, transposed with output_padding, ceil_mode, adaptive) in float32 and float64.
#include "cuda_parity.h"

namespace parity {
namespace {

using ember::kFloat32;
using ember::kFloat64;

struct ConvCase {
  Shape x, w;
  int64_t stride[2], padding[2], dilation[2], groups;
  bool bias;
};

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases = {
      {{2, 3, 9, 8}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
      {{1, 4, 11, 7}, {6, 2, 3, 2}, {2, 1}, {1, 0}, {2, 1}, 2, false},
      {{3, 8, 6, 6}, {8, 1, 3, 3}, {1, 2}, {1, 1}, {1, 1}, 8, true},       // depthwise
      {{2, 5, 4, 4}, {7, 5, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},       // 1x1
      {{2, 1, 28, 28}, {32, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},    // the CNN's conv1
      {{8, 32, 14, 14}, {64, 32, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},  // its conv2
      {{1, 2, 5, 5}, {3, 2, 5, 5}, {1, 1}, {0, 0}, {1, 1}, 1, false},      // kernel == input
  };
  return cases;
}

// Forward and every gradient of sum(conv(x, w, b) * g).
Tensors conv_fwd_bwd(const Tensors& in, const ConvCase& c) {
  Tensor x = in[0].detach().requires_grad_(true);
  Tensor w = in[1].detach().requires_grad_(true);
  Tensor b = c.bias ? in[2].detach().requires_grad_(true) : Tensor();
  Tensor y = ember::conv2d(x, w, b, {c.stride[0], c.stride[1]}, {c.padding[0], c.padding[1]},
                           {c.dilation[0], c.dilation[1]}, c.groups);
  (y * in[3]).sum().backward();
  Tensors out{y.detach(), x.grad(), w.grad()};
  if (c.bias) out.push_back(b.grad());
  return out;
}

Shape conv_out(const ConvCase& c) {
  Shape s{c.x[0], c.w[0], 0, 0};
  for (int i = 0; i < 2; ++i) {
    s[2 + i] =
        (c.x[2 + i] + 2 * c.padding[i] - c.dilation[i] * (c.w[2 + i] - 1) - 1) / c.stride[i] + 1;
  }
  return s;
}

void conv_case() {
  Sweep sw("conv2d");
  for (const ConvCase& c : conv_cases()) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      const Layout l = c.x[1] > 1 ? Layout::kTransposed : Layout::kContiguous;
      const Pair x = make_pair(c.x, dt, l), w = make_pair(c.w, dt, Layout::kContiguous);
      const Pair b = make_pair({c.w[0]}, dt, Layout::kContiguous);
      const Pair g = make_pair(conv_out(c), dt, Layout::kContiguous);
      const int64_t terms = c.w[1] * c.w[2] * c.w[3] * c.x[0] * c.x[2] * c.x[3];
      sw.run(
          label("conv2d", c.x, dt, l) + " w " + ref::str(c.w) + " groups " +
              std::to_string(c.groups),
          [c](const Tensors& in) { return conv_fwd_bwd(in, c); }, {x.cpu, w.cpu, b.cpu, g.cpu},
          {x.gpu, w.gpu, b.gpu, g.gpu}, reduce_tol(terms));
    }
  }
  // Errors must match: channels not divisible, kernel larger than the padded input.
  const Pair x = make_pair({1, 3, 4, 4}, kFloat32, Layout::kContiguous);
  const Pair w = make_pair({2, 2, 3, 3}, kFloat32, Layout::kContiguous);
  sw.run(
      "conv2d groups mismatch", [](const Tensors& in) { return ember::conv2d(in[0], in[1]); },
      {x, w}, exact());
}

void conv_transpose_case() {
  Sweep sw("conv2d_backward_input");
  struct T {
    Shape x, w;
    int64_t stride, padding, output_padding, groups, dilation;
  };
  for (const T& c :
       {T{{2, 4, 5, 5}, {4, 3, 3, 3}, 2, 1, 1, 1, 1}, T{{1, 6, 4, 3}, {6, 2, 2, 3}, 3, 0, 2, 3, 1},
        T{{2, 4, 6, 6}, {4, 2, 3, 3}, 1, 2, 0, 2, 2}}) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      const Pair x = make_pair(c.x, dt, Layout::kContiguous),
                 w = make_pair(c.w, dt, Layout::kContiguous);
      const Pair b = make_pair({c.w[1] * c.groups}, dt, Layout::kContiguous);
      sw.run(
          label("conv_transpose2d", c.x, dt, Layout::kContiguous) + " w " + ref::str(c.w),
          [c](const Tensors& in) {
            Tensor xi = in[0].detach().requires_grad_(true);
            Tensor wi = in[1].detach().requires_grad_(true);
            Tensor y = ember::conv_transpose2d(xi, wi, in[2], c.stride, c.padding, c.output_padding,
                                               c.groups, c.dilation);
            (y * y).sum().backward();
            return Tensors{y.detach(), xi.grad(), wi.grad()};
          },
          {x.cpu, w.cpu, b.cpu}, {x.gpu, w.gpu, b.gpu}, reduce_tol(c.x[1] * 9 * 36 * c.x[0]));
    }
  }
}

// conv2d_backward_weight under create_graph: the gradient of a gradient.
void conv_double_backward_case() {
  Sweep sw("conv2d_backward_weight");
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Pair x = make_pair({2, 4, 6, 5}, dt, Layout::kContiguous);
    const Pair w = make_pair({6, 2, 3, 3}, dt, Layout::kContiguous);
    sw.run(
        label("conv2d double backward", {2, 4, 6, 5}, dt, Layout::kContiguous),
        [](const Tensors& in) {
          Tensor xi = in[0].detach().requires_grad_(true);
          Tensor wi = in[1].detach().requires_grad_(true);
          Tensor y = ember::conv2d(xi, wi, {}, 1, 1, 1, 2);
          auto g = ember::autograd::grad({(y * y).sum()}, {wi}, {}, true, true);
          g[0].pow(2).sum().backward();
          return Tensors{g[0].detach(), xi.grad(), wi.grad()};
        },
        {x.cpu, w.cpu}, {x.gpu, w.gpu}, reduce_tol(4 * 9 * 30 * 9));
  }
}

struct PoolCase {
  Shape x;
  int64_t kernel, stride, padding, dilation;
  bool ceil_mode;
};

const std::vector<PoolCase>& pool_cases() {
  static const std::vector<PoolCase> cases = {
      {{2, 3, 8, 8}, 2, 2, 0, 1, false},      {{2, 3, 7, 9}, 2, 2, 0, 1, true},
      {{1, 4, 9, 7}, 3, 2, 1, 1, false},      {{1, 2, 10, 10}, 3, 1, 1, 2, true},
      {{128, 32, 28, 28}, 2, 2, 0, 1, false}, {{3, 5, 6}, 3, 3, 1, 1, true},  // unbatched
  };
  return cases;
}

void max_pool_case() {
  Sweep sw("max_pool2d");
  for (const PoolCase& c : pool_cases()) {
    if (small_mode() && c.x[0] == 128) continue;
    for (ScalarType dt : {kFloat32, kFloat64}) {
      // Distinct values: with ties the winner is the first on both devices anyway.
      const Pair x = make_pair(c.x, dt, Layout::kContiguous);
      sw.run(
          label("max_pool2d", c.x, dt, Layout::kContiguous) + " k " + std::to_string(c.kernel),
          [c](const Tensors& in) {
            Tensor xi = in[0].detach().requires_grad_(true);
            auto [y, idx] = ember::max_pool2d_with_indices(xi, c.kernel, c.stride, c.padding,
                                                           c.dilation, c.ceil_mode);
            (y * y).sum().backward();
            return Tensors{y.detach(), idx, xi.grad()};
          },
          {x.cpu}, {x.gpu}, elementwise_tol());
    }
  }
  const Pair x = from_values({1, NAN, 3, 3, 2, 2, -1, 5, 5}, {1, 1, 3, 3}, kFloat32);
  sw.run(
      "max_pool2d NaN and ties",
      [](const Tensors& in) {
        auto [y, idx] = ember::max_pool2d_with_indices(in[0], 2, 1);
        auto [a, ai] = ember::adaptive_max_pool2d(in[0], {2, 2});
        return Tensors{y, idx, a, ai};
      },
      {x.cpu}, {x.gpu}, exact());
}

void avg_pool_case() {
  Sweep sw("avg_pool2d");
  for (const PoolCase& c : pool_cases()) {
    if (small_mode() && c.x[0] == 128) continue;
    if (c.dilation != 1) continue;
    for (ScalarType dt : {kFloat32, kFloat64}) {
      const Pair x = make_pair(c.x, dt, Layout::kContiguous);
      for (int variant = 0; variant < 3; ++variant) {
        sw.run(
            label("avg_pool2d", c.x, dt, Layout::kContiguous) + " variant " +
                std::to_string(variant),
            [c, variant](const Tensors& in) {
              Tensor xi = in[0].detach().requires_grad_(true);
              Tensor y =
                  ember::avg_pool2d(xi, c.kernel, c.stride, c.padding, c.ceil_mode, variant != 1,
                                    variant == 2 ? std::optional<int64_t>(3) : std::nullopt);
              (y * y).sum().backward();
              return Tensors{y.detach(), xi.grad()};
            },
            {x.cpu}, {x.gpu}, elementwise_tol());
      }
    }
  }
  for (const Shape& s : {Shape{2, 3, 7, 5}, Shape{1, 2, 3, 3}, Shape{4, 64, 7, 7}}) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      const Pair x = make_pair(s, dt, Layout::kContiguous);
      sw.run(
          label("adaptive pools", s, dt, Layout::kContiguous),
          [](const Tensors& in) {
            Tensor xi = in[0].detach().requires_grad_(true);
            Tensor a = ember::adaptive_avg_pool2d(xi, {3, 2});
            auto [m, mi] = ember::adaptive_max_pool2d(xi, {5, 4});
            Tensor one = ember::adaptive_avg_pool2d(xi, 1);
            (a.sum() + (m * m).sum() + one.sum()).backward();
            return Tensors{a.detach(), m.detach(), mi, one.detach(), xi.grad()};
          },
          {x.cpu}, {x.gpu}, elementwise_tol());
    }
  }
}

// The pool backward kernels under create_graph: the gradient is recorded (max: a gather by
// the indices, avg: the forward pool) and differentiated again.
void pool_double_backward_case(bool max) {
  Sweep sw(max ? "max_pool2d_backward" : "avg_pool2d_backward");
  for (const Shape& s : {Shape{2, 3, 8, 7}, Shape{1, 4, 9, 9}}) {
    for (ScalarType dt : {kFloat32, kFloat64}) {
      const Pair x = make_pair(s, dt, Layout::kContiguous);
      sw.run(
          label(max ? "max_pool2d double backward" : "avg_pool2d double backward", s, dt,
                Layout::kContiguous),
          [max](const Tensors& in) {
            Tensor xi = in[0].detach().requires_grad_(true);
            Tensor y = max ? ember::max_pool2d(xi, 3, 2, 1) : ember::avg_pool2d(xi, 3, 2, 1);
            auto g = ember::autograd::grad({(y * y).sum()}, {xi}, {}, true, true);
            (g[0] * g[0]).sum().backward();
            return Tensors{g[0].detach(), xi.grad()};
          },
          {x.cpu}, {x.gpu}, elementwise_tol());
    }
  }
}

}  // namespace

// Training-mode batch norm (the batch_norm family): output, running stats and the input,
// weight and bias gradients; instance norm over the same kernels; eval mode's composite.
Tensors batch_norm_fwd_bwd(const Tensors& in, bool affine) {
  Tensor x = in[0].detach().requires_grad_(true);
  Tensor w = affine ? in[1].detach().requires_grad_(true) : Tensor();
  Tensor b = affine ? in[2].detach().requires_grad_(true) : Tensor();
  Tensor rm = ember::zeros({x.size(1)}, x.options()), rv = ember::ones({x.size(1)}, x.options());
  Tensor y = ember::batch_norm(x, w, b, rm, rv, /*training=*/true, 0.1, 1e-5);
  (y * in[3]).sum().backward();
  Tensors out{y.detach(), rm, rv, x.grad()};
  if (affine) {
    out.push_back(w.grad());
    out.push_back(b.grad());
  }
  return out;
}

void batch_norm_case(bool backward) {
  Sweep sw(backward ? "batch_norm_backward_apply" : "batch_norm_apply");
  for (const Shape& s : {Shape{6, 3}, Shape{4, 3, 7}, Shape{8, 32, 14, 14}, Shape{1, 2, 1, 1025},
                         Shape{128, 32, 28, 28}}) {
    if (small_mode() && s[0] == 128) continue;
    const Shape c{s[1]};
    const int64_t per_channel = ref::numel(s) / s[1];
    for (ScalarType dt : {kFloat32, kFloat64}) {
      const Pair x = make_pair(s, dt, s.size() > 2 ? Layout::kContiguous : Layout::kTransposed);
      const Pair w = make_pair(c, dt, Layout::kContiguous),
                 b = make_pair(c, dt, Layout::kContiguous);
      const Pair g = make_pair(s, dt, Layout::kContiguous);
      for (bool affine : {true, false}) {
        sw.run(
            label("batch_norm", s, dt, Layout::kContiguous) + (affine ? " affine" : ""),
            [affine](const Tensors& in) { return batch_norm_fwd_bwd(in, affine); },
            {x.cpu, w.cpu, b.cpu, g.cpu}, {x.gpu, w.gpu, b.gpu, g.gpu}, reduce_tol(per_channel));
      }
      if (!backward || s.size() < 3) continue;
      sw.run(
          label("instance_norm", s, dt, Layout::kContiguous),
          [](const Tensors& in) {
            Tensor xi = in[0].detach().requires_grad_(true);
            Tensor wi = in[1].detach().requires_grad_(true);
            Tensor y = ember::instance_norm(xi, wi, in[2], {}, {}, true, 0.1, 1e-5);
            (y * in[3]).sum().backward();
            return Tensors{y.detach(), xi.grad(), wi.grad()};
          },
          {x.cpu, w.cpu, b.cpu, g.cpu}, {x.gpu, w.gpu, b.gpu, g.gpu}, reduce_tol(per_channel));
    }
  }
}

// The statistics far from zero (mean 1000, std 1): one-pass sums around a pivot keep them.
void batch_norm_stats_case() {
  Sweep sw("batch_norm_stats");
  for (ScalarType dt : {kFloat32, kFloat64}) {
    const Pair x = make_pair({16, 4, 9, 9}, dt, Layout::kContiguous);
    sw.run(
        label("batch_norm offset", {16, 4, 9, 9}, dt, Layout::kContiguous),
        [](const Tensors& in) {
          Tensor rm = ember::zeros({4}, in[0].options()), rv = ember::zeros({4}, in[0].options());
          Tensor y = ember::batch_norm(in[0] + 1000.0, {}, {}, rm, rv, true, 1.0, 1e-5);
          return Tensors{y, rm, rv};
        },
        {x.cpu}, {x.gpu}, reduce_tol(16 * 81));
  }
}

// Second derivatives of training-mode batch norm (the composite backward under create_graph).
void batch_norm_double_backward_case() {
  Sweep sw("batch_norm_backward_reduce");
  const Pair x = make_pair({4, 3, 5}, kFloat64, Layout::kContiguous);
  const Pair w = make_pair({3}, kFloat64, Layout::kContiguous);
  sw.run(
      "batch_norm double backward",
      [](const Tensors& in) {
        Tensor xi = in[0].detach().requires_grad_(true);
        Tensor wi = in[1].detach().requires_grad_(true);
        Tensor y = ember::batch_norm(xi, wi, {}, {}, {}, true, 0.1, 1e-5);
        auto g = ember::autograd::grad({(y * y * y).sum()}, {xi, wi}, {}, true, true);
        (g[0] * g[0]).sum().backward();
        return Tensors{g[0].detach(), g[1].detach(), xi.grad(), wi.grad()};
      },
      {x.cpu, w.cpu}, {x.gpu, w.gpu}, reduce_tol(20));
}

CaseList conv_cases_list() {
  CaseList c;
  c.push_back({"conv2d", conv_case});
  c.push_back({"conv2d_backward_input", conv_transpose_case});
  c.push_back({"conv2d_backward_weight", conv_double_backward_case});
  c.push_back({"max_pool2d", max_pool_case});
  c.push_back({"max_pool2d_backward", [] { pool_double_backward_case(true); }});
  c.push_back({"avg_pool2d", avg_pool_case});
  c.push_back({"avg_pool2d_backward", [] { pool_double_backward_case(false); }});
  c.push_back({"batch_norm_stats", batch_norm_stats_case});
  c.push_back({"batch_norm_apply", [] { batch_norm_case(false); }});
  c.push_back({"batch_norm_backward_reduce", batch_norm_double_backward_case});
  c.push_back({"batch_norm_backward_apply", [] { batch_norm_case(true); }});
  return c;
}

}  // namespace parity
