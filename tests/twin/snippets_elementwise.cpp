// Twin snippets: elementwise arithmetic, math functions, comparisons, logical/bitwise ops,
// clamp, activations and in-place forms, with dtype promotion and error cases. LibTorch spelling.
#include "twin.h"

static const double ew_nan = std::nan("");
static const double ew_inf = HUGE_VAL;

TWIN(ew_add_alpha_int) { return torch::add(torch::tensor({1, 2, 3}), torch::tensor({10, 20, 30}), 2); }
TWIN(ew_add_alpha_method_double) { return torch::tensor({1.0, 2.0}).add(torch::tensor({4.0, 8.0}), 0.5); }
TWIN(ew_add_alpha_double_on_int_error) { return torch::tensor({1, 2}).add(torch::tensor({3, 4}), 0.5); }
TWIN(ew_sub_alpha) { return torch::sub(torch::tensor({5.0, 6.0}), torch::tensor({1.0, 2.0}), 3); }
TWIN(ew_sub_scalar_method) { return torch::arange(4).sub(1.5); }
TWIN(ew_sub_bool_error) { return torch::tensor({true, false}) - torch::tensor({false, true}); }
TWIN(ew_add_bool_bool) { return torch::tensor({true, false}) + torch::tensor({true, false}); }
TWIN(ew_mul_int_double_scalar) { return torch::arange(3) * 2.5; }
TWIN(ew_div_int_int_true) { return torch::tensor({1, 2, 3}) / torch::tensor({2, 2, 2}); }
TWIN(ew_div_int_by_int_scalar) { return torch::tensor({7, -7}) / 2; }
TWIN(ew_div_floor_mode) { return torch::div(torch::tensor({7, -7, 7}), torch::tensor({2, 2, -2}), "floor"); }
TWIN(ew_div_trunc_mode) { return torch::div(torch::tensor({7, -7, 7}), torch::tensor({2, 2, -2}), "trunc"); }
TWIN(ew_div_floor_float) { return torch::tensor({7.5, -7.5}).div(2, "floor"); }
TWIN(ew_div_trunc_int_zero_error) { return torch::div(torch::tensor({1, 2}), 0, "trunc"); }
TWIN(ew_div_int_by_zero_true) { return torch::tensor({1, 0, -1}) / 0; }
TWIN(ew_floor_divide_neg) { return torch::floor_divide(torch::tensor({7, -7}), 2); }
TWIN(ew_floor_divide_zero_error) { return torch::floor_divide(torch::tensor({1, 2}), torch::tensor({0, 1})); }
TWIN(ew_remainder_neg) { return torch::remainder(torch::tensor({-7, 7, -3}), 3); }
TWIN(ew_remainder_neg_divisor) { return torch::remainder(torch::tensor({7.0, -7.0}), -3.0); }
TWIN(ew_fmod_neg) { return torch::fmod(torch::tensor({-7, 7, -3}), 3); }
TWIN(ew_fmod_float) { return torch::tensor({-7.5, 7.5}).fmod(2); }
TWIN(ew_int_mod_operator) { return torch::tensor({-5, 5}) % 3; }
TWIN(ew_pow_int_scalar) { return torch::arange(4).pow(2); }
TWIN(ew_pow_double_exp_on_int) { return torch::pow(torch::tensor({4, 9}), 0.5); }
TWIN(ew_pow_float_int) { return torch::pow(torch::tensor({1.5, 2.0}), 3); }
TWIN(ew_pow_scalar_base) { return torch::pow(2, torch::arange(4)); }
TWIN(ew_pow_scalar_double_base) { return torch::pow(2.0, torch::arange(3)); }
TWIN(ew_pow_int_neg_exp_error) { return torch::pow(torch::tensor({2, 3}), -1); }
TWIN(ew_pow_tensor_tensor) { return torch::tensor({2.0, 3.0}).pow(torch::tensor({3.0, 0.5})); }
TWIN(ew_square_int) { return torch::square(torch::tensor({-3, 4})); }
TWIN(ew_sqrt_int) { return torch::sqrt(torch::tensor({4, 9})); }
TWIN(ew_sqrt_neg_nan) { return torch::sqrt(torch::tensor({-1.0, 4.0})); }
TWIN(ew_rsqrt) { return torch::tensor({4.0, 0.25}).rsqrt(); }
TWIN(ew_exp) { return torch::exp(torch::tensor({0.0, 1.0})); }
TWIN(ew_exp_int) { return torch::tensor({0, 1}).exp(); }
TWIN(ew_expm1) { return torch::expm1(torch::tensor({1e-10, 1.0})); }
TWIN(ew_log_zero) { return torch::log(torch::tensor({0.0, 1.0, -1.0})); }
TWIN(ew_log2_log10) { auto x = torch::tensor({1.0, 8.0, 100.0}); return std::vector<torch::Tensor>{x.log2(), x.log10()}; }
TWIN(ew_log1p) { return torch::tensor({0.0, 1e-10, 1.0}).log1p(); }
TWIN(ew_log_int) { return torch::log(torch::tensor({1, 4})); }
TWIN(ew_sin_cos) { auto x = torch::linspace(-1, 1, 5); return std::vector<torch::Tensor>{x.sin(), torch::cos(x)}; }
TWIN(ew_tan) { return torch::linspace(-1, 1, 5).tan(); }
TWIN(ew_inverse_trig) { auto x = torch::linspace(-1, 1, 5); return std::vector<torch::Tensor>{x.asin(), x.acos(), x.atan()}; }
TWIN(ew_atan2) { return torch::atan2(torch::tensor({1.0, -1.0, 0.0}), torch::tensor({-1.0, -1.0, -1.0})); }
TWIN(ew_sinh_cosh) { auto x = torch::linspace(-2, 2, 5); return std::vector<torch::Tensor>{x.sinh(), x.cosh()}; }
TWIN(ew_tanh) { return torch::tanh(torch::linspace(-2, 2, 5)); }
TWIN(ew_tanh_int) { return torch::tensor({-1, 0, 1}).tanh(); }
TWIN(ew_sigmoid_int) { return torch::sigmoid(torch::tensor({0, 1})); }
TWIN(ew_erf) { return torch::tensor({-0.5, 0.0, 1.5}).erf(); }
TWIN(ew_erfc) { return torch::erfc(torch::tensor({-0.5, 0.0, 1.5})); }
TWIN(ew_abs_neg_int) { auto x = torch::tensor({-2, 0, 3}); return std::vector<torch::Tensor>{x.abs(), x.neg(), -x}; }
TWIN(ew_abs_bool_error) { return torch::abs(torch::tensor({true, false})); }
TWIN(ew_neg_uint8_wraps) { return -torch::tensor({1, 200}, torch::kUInt8); }
TWIN(ew_neg_bool_error) { return -torch::tensor({true, false}); }
TWIN(ew_sign_sgn) { auto x = torch::tensor({-2.5, 0.0, 3.0}); return std::vector<torch::Tensor>{x.sign(), torch::sgn(x)}; }
TWIN(ew_sign_int) { return torch::tensor({-4, 0, 7}).sign(); }
TWIN(ew_reciprocal_int) { return torch::tensor({2, 4}).reciprocal(); }
TWIN(ew_floor_ceil_neg) { auto x = torch::tensor({-1.5, 1.5}); return std::vector<torch::Tensor>{x.floor(), x.ceil()}; }
TWIN(ew_round_half_even) { return torch::round(torch::tensor({0.5, 1.5, 2.5, -0.5, -2.5})); }
TWIN(ew_round_decimals) { return torch::tensor({1.2345, -2.5678}).round(2); }
TWIN(ew_trunc_frac) { auto x = torch::tensor({-1.75, 2.25}); return std::vector<torch::Tensor>{x.trunc(), x.frac()}; }
TWIN(ew_floor_int_keeps_int) { return torch::floor(torch::tensor({3, -3})); }
TWIN(ew_clamp_both) { return torch::clamp(torch::linspace(-2, 2, 5), -1, 1); }
TWIN(ew_clamp_min_only) { return torch::arange(-2, 3).clamp(0); }
TWIN(ew_clamp_max_only) { return torch::clamp(torch::arange(-2, 3), c10::nullopt, 1); }
TWIN(ew_clamp_int_double_bounds) { return torch::clamp(torch::arange(5), 0.5, 2.5); }
TWIN(ew_clamp_min_max_methods) { auto x = torch::arange(5.); return std::vector<torch::Tensor>{x.clamp_min(1.5), x.clamp_max(2)}; }
TWIN(ew_clamp_tensor_bounds) { return torch::clamp(torch::arange(4.), torch::tensor({1.0, 0.0, 0.0, 0.0}), torch::tensor({3.0, 3.0, 1.0, 2.0})); }
TWIN(ew_clamp_inplace) { auto x = torch::linspace(-1, 1, 5); x.clamp_(-0.5, 0.5); return x; }
TWIN(ew_clamp_min_gt_max) { return torch::clamp(torch::arange(4.), 2, 1); }
TWIN(ew_tensor_literal_nan_macro) { return torch::tensor({1.0, NAN, INFINITY}); }
TWIN(ew_maximum_minimum_nan) { auto a = torch::tensor({1.0, ew_nan, 3.0}); auto b = torch::tensor({2.0, 0.0, ew_nan});
  return std::vector<torch::Tensor>{torch::maximum(a, b), torch::minimum(a, b)}; }
