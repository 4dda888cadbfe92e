// Twin snippets: reductions (sum/mean/max/var/norm/...), scans, softmax, sorting/selection,
// and linear algebra (matmul family, einsum, norms). LibTorch spelling; see twin.h.
#include "twin.h"

static const double rd_nan = std::nan("");

TWIN(rd_sum_all_int32) { return torch::tensor({1, 2, 3}, torch::kInt32).sum(); }
TWIN(rd_sum_bool) { return torch::tensor({true, true, false}).sum(); }
TWIN(rd_sum_dim) { return torch::arange(6).reshape({2, 3}).sum(1); }
TWIN(rd_sum_neg_dim_keepdim) { return torch::arange(6.).reshape({2, 3}).sum(-1, true); }
TWIN(rd_sum_multi_dims) { return torch::arange(24.).reshape({2, 3, 4}).sum({0, 2}); }
TWIN(rd_sum_dtype_arg) { return torch::arange(4, torch::kInt32).sum(torch::kFloat64); }
TWIN(rd_sum_dim_dtype) { return torch::sum(torch::arange(6).reshape({2, 3}), {0}, false, torch::kFloat32); }
TWIN(rd_sum_empty) { return torch::ones({0}).sum(); }
TWIN(rd_sum_empty_dim) { return torch::ones({0, 3}).sum(0); }
TWIN(rd_sum_int32_dim) { return torch::ones({2, 2}, torch::kInt32).sum(0); }
TWIN(rd_sum_dim_out_of_range_error) { return torch::ones({2, 3}).sum(2); }
TWIN(rd_mean_all) { return torch::arange(6.).reshape({2, 3}).mean(); }
TWIN(rd_mean_dims_keepdim) { return torch::arange(24.).reshape({2, 3, 4}).mean({0, -1}, true); }
TWIN(rd_mean_int_error) { return torch::arange(4).mean(); }
TWIN(rd_mean_int_dtype) { return torch::arange(4).mean(torch::kFloat64); }
TWIN(rd_mean_empty_nan) { return torch::ones({0}).mean(); }
TWIN(rd_prod_int) { return torch::tensor({2, 3, 4}, torch::kInt32).prod(); }
TWIN(rd_prod_dim_keepdim) { return torch::arange(1., 7.).reshape({2, 3}).prod(1, true); }
TWIN(rd_amax_amin_dims) { auto x = torch::tensor({{1, 7, 3}, {4, 2, 9}});
  return std::vector<torch::Tensor>{x.amax(), x.amax(0), x.amin({0, 1}), x.amin(-1, true)}; }
TWIN(rd_max_min_all) { auto x = torch::tensor({{1, 7, 3}, {4, 2, 9}}); return std::vector<torch::Tensor>{x.max(), torch::min(x)}; }
TWIN(rd_max_dim_tuple) { return torch::tensor({{1.0, 7.0, 3.0}, {4.0, 2.0, 9.0}}).max(1); }
TWIN(rd_min_dim_keepdim) { return torch::min(torch::tensor({{1, 7, 3}, {4, 2, 9}}), 0, true); }
TWIN(rd_max_neg_dim) { return torch::max(torch::tensor({{1, 7, 3}, {4, 2, 9}}), -1); }
TWIN(rd_max_empty_error) { return torch::ones({0}).max(); }
TWIN(rd_argmax_all) { return torch::tensor({{1, 7, 3}, {4, 2, 9}}).argmax(); }
TWIN(rd_argmax_dim) { return torch::tensor({{1, 7, 3}, {4, 2, 9}}).argmax(1); }
TWIN(rd_argmin_dim_keepdim) { return torch::argmin(torch::tensor({{1.0, 7.0, 3.0}, {4.0, 2.0, 9.0}}), 0, true); }
TWIN(rd_all_any) { auto x = torch::tensor({{true, false}, {true, true}});
  return std::vector<torch::Tensor>{x.all(), x.any(), x.all(1), x.any(0)}; }
