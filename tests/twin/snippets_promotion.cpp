// Twin snippets: TensorOptions, from_blob, conversions (.to/.toType/.clone/.item), metadata,
// the default dtype, and type promotion of mixed arithmetic and reductions.
#include "twin.h"

namespace {
// Puts the default dtype back to float32 even when a snippet throws.
struct RestoreDefaultDtype {
  ~RestoreDefaultDtype() { torch::set_default_dtype(c10::scalarTypeToTypeMeta(torch::kFloat)); }
};
}  // namespace

TWIN(cr_options_dtype_grad) {
  return torch::ones({2}, torch::TensorOptions().dtype(torch::kFloat64).requires_grad(true));
}
TWIN(cr_options_int_grad_error) { return torch::ones({2}, torch::dtype(torch::kLong).requires_grad(true)); }
TWIN(cr_clone_keeps_grad) { return torch::ones({2}, torch::requires_grad()).clone(); }
TWIN(cr_to_keeps_grad) { return torch::ones({2}, torch::requires_grad()).to(torch::kDouble); }
TWIN(cr_undefined_tensor) {
  torch::Tensor t;
  return t.defined();
}

TWIN(cr_from_blob_float) {
  float data[] = {1, 2, 3, 4};
  return torch::from_blob(data, {2, 2}).clone();
}
TWIN(cr_from_blob_strides) {
  float data[] = {1, 2, 3, 4, 5, 6};
  return torch::from_blob(data, {3, 2}, {1, 3}).clone();
}
TWIN(cr_from_blob_shares_memory) {
  std::vector<float> v = {1, 2, 3};
  auto t = torch::from_blob(v.data(), {3});
  v[0] = 9;
  return t.clone();
}

TWIN(cr_to_int_truncates) { return torch::tensor({-1.7, 2.7}).to(torch::kInt); }
TWIN(cr_to_other_tensor) { return torch::arange(3).to(torch::ones({1}, torch::kDouble)); }
TWIN(cr_to_same_dtype_aliases) {
  auto a = torch::zeros({2});
  a.to(torch::kFloat).add_(1);
  return a;
}

TWIN(cr_item_float_as_int) { return torch::tensor(3.7).item<int>(); }
TWIN(cr_item_multi_error) { return torch::arange(3).item<int64_t>(); }
TWIN(cr_item_int_overflow_error) { return torch::tensor(3e10).item<int>(); }


TWIN(cr_default_dtype_is_float) { return torch::get_default_dtype() == torch::kFloat; }
TWIN(cr_default_f64_ones) {
  RestoreDefaultDtype restore;
  torch::set_default_dtype(c10::scalarTypeToTypeMeta(torch::kFloat64));
  return torch::ones({2});
}
TWIN(cr_default_f64_arange) {
  RestoreDefaultDtype restore;
  torch::set_default_dtype(c10::scalarTypeToTypeMeta(torch::kFloat64));
  return std::vector<torch::Tensor>{torch::arange(3), torch::arange(3.)};
}
TWIN(cr_default_f64_tensor_literal) {
  RestoreDefaultDtype restore;
  torch::set_default_dtype(c10::scalarTypeToTypeMeta(torch::kFloat64));
  return std::vector<torch::Tensor>{torch::tensor({1.0}), torch::tensor(2.5), torch::tensor({1.5f})};
}
TWIN(cr_default_f64_promotion) {
  RestoreDefaultDtype restore;
  torch::set_default_dtype(c10::scalarTypeToTypeMeta(torch::kFloat64));
  return std::vector<torch::Tensor>{torch::arange(3) * 2.5, torch::arange(3) / 2,
                                    torch::ones({2}, torch::kFloat) * 2.5};
}
TWIN(cr_default_f64_full_linspace) {
  RestoreDefaultDtype restore;
  torch::set_default_dtype(c10::scalarTypeToTypeMeta(torch::kFloat64));
  return std::vector<torch::Tensor>{torch::full({2}, 2.5), torch::linspace(0, 1, 3),
                                    torch::scalar_tensor(1)};
}
TWIN(cr_default_typemeta_make) {
  RestoreDefaultDtype restore;
  torch::set_default_dtype(caffe2::TypeMeta::Make<double>());
  auto t = torch::zeros({2});
  torch::set_default_dtype(caffe2::TypeMeta::Make<float>());
  return t;
}