TWIN(ew_fmax_fmin_nan) { auto a = torch::tensor({1.0, ew_nan, 3.0}); auto b = torch::tensor({2.0, 0.0, ew_nan});
  return std::vector<torch::Tensor>{torch::fmax(a, b), torch::fmin(a, b)}; }
TWIN(ew_maximum_int_float) { return torch::maximum(torch::tensor({1, 5}), torch::tensor({2.5, 0.5})); }
TWIN(ew_max_binary) { return torch::max(torch::tensor({1, 5}), torch::tensor({3, 2})); }
TWIN(ew_cmp_scalar) { auto x = torch::arange(4); return std::vector<torch::Tensor>{x.eq(2), x.ne(2), x.lt(2), x.le(2), x.gt(2), x.ge(2)}; }
TWIN(ew_cmp_tensor_operators) { auto a = torch::tensor({1, 2, 3}); auto b = torch::tensor({3.0, 2.0, 1.0});
  return std::vector<torch::Tensor>{a == b, a < b, a >= b, a != b}; }
TWIN(ew_cmp_broadcast) { return torch::arange(3).reshape({3, 1}) > torch::arange(3); }
TWIN(ew_cmp_int_vs_half_scalar) { return torch::tensor({1, 2}) > 1.5; }
TWIN(ew_logical_and_or_not) { auto a = torch::tensor({true, true, false}); auto b = torch::tensor({true, false, false});
  return std::vector<torch::Tensor>{torch::logical_and(a, b), torch::logical_or(a, b), torch::logical_not(a), a.logical_or(b)}; }