TWIN(rd_all_int) { return torch::tensor({1, 2, 0}).all(); }
TWIN(rd_any_float_dim_keepdim) { return torch::tensor({{0.0, 0.5}, {0.0, 0.0}}).any(1, true); }
TWIN(rd_norm_default) { return torch::tensor({3.0, 4.0}).norm(); }
TWIN(rd_norm_p1) { return torch::tensor({-3.0, 4.0}).norm(1); }
TWIN(rd_norm_dim) { return torch::norm(torch::tensor({{3.0, 4.0}, {6.0, 8.0}}), 2, {1}); }
TWIN(rd_norm_inf) { return torch::tensor({-7.0, 4.0}).norm(INFINITY); }
TWIN(rd_norm_dim_keepdim) { return torch::arange(6.).reshape({2, 3}).norm(1, {0}, true); }
TWIN(rd_var_default) { return torch::arange(6.).var(); }
TWIN(rd_std_biased) { return torch::arange(6.).std(false); }
TWIN(rd_var_dim_unbiased_keepdim) { return torch::arange(6.).reshape({2, 3}).var({1}, false, true); }
TWIN(rd_std_neg_dim) { return torch::std(torch::arange(6.).reshape({2, 3}), -1); }
TWIN(rd_var_correction_scalar) { return torch::var(torch::arange(6.), c10::nullopt, torch::Scalar(2)); }
TWIN(rd_var_int_second_arg) { return torch::arange(6.).reshape({2, 3}).var(1, 2); }
TWIN(rd_std_single_elem_nan) { return torch::tensor({5.0}).std(); }
TWIN(rd_var_mean) { return torch::var_mean(torch::arange(6.).reshape({2, 3}), 1); }
TWIN(rd_std_mean_all) { return torch::std_mean(torch::arange(5.)); }
TWIN(rd_std_mean_biased) { return torch::std_mean(torch::arange(6.).reshape({2, 3}), {0}, false, true); }
TWIN(rd_logsumexp) { return torch::logsumexp(torch::tensor({{0.0, 1.0, 2.0}, {100.0, 100.0, 0.0}}), 1); }
TWIN(rd_logsumexp_keepdim) { return torch::tensor({{0.0, 1.0}, {2.0, 3.0}}).logsumexp({0}, true); }
TWIN(rd_cumsum_int32_promotes) { return torch::tensor({1, 2, 3}, torch::kInt32).cumsum(0); }
TWIN(rd_cumsum_bool) { return torch::tensor({true, false, true}).cumsum(0); }
TWIN(rd_cumsum_dim_dtype) { return torch::cumsum(torch::arange(6).reshape({2, 3}), 1, torch::kFloat64); }
TWIN(rd_cumsum_neg_dim) { return torch::arange(6.).reshape({2, 3}).cumsum(-2); }
TWIN(rd_cumprod) { return torch::tensor({1.0, 2.0, 3.0, 4.0}).cumprod(0); }
TWIN(rd_cumprod_int) { return torch::cumprod(torch::tensor({2, 3, 4}), 0); }
TWIN(rd_cummax) { return torch::cummax(torch::tensor({1.0, 3.0, 2.0, 5.0, 4.0}), 0); }
TWIN(rd_cummin_2d) { return torch::cummin(torch::tensor({{5, 3, 4}, {1, 6, 0}}), 1); }
TWIN(rd_softmax_dim) { return torch::softmax(torch::tensor({{1.0, 2.0, 3.0}, {0.0, 0.0, 0.0}}), 1); }
TWIN(rd_softmax_dim0) { return torch::tensor({{1.0, 2.0}, {3.0, 5.0}}).softmax(0); }
TWIN(rd_softmax_dtype) { return torch::softmax(torch::tensor({1.0, 2.0, 3.0}), -1, torch::kFloat64); }
TWIN(rd_softmax_int_error) { return torch::softmax(torch::tensor({1, 2, 3}), 0); }
TWIN(rd_softmax_int_with_dtype) { return torch::arange(3).softmax(0, torch::kFloat32); }
TWIN(rd_log_softmax) { return torch::log_softmax(torch::tensor({{1.0, 2.0, 3.0}, {1000.0, 0.0, 0.0}}), -1); }
TWIN(rd_functional_softmax) { namespace F = torch::nn::functional;
  return F::softmax(torch::tensor({1.0, 2.0}), F::SoftmaxFuncOptions(0)); }