// Type promotion.
TWIN(cr_long_plus_double_scalar) { return torch::arange(3) + 2.5; }
TWIN(cr_int32_plus_double_scalar) { return torch::arange(3, torch::kInt) + 2.5; }
TWIN(cr_int32_plus_int_scalar) { return torch::arange(3, torch::kInt) + 2; }
TWIN(cr_uint8_plus_int_scalar_wraps) { return torch::tensor({250}, torch::kByte) + 10; }
TWIN(cr_long_plus_float_tensor) { return torch::arange(3) + torch::ones({3}); }
TWIN(cr_int32_plus_int64) { return torch::arange(3, torch::kInt) + torch::arange(3); }
TWIN(cr_bool_plus_bool) { return torch::tensor({true, false}) + torch::tensor({true, true}); }
TWIN(cr_bool_plus_long) { return torch::tensor({true, false}) + torch::arange(2); }
TWIN(cr_bool_plus_int_scalar) { return torch::tensor({true, false}) + 1; }
TWIN(cr_float_plus_double_tensor) { return torch::ones({2}) + torch::ones({2}, torch::kDouble); }
TWIN(cr_0dim_double_plus_float) { return torch::tensor(1.5, torch::kDouble) + torch::ones({2}); }
TWIN(cr_0dim_double_plus_long) { return torch::arange(3) + torch::tensor(1.5, torch::kDouble); }
TWIN(cr_0dim_long_plus_int32) { return torch::arange(3, torch::kInt) + torch::tensor(5); }
TWIN(cr_float_times_0dim_long) { return torch::ones({2}) * torch::tensor(3); }
TWIN(cr_0dim_long_plus_double_scalar) { return torch::tensor(3) + 2.5; }
TWIN(cr_int_div_int) { return torch::tensor({7, 8}) / torch::tensor({2, 3}); }
TWIN(cr_int_div_scalar) { return torch::arange(5) / 2; }
TWIN(cr_int_div_floor_mode) { return torch::div(torch::tensor({7, -7}), 2, "floor"); }
TWIN(cr_floor_divide_int) { return torch::floor_divide(torch::tensor({7, -7}), 2); }
TWIN(cr_compare_result_dtype) { return torch::arange(3) > 1; }
TWIN(cr_where_int_float) {
  return torch::where(torch::tensor({true, false}), torch::arange(2), torch::ones({2}));
}
TWIN(cr_pow_int_int) { return torch::pow(torch::arange(4), 2); }
TWIN(cr_pow_int_half) { return torch::pow(torch::arange(4), 0.5); }
TWIN(cr_pow_scalar_base) { return torch::pow(2, torch::arange(3)); }
TWIN(cr_neg_bool_error) { return -torch::tensor({true}); }
TWIN(cr_int_iadd_double_error) {
  auto a = torch::arange(3);
  a += 2.5;
  return a;
}

// Reductions' result dtypes.
TWIN(cr_mean_int_error) { return torch::arange(5).mean(); }
TWIN(cr_mean_int_with_dtype) { return torch::arange(5).mean(torch::kFloat); }
TWIN(cr_sum_int32) { return torch::arange(4, torch::kInt).sum(); }
TWIN(cr_sum_bool) { return torch::tensor({true, true, false}).sum(); }
TWIN(cr_sum_uint8) { return torch::full({3}, 200, torch::kByte).sum(); }
TWIN(cr_sum_with_dtype) { return torch::arange(4).sum(torch::kDouble); }
TWIN(cr_prod_int32) { return torch::arange(1, 5, torch::kInt).prod(); }
TWIN(cr_cumsum_int32) { return torch::arange(4, torch::kInt).cumsum(0); }
TWIN(cr_sum_int_dtype_int32) { return torch::arange(4).sum(torch::kInt); }
TWIN(cr_max_dim_int32) { return torch::tensor({{3, 1}, {2, 4}}, torch::kInt).max(1); }
TWIN(cr_softmax_int_with_dtype) { return torch::softmax(torch::arange(3), 0, torch::kDouble); }

// Scalars compared and combined with integer tensors.
TWIN(cr_int_eq_double_scalar) { return torch::arange(4) == 1.5; }
TWIN(cr_int_lt_double_scalar) { return torch::arange(4) < 1.5; }
TWIN(cr_uint8_gt_negative_scalar) { return torch::tensor({1}, torch::kByte) > -1; }
TWIN(cr_uint8_minus_one_wraps) { return torch::zeros({1}, torch::kByte) - 1; }
TWIN(cr_int32_plus_huge_scalar) { return torch::ones({1}, torch::kInt) + ((int64_t{1} << 32) + 1); }
TWIN(cr_int_div_zero) { return torch::arange(3) / 0; }
TWIN(cr_int_div_inplace_error) { return torch::arange(3).div_(2); }
TWIN(cr_bool_add_inplace_error) { return torch::tensor({true}).add_(1); }
TWIN(cr_bool_sub_error) { return torch::tensor({true}) - torch::tensor({false}); }
TWIN(cr_clamp_int_double_bounds) { return torch::clamp(torch::arange(5), 0.5, 2.5); }
TWIN(cr_clamp_int_int_bounds) { return torch::arange(5).clamp(1, 3); }
TWIN(cr_where_int_double_scalar) {
  return torch::where(torch::tensor({true, false}), torch::arange(2), 2.5);
}
TWIN(cr_masked_fill_int_double) {
  return torch::arange(3).masked_fill(torch::tensor({true, false, true}), 2.5);
}
TWIN(cr_maximum_int_float) { return torch::maximum(torch::arange(3), torch::ones({3})); }
TWIN(cr_floor_int) { return torch::floor(torch::tensor({3, -2})); }
TWIN(cr_exp_int) { return torch::exp(torch::arange(2)); }

// Ops over several tensors.
TWIN(cr_cat_int32_int64) { return torch::cat({torch::arange(2, torch::kInt), torch::arange(2)}); }
TWIN(cr_cat_int_float) { return torch::cat({torch::arange(2), torch::ones({2})}); }
TWIN(cr_mm_int) {
  auto a = torch::arange(4).reshape({2, 2});
  return torch::mm(a, a);
}
TWIN(cr_matmul_int_float_error) {
  return torch::matmul(torch::ones({2, 2}, torch::kLong), torch::ones({2, 2}));
}