TWIN(ew_logical_xor) { return torch::logical_xor(torch::tensor({true, true, false}), torch::tensor({true, false, false})); }
TWIN(ew_logical_not_int) { return torch::logical_not(torch::tensor({0, 2, -1})); }
TWIN(ew_logical_and_float) { return torch::tensor({0.0, 0.5, 2.0}).logical_and(torch::tensor({1, 0, 3})); }
TWIN(ew_bitwise_int) { auto a = torch::tensor({12, 10}); auto b = torch::tensor({10, 6});
  return std::vector<torch::Tensor>{a & b, a | b, a ^ b, ~a}; }
TWIN(ew_bitwise_bool) { auto a = torch::tensor({true, false}); return std::vector<torch::Tensor>{~a, a & torch::tensor({true, true}), torch::bitwise_xor(a, true)}; }
TWIN(ew_bitwise_float_error) { return torch::bitwise_and(torch::tensor({1.0}), torch::tensor({1.0})); }
TWIN(ew_shift) { auto a = torch::tensor({1, 8}); return std::vector<torch::Tensor>{torch::bitwise_left_shift(a, 2), torch::bitwise_right_shift(a, 1)}; }
TWIN(ew_isnan_isinf_isfinite) { auto x = torch::tensor({1.0, ew_nan, ew_inf, -ew_inf});
  return std::vector<torch::Tensor>{x.isnan(), x.isinf(), x.isfinite()}; }