TWIN(rd_median_even_lower) { return torch::tensor({4.0, 1.0, 3.0, 2.0}).median(); }
TWIN(rd_median_dim) { return torch::median(torch::tensor({{3.0, 1.0, 2.0}, {6.0, 5.0, 4.0}}), 1); }
TWIN(rd_nanmedian) { return torch::tensor({rd_nan, 1.0, 3.0, 2.0}).nanmedian(); }
TWIN(rd_mode_values) { return std::get<0>(torch::mode(torch::tensor({1, 2, 2, 3, 2, 1}))); }
TWIN(rd_count_nonzero) { return torch::count_nonzero(torch::tensor({{0, 1, 2}, {0, 0, 3}})); }
TWIN(rd_count_nonzero_dims) { return torch::tensor({{{0.0, 1.0}, {2.0, 0.0}}, {{0.0, 0.0}, {3.0, 4.0}}}).count_nonzero({0, 1}); }
TWIN(rd_nansum_nanmean) { auto x = torch::tensor({1.0, rd_nan, 3.0}); return std::vector<torch::Tensor>{x.nansum(), x.nanmean()}; }
TWIN(rd_matmul_1d_1d) { return torch::matmul(torch::arange(3.), torch::tensor({1.0, 2.0, 3.0})); }
TWIN(rd_matmul_2d_1d) { return torch::arange(6.).reshape({2, 3}).matmul(torch::ones({3})); }
TWIN(rd_matmul_1d_2d) { return torch::matmul(torch::ones({2}), torch::arange(6.).reshape({2, 3})); }
TWIN(rd_matmul_batched_2d) { return torch::matmul(torch::arange(12.).reshape({2, 2, 3}), torch::arange(6.).reshape({3, 2})); }
TWIN(rd_matmul_2d_batched) { return torch::matmul(torch::arange(6.).reshape({2, 3}), torch::arange(12.).reshape({2, 3, 2})); }
TWIN(rd_matmul_batch_broadcast) { return torch::matmul(torch::ones({2, 1, 2, 3}), torch::ones({4, 3, 5})).sizes().vec(); }
TWIN(rd_matmul_1d_batched) { return torch::matmul(torch::tensor({1.0, -1.0}), torch::arange(12.).reshape({3, 2, 2})); }
TWIN(rd_matmul_int) { return torch::matmul(torch::tensor({{1, 2}, {3, 4}}), torch::tensor({{5, 6}, {7, 8}})); }
TWIN(rd_matmul_shape_error) { return torch::matmul(torch::ones({2, 3}), torch::ones({2, 3})); }
TWIN(rd_matmul_dtype_mismatch_error) { return torch::matmul(torch::ones({2, 2}), torch::ones({2, 2}, torch::kFloat64)); }
TWIN(rd_matmul_operator_chain) { auto a = torch::eye(2) * 2; return a.mm(a).mm(torch::tensor({{1.0, 2.0}, {3.0, 4.0}})); }
TWIN(rd_mm) { return torch::mm(torch::arange(6.).reshape({2, 3}), torch::arange(6.).reshape({3, 2})); }
TWIN(rd_mm_1d_error) { return torch::mm(torch::ones({3}), torch::ones({3, 2})); }
TWIN(rd_bmm) { return torch::bmm(torch::arange(12.).reshape({2, 2, 3}), torch::arange(12.).reshape({2, 3, 2})); }
TWIN(rd_mv) { return torch::mv(torch::arange(6.).reshape({2, 3}), torch::tensor({1.0, 0.0, -1.0})); }
TWIN(rd_dot) { return torch::dot(torch::tensor({1.0, 2.0, 3.0}), torch::tensor({4.0, 5.0, 6.0})); }
TWIN(rd_dot_int) { return torch::tensor({1, 2, 3}).dot(torch::tensor({4, 5, 6})); }
TWIN(rd_dot_dtype_error) { return torch::dot(torch::tensor({1, 2}), torch::tensor({1.0, 2.0})); }
TWIN(rd_dot_2d_error) { return torch::dot(torch::ones({2, 2}), torch::ones({2, 2})); }
TWIN(rd_outer) { return torch::outer(torch::tensor({1.0, 2.0}), torch::tensor({3.0, 4.0, 5.0})); }
TWIN(rd_ger) { return torch::tensor({1, 2}).ger(torch::tensor({3, 4, 5})); }
TWIN(rd_addmm_beta_alpha) { return torch::addmm(torch::ones({2, 2}), torch::eye(2), torch::tensor({{1.0, 2.0}, {3.0, 4.0}}), 0.5, 2); }
TWIN(rd_addmm_broadcast_bias) { return torch::addmm(torch::tensor({1.0, -1.0}), torch::ones({3, 2}), torch::eye(2)); }
TWIN(rd_addmv) { return torch::addmv(torch::ones({2}), torch::arange(6.).reshape({2, 3}), torch::ones({3}), 2, 3); }
TWIN(rd_baddbmm) { return torch::baddbmm(torch::ones({2, 2, 2}), torch::ones({2, 2, 3}), torch::ones({2, 3, 2}), 0.5, -1); }
TWIN(rd_einsum_mm) { return torch::einsum("ij,jk->ik", {torch::arange(6.).reshape({2, 3}), torch::arange(6.).reshape({3, 2})}); }
TWIN(rd_einsum_bmm) { return torch::einsum("bij,bjk->bik", {torch::arange(12.).reshape({2, 2, 3}), torch::ones({2, 3, 1})}); }
TWIN(rd_einsum_trace) { return torch::einsum("ii->", {torch::arange(9.).reshape({3, 3})}); }
TWIN(rd_einsum_outer) { return torch::einsum("i,j->ij", {torch::tensor({1.0, 2.0}), torch::tensor({3.0, 4.0, 5.0})}); }
TWIN(rd_einsum_implicit) { return torch::einsum("ij,jk", {torch::eye(2), torch::tensor({{1.0, 2.0}, {3.0, 4.0}})}); }
TWIN(rd_trace) { return torch::arange(9.).reshape({3, 3}).trace(); }
TWIN(rd_trace_int) { return torch::trace(torch::tensor({{1, 2}, {3, 4}}, torch::kInt32)); }
TWIN(rd_kron) { return torch::kron(torch::eye(2), torch::tensor({{1.0, 2.0}, {3.0, 4.0}})); }
TWIN(rd_linalg_norm_fro) { return torch::linalg_norm(torch::tensor({{1.0, 2.0}, {3.0, 4.0}})); }
TWIN(rd_linalg_norm_vector_ord) { return torch::linalg_norm(torch::tensor({3.0, -4.0}), 1); }
TWIN(rd_linalg_norm_str) { return torch::linalg_norm(torch::tensor({{1.0, 2.0}, {3.0, 4.0}}), "fro"); }
TWIN(rd_linalg_vector_norm_dim) { return torch::linalg_vector_norm(torch::tensor({{3.0, 4.0}, {5.0, 12.0}}), 2, {1}); }
TWIN(rd_cross_dim) { return torch::cross(torch::tensor({{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}}), torch::tensor({{0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}), 1); }
TWIN(rd_cross_default_dim) { auto a = torch::arange(9.).reshape({3, 3}); return torch::cross(a, torch::tensor({{0.0, 1.0, 0.0}, {1.0, 0.0, 0.0}, {0.0, 0.0, 1.0}})); }
TWIN(rd_linalg_cross_default_dim) { auto a = torch::arange(9.).reshape({3, 3}); return torch::linalg_cross(a, torch::tensor({{0.0, 1.0, 0.0}, {1.0, 0.0, 0.0}, {0.0, 0.0, 1.0}})); }
TWIN(rd_tensordot) { return torch::tensordot(torch::arange(6.).reshape({2, 3}), torch::arange(12.).reshape({3, 4}), {1}, {0}); }
TWIN(rd_tensordot_two_dims) { return torch::tensordot(torch::arange(24.).reshape({2, 3, 4}), torch::arange(12.).reshape({3, 4}), {1, 2}, {0, 1}); }
TWIN(rd_sort_default) { return torch::sort(torch::tensor({3.0, -1.0, 2.0, 5.0})); }
TWIN(rd_sort_descending_dim0) { return torch::tensor({{3, 1}, {1, 4}, {2, 0}}).sort(0, true); }
TWIN(rd_argsort) { return torch::argsort(torch::tensor({30, 10, 20})); }
TWIN(rd_argsort_descending) { return torch::tensor({{3.0, 1.0, 2.0}}).argsort(1, true); }
TWIN(rd_topk_default) { return torch::topk(torch::tensor({1.0, 5.0, 3.0, 4.0, 2.0}), 2); }
TWIN(rd_topk_smallest) { return torch::tensor({1.0, 5.0, 3.0, 4.0, 2.0}).topk(3, -1, false); }
TWIN(rd_topk_dim0) { return torch::topk(torch::tensor({{1, 8}, {5, 2}, {3, 6}}), 2, 0); }
TWIN(rd_topk_k_too_large_error) { return torch::topk(torch::tensor({1.0, 2.0}), 3); }
TWIN(rd_kthvalue) { return torch::kthvalue(torch::tensor({5.0, 1.0, 4.0, 2.0}), 2); }
TWIN(rd_kthvalue_dim_keepdim) { return torch::tensor({{5, 1, 4}, {2, 9, 7}}).kthvalue(1, 1, true); }
TWIN(rd_unique_sorted) { return std::get<0>(torch::_unique2(torch::tensor({3, 1, 2, 3, 1}))); }
TWIN(rd_unique_inverse_counts) { return torch::_unique2(torch::tensor({3, 1, 2, 3, 1}), true, true, true); }
TWIN(rd_unique_dim) { return std::get<0>(torch::unique_dim(torch::tensor({{1, 2}, {0, 5}, {1, 2}}), 0)); }
TWIN(rd_unique_consecutive) { return torch::unique_consecutive(torch::tensor({1, 1, 2, 2, 3, 1, 1}), true, true); }
TWIN(rd_sum_zero_dim_dim0) { return torch::tensor(3.0).sum(0); }
TWIN(rd_max_zero_dim_dim0) { return torch::max(torch::tensor(5), 0); }
TWIN(rd_sum_dim_keepdim_dtype) { return torch::arange(6, torch::kInt32).reshape({2, 3}).sum(1, true, torch::kFloat64); }
TWIN(rd_sum_uint8) { return torch::tensor({200, 100}, torch::kUInt8).sum(); }
TWIN(rd_sum_neg_dim_error) { return torch::ones({2, 3}).sum(-3); }
TWIN(rd_sum_transposed) { return torch::arange(12.).reshape({3, 4}).t().sum(1); }
TWIN(rd_sum_narrowed) { return torch::arange(12).reshape({3, 4}).narrow(1, 1, 2).sum(0); }
TWIN(rd_mean_bool_error) { return torch::tensor({true, false}).mean(); }
TWIN(rd_mean_int_dtype_int_error) { return torch::arange(4).mean(torch::kInt64); }
TWIN(rd_mean_dim_float32) { return torch::arange(6.).reshape({2, 3}).mean(0); }
TWIN(rd_mean_transposed_dim) { return torch::arange(6.).reshape({2, 3}).transpose(0, 1).mean({1}, true); }
TWIN(rd_prod_empty) { return torch::ones({0}).prod(); }
TWIN(rd_prod_bool) { return torch::tensor({true, true}).prod(); }
TWIN(rd_prod_dim_int32) { return torch::tensor({{1, 2}, {3, 4}}, torch::kInt32).prod(0); }
TWIN(rd_prod_dtype) { return torch::tensor({2, 3}).prod(torch::kFloat64); }
TWIN(rd_amax_empty_error) { return torch::ones({0}).amax(); }
TWIN(rd_amax_nan) { return torch::tensor({1.0, rd_nan, 3.0}).amax(); }
TWIN(rd_max_nan_dim) { return torch::max(torch::tensor({{1.0, rd_nan}, {2.0, 0.0}}), 1); }
TWIN(rd_max_bool) { return torch::tensor({false, true}).max(); }
TWIN(rd_max_transposed_dim) { return torch::tensor({{1, 7, 3}, {4, 2, 9}}).t().max(0); }
TWIN(rd_argmax_empty_error) { return torch::ones({0}).argmax(); }
TWIN(rd_argmax_transposed) { return torch::tensor({{1, 7, 3}, {4, 2, 9}}).t().argmax(); }
TWIN(rd_argmin_neg_dim) { return torch::tensor({{5.0, 7.0, 3.0}, {4.0, 2.0, 9.0}}).argmin(-1); }
TWIN(rd_argmax_zero_dim) { return torch::tensor(4.0).argmax(); }
TWIN(rd_all_uint8_keeps) { return torch::tensor({1, 0}, torch::kUInt8).all(); }
TWIN(rd_any_empty) { return torch::ones({0}).any(); }
TWIN(rd_all_empty) { return torch::ones({0}).all(); }
TWIN(rd_norm_p0) { return torch::tensor({0.0, 3.0, -2.0}).norm(0); }
TWIN(rd_norm_p3) { return torch::tensor({1.0, 2.0}).norm(3); }
TWIN(rd_norm_neg_inf) { return torch::tensor({-7.0, 4.0}).norm(-HUGE_VAL); }
TWIN(rd_norm_int_error) { return torch::tensor({3, 4}).norm(); }
TWIN(rd_norm_multi_dim) { return torch::norm(torch::arange(8.).reshape({2, 2, 2}), 2, {0, 2}); }
TWIN(rd_var_int_dim_bool) { return torch::arange(6.).reshape({2, 3}).var(0, false); }
TWIN(rd_std_int_dim_bool_keepdim) { return torch::arange(6.).reshape({2, 3}).std(1, true, true); }
TWIN(rd_var_multi_dims) { return torch::arange(12.).reshape({2, 3, 2}).var({0, 2}); }
TWIN(rd_var_transposed) { return torch::arange(6.).reshape({2, 3}).t().var(1); }
TWIN(rd_std_float64) { return torch::arange(5, torch::kFloat64).std(); }
TWIN(rd_std_int_error) { return torch::arange(5).std(); }
TWIN(rd_var_empty_nan) { return torch::ones({0}).var(); }
TWIN(rd_softmax_neg_inf) { return torch::softmax(torch::tensor({-HUGE_VAL, 0.0, 0.0}), 0); }
TWIN(rd_softmax_transposed) { return torch::arange(6.).reshape({2, 3}).t().softmax(1); }
TWIN(rd_softmax_zero_dim) { return torch::softmax(torch::tensor(3.0), 0); }
TWIN(rd_softmax_dim_error) { return torch::softmax(torch::ones({2, 2}), 2); }
TWIN(rd_log_softmax_int_error) { return torch::arange(3).log_softmax(0); }
TWIN(rd_log_softmax_dtype) { return torch::log_softmax(torch::tensor({1.0, 2.0}), 0, torch::kFloat64); }
TWIN(rd_mm_int) { return torch::mm(torch::tensor({{1, 2}}), torch::tensor({{3}, {4}})); }
TWIN(rd_mm_transposed) { auto a = torch::arange(6.).reshape({2, 3}); return a.t().mm(a); }
TWIN(rd_matmul_zero_dim_error) { return torch::matmul(torch::tensor(2.0), torch::ones({2})); }
TWIN(rd_matmul_empty_inner) { return torch::matmul(torch::ones({2, 0}), torch::ones({0, 3})); }
TWIN(rd_matmul_float64) { return torch::matmul(torch::ones({2, 2}, torch::kFloat64), torch::tensor({1.0, 2.0}, torch::kFloat64)); }
TWIN(rd_matmul_transposed_batch) { auto b = torch::arange(12.).reshape({2, 2, 3}); return torch::matmul(b, b.transpose(1, 2)); }
TWIN(rd_bmm_shape_error) { return torch::bmm(torch::ones({2, 2, 3}), torch::ones({3, 3, 2})); }
TWIN(rd_bmm_2d_error) { return torch::bmm(torch::ones({2, 3}), torch::ones({3, 2})); }
TWIN(rd_addmm_beta_zero_ignores_nan) { return torch::addmm(torch::full({2, 2}, rd_nan), torch::eye(2), torch::eye(2), 0); }
TWIN(rd_addmm_method) { return torch::ones({2, 2}).addmm(torch::eye(2), torch::tensor({{1.0, 2.0}, {3.0, 4.0}}), 2, -1); }
TWIN(rd_addmm_int) { return torch::addmm(torch::ones({1, 1}, torch::kLong), torch::tensor({{1, 2}}), torch::tensor({{3}, {4}})); }
