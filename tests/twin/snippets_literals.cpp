// Twin snippets: literal dtypes and the overloads issue 13 found silently different (var/std
// with an int dim, tensor literals, default dtype). LibTorch spelling; see twin.h.
#include "twin.h"

TWIN(tensor_int_list) { return torch::tensor({1, 2, 3}); }
TWIN(tensor_double_list) { return torch::tensor({1.0, 2.5}); }
TWIN(tensor_bool_list) { return torch::tensor({true, false}); }
TWIN(tensor_int_overflow_math) { return torch::tensor({1, 2, 3}) * 1000000000; }
TWIN(tensor_scalar_int) { return torch::tensor(3); }
TWIN(tensor_scalar_double_long) { return torch::tensor(2.5, torch::kLong); }
TWIN(tensor_nested) { return torch::tensor({{1, 2}, {3, 4}}); }
TWIN(var_int_dim) { return torch::arange(12.).reshape({3, 4}).var(1); }
TWIN(std_int_dim) { return torch::arange(12.).reshape({3, 4}).std(0); }
TWIN(var_fn_neg_dim) { return torch::var(torch::arange(12.).reshape({3, 4}), -1); }
TWIN(var_unbiased_false) { return torch::arange(6.).var(false); }
TWIN(var_int_tensor_error) { return torch::tensor({1, 2, 3}).var(0); }
TWIN(cumsum_dim) { return torch::cumsum(torch::arange(5), 0); }
TWIN(default_dtype_name) { return torch::ones({2}).scalar_type() == torch::kFloat32; }
TWIN(dim_of_matrix) { return torch::zeros({2, 3}).dim(); }
TWIN(sizes_of_matrix) { return torch::zeros({2, 3}).sizes().vec(); }
TWIN(sort_values) { return torch::sort(torch::tensor({3, 1, 2})); }
