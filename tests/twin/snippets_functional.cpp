// Twin snippets: torch::nn::functional (activations, linear/conv, pooling, normalization,
// embedding, padding, distances, resampling, fold) and their torch:: free forms. See twin.h.
#include "twin.h"

namespace F = torch::nn::functional;

TWIN(fn_relu_default) { return F::relu(torch::linspace(-1, 1, 5)); }
TWIN(fn_relu_inplace) {
  auto x = torch::linspace(-1, 1, 5);
  F::relu(x, F::ReLUFuncOptions().inplace(true));
  return x;
}
TWIN(fn_relu_int_tensor) { return torch::relu(torch::tensor({-2, 0, 3})); }
TWIN(fn_relu_grad_at_zero) {
  auto x = torch::tensor({-1.0, 0.0, 2.0}, torch::requires_grad());
  F::relu(x).sum().backward();
  return x.grad();
}
TWIN(fn_gelu_default) { return F::gelu(torch::linspace(-3, 3, 7)); }
TWIN(fn_gelu_tanh) {
  return F::gelu(torch::linspace(-3, 3, 7), F::GELUFuncOptions().approximate("tanh"));
}
TWIN(fn_gelu_grad) {
  auto x = torch::linspace(-2, 2, 5).requires_grad_();
  F::gelu(x).sum().backward();
  return x.grad();
}
TWIN(fn_softmax_dim1) { return F::softmax(torch::arange(6.).reshape({2, 3}), F::SoftmaxFuncOptions(1)); }
TWIN(fn_softmax_dim0_dtype) {
  return F::softmax(torch::arange(6.).reshape({2, 3}), F::SoftmaxFuncOptions(0).dtype(torch::kFloat64));
}
TWIN(fn_torch_softmax_neg_dim) { return torch::softmax(torch::arange(8.).reshape({2, 2, 2}), -1); }
TWIN(fn_torch_softmax_scalar) { return torch::softmax(torch::tensor(2.5), 0); }
TWIN(fn_softmax_empty) { return F::softmax(torch::zeros({0, 3}), F::SoftmaxFuncOptions(1)); }
TWIN(fn_softmax_int_error) { return torch::softmax(torch::tensor({1, 2, 3}), 0); }
TWIN(fn_softmax_int_dtype_arg) { return torch::softmax(torch::tensor({1, 2, 3}), 0, torch::kFloat32); }
TWIN(fn_log_softmax_large) {
  return F::log_softmax(torch::tensor({{1000.0, 0.0}, {-1000.0, 1.0}}), F::LogSoftmaxFuncOptions(1));
}
TWIN(fn_torch_log_softmax_last) { return torch::log_softmax(torch::arange(6.).reshape({3, 2}), -1); }
TWIN(fn_softmin) { return F::softmin(torch::arange(4.), F::SoftminFuncOptions(0)); }
TWIN(fn_leaky_relu_slope) {
  return F::leaky_relu(torch::linspace(-2, 2, 5), F::LeakyReLUFuncOptions().negative_slope(0.2));
}
TWIN(fn_leaky_relu_default) { return F::leaky_relu(torch::linspace(-2, 2, 5)); }
TWIN(fn_elu_alpha) { return F::elu(torch::linspace(-2, 2, 5), F::ELUFuncOptions().alpha(0.5)); }
TWIN(fn_selu) { return F::selu(torch::linspace(-2, 2, 5)); }
TWIN(fn_celu) { return F::celu(torch::linspace(-2, 2, 5), F::CELUFuncOptions().alpha(2.0)); }
TWIN(fn_silu) { return F::silu(torch::linspace(-3, 3, 7)); }
TWIN(fn_mish) { return F::mish(torch::linspace(-3, 3, 7)); }
TWIN(fn_softplus_default) { return torch::softplus(torch::linspace(-3, 30, 4)); }
TWIN(fn_softplus_beta_threshold) {
  return torch::softplus(torch::linspace(-2, 2, 5), 2, 1);
}
TWIN(fn_hardtanh_default) { return torch::hardtanh(torch::linspace(-2, 2, 5)); }
TWIN(fn_hardtanh_range) {
  return torch::hardtanh(torch::linspace(-2, 2, 5), -0.5, 1.5);
}
TWIN(fn_hardtanh_grad_boundary) {
  auto x = torch::tensor({-1.0, -0.5, 1.0, 2.0}, torch::requires_grad());
  torch::hardtanh(x).sum().backward();
  return x.grad();
}
TWIN(fn_relu6) { return F::relu6(torch::linspace(-2, 8, 6)); }
TWIN(fn_logsigmoid) { return F::logsigmoid(torch::tensor({-100.0f, -1.0f, 0.0f, 50.0f})); }
TWIN(fn_sigmoid_int) { return torch::sigmoid(torch::tensor({-1, 0, 1})); }
TWIN(fn_threshold_fn) { return torch::threshold(torch::linspace(-1, 1, 5), 0.1, 20); }
TWIN(fn_threshold_options) {
  return F::threshold(torch::linspace(-1, 1, 5), F::ThresholdFuncOptions(0.5, -1.0));
}
TWIN(fn_hardshrink_softshrink) {
  auto x = torch::linspace(-1, 1, 5);
  torch::Tensor a = F::hardshrink(x);
  torch::Tensor b = F::softshrink(x, F::SoftshrinkFuncOptions(0.25));
  return std::vector<torch::Tensor>{a, b};
}
TWIN(fn_softsign_tanhshrink) {
  auto x = torch::linspace(-2, 2, 5);
  torch::Tensor a = F::softsign(x);
  torch::Tensor b = F::tanhshrink(x);
  return std::vector<torch::Tensor>{a, b};
}
TWIN(fn_glu_default_dim) { return F::glu(torch::arange(8.).reshape({2, 4})); }
TWIN(fn_prelu) { return F::prelu(torch::linspace(-2, 2, 10).reshape({1, 2, 5}), torch::tensor({0.1, 0.3})); }
TWIN(fn_hardswish_hardsigmoid) {
  auto x = torch::linspace(-4, 4, 9);
  torch::Tensor a = torch::hardswish(x);
  torch::Tensor b = torch::hardsigmoid(x);
  return std::vector<torch::Tensor>{a, b};
}
TWIN(fn_linear_bias) {
  auto x = torch::arange(6.).reshape({2, 3});
  auto w = torch::linspace(-1, 1, 12).reshape({4, 3});
  return F::linear(x, w, torch::tensor({0.5, -0.5, 1.0, 0.0}));
}
TWIN(fn_linear_no_bias_1d) { return F::linear(torch::arange(3.), torch::linspace(-1, 1, 6).reshape({2, 3})); }
TWIN(fn_linear_3d_input) {
  return F::linear(torch::arange(12.).reshape({2, 2, 3}), torch::eye(3).narrow(0, 0, 2));
}
TWIN(fn_linear_mismatch_error) { return F::linear(torch::ones({2, 3}), torch::ones({4, 5})); }
TWIN(fn_linear_grad) {
  auto w = torch::linspace(-1, 1, 6).reshape({2, 3}).requires_grad_();
  F::linear(torch::arange(6.).reshape({2, 3}), w).pow(2).sum().backward();
  return w.grad();
}
TWIN(fn_conv1d_padding) {
  auto x = torch::arange(10.).reshape({1, 2, 5});
  auto w = torch::linspace(-1, 1, 12).reshape({2, 2, 3});
  return F::conv1d(x, w, F::Conv1dFuncOptions().padding(1).bias(torch::tensor({0.5, -0.5})));
}
TWIN(fn_conv1d_stride_dilation) {
  auto x = torch::arange(9.).reshape({1, 1, 9});
  return F::conv1d(x, torch::tensor({{{1.0, -1.0, 2.0}}}), F::Conv1dFuncOptions().stride(2).dilation(2));
}
TWIN(fn_conv1d_same) {
  auto x = torch::arange(6.).reshape({1, 1, 6});
  return F::conv1d(x, torch::ones({1, 1, 4}), F::Conv1dFuncOptions().padding(torch::kSame));
}
TWIN(fn_conv2d_default) {
  auto x = torch::arange(16.).reshape({1, 1, 4, 4});
  return F::conv2d(x, torch::linspace(-1, 1, 9).reshape({1, 1, 3, 3}));
}
TWIN(fn_conv2d_stride_pad) {
  auto x = torch::arange(25.).reshape({1, 1, 5, 5});
  auto w = torch::linspace(-1, 1, 18).reshape({2, 1, 3, 3});
  return F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1));
}
TWIN(fn_conv2d_groups) {
  auto x = torch::arange(32.).reshape({1, 2, 4, 4});
  auto w = torch::linspace(-1, 1, 16).reshape({4, 1, 2, 2});
  return F::conv2d(x, w, F::Conv2dFuncOptions().groups(2).bias(torch::arange(4.)));
}
TWIN(fn_conv2d_dilation_asym) {
  auto x = torch::arange(36.).reshape({1, 1, 6, 6});
  auto w = torch::ones({1, 1, 2, 2});
  return F::conv2d(x, w, F::Conv2dFuncOptions().dilation({2, 1}).padding({0, 1}).stride({1, 2}));
}
TWIN(fn_conv2d_unbatched) {
  return F::conv2d(torch::arange(9.).reshape({1, 3, 3}), torch::ones({1, 1, 2, 2}));
}
TWIN(fn_conv2d_channel_error) {
  return F::conv2d(torch::ones({1, 3, 4, 4}), torch::ones({1, 2, 3, 3}));
}
TWIN(fn_conv2d_grad_weight) {
  auto w = torch::linspace(-1, 1, 4).reshape({1, 1, 2, 2}).requires_grad_();
  F::conv2d(torch::arange(9.).reshape({1, 1, 3, 3}), w).sum().backward();
  return w.grad();
}
TWIN(fn_conv_transpose2d) {
  auto x = torch::arange(4.).reshape({1, 1, 2, 2});
  auto w = torch::linspace(-1, 1, 8).reshape({1, 2, 2, 2});
  return F::conv_transpose2d(x, w, F::ConvTranspose2dFuncOptions().stride(2));
}
TWIN(fn_max_pool2d_basic) {
  return F::max_pool2d(torch::arange(16.).reshape({1, 1, 4, 4}), F::MaxPool2dFuncOptions(2));
}
TWIN(fn_max_pool2d_ceil) {
  return F::max_pool2d(torch::arange(25.).reshape({1, 1, 5, 5}), F::MaxPool2dFuncOptions(2).ceil_mode(true));
}
TWIN(fn_max_pool2d_pad_stride) {
  auto x = torch::arange(25.).reshape({1, 1, 5, 5}).neg();
  return F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
}
TWIN(fn_max_pool2d_with_indices) {
  auto x = torch::tensor({3., 1., 4., 15., 9., 2., 6., 5., 8., 7., 0., 10., 12., 11., 13., 14.});
  return F::max_pool2d_with_indices(x.reshape({1, 1, 4, 4}), F::MaxPool2dFuncOptions(2));
}
TWIN(fn_max_pool1d) {
  return F::max_pool1d(torch::tensor({{{1., 5., 2., 8., 3., 4., 7.}}}), F::MaxPool1dFuncOptions(3).stride(2));
}
TWIN(fn_avg_pool2d_basic) {
  return F::avg_pool2d(torch::arange(16.).reshape({1, 1, 4, 4}), F::AvgPool2dFuncOptions(2));
}
TWIN(fn_avg_pool2d_pad_include) {
  auto x = torch::arange(16.).reshape({1, 1, 4, 4});
  return F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(2).padding(1));
}
TWIN(fn_avg_pool2d_pad_exclude) {
  auto x = torch::arange(16.).reshape({1, 1, 4, 4});
  return F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(2).padding(1).count_include_pad(false));
}
TWIN(fn_avg_pool2d_ceil) {
  auto x = torch::arange(25.).reshape({1, 1, 5, 5});
  return F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).ceil_mode(true));
}
TWIN(fn_avg_pool2d_divisor) {
  auto x = torch::arange(16.).reshape({1, 1, 4, 4});
  return F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).divisor_override(3));
}
TWIN(fn_avg_pool1d) { return F::avg_pool1d(torch::arange(7.).reshape({1, 1, 7}), F::AvgPool1dFuncOptions(2)); }
TWIN(fn_adaptive_avg_pool2d_1) {
  return F::adaptive_avg_pool2d(torch::arange(32.).reshape({1, 2, 4, 4}), F::AdaptiveAvgPool2dFuncOptions(1));
}
TWIN(fn_adaptive_avg_pool2d_uneven) {
  auto x = torch::arange(25.).reshape({1, 1, 5, 5});
  return F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({3, 2}));
}
TWIN(fn_adaptive_max_pool2d) {
  auto x = torch::arange(25.).reshape({1, 1, 5, 5});
  return F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions(2));
}
TWIN(fn_batch_norm_eval) {
  auto x = torch::arange(12.).reshape({3, 2, 2});
  auto rm = torch::tensor({1.0, 2.0}), rv = torch::tensor({4.0, 0.25});
  return F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().weight(torch::tensor({2.0, 1.0})).bias(torch::tensor({0.0, 1.0})));
}
TWIN(fn_batch_norm_train_output) {
  auto x = torch::arange(12.).reshape({3, 2, 2});
  return F::batch_norm(x, torch::zeros({2}), torch::ones({2}), F::BatchNormFuncOptions().training(true));
}
TWIN(fn_batch_norm_train_running) {
  auto x = torch::arange(12.).reshape({3, 2, 2});
  auto rm = torch::zeros({2}), rv = torch::ones({2});
  F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().training(true).momentum(0.5));
  return std::vector<torch::Tensor>{rm, rv};
}
TWIN(fn_batch_norm_no_running_train) {
  return F::batch_norm(torch::arange(6.).reshape({3, 2}), torch::Tensor(), torch::Tensor(),
                       F::BatchNormFuncOptions().training(true).eps(0.1));
}
TWIN(fn_layer_norm_last) {
  return F::layer_norm(torch::arange(8.).reshape({2, 4}), F::LayerNormFuncOptions({4}));
}
TWIN(fn_layer_norm_affine_2d) {
  auto x = torch::arange(12.).reshape({2, 2, 3});
  auto w = torch::linspace(0.5, 1.5, 6).reshape({2, 3});
  return F::layer_norm(x, F::LayerNormFuncOptions({2, 3}).weight(w).bias(torch::ones({2, 3})).eps(1e-3));
}
TWIN(fn_layer_norm_grad) {
  auto x = torch::tensor({{1.0, 2.0, 4.0}, {0.0, -1.0, 3.0}}, torch::requires_grad());
  F::layer_norm(x, F::LayerNormFuncOptions({3})).pow(3).sum().backward();
  return x.grad();
}
TWIN(fn_group_norm) {
  auto x = torch::arange(24.).reshape({2, 4, 3});
  return F::group_norm(x, F::GroupNormFuncOptions(2).weight(torch::tensor({1., 2., 3., 4.})).bias(torch::zeros({4})));
}
TWIN(fn_instance_norm) {
  return F::instance_norm(torch::arange(12.).pow(2).reshape({1, 2, 6}), F::InstanceNormFuncOptions());
}
TWIN(fn_local_response_norm) {
  return F::local_response_norm(torch::arange(8.).reshape({1, 4, 2}), F::LocalResponseNormFuncOptions(3));
}
TWIN(fn_dropout_eval) {
  return F::dropout(torch::arange(4.), F::DropoutFuncOptions().p(0.5).training(false));
}
TWIN(fn_dropout_p1_train) { return F::dropout(torch::arange(4.), F::DropoutFuncOptions().p(1.0)); }
TWIN(fn_torch_dropout_eval) { return torch::dropout(torch::arange(4.), 0.3, false); }
TWIN(fn_dropout2d_eval) {
  return F::dropout2d(torch::ones({1, 2, 2, 2}), F::Dropout2dFuncOptions().training(false));
}
TWIN(fn_embedding_basic) {
  auto w = torch::arange(12.).reshape({4, 3});
  return F::embedding(torch::tensor({{0, 3}, {2, 2}}), w);
}
TWIN(fn_embedding_padding_grad) {
  auto w = torch::arange(12.).reshape({4, 3}).requires_grad_();
  F::embedding(torch::tensor({0, 1, 1, 3}), w, F::EmbeddingFuncOptions().padding_idx(1)).sum().backward();
  return w.grad();
}
TWIN(fn_embedding_max_norm) {
  auto w = torch::arange(12.).reshape({4, 3});
  auto out = F::embedding(torch::tensor({1, 3}), w, F::EmbeddingFuncOptions().max_norm(5.0));
  return std::vector<torch::Tensor>{out, w};
}
TWIN(fn_embedding_out_of_range) { return F::embedding(torch::tensor({4}), torch::ones({4, 2})); }
TWIN(fn_embedding_int32_idx) { return F::embedding(torch::tensor({2, 0}, torch::kInt), torch::arange(6.).reshape({3, 2})); }
TWIN(fn_one_hot_default) { return F::one_hot(torch::tensor({0, 2, 1})); }
TWIN(fn_one_hot_classes_2d) { return F::one_hot(torch::tensor({{0, 1}, {3, 0}}), 5); }
TWIN(fn_one_hot_negative_error) { return F::one_hot(torch::tensor({0, -1}), 3); }
TWIN(fn_one_hot_float_error) { return F::one_hot(torch::tensor({0.0, 1.0}), 2); }
TWIN(fn_one_hot_too_small_error) { return F::one_hot(torch::tensor({0, 3}), 3); }
TWIN(fn_pad_constant_default) { return F::pad(torch::arange(3.), F::PadFuncOptions({1, 2})); }
TWIN(fn_pad_constant_value_2d) {
  return F::pad(torch::arange(4.).reshape({2, 2}), F::PadFuncOptions({1, 0, 0, 2}).value(-1));
}
TWIN(fn_pad_negative_crop) { return F::pad(torch::arange(12.).reshape({3, 4}), F::PadFuncOptions({-1, 1})); }
TWIN(fn_pad_reflect) {
  return F::pad(torch::arange(8.).reshape({1, 2, 4}), F::PadFuncOptions({2, 1}).mode(torch::kReflect));
}
TWIN(fn_pad_reflect_2d) {
  return F::pad(torch::arange(9.).reshape({1, 1, 3, 3}), F::PadFuncOptions({1, 1, 2, 0}).mode(torch::kReflect));
}
TWIN(fn_pad_reflect_too_big_error) {
  return F::pad(torch::arange(3.).reshape({1, 1, 3}), F::PadFuncOptions({3, 0}).mode(torch::kReflect));
}
TWIN(fn_pad_replicate) {
  return F::pad(torch::arange(6.).reshape({1, 2, 3}), F::PadFuncOptions({2, 1}).mode(torch::kReplicate));
}
TWIN(fn_pad_circular) {
  return F::pad(torch::arange(6.).reshape({1, 2, 3}), F::PadFuncOptions({1, 2}).mode(torch::kCircular));
}
TWIN(fn_pad_int_tensor) { return F::pad(torch::tensor({1, 2}), F::PadFuncOptions({1, 1}).value(7)); }
TWIN(fn_normalize_default) { return F::normalize(torch::arange(6.).reshape({2, 3})); }
TWIN(fn_normalize_p1_dim0) {
  return F::normalize(torch::arange(6.).reshape({2, 3}), F::NormalizeFuncOptions().p(1).dim(0));
}
TWIN(fn_normalize_zero_row) { return F::normalize(torch::zeros({2, 2}), F::NormalizeFuncOptions().dim(-1)); }
TWIN(fn_cosine_similarity_default) {
  return F::cosine_similarity(torch::arange(6.).reshape({2, 3}), torch::tensor({{1., 0., 1.}, {-1., 2., 0.}}));
}
TWIN(fn_cosine_similarity_bcast_dim0) {
  auto a = torch::arange(6.).reshape({3, 2});
  return F::cosine_similarity(a, torch::tensor({{1.0}, {1.0}, {-1.0}}), F::CosineSimilarityFuncOptions().dim(0));
}
TWIN(fn_cosine_similarity_zero) {
  return F::cosine_similarity(torch::zeros({1, 3}), torch::ones({1, 3}));
}
TWIN(fn_pairwise_distance_default) {
  return F::pairwise_distance(torch::arange(6.).reshape({2, 3}), torch::ones({2, 3}));
}
TWIN(fn_pairwise_distance_p1_keepdim) {
  return F::pairwise_distance(torch::arange(6.).reshape({2, 3}), torch::ones({2, 3}),
                              F::PairwiseDistanceFuncOptions().p(1).keepdim(true));
}
TWIN(fn_pdist) { return F::pdist(torch::tensor({{0.0, 0.0}, {3.0, 4.0}, {1.0, 1.0}})); }
TWIN(fn_cdist) { return torch::cdist(torch::tensor({{0.0, 0.0}, {3.0, 4.0}}), torch::tensor({{1.0, 1.0}})); }
TWIN(fn_interpolate_nearest_size) {
  auto x = torch::arange(3.).reshape({1, 1, 3});
  return F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{5}).mode(torch::kNearest));
}
TWIN(fn_interpolate_nearest_scale2d) {
  auto x = torch::arange(4.).reshape({1, 1, 2, 2});
  return F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 2}));
}
TWIN(fn_interpolate_bilinear) {
  auto x = torch::arange(4.).reshape({1, 1, 2, 2});
  return F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).mode(torch::kBilinear).align_corners(false));
}
TWIN(fn_interpolate_bilinear_align) {
  auto x = torch::arange(4.).reshape({1, 1, 2, 2});
  return F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 3}).mode(torch::kBilinear).align_corners(true));
}
TWIN(fn_interpolate_linear_scale) {
  auto x = torch::tensor({{{0.0, 2.0, 6.0}}});
  return F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2}).mode(torch::kLinear).align_corners(false));
}
TWIN(fn_unfold) { return F::unfold(torch::arange(9.).reshape({1, 1, 3, 3}), F::UnfoldFuncOptions({2, 2})); }
TWIN(fn_unfold_pad_stride) {
  auto x = torch::arange(16.).reshape({1, 1, 4, 4});
  return F::unfold(x, F::UnfoldFuncOptions(2).padding(1).stride(2));
}
TWIN(fn_fold_overlap) { return F::fold(torch::ones({1, 4, 4}), F::FoldFuncOptions({3, 3}, {2, 2})); }
TWIN(fn_pixel_shuffle) {
  return F::pixel_shuffle(torch::arange(16.).reshape({1, 4, 2, 2}), F::PixelShuffleFuncOptions(2));
}
TWIN(fn_pixel_unshuffle) {
  return F::pixel_unshuffle(torch::arange(16.).reshape({1, 1, 4, 4}), F::PixelUnshuffleFuncOptions(2));
}
