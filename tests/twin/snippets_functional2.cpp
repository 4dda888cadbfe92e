// Twin snippets, more torch::nn::functional: dtype options, in-place and leaf errors, pooling
// and normalization gradients, integer inputs, interpolate/one_hot/embedding edge cases. See twin.h.
#include "twin.h"

namespace F = torch::nn::functional;

TWIN(fn_layer_norm_grad_leaf) {
  auto x = torch::tensor({1.0, 2.0, 4.0, 0.0, -1.0, 3.0}).reshape({2, 3}).requires_grad_();
  F::layer_norm(x, F::LayerNormFuncOptions({3})).pow(3).sum().backward();
  return x.grad();
}
TWIN(fn_log_softmax_dtype_opt) {
  return F::log_softmax(torch::arange(6.).reshape({2, 3}), F::LogSoftmaxFuncOptions(1).dtype(torch::kFloat64));
}
TWIN(fn_torch_log_softmax_dtype) { return torch::log_softmax(torch::arange(4.), 0, torch::kDouble); }
TWIN(fn_softmax_size1_dim) { return F::softmax(torch::arange(3.).reshape({3, 1}), F::SoftmaxFuncOptions(1)); }
TWIN(fn_softmax_grad) {
  auto x = torch::tensor({1.0, 2.0, 4.0}).requires_grad_();
  (F::softmax(x, F::SoftmaxFuncOptions(0)) * torch::tensor({1.0, -1.0, 2.0})).sum().backward();
  return x.grad();
}
TWIN(fn_log_softmax_grad) {
  auto x = torch::arange(6.).reshape({2, 3}).requires_grad_();
  F::log_softmax(x, F::LogSoftmaxFuncOptions(-1)).select(1, 0).sum().backward();
  return x.grad();
}
TWIN(fn_gelu_none_string) {
  return F::gelu(torch::linspace(-1, 1, 3), F::GELUFuncOptions().approximate("none"));
}
TWIN(fn_relu_inplace_leaf_error) {
  auto x = torch::ones({2}).requires_grad_();
  return F::relu(x, F::ReLUFuncOptions(true));
}
TWIN(fn_relu_method_inplace) {
  auto x = torch::linspace(-1, 1, 4);
  x.relu_();
  return x;
}
TWIN(fn_leaky_relu_inplace) {
  auto x = torch::linspace(-2, 2, 5);
  auto y = F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.1).inplace(true));
  return std::vector<torch::Tensor>{x, y};
}
TWIN(fn_leaky_relu_grad) {
  auto x = torch::tensor({-2.0, 0.0, 3.0}).requires_grad_();
  F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)).sum().backward();
  return x.grad();
}
TWIN(fn_silu_grad) {
  auto x = torch::linspace(-2, 2, 5).requires_grad_();
  F::silu(x).sum().backward();
  return x.grad();
}
TWIN(fn_sigmoid_double) { return torch::sigmoid(torch::tensor({-2.0, 0.5}, torch::kDouble)); }
TWIN(fn_softplus_grad) {
  auto x = torch::linspace(-2, 25, 4).requires_grad_();
  torch::softplus(x).sum().backward();
  return x.grad();
}
TWIN(fn_linear_int) { return F::linear(torch::tensor({{1, 2}}), torch::tensor({{1, 1}, {2, 0}, {-1, 3}})); }
TWIN(fn_linear_bias_grad) {
  auto b = torch::zeros({2}).requires_grad_();
  F::linear(torch::arange(6.).reshape({3, 2}), torch::eye(2), b).sum().backward();
  return b.grad();
}
TWIN(fn_conv1d_double) {
  auto x = torch::arange(5, torch::kDouble).reshape({1, 1, 5});
  return F::conv1d(x, torch::tensor({{{0.5, -1.0}}}, torch::kDouble));
}
TWIN(fn_conv2d_same_dilation) {
  auto x = torch::arange(25.).reshape({1, 1, 5, 5});
  return F::conv2d(x, torch::ones({1, 1, 3, 3}), F::Conv2dFuncOptions().padding(torch::kSame).dilation(2));
}
TWIN(fn_conv2d_valid) {
  auto x = torch::arange(16.).reshape({1, 1, 4, 4});
  return F::conv2d(x, torch::ones({1, 1, 3, 3}), F::Conv2dFuncOptions().padding(torch::kValid));
}
TWIN(fn_conv2d_grad_input) {
  auto x = torch::arange(16.).reshape({1, 1, 4, 4}).requires_grad_();
  F::conv2d(x, torch::linspace(-1, 1, 4).reshape({1, 1, 2, 2}), F::Conv2dFuncOptions().stride(2)).sum().backward();
  return x.grad();
}
TWIN(fn_conv_transpose2d_pad_outpad) {
  auto x = torch::arange(4.).reshape({1, 1, 2, 2});
  auto o = F::ConvTranspose2dFuncOptions().stride(2).padding(1).output_padding(1);
  return F::conv_transpose2d(x, torch::ones({1, 1, 3, 3}), o);
}
TWIN(fn_conv_transpose1d) {
  return F::conv_transpose1d(torch::tensor({{{1.0, 2.0, 3.0}}}), torch::tensor({{{1.0, -1.0}}}));
}
TWIN(fn_max_pool2d_dilation) {
  auto x = torch::arange(25.).reshape({1, 1, 5, 5});
  return F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(1).dilation(2));
}
TWIN(fn_max_pool2d_int_tensor) {
  return F::max_pool2d(torch::arange(16).reshape({1, 1, 4, 4}), F::MaxPool2dFuncOptions(2));
}
TWIN(fn_avg_pool2d_int_tensor) {
  return F::avg_pool2d(torch::arange(16).reshape({1, 1, 4, 4}), F::AvgPool2dFuncOptions(2));
}
TWIN(fn_max_pool2d_grad) {
  auto x = torch::tensor({3., 1., 4., 15., 9., 2., 6., 5., 8., 7., 0., 10., 12., 11., 13., 14.}).reshape({1, 1, 4, 4}).requires_grad_();
  F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(1)).sum().backward();
  return x.grad();
}
TWIN(fn_avg_pool2d_grad_exclude) {
  auto x = torch::ones({1, 1, 3, 3}).requires_grad_();
  F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).stride(2).padding(1).count_include_pad(false)).sum().backward();
  return x.grad();
}
TWIN(fn_max_pool2d_unbatched) {
  return F::max_pool2d(torch::arange(18.).reshape({2, 3, 3}), F::MaxPool2dFuncOptions(2).stride(1));
}
TWIN(fn_adaptive_avg_pool2d_upsample) {
  return F::adaptive_avg_pool2d(torch::arange(4.).reshape({1, 1, 2, 2}), F::AdaptiveAvgPool2dFuncOptions(3));
}
TWIN(fn_adaptive_avg_pool1d) {
  return F::adaptive_avg_pool1d(torch::arange(7.).reshape({1, 1, 7}), F::AdaptiveAvgPool1dFuncOptions(3));
}
TWIN(fn_adaptive_avg_pool2d_grad) {
  auto x = torch::arange(25.).reshape({1, 1, 5, 5}).requires_grad_();
  F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(3)).sum().backward();
  return x.grad();
}
TWIN(fn_batch_norm_eval_4d) {
  auto x = torch::arange(16.).reshape({2, 2, 2, 2});
  return F::batch_norm(x, torch::tensor({1.0, 10.0}), torch::tensor({1.0, 9.0}), F::BatchNormFuncOptions().eps(0.0));
}
TWIN(fn_batch_norm_train_grad) {
  auto x = torch::tensor({1.0, 2.0, 4.0, 0.0, 3.0, -1.0}).reshape({3, 2}).requires_grad_();
  auto w = torch::tensor({1.0, 2.0}).requires_grad_();
  F::batch_norm(x, {}, {}, F::BatchNormFuncOptions().weight(w).training(true)).pow(3).sum().backward();
  return std::vector<torch::Tensor>{x.grad(), w.grad()};
}
TWIN(fn_group_norm_grad) {
  auto x = torch::tensor({1., 2., 4., 0., 3., -1., 5., 2.}).reshape({1, 4, 2}).requires_grad_();
  F::group_norm(x, F::GroupNormFuncOptions(2)).pow(3).sum().backward();
  return x.grad();
}
TWIN(fn_layer_norm_weight_grad) {
  auto w = torch::ones({3}).requires_grad_(), b = torch::zeros({3}).requires_grad_();
  F::layer_norm(torch::arange(6.).reshape({2, 3}), F::LayerNormFuncOptions({3}).weight(w).bias(b)).pow(2).sum().backward();
  return std::vector<torch::Tensor>{w.grad(), b.grad()};
}
TWIN(fn_torch_dropout_train_p0) { return torch::dropout(torch::arange(4.), 0.0, true); }
TWIN(fn_torch_dropout_train_p1) { return torch::dropout(torch::arange(4.), 1.0, true); }
TWIN(fn_dropout_inplace_eval) {
  auto x = torch::arange(3.);
  F::dropout(x, F::DropoutFuncOptions().p(0.2).inplace(true).training(false));
  return x;
}
TWIN(fn_embedding_scalar_index) { return F::embedding(torch::tensor(2), torch::arange(6.).reshape({3, 2})); }
TWIN(fn_embedding_grad_repeat) {
  auto w = torch::zeros({3, 2}).requires_grad_();
  F::embedding(torch::tensor({{2, 0}, {2, 2}}), w).sum().backward();
  return w.grad();
}
TWIN(fn_one_hot_empty_classes) { return F::one_hot(torch::zeros({0}, torch::kLong), 3); }
TWIN(fn_one_hot_empty_infer_error) { return F::one_hot(torch::zeros({0}, torch::kLong)); }
TWIN(fn_one_hot_scalar) { return F::one_hot(torch::tensor(1), 3); }
TWIN(fn_pad_zero_amount) { return F::pad(torch::arange(3.), F::PadFuncOptions({0, 0})); }
TWIN(fn_pad_grad) {
  auto x = torch::arange(3.).reshape({1, 1, 3}).requires_grad_();
  (F::pad(x, F::PadFuncOptions({2, 2}).mode(torch::kReflect)) * torch::arange(7.)).sum().backward();
  return x.grad();
}
TWIN(fn_interpolate_nearest_down) {
  auto x = torch::arange(5.).reshape({1, 1, 5});
  return F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3}));
}
TWIN(fn_interpolate_nearest_exact) {
  auto x = torch::arange(5.).reshape({1, 1, 5});
  return F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3}).mode(torch::kNearestExact));
}
TWIN(fn_interpolate_nearest_2to3) {
  auto x = torch::arange(4.).reshape({1, 1, 2, 2});
  return F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).mode(torch::kNearest));
}
TWIN(fn_interpolate_bicubic) {
  auto x = torch::arange(9.).reshape({1, 1, 3, 3});
  return F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 4}).mode(torch::kBicubic).align_corners(false));
}
TWIN(fn_interpolate_bilinear_grad) {
  auto x = torch::arange(4.).reshape({1, 1, 2, 2}).requires_grad_();
  auto o = F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kBilinear).align_corners(false);
  (F::interpolate(x, o) * torch::arange(16.).reshape({1, 1, 4, 4})).sum().backward();
  return x.grad();
}
TWIN(fn_interpolate_no_size_error) {
  return F::interpolate(torch::ones({1, 1, 2}), F::InterpolateFuncOptions());
}
TWIN(fn_f_softplus_beta_threshold) {
  return F::softplus(torch::linspace(-2, 2, 5), F::SoftplusFuncOptions().beta(2).threshold(1));
}
TWIN(fn_f_hardtanh_range) {
  return F::hardtanh(torch::linspace(-2, 2, 5), F::HardtanhFuncOptions().min_val(-0.5).max_val(1.5));
}
