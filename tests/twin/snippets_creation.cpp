// Twin snippets: tensor creation (zeros/ones/full/empty/arange/linspace/logspace/eye, *_like,
// new_*, tensor literals, fill_/copy_ into integer tensors, float16/bfloat16) and their errors.
#include "twin.h"

TWIN(cr_ones_0dim) { return torch::ones({}); }
TWIN(cr_full_int_fill) { return torch::full({2}, 7); }
TWIN(cr_full_double_fill) { return torch::full({2}, 2.5); }
TWIN(cr_full_bool_fill) { return torch::full({2}, true); }
TWIN(cr_full_double_fill_int_dtype) { return torch::full({2}, 2.7, torch::kInt); }
TWIN(cr_empty_shape) { return torch::empty({2, 3}).sizes().vec(); }

TWIN(cr_arange_int) { return torch::arange(5); }
TWIN(cr_arange_mixed_start) { return torch::arange(0.5, 3); }
TWIN(cr_arange_negative_step) { return torch::arange(5, 0, -1); }
TWIN(cr_arange_point_one_len) { return torch::arange(0., 1., 0.1).size(0); }
TWIN(cr_arange_point_three) { return torch::arange(1, 2, 0.3); }
TWIN(cr_arange_zero_step_error) { return torch::arange(0, 5, 0); }
TWIN(cr_arange_wrong_sign_error) { return torch::arange(5, 0, 1); }

TWIN(cr_linspace_basic) { return torch::linspace(0, 1, 5); }
TWIN(cr_linspace_double_dtype) { return torch::linspace(-1, 1, 4, torch::kFloat64); }
TWIN(cr_linspace_int_dtype) { return torch::linspace(0, 10, 5, torch::kInt64); }
TWIN(cr_linspace_negative_steps_error) { return torch::linspace(0, 1, -1); }
TWIN(cr_logspace_basic) { return torch::logspace(0, 2, 3); }
TWIN(cr_logspace_base2) { return torch::logspace(0, 3, 4, 2.0); }

TWIN(cr_eye_rect) { return torch::eye(2, 3); }
TWIN(cr_eye_negative_error) { return torch::eye(-1); }
TWIN(cr_zeros_negative_size_error) { return torch::zeros({-1, 2}); }
TWIN(cr_full_uint8_overflow_error) { return torch::full({2}, 300, torch::kByte); }
TWIN(cr_full_float_overflow_error) { return torch::full({2}, 1e300, torch::kFloat); }

TWIN(cr_ones_like_grad) {
  auto x = torch::zeros({2}, torch::requires_grad());
  return torch::ones_like(x);
}
TWIN(cr_full_like_int_double_fill) { return torch::full_like(torch::arange(2), 2.5); }
TWIN(cr_full_like_dtype) { return torch::full_like(torch::arange(3), 7, torch::kFloat); }
TWIN(cr_zeros_like_dtype) { return torch::zeros_like(torch::arange(3), torch::kFloat64); }
TWIN(cr_empty_like_shape) { return torch::empty_like(torch::ones({2, 1, 3})).sizes().vec(); }

TWIN(cr_tensor_vector_int) { return torch::tensor(std::vector<int>{1, 2, 3}); }
TWIN(cr_tensor_vector_double) { return torch::tensor(std::vector<double>{0.5, 1.5}); }
TWIN(cr_tensor_vector_uint8) { return torch::tensor(std::vector<uint8_t>{0, 255}); }
TWIN(cr_tensor_vector_int_empty) { return torch::tensor(std::vector<int>{}); }
TWIN(cr_tensor_scalar_double) { return torch::tensor(3.5); }
TWIN(cr_tensor_nested_double) { return torch::tensor({{1.0, 2.0}, {3.0, 4.0}}); }
TWIN(cr_tensor_double_as_int) { return torch::tensor({1.5, -2.7}, torch::kInt); }
TWIN(cr_tensor_requires_grad) { return torch::tensor({1.0, 2.0}, torch::requires_grad()); }
TWIN(cr_tensor_ragged_error) { return torch::tensor({{1, 2}, {3}}); }
TWIN(cr_scalar_tensor_int) { return torch::scalar_tensor(3); }
TWIN(cr_zeros_single_int_size) { return torch::zeros(3); }
TWIN(cr_new_zeros_keeps_dtype) { return torch::arange(3).new_zeros({2}); }
TWIN(cr_new_full_int_fill) { return torch::ones({1}, torch::kDouble).new_full({2}, 3); }
TWIN(cr_new_ones_options) { return torch::arange(3).new_ones({2}, torch::kFloat); }
TWIN(cr_new_empty_shape) { return torch::ones({1}).new_empty({2, 2}).sizes().vec(); }
TWIN(cr_fill_int_with_double) { return torch::zeros({2}, torch::kInt).fill_(2.7); }
TWIN(cr_copy_double_into_long) {
  auto a = torch::zeros({2}, torch::kLong);
  a.copy_(torch::tensor({1.7, -2.7}));
  return a;
}
TWIN(cr_arange_requires_grad) { return torch::arange(3., torch::requires_grad()); }
TWIN(cr_linspace_requires_grad) { return torch::linspace(0, 1, 3, torch::requires_grad()); }
TWIN(cr_half_times_double_scalar) { return torch::ones({2}, torch::kHalf) * 2.5; }
TWIN(cr_bfloat16_plus_float) { return torch::ones({2}, torch::kBFloat16) + torch::ones({2}); }
TWIN(cr_data_ptr_wrong_type_error) {
  auto t = torch::arange(3);
  return t.data_ptr<float>()[0];
}