TWIN(ew_isposinf_isneginf) { auto x = torch::tensor({1.0, ew_inf, -ew_inf}); return std::vector<torch::Tensor>{torch::isposinf(x), torch::isneginf(x)}; }
TWIN(ew_isnan_int) { return torch::isnan(torch::tensor({1, 2})); }
TWIN(ew_isfinite_int) { return torch::isfinite(torch::tensor({1, 2})); }
TWIN(ew_nan_to_num_default) { return torch::nan_to_num(torch::tensor({ew_nan, ew_inf, -ew_inf, 1.0})); }
TWIN(ew_nan_to_num_args) { return torch::tensor({ew_nan, ew_inf, -ew_inf}).nan_to_num(0.5, 100, -100); }
TWIN(ew_lerp_scalar) { return torch::lerp(torch::tensor({0.0, 10.0}), torch::tensor({10.0, 20.0}), 0.25); }
TWIN(ew_lerp_tensor_weight) { return torch::zeros({3}).lerp(torch::ones({3}), torch::tensor({0.0, 0.5, 2.0})); }
TWIN(ew_addcmul) { return torch::addcmul(torch::ones({3}), torch::arange(3.), torch::tensor({2.0, 3.0, 4.0}), 0.5); }
TWIN(ew_addcdiv) { return torch::ones({2}).addcdiv(torch::tensor({1.0, 2.0}), torch::tensor({4.0, 8.0}), 2); }
TWIN(ew_inplace_add_mul) { auto x = torch::arange(3.); x.add_(1).mul_(2); return x; }
TWIN(ew_inplace_add_alpha) { auto x = torch::ones({2}); x.add_(torch::tensor({1.0, 2.0}), -2); return x; }
TWIN(ew_inplace_div_int_error) { auto x = torch::arange(3); x.div_(2); return x; }
TWIN(ew_inplace_add_double_to_int_error) { auto x = torch::arange(3); x.add_(1.5); return x; }
TWIN(ew_inplace_mul_int_by_int) { auto x = torch::arange(3); x.mul_(3); return x; }
TWIN(ew_inplace_sqrt_int_error) { auto x = torch::tensor({4, 9}); x.sqrt_(); return x; }
TWIN(ew_inplace_relu_) { auto x = torch::tensor({-4.0, 9.0}); x.relu_(); return x; }
TWIN(ew_inplace_sqrt_) { auto x = torch::tensor({4.0, 9.0}); x.sqrt_(); return x; }
TWIN(ew_inplace_pow_) { auto x = torch::tensor({2.0, 3.0}); x.pow_(3); return x; }
TWIN(ew_inplace_broadcast_error) { auto x = torch::ones({3}); x.add_(torch::ones({2, 3})); return x; }
TWIN(ew_inplace_float_plus_double) { auto x = torch::ones({2}); x += torch::tensor({0.5, 1.5}, torch::kFloat64); return x; }
TWIN(ew_scalar_left_int) { auto t = torch::tensor({1, 2, 3}); return std::vector<torch::Tensor>{2 - t, 2 * t, 10 + t}; }
TWIN(ew_scalar_left_div) { return 1.0 / torch::tensor({2.0, 4.0}); }
TWIN(ew_scalar_left_div_int) { return 1 / torch::tensor({2, 4}); }
TWIN(ew_scalar_left_double_int) { return 0.5 - torch::tensor({1, 2}); }
TWIN(ew_int32_plus_long_scalar) { return torch::tensor({1, 2}, torch::kInt32) + 5; }
TWIN(ew_int32_plus_int64_tensor) { return torch::tensor({1, 2}, torch::kInt32) + torch::tensor({1, 2}); }
TWIN(ew_int32_times_double) { return torch::tensor({1, 2}, torch::kInt32) * 0.5; }
TWIN(ew_float_plus_double_zero_dim) { return torch::ones({2}) + torch::tensor(1.5, torch::kFloat64); }
TWIN(ew_int_plus_double_zero_dim) { return torch::arange(2) + torch::tensor(1.5, torch::kFloat64); }
TWIN(ew_float_plus_double_1d) { return torch::ones({2}) + torch::tensor({1.5, 2.5}, torch::kFloat64); }
TWIN(ew_uint8_plus_int) { return torch::tensor({250, 3}, torch::kUInt8) + 10; }
TWIN(ew_where_tensors) { auto x = torch::arange(4.); return torch::where(x > 1, x, -x); }
TWIN(ew_where_scalar_other) { return torch::where(torch::tensor({true, false}), torch::tensor({1, 2}), 0.5); }
TWIN(ew_where_broadcast) { return torch::where(torch::tensor({true, false, true}), torch::ones({2, 1}), torch::zeros({3})); }
TWIN(ew_where_mixed_dtypes) { return torch::where(torch::tensor({true, false}), torch::tensor({1, 2}), torch::tensor({0.5, 1.5})); }
TWIN(ew_zero_div_zero) { return torch::tensor({0.0, 1.0, -1.0}) / torch::tensor({0.0, 0.0, 0.0}); }
TWIN(ew_broadcast_col_row) { return torch::arange(3).reshape({3, 1}) * torch::arange(4); }
TWIN(ew_broadcast_3d) { return (torch::ones({2, 1, 3}) + torch::arange(4.).reshape({4, 1})).sizes().vec(); }
TWIN(ew_broadcast_error) { return torch::ones({2, 3}) + torch::ones({2}); }
TWIN(ew_zero_dim_result) { return torch::tensor(2.0) * torch::tensor(3.0); }
TWIN(ew_empty_add) { return torch::ones({0, 3}) + torch::ones({3}); }
TWIN(ew_relu_int) { return torch::relu(torch::tensor({-2, 0, 3})); }
TWIN(ew_gelu_default) { return torch::gelu(torch::linspace(-2, 2, 5)); }
TWIN(ew_gelu_tanh) { return torch::gelu(torch::linspace(-2, 2, 5), "tanh"); }
TWIN(ew_gelu_functional_tanh) { return torch::nn::functional::gelu(torch::linspace(-2, 2, 5), torch::nn::functional::GELUFuncOptions().approximate("tanh")); }
TWIN(ew_silu) { return torch::silu(torch::linspace(-3, 3, 7)); }
TWIN(ew_softplus_default) { return torch::softplus(torch::tensor({-30.0, 0.0, 1.0, 25.0})); }
TWIN(ew_softplus_beta_threshold) { return torch::softplus(torch::tensor({-1.0, 0.0, 3.0}), 2, 5); }
TWIN(ew_hardtanh_default) { return torch::hardtanh(torch::linspace(-2, 2, 5)); }
TWIN(ew_hardtanh_bounds) { return torch::hardtanh(torch::linspace(-2, 2, 5), 0, 1.5); }
TWIN(ew_leaky_relu_default) { return torch::leaky_relu(torch::tensor({-2.0, 3.0})); }
TWIN(ew_leaky_relu_slope) { return torch::leaky_relu(torch::tensor({-2.0, 3.0}), 0.2); }
TWIN(ew_elu) { return torch::elu(torch::tensor({-1.0, 2.0})); }
TWIN(ew_selu) { return torch::selu(torch::tensor({-1.0, 2.0})); }
TWIN(ew_threshold) { return torch::threshold(torch::tensor({0.2, 0.5, 0.9}), 0.5, -1); }
TWIN(ew_hypot) { return torch::hypot(torch::tensor({3.0, 0.0}), torch::tensor({4.0, 1.0})); }
TWIN(ew_logaddexp) { return torch::logaddexp(torch::tensor({3.0, 0.0}), torch::tensor({4.0, 1.0})); }
TWIN(ew_xlogy_zero) { return torch::xlogy(torch::tensor({0.0, 2.0}), torch::tensor({0.0, 3.0})); }
TWIN(ew_rsub) { return torch::rsub(torch::tensor({1.0, 2.0}), 5); }
TWIN(ew_true_divide_int) { return torch::true_divide(torch::tensor({3}), torch::tensor({2})); }
TWIN(ew_copysign) { return torch::copysign(torch::tensor({1.0, -2.0}), torch::tensor({-1.0, 1.0})); }
TWIN(ew_add_scalar_alpha) { return torch::add(torch::arange(3.), 1, 2); }
TWIN(ew_sub_scalar_alpha_method) { return torch::arange(3.).sub(1, 2); }
TWIN(ew_add_int_double_scalar) { return torch::add(torch::arange(3), 1.5); }
TWIN(ew_add_int_tensor_float_tensor) { return torch::arange(3) + torch::ones({3}); }
TWIN(ew_mul_bool_int) { return torch::tensor({true, false}) * 3; }
TWIN(ew_mul_bool_double) { return torch::tensor({true, false}) * 2.5; }
TWIN(ew_add_bool_tensor_int_tensor) { return torch::tensor({true, false}) + torch::tensor({1, 2}, torch::kInt32); }
TWIN(ew_int_zero_dim_plus_float) { return torch::tensor(5) + torch::tensor({1.5}); }
TWIN(ew_int32_times_double_zero_dim) { return torch::ones({2}, torch::kInt32) * torch::tensor(2.5, torch::kFloat64); }
TWIN(ew_uint8_plus_int64_tensor) { return torch::tensor({1}, torch::kUInt8) + torch::tensor({300}); }
TWIN(ew_float_div_zero) { return torch::tensor({1.0, -1.0}) / 0; }
TWIN(ew_pow_int_double_scalar_exact) { return torch::arange(4).pow(2.0); }
TWIN(ew_pow_double_base_int_tensor) { return torch::pow(2.5, torch::tensor({0, 1, 2})); }
TWIN(ew_pow_float_int_tensor_exp) { return torch::tensor({2.0, 3.0}).pow(torch::tensor({2, 3})); }
TWIN(ew_pow_zero_zero) { return torch::pow(torch::tensor({0.0, 0.0}), torch::tensor({0.0, -1.0})); }
TWIN(ew_sqrt_bool) { return torch::tensor({true, false}).sqrt(); }
TWIN(ew_sigmoid_large) { return torch::tensor({-100.0, 100.0}).sigmoid(); }
TWIN(ew_rsqrt_zero_neg) { return torch::rsqrt(torch::tensor({0.0, -1.0})); }
TWIN(ew_gelu_int_error) { return torch::gelu(torch::tensor({1, 2})); }
TWIN(ew_relu_bool_error) { return torch::relu(torch::tensor({true, false})); }
TWIN(ew_clamp_min_int_by_double) { return torch::arange(4).clamp_min(1.5); }
TWIN(ew_clamp_int_int_bounds_keeps_int) { return torch::arange(5).clamp(1, 3); }
TWIN(ew_clamp_inplace_int_double_error) { auto x = torch::arange(4); x.clamp_(0.5, 1.5); return x; }
TWIN(ew_clamp_nan_passes) { return torch::tensor({ew_nan, 5.0}).clamp(0, 1); }
TWIN(ew_clamp_none_error) { return torch::clamp(torch::arange(3.), c10::optional<torch::Scalar>(), c10::optional<torch::Scalar>()); }
TWIN(ew_inplace_plus_eq_double_on_int_error) { auto x = torch::arange(3); x += 1.5; return x; }
TWIN(ew_inplace_times_eq_double_on_int_error) { auto x = torch::arange(3); x *= 2.5; return x; }
TWIN(ew_inplace_float_plus_int) { auto x = torch::ones({2}); x.add_(torch::tensor({1, 2})); return x; }
TWIN(ew_inplace_int_plus_int32) { auto x = torch::arange(2); x.sub_(torch::tensor({5, 5}, torch::kInt32)); return x; }
TWIN(ew_inplace_int_div_eq_int_error) { auto x = torch::arange(4); x /= 2; return x; }
TWIN(ew_inplace_sub_alpha_scalar) { auto x = torch::zeros({2}); x.sub_(1, 3); return x; }
TWIN(ew_inplace_view_updates_base) { auto x = torch::zeros({2, 2}); x.select(0, 1).add_(5); return x; }
TWIN(ew_inplace_transposed) { auto x = torch::arange(4.).reshape({2, 2}); auto t = x.t(); t.mul_(torch::tensor({1.0, 10.0})); return x; }
TWIN(ew_eq_int_vs_double_scalar) { return torch::tensor({2, 3}).eq(2.5); }
TWIN(ew_eq_bool_vs_int) { return torch::tensor({true, false}) == torch::tensor({1, 1}); }
TWIN(ew_cmp_nan) { auto x = torch::tensor({ew_nan, 1.0}); return std::vector<torch::Tensor>{x == x, x != x, x < 2}; }
TWIN(ew_cmp_shape_error) { return torch::ones({3}) < torch::ones({2}); }
TWIN(ew_where_scalar_first) { return torch::where(torch::tensor({true, false}), 1.5, torch::tensor({1, 2})); }
TWIN(ew_where_int_cond_error) { return torch::where(torch::tensor({1, 0}), torch::ones({2}), torch::zeros({2})); }
TWIN(ew_where_method) { auto x = torch::arange(3.); return x.where(x > 0, torch::full({3}, -1.0)); }
TWIN(ew_maximum_broadcast) { return torch::maximum(torch::arange(3.).reshape({3, 1}), torch::tensor({0.5, 1.5})); }
TWIN(ew_binary_on_transposed) { auto x = torch::arange(6.).reshape({2, 3}); return x.t() + torch::tensor({100.0, 200.0}); }
TWIN(ew_unary_on_narrow) { return torch::arange(6.).reshape({2, 3}).narrow(1, 1, 2).exp(); }
TWIN(ew_silu_int_error) { return torch::silu(torch::tensor({1, 2})); }
TWIN(ew_leaky_relu_inplace) { auto x = torch::tensor({-2.0, 3.0}); torch::leaky_relu_(x, 0.5); return x; }
