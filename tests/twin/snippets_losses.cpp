// Twin snippets: loss functions (torch::nn::functional and torch:: forms, loss modules),
// their reductions and options, gradients of losses, and target dtype/shape errors. See twin.h.
#include "twin.h"

namespace F = torch::nn::functional;

TWIN(ls_mse_mean) { return F::mse_loss(torch::arange(4.), torch::ones({4})); }
TWIN(ls_mse_sum) { return F::mse_loss(torch::arange(4.), torch::ones({4}), F::MSELossFuncOptions(torch::kSum)); }
TWIN(ls_mse_none) {
  return F::mse_loss(torch::arange(6.).reshape({2, 3}), torch::ones({2, 3}), F::MSELossFuncOptions(torch::kNone));
}
TWIN(ls_torch_mse_default) { return torch::mse_loss(torch::arange(4.), torch::zeros({4})); }
TWIN(ls_torch_mse_sum_enum) { return torch::mse_loss(torch::arange(4.), torch::zeros({4}), torch::Reduction::Sum); }
TWIN(ls_mse_broadcast_target) { return F::mse_loss(torch::arange(6.).reshape({2, 3}), torch::ones({3})); }
TWIN(ls_mse_shape_error) { return F::mse_loss(torch::ones({2, 3}), torch::ones({4})); }
TWIN(ls_mse_grad) {
  auto x = torch::arange(4.).requires_grad_();
  F::mse_loss(x, torch::ones({4})).backward();
  return x.grad();
}
TWIN(ls_mse_double) { return F::mse_loss(torch::arange(3, torch::kDouble), torch::zeros({3}, torch::kDouble)); }
TWIN(ls_mse_empty_mean) { return F::mse_loss(torch::zeros({0}), torch::zeros({0})); }
TWIN(ls_l1_mean_sum) {
  auto x = torch::linspace(-1, 1, 5), t = torch::zeros({5});
  return std::vector<torch::Tensor>{F::l1_loss(x, t), F::l1_loss(x, t, F::L1LossFuncOptions(torch::kSum))};
}
TWIN(ls_l1_grad_at_zero) {
  auto x = torch::tensor({-1.0, 0.0, 2.0}, torch::requires_grad());
  F::l1_loss(x, torch::zeros({3}), F::L1LossFuncOptions(torch::kSum)).backward();
  return x.grad();
}
TWIN(ls_smooth_l1_default) { return F::smooth_l1_loss(torch::linspace(-2, 2, 5), torch::zeros({5})); }
TWIN(ls_smooth_l1_beta) {
  return F::smooth_l1_loss(torch::linspace(-2, 2, 9), torch::zeros({9}),
                           F::SmoothL1LossFuncOptions().beta(0.5).reduction(torch::kNone));
}
TWIN(ls_smooth_l1_beta_sum) {
  return F::smooth_l1_loss(torch::linspace(-2, 2, 9), torch::zeros({9}), F::SmoothL1LossFuncOptions(torch::kSum).beta(2.0));
}
TWIN(ls_smooth_l1_grad) {
  auto x = torch::linspace(-2, 2, 9).requires_grad_();
  F::smooth_l1_loss(x, torch::zeros({9}), F::SmoothL1LossFuncOptions(torch::kSum)).backward();
  return x.grad();
}
TWIN(ls_huber_delta) {
  return F::huber_loss(torch::linspace(-3, 3, 7), torch::zeros({7}),
                       F::HuberLossFuncOptions().delta(2.0).reduction(torch::kNone));
}
TWIN(ls_huber_default_mean) { return F::huber_loss(torch::linspace(-3, 3, 7), torch::ones({7})); }
TWIN(ls_ce_indices) {
  return F::cross_entropy(torch::linspace(-1, 1, 6).reshape({2, 3}), torch::tensor({0, 2}));
}
TWIN(ls_ce_weight) {
  auto x = torch::linspace(-1, 1, 9).reshape({3, 3});
  return F::cross_entropy(x, torch::tensor({0, 2, 2}), F::CrossEntropyFuncOptions().weight(torch::tensor({1.0, 2.0, 0.5})));
}
TWIN(ls_ce_ignore_index) {
  auto x = torch::linspace(-1, 1, 9).reshape({3, 3});
  return F::cross_entropy(x, torch::tensor({0, 1, 2}), F::CrossEntropyFuncOptions().ignore_index(1));
}
TWIN(ls_ce_all_ignored) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  return F::cross_entropy(x, torch::tensor({-100, -100}));
}
TWIN(ls_ce_label_smoothing) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  return F::cross_entropy(x, torch::tensor({0, 2}), F::CrossEntropyFuncOptions().label_smoothing(0.1));
}
TWIN(ls_ce_smoothing_weight) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  auto o = F::CrossEntropyFuncOptions().label_smoothing(0.2).weight(torch::tensor({1.0, 3.0, 0.5}));
  return F::cross_entropy(x, torch::tensor({0, 2}), o);
}
TWIN(ls_ce_smoothing_ignore_sum) {
  auto x = torch::linspace(-1, 1, 9).reshape({3, 3});
  auto o = F::CrossEntropyFuncOptions().label_smoothing(0.3).ignore_index(0).reduction(torch::kSum);
  return F::cross_entropy(x, torch::tensor({0, 1, 2}), o);
}
TWIN(ls_ce_reduction_none) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  return F::cross_entropy(x, torch::tensor({1, 2}), F::CrossEntropyFuncOptions().reduction(torch::kNone));
}
TWIN(ls_ce_prob_target) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  return F::cross_entropy(x, torch::tensor({{0.2, 0.3, 0.5}, {1.0, 0.0, 0.0}}));
}
TWIN(ls_ce_prob_target_smoothing) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  auto t = torch::tensor({{0.2, 0.3, 0.5}, {1.0, 0.0, 0.0}});
  return F::cross_entropy(x, t, F::CrossEntropyFuncOptions().label_smoothing(0.1).reduction(torch::kNone));
}
TWIN(ls_ce_prob_target_weight) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  auto t = torch::tensor({{0.2, 0.3, 0.5}, {1.0, 0.0, 0.0}});
  return F::cross_entropy(x, t, F::CrossEntropyFuncOptions().weight(torch::tensor({1.0, 2.0, 3.0})));
}
TWIN(ls_ce_spatial) {
  auto x = torch::linspace(-2, 2, 12).reshape({1, 3, 2, 2});
  return F::cross_entropy(x, torch::tensor({{{0, 1}, {2, 0}}}));
}
TWIN(ls_ce_unbatched) { return F::cross_entropy(torch::tensor({0.5, 1.5, -1.0}), torch::tensor(1)); }
TWIN(ls_ce_int32_target_error) {
  return F::cross_entropy(torch::linspace(-1, 1, 6).reshape({2, 3}), torch::tensor({0, 2}, torch::kInt));
}
TWIN(ls_ce_target_out_of_range) {
  return F::cross_entropy(torch::linspace(-1, 1, 6).reshape({2, 3}), torch::tensor({0, 3}));
}
TWIN(ls_ce_batch_mismatch_error) {
  return F::cross_entropy(torch::linspace(-1, 1, 6).reshape({2, 3}), torch::tensor({0, 1, 2}));
}
TWIN(ls_ce_float_target_wrong_shape) {
  return F::cross_entropy(torch::linspace(-1, 1, 6).reshape({2, 3}), torch::tensor({0.0, 2.0}));
}
TWIN(ls_ce_grad) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3}).requires_grad_();
  F::cross_entropy(x, torch::tensor({0, 2})).backward();
  return x.grad();
}
TWIN(ls_ce_grad_weight_ignore) {
  auto x = torch::linspace(-1, 1, 9).reshape({3, 3}).requires_grad_();
  F::cross_entropy(x, torch::tensor({0, 1, 2}), F::CrossEntropyFuncOptions().weight(torch::tensor({1.0, 2.0, 0.5})).ignore_index(1)).backward();
  return x.grad();
}
TWIN(ls_ce_grad_smoothing) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3}).requires_grad_();
  F::cross_entropy(x, torch::tensor({0, 2}), F::CrossEntropyFuncOptions().label_smoothing(0.1)).backward();
  return x.grad();
}
TWIN(ls_torch_nll_sum) {
  auto lp = torch::log_softmax(torch::linspace(-1, 1, 6).reshape({2, 3}), 1);
  return torch::nll_loss(lp, torch::tensor({1, 0}), {}, torch::Reduction::Sum);
}
TWIN(ls_torch_nll_ignore) {
  auto lp = torch::arange(9.).reshape({3, 3}).neg();
  return torch::nll_loss(lp, torch::tensor({1, 0, 2}), {}, torch::Reduction::Mean, 2);
}
TWIN(ls_torch_nll_default) { return torch::nll_loss(torch::arange(6.).reshape({2, 3}).neg(), torch::tensor({2, 1})); }
TWIN(ls_nll_weight_mean) {
  auto lp = torch::arange(9.).reshape({3, 3}).neg();
  return F::nll_loss(lp, torch::tensor({0, 1, 1}), F::NLLLossFuncOptions().weight(torch::tensor({2.0, 0.5, 1.0})));
}
TWIN(ls_nll_none) {
  auto lp = torch::arange(9.).reshape({3, 3}).neg();
  return F::nll_loss(lp, torch::tensor({0, 1, 2}), F::NLLLossFuncOptions().reduction(torch::kNone).ignore_index(0));
}
TWIN(ls_nll_grad_weight) {
  auto lp = torch::arange(6.).reshape({2, 3}).neg().requires_grad_();
  F::nll_loss(lp, torch::tensor({2, 0}), F::NLLLossFuncOptions().weight(torch::tensor({3.0, 1.0, 1.0}))).backward();
  return lp.grad();
}
TWIN(ls_nll_target_1d_input_error) { return F::nll_loss(torch::ones({2, 3}), torch::tensor({{0, 1}})); }
TWIN(ls_bce_mean) {
  return F::binary_cross_entropy(torch::tensor({0.1, 0.5, 0.9}), torch::tensor({0.0, 1.0, 1.0}));
}
TWIN(ls_bce_weight_sum) {
  auto o = F::BinaryCrossEntropyFuncOptions().weight(torch::tensor({1.0, 2.0, 0.5})).reduction(torch::kSum);
  return F::binary_cross_entropy(torch::tensor({0.1, 0.5, 0.9}), torch::tensor({0.0, 1.0, 0.3}), o);
}
TWIN(ls_bce_clamped_log) {
  return F::binary_cross_entropy(torch::tensor({0.0, 1.0}), torch::tensor({1.0, 0.0}), F::BinaryCrossEntropyFuncOptions().reduction(torch::kNone));
}
TWIN(ls_bce_out_of_range_error) {
  return F::binary_cross_entropy(torch::tensor({1.5, 0.5}), torch::tensor({1.0, 0.0}));
}
TWIN(ls_bce_shape_error) { return F::binary_cross_entropy(torch::full({2, 2}, 0.5), torch::ones({4})); }
TWIN(ls_bce_grad) {
  auto x = torch::tensor({0.2, 0.6}, torch::requires_grad());
  F::binary_cross_entropy(x, torch::tensor({0.0, 1.0})).backward();
  return x.grad();
}
TWIN(ls_bce_logits_default) {
  return F::binary_cross_entropy_with_logits(torch::linspace(-50, 50, 5), torch::tensor({0.0, 1.0, 1.0, 0.0, 1.0}));
}
TWIN(ls_bce_logits_pos_weight) {
  auto x = torch::linspace(-2, 2, 6).reshape({2, 3}), t = torch::tensor({{1., 0., 1.}, {0., 1., 1.}});
  auto o = F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(torch::tensor({1.0, 2.0, 3.0})).reduction(torch::kNone);
  return F::binary_cross_entropy_with_logits(x, t, o);
}
TWIN(ls_bce_logits_weight_grad) {
  auto x = torch::linspace(-2, 2, 4).requires_grad_();
  auto o = F::BinaryCrossEntropyWithLogitsFuncOptions().weight(torch::tensor({1.0, 0.0, 2.0, 1.0})).pos_weight(torch::tensor(3.0));
  F::binary_cross_entropy_with_logits(x, torch::tensor({1.0, 1.0, 0.0, 0.5}), o).backward();
  return x.grad();
}
TWIN(ls_bce_logits_shape_error) {
  return F::binary_cross_entropy_with_logits(torch::zeros({2, 3}), torch::zeros({3, 2}));
}
TWIN(ls_kl_div_default_mean) {
  auto lp = torch::log_softmax(torch::arange(6.).reshape({2, 3}), 1);
  return F::kl_div(lp, torch::tensor({{0.2, 0.3, 0.5}, {0.0, 0.5, 0.5}}));
}
TWIN(ls_kl_div_batchmean) {
  auto lp = torch::log_softmax(torch::arange(6.).reshape({2, 3}), 1);
  return F::kl_div(lp, torch::tensor({{0.2, 0.3, 0.5}, {0.0, 0.5, 0.5}}), F::KLDivFuncOptions(torch::kBatchMean));
}
TWIN(ls_kl_div_log_target_none) {
  auto lp = torch::log_softmax(torch::arange(4.), 0), lt = torch::log_softmax(torch::ones({4}), 0);
  return F::kl_div(lp, lt, F::KLDivFuncOptions().log_target(true).reduction(torch::kNone));
}
TWIN(ls_kl_div_grad) {
  auto x = torch::tensor({-1.0, -2.0, -0.5}, torch::requires_grad());
  F::kl_div(x, torch::tensor({0.2, 0.0, 0.8}), F::KLDivFuncOptions(torch::kSum)).backward();
  return x.grad();
}
TWIN(ls_margin_ranking) {
  auto o = F::MarginRankingLossFuncOptions().margin(0.5).reduction(torch::kNone);
  return F::margin_ranking_loss(torch::tensor({1.0, 2.0, 3.0}), torch::tensor({2.0, 2.0, 0.0}), torch::tensor({1.0, -1.0, 1.0}), o);
}
TWIN(ls_hinge_embedding) {
  return F::hinge_embedding_loss(torch::tensor({0.3, 2.0, 0.5, 1.5}), torch::tensor({1.0, -1.0, -1.0, 1.0}),
                                 F::HingeEmbeddingLossFuncOptions().margin(2));
}
TWIN(ls_soft_margin) {
  return F::soft_margin_loss(torch::tensor({0.5, -1.0, 2.0}), torch::tensor({1.0, 1.0, -1.0}));
}
TWIN(ls_multi_margin_default) {
  return F::multi_margin_loss(torch::linspace(-1, 1, 8).reshape({2, 4}), torch::tensor({3, 0}));
}
TWIN(ls_multi_margin_p2_weight) {
  auto o = F::MultiMarginLossFuncOptions().p(2).margin(0.5).weight(torch::tensor({1.0, 2.0, 3.0, 4.0})).reduction(torch::kNone);
  return F::multi_margin_loss(torch::linspace(-1, 1, 8).reshape({2, 4}), torch::tensor({1, 2}), o);
}
TWIN(ls_multilabel_soft_margin) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  return F::multilabel_soft_margin_loss(x, torch::tensor({{1., 0., 1.}, {0., 0., 1.}}));
}
TWIN(ls_multilabel_margin) {
  auto x = torch::tensor({{0.1, 0.2, 0.4, 0.8}});
  return F::multilabel_margin_loss(x, torch::tensor({{3, 0, -1, 1}}));
}
TWIN(ls_triplet_default) {
  auto a = torch::arange(6.).reshape({2, 3});
  return F::triplet_margin_loss(a, a + 0.5, a.flip(0), F::TripletMarginLossFuncOptions());
}
TWIN(ls_triplet_p1_swap) {
  auto a = torch::arange(6.).reshape({2, 3});
  auto o = F::TripletMarginLossFuncOptions().p(1).margin(3.0).swap(true).reduction(torch::kNone);
  return F::triplet_margin_loss(a, a + 1.0, a * 0.5, o);
}
TWIN(ls_cosine_embedding) {
  auto a = torch::tensor({{1.0, 0.0}, {1.0, 1.0}, {0.0, 2.0}}), b = torch::tensor({{0.5, 0.5}, {-1.0, 1.0}, {1.0, 1.0}});
  return F::cosine_embedding_loss(a, b, torch::tensor({1.0, -1.0, -1.0}), F::CosineEmbeddingLossFuncOptions().margin(0.2));
}
TWIN(ls_poisson_nll_log_input) {
  return F::poisson_nll_loss(torch::tensor({0.0, 1.0, -1.0}), torch::tensor({1.0, 2.0, 0.0}));
}
TWIN(ls_poisson_nll_full_nolog) {
  auto o = F::PoissonNLLLossFuncOptions().log_input(false).full(true).reduction(torch::kNone);
  return F::poisson_nll_loss(torch::tensor({0.5, 1.0, 3.0}), torch::tensor({1.0, 2.0, 4.0}), o);
}
TWIN(ls_module_ce) {
  torch::nn::CrossEntropyLoss loss(torch::nn::CrossEntropyLossOptions().label_smoothing(0.1).reduction(torch::kSum));
  return loss(torch::linspace(-1, 1, 6).reshape({2, 3}), torch::tensor({1, 0}));
}
TWIN(ls_module_mse_sum) {
  torch::nn::MSELoss loss(torch::nn::MSELossOptions(torch::kSum));
  return loss(torch::arange(3.), torch::full({3}, 2.0));
}
TWIN(ls_module_bce_weight) {
  torch::nn::BCELoss loss(torch::nn::BCELossOptions().weight(torch::tensor({2.0, 1.0})));
  return loss(torch::tensor({0.25, 0.75}), torch::tensor({1.0, 0.0}));
}
TWIN(ls_module_nll_ignore) {
  torch::nn::NLLLoss loss(torch::nn::NLLLossOptions().ignore_index(0));
  return loss(torch::arange(6.).reshape({2, 3}).neg(), torch::tensor({0, 2}));
}
TWIN(ls_module_bce_logits_pos) {
  torch::nn::BCEWithLogitsLoss loss(torch::nn::BCEWithLogitsLossOptions().pos_weight(torch::tensor({2.0})));
  return loss(torch::tensor({0.5, -0.5}), torch::tensor({1.0, 1.0}));
}
TWIN(ls_module_l1) {
  torch::nn::L1Loss loss;
  return loss(torch::linspace(-2, 2, 5), torch::zeros({5}));
}
TWIN(ls_module_huber) {
  torch::nn::HuberLoss loss(torch::nn::HuberLossOptions().delta(0.5));
  return loss(torch::linspace(-2, 2, 5), torch::zeros({5}));
}
TWIN(ls_module_kl_batchmean) {
  torch::nn::KLDivLoss loss(torch::nn::KLDivLossOptions(torch::kBatchMean));
  return loss(torch::full({2, 2}, -1.0), torch::full({2, 2}, 0.5));
}
TWIN(ls_loss_requires_grad_flag) {
  auto x = torch::arange(3.).requires_grad_();
  return F::mse_loss(x, torch::zeros({3}));
}
TWIN(ls_loss_target_requires_grad) {
  auto t = torch::ones({3}).requires_grad_();
  F::mse_loss(torch::arange(3.), t).backward();
  return t.grad();
}
TWIN(ls_ce_uint8_target) {
  return F::cross_entropy(torch::linspace(-1, 1, 6).reshape({2, 3}), torch::tensor({0, 2}).to(torch::kByte));
}
TWIN(ls_ce_double_input) {
  return F::cross_entropy(torch::linspace(-1, 1, 6, torch::kDouble).reshape({2, 3}), torch::tensor({1, 1}));
}
TWIN(ls_ce_weight_wrong_size_error) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  return F::cross_entropy(x, torch::tensor({0, 2}), F::CrossEntropyFuncOptions().weight(torch::ones({2})));
}
TWIN(ls_ce_grad_prob_target) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3}).requires_grad_();
  F::cross_entropy(x, torch::tensor({{0.2, 0.3, 0.5}, {1.0, 0.0, 0.0}})).backward();
  return x.grad();
}
TWIN(ls_ce_grad_spatial_sum) {
  auto x = torch::linspace(-2, 2, 12).reshape({1, 3, 2, 2}).requires_grad_();
  F::cross_entropy(x, torch::tensor({{{0, 1}, {2, 0}}}), F::CrossEntropyFuncOptions().reduction(torch::kSum)).backward();
  return x.grad();
}
TWIN(ls_torch_cross_entropy_loss) {
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3});
  return torch::cross_entropy_loss(x, torch::tensor({2, 1}), {}, torch::Reduction::None, -100, 0.2);
}
TWIN(ls_nll_unbatched) { return F::nll_loss(torch::tensor({-0.5, -1.0, -2.0}), torch::tensor(2)); }
TWIN(ls_nll_grad_all_ignored) {
  auto lp = torch::arange(6.).reshape({2, 3}).neg().requires_grad_();
  F::nll_loss(lp, torch::tensor({1, 1}), F::NLLLossFuncOptions().ignore_index(1)).backward();
  return lp.grad();
}
TWIN(ls_torch_nll_none_weight) {
  auto lp = torch::arange(6.).reshape({2, 3}).neg();
  return torch::nll_loss(lp, torch::tensor({2, 0}), torch::tensor({0.5, 1.0, 2.0}), torch::Reduction::None);
}
TWIN(ls_mse_int_error) { return F::mse_loss(torch::tensor({1, 2}), torch::tensor({0, 0})); }
TWIN(ls_mse_float_double) { return F::mse_loss(torch::arange(3.), torch::zeros({3}, torch::kDouble)); }
TWIN(ls_mse_grad_sum_2d) {
  auto x = torch::arange(6.).reshape({2, 3}).requires_grad_();
  F::mse_loss(x, torch::ones({2, 3}), F::MSELossFuncOptions(torch::kSum)).backward();
  return x.grad();
}
TWIN(ls_torch_l1_loss) { return torch::l1_loss(torch::arange(4.), torch::ones({4}), torch::Reduction::Sum); }
TWIN(ls_smooth_l1_beta_zero) {
  return F::smooth_l1_loss(torch::linspace(-1, 1, 5), torch::zeros({5}), F::SmoothL1LossFuncOptions().beta(0.0));
}
TWIN(ls_torch_smooth_l1_beta) {
  return torch::smooth_l1_loss(torch::linspace(-2, 2, 5), torch::zeros({5}), torch::Reduction::None, 0.5);
}
TWIN(ls_smooth_l1_grad_beta) {
  auto x = torch::linspace(-1, 1, 5).requires_grad_();
  F::smooth_l1_loss(x, torch::zeros({5}), F::SmoothL1LossFuncOptions().beta(0.75)).backward();
  return x.grad();
}
TWIN(ls_bce_weight_broadcast) {
  auto o = F::BinaryCrossEntropyFuncOptions().weight(torch::tensor({1.0, 2.0, 3.0}));
  return F::binary_cross_entropy(torch::full({2, 3}, 0.25), torch::tensor({{1., 0., 1.}, {0., 0., 1.}}), o);
}
TWIN(ls_torch_bce_sum) {
  return torch::binary_cross_entropy(torch::tensor({0.2, 0.7}), torch::tensor({1.0, 0.0}), {}, torch::Reduction::Sum);
}
TWIN(ls_torch_bce_logits_pos) {
  auto x = torch::tensor({0.5, -1.0, 2.0}), t = torch::tensor({1.0, 0.0, 1.0});
  return torch::binary_cross_entropy_with_logits(x, t, {}, torch::tensor({2.0, 2.0, 0.5}));
}
TWIN(ls_bce_logits_mean_2d_pos) {
  auto x = torch::linspace(-2, 2, 6).reshape({2, 3}), t = torch::tensor({{1., 0., 1.}, {0., 1., 1.}});
  return F::binary_cross_entropy_with_logits(x, t, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(torch::tensor({1.0, 2.0, 3.0})));
}
TWIN(ls_bce_logits_grad_pos) {
  auto x = torch::linspace(-2, 2, 3).requires_grad_();
  auto o = F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(torch::tensor({2.0, 1.0, 0.5})).reduction(torch::kSum);
  F::binary_cross_entropy_with_logits(x, torch::tensor({1.0, 0.0, 1.0}), o).backward();
  return x.grad();
}
TWIN(ls_torch_kl_div_log_target) {
  return torch::kl_div(torch::tensor({-1.0, -2.0}), torch::tensor({-0.5, -1.5}), torch::Reduction::Sum, true);
}
TWIN(ls_kl_div_grad_batchmean) {
  auto x = torch::full({2, 2}, -1.0).requires_grad_();
  F::kl_div(x, torch::tensor({{0.25, 0.75}, {0.5, 0.5}}), F::KLDivFuncOptions(torch::kBatchMean)).backward();
  return x.grad();
}
TWIN(ls_kl_div_zero_target) {
  return F::kl_div(torch::tensor({-1.0, -2.0}), torch::tensor({0.0, 1.0}), F::KLDivFuncOptions(torch::kNone));
}
TWIN(ls_module_nll_weight_none) {
  torch::nn::NLLLoss loss(torch::nn::NLLLossOptions().weight(torch::tensor({1.0, 2.0, 3.0})).reduction(torch::kNone));
  return loss->forward(torch::arange(6.).reshape({2, 3}).neg(), torch::tensor({1, 2}));
}
TWIN(ls_module_smooth_l1_beta) {
  torch::nn::SmoothL1Loss loss(torch::nn::SmoothL1LossOptions().beta(0.5));
  return loss(torch::linspace(-1, 1, 5), torch::zeros({5}));
}
TWIN(ls_module_ce_weight_grad) {
  torch::nn::CrossEntropyLoss loss(torch::nn::CrossEntropyLossOptions().weight(torch::tensor({1.0, 0.5, 2.0})));
  auto x = torch::linspace(-1, 1, 6).reshape({2, 3}).requires_grad_();
  loss(x, torch::tensor({2, 1})).backward();
  return x.grad();
}
TWIN(ls_module_bce_default_2d) {
  torch::nn::BCELoss loss;
  return loss(torch::full({2, 2}, 0.4), torch::eye(2));
}
TWIN(ls_module_mse_default_forward) {
  torch::nn::MSELoss loss;
  return loss->forward(torch::arange(4.).reshape({2, 2}), torch::zeros({2, 2}));
}
TWIN(ls_nested_tensor_requires_grad_is_leaf) {
  auto x = torch::tensor({{1.0, 2.0}, {3.0, 4.0}}, torch::requires_grad());
  return x.is_leaf();
}
TWIN(ls_smooth_l1_beta_arg) {
  return F::smooth_l1_loss(torch::linspace(-2, 2, 9), torch::zeros({9}), torch::kSum, 2.0);
}
