// Gradcheck entries of convolution and pooling (nn/layer_ops.h): strides, padding (ints,
// "same", "valid"), dilation, groups and depthwise, bias or none, unbatched and 1-d forms,
// transposed convolution with output_padding, every pool. gradgradcheck runs the backward
// primitives' own rules; the "grad" entries make those primitives outputs of the function.
#include "op_table.h"

namespace optable {
namespace {

using ember::Tensor;

std::vector<Sample> one(const std::string& desc, tensor_list inputs) {
  return {{desc, std::move(inputs)}};
}

// The gradient of sum(conv2d(x, w) * c) w.r.t. w and x, as a function of (x, w, c): its
// nodes are conv2d_backward_weight and conv_transpose2d, checked to second order.
tensor_list conv_grads(const tensor_list& x) {
  Tensor y = ember::conv2d(x[0], x[1], {}, 2, 1, 1, 2);
  auto g = ember::autograd::grad({(y * x[2]).sum()}, {x[0], x[1]}, {}, true, true);
  return {g[0], g[1]};
}

// Pool gradients as functions of (x, c): linear in c, so c requires grad to record the
// backward kernels (max: a scatter whose own gradient is a gather).
tensor_list max_pool_grad(const tensor_list& x) {
  Tensor y = ember::max_pool2d(x[0], 2, 1);
  return {ember::autograd::grad({(y * x[1]).sum()}, {x[0]}, {}, true, true)[0]};
}

tensor_list avg_pool_grad(const tensor_list& x) {
  Tensor y = ember::avg_pool2d(x[0], 3, 2, 1);
  return {ember::autograd::grad({(y * x[1]).sum()}, {x[0]}, {}, true, true)[0]};
}

Register reg({
    {"conv2d/stride 1 pad 1 bias",
     fn1([](const tensor_list& x) { return ember::conv2d(x[0], x[1], x[2], 1, 1); }),
     [](Device d) {
       return one("[2, 3, 5, 4] * [4, 3, 3, 3]",
                  {input({2, 3, 5, 4}, d), input({4, 3, 3, 3}, d), input({4}, d)});
     }},
    {"conv2d/stride 2 pad [1, 0] dilation 2 groups 2", fn1([](const tensor_list& x) {
       return ember::conv2d(x[0], x[1], {}, 2, {1, 0}, 2, 2);
     }),
     [](Device d) {
       return one("[1, 4, 7, 6] * [6, 2, 2, 3]",
                  {input({1, 4, 7, 6}, d, Layout::Transposed), input({6, 2, 2, 3}, d)});
     }},
    {"conv2d/depthwise unbatched", fn1([](const tensor_list& x) {
       return ember::conv2d(x[0], x[1], x[2], {1, 2}, 1, 1, 3);
     }),
     [](Device d) {
       return one("[3, 4, 5] * [6, 1, 3, 2]",
                  {input({3, 4, 5}, d), input({6, 1, 3, 2}, d), input({6}, d)});
     }},
    {"conv2d/same (even kernel) and valid", fn1([](const tensor_list& x) {
       return ember::conv2d(x[0], x[1], {}, 1, "same", {1, 2}) +
              ember::conv2d(x[0], x[2], {}, 1, "valid").sum();
     }),
     [](Device d) {
       return one("[1, 2, 4, 5] * [3, 2, 2, 2]",
                  {input({1, 2, 4, 5}, d), input({3, 2, 2, 2}, d), input({1, 2, 3, 3}, d)});
     }},
    {"conv2d/weight and input gradients", conv_grads,
     [](Device d) {
       return one("[2, 4, 5, 5] * [2, 2, 3, 3]",
                  {input({2, 4, 5, 5}, d), input({2, 2, 3, 3}, d), constant({2, 2, 3, 3}, d)});
     }},
    {"conv1d/stride 2 pad 1 groups 2",
     fn1([](const tensor_list& x) { return ember::conv1d(x[0], x[1], x[2], 2, 1, 1, 2); }),
     [](Device d) {
       return one("[2, 4, 7] * [6, 2, 3]",
                  {input({2, 4, 7}, d), input({6, 2, 3}, d), input({6}, d)});
     }},
    {"conv_transpose2d/stride 2 pad 1 output_padding 1 bias",
     fn1([](const tensor_list& x) { return ember::conv_transpose2d(x[0], x[1], x[2], 2, 1, 1); }),
     [](Device d) {
       return one("[2, 4, 3, 3] * [4, 3, 3, 3]",
                  {input({2, 4, 3, 3}, d), input({4, 3, 3, 3}, d), input({3}, d)});
     }},
    {"conv_transpose2d/groups 2 dilation 2", fn1([](const tensor_list& x) {
       return ember::conv_transpose2d(x[0], x[1], {}, {1, 2}, 0, {0, 1}, 2, 2);
     }),
     [](Device d) {
       return one("[1, 4, 3, 2] * [4, 1, 2, 2]", {input({1, 4, 3, 2}, d), input({4, 1, 2, 2}, d)});
     }},
    {"conv_transpose1d/unbatched",
     fn1([](const tensor_list& x) { return ember::conv_transpose1d(x[0], x[1], {}, 3, 1); }),
     [](Device d) {
       return one("[2, 4] * [2, 3, 3]", {input({2, 4}, d), input({2, 3, 3}, d)});
     }},
    // Max pooling: distinct values (a tie's gradient is not differentiable).
    {"max_pool2d/kernel 2", fn1([](const tensor_list& x) { return ember::max_pool2d(x[0], 2); }),
     [](Device d) {
       return one("[2, 3, 4, 5] (odd width)",
                  {ember::randperm(120, ember::TensorOptions().device(d))
                       .to(ember::kFloat64)
                       .div(10)
                       .view({2, 3, 4, 5})
                       .requires_grad_(true)});
     }},
    {"max_pool2d/stride 1 pad 1 dilation 2 ceil_mode",
     fn1([](const tensor_list& x) { return ember::max_pool2d(x[0], 2, 1, 1, 2, true); }),
     [](Device d) {
       return one("[1, 2, 5, 4]", {ember::randperm(40, ember::TensorOptions().device(d))
                                       .to(ember::kFloat64)
                                       .view({1, 2, 5, 4})
                                       .requires_grad_(true)});
     }},
    {"max_pool2d/backward", max_pool_grad,
     [](Device d) {
       return one("[1, 2, 4, 4]", {ember::randperm(32, ember::TensorOptions().device(d))
                                       .to(ember::kFloat64)
                                       .view({1, 2, 4, 4})
                                       .requires_grad_(true),
                                   input({1, 2, 3, 3}, d)});
     }},
    {"max_pool1d/with indices ceil_mode", fn1([](const tensor_list& x) {
       return std::get<0>(ember::max_pool1d_with_indices(x[0], 3, 2, 1, 1, true));
     }),
     [](Device d) {
       return one("[2, 8]", {ember::randperm(16, ember::TensorOptions().device(d))
                                 .to(ember::kFloat64)
                                 .view({2, 8})
                                 .requires_grad_(true)});
     }},
    {"adaptive_max_pool2d/7x5 to 3x2", fn1([](const tensor_list& x) {
       return std::get<0>(ember::adaptive_max_pool2d(x[0], {3, 2}));
     }),
     [](Device d) {
       return one("[1, 2, 7, 5]", {ember::randperm(70, ember::TensorOptions().device(d))
                                       .to(ember::kFloat64)
                                       .view({1, 2, 7, 5})
                                       .requires_grad_(true)});
     }},
    {"avg_pool2d/kernel 3 stride 2 pad 1",
     fn1([](const tensor_list& x) { return ember::avg_pool2d(x[0], 3, 2, 1); }),
     [](Device d) {
       return one("[2, 2, 5, 6]", {input({2, 2, 5, 6}, d)});
     }},
    {"avg_pool2d/ceil_mode no pad count divisor", fn1([](const tensor_list& x) {
       return ember::avg_pool2d(x[0], {3, 2}, {2, 1}, 1, true, false) +
              ember::avg_pool2d(x[0], {3, 2}, {2, 1}, 1, true, true, 5);
     }),
     [](Device d) {
       return one("[3, 6, 5] unbatched", {input({3, 6, 5}, d)});
     }},
    {"avg_pool2d/backward", avg_pool_grad,
     [](Device d) {
       return one("[1, 2, 5, 5]", {input({1, 2, 5, 5}, d), input({1, 2, 3, 3}, d)});
     }},
    {"avg_pool1d", fn1([](const tensor_list& x) { return ember::avg_pool1d(x[0], 3, 2, 1); }),
     [](Device d) {
       return one("[2, 3, 7]", {input({2, 3, 7}, d)});
     }},
    {"adaptive_avg_pool2d/5x7 to 3x4 and 1x1", fn1([](const tensor_list& x) {
       return ember::adaptive_avg_pool2d(x[0], {3, 4}).sum() +
              ember::adaptive_avg_pool2d(x[0], {1, 1});
     }),
     [](Device d) {
       return one("[2, 3, 5, 7]", {input({2, 3, 5, 7}, d)});
     }},
    {"adaptive_avg_pool1d/5 to 3",
     fn1([](const tensor_list& x) { return ember::adaptive_avg_pool1d(x[0], 3); }),
     [](Device d) {
       return one("[2, 5]", {input({2, 5}, d)});
     }},
});

}  // namespace
}  // namespace optable
