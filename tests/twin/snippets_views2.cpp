// Twin snippets: splitting and joining (chunk/split/unbind/cat/stack), indexing (index_select,
// gather, scatter, masked_*, where, torch::indexing, index_put_), flip/roll/tril/diag/repeat.
#include "twin.h"

TWIN(vw_chunk_uneven) { return torch::arange(5).chunk(3); }
TWIN(vw_chunk_fewer) { return torch::arange(6).chunk(4); }
TWIN(vw_split_size) { return torch::arange(10).split(4); }
TWIN(vw_split_fn_neg_dim) { return torch::split(torch::arange(6).reshape({2, 3}), 2, -1); }
TWIN(vw_split_sizes_list) { return torch::arange(6).split({1, 2, 3}); }
TWIN(vw_split_sizes_bad_sum_error) { return torch::arange(6).split_with_sizes({2, 2}); }
TWIN(vw_unbind_neg) { return torch::unbind(torch::arange(6).reshape({2, 3}), -1); }
TWIN(vw_cat_neg_dim) { return torch::cat({torch::zeros({2, 1}), torch::ones({2, 2})}, -1); }
TWIN(vw_cat_legacy_empty) { return torch::cat({torch::ones({2, 3}), torch::empty({0})}); }
TWIN(vw_cat_int_float) { return torch::cat({torch::arange(2), torch::tensor({0.5})}); }
TWIN(vw_cat_shape_error) { return torch::cat({torch::zeros({2, 2}), torch::zeros({3, 3})}); }
TWIN(vw_cat_scalar_error) { return torch::cat({torch::tensor(1.), torch::tensor(2.)}); }
TWIN(vw_stack_neg_dim) { return torch::stack({torch::arange(3), torch::arange(3, 6)}, -1); }
TWIN(vw_stack_mixed_dtype) { return torch::stack({torch::arange(2), torch::tensor({1.5, 2.5})}); }
TWIN(vw_hstack_1d) { return torch::hstack({torch::arange(2), torch::arange(3)}); }
TWIN(vw_vstack_1d) { return torch::vstack({torch::arange(3), torch::arange(3, 6)}); }
TWIN(vw_index_select) { return torch::arange(12).reshape({3, 4}).index_select(1, torch::tensor({3, 0})); }
TWIN(vw_index_select_int32) { return torch::arange(5).index_select(0, torch::tensor({4, 1}, torch::kInt)); }
TWIN(vw_index_select_oob_error) { return torch::arange(3).index_select(0, torch::tensor({3})); }
TWIN(vw_gather) {
  auto x = torch::arange(6.).reshape({2, 3});
  return x.gather(1, torch::tensor({{2, 0}, {1, 1}}));
}
TWIN(vw_gather_oob_error) { return torch::arange(3).gather(0, torch::tensor({5})); }
TWIN(vw_scatter_src) {
  return torch::zeros({2, 3}).scatter(1, torch::tensor({{2}, {0}}), torch::ones({2, 1}));
}
TWIN(vw_scatter_value) { return torch::zeros({3}).scatter(0, torch::tensor({1}), 4.5); }
TWIN(vw_scatter_add) {
  return torch::zeros({3}).scatter_add(0, torch::tensor({0, 0, 2}), torch::tensor({1., 2., 3.}));
}
TWIN(vw_index_add) { return torch::zeros({3}).index_add(0, torch::tensor({0, 2, 0}), torch::tensor({1., 2., 3.})); }
TWIN(vw_masked_fill_int_float) { return torch::arange(3).masked_fill(torch::tensor({false, true, false}), 2.5); }
TWIN(vw_masked_fill_tensor_value) { return torch::arange(3.).masked_fill(torch::tensor({true, false, true}), torch::tensor(9.)); }
TWIN(vw_masked_fill_inplace_gt) {
  auto x = torch::arange(5.);
  x.masked_fill_(x > 2, 0);
  return x;
}
TWIN(vw_masked_select) { return torch::arange(6).reshape({2, 3}).masked_select(torch::tensor({true, false, true})); }
TWIN(vw_where_scalars_double) { return torch::where(torch::tensor({true, false}), 1.0, 0.0); }
TWIN(vw_where_scalars_int) { return torch::where(torch::tensor({true, false}), 1, 0); }
TWIN(vw_where_tensor_scalar) { return torch::where(torch::tensor({true, false}), torch::arange(2), 0.5); }
TWIN(vw_where_scalar_tensor) { return torch::where(torch::arange(3) > 0, 2, torch::tensor({1.5, 2.5, 3.5})); }
TWIN(vw_where_method) { return torch::arange(3.).where(torch::tensor({true, false, true}), torch::zeros({3})); }
TWIN(vw_nonzero) { return torch::tensor({0, 3, 0, 4}).nonzero(); }
TWIN(vw_index_slice_int) { return torch::arange(12).reshape({3, 4}).index({torch::indexing::Slice(), 1}); }
TWIN(vw_index_slice_step) { return torch::arange(10).index({torch::indexing::Slice(1, torch::indexing::None, 3)}); }
TWIN(vw_index_none) { return torch::arange(3).index({torch::indexing::None, torch::indexing::Slice()}).sizes().vec(); }
TWIN(vw_index_ellipsis) { return torch::arange(24).reshape({2, 3, 4}).index({torch::indexing::Ellipsis, -1}); }
TWIN(vw_index_bool_mask) {
  auto x = torch::arange(5.);
  return x.index({x > 2});
}
TWIN(vw_index_two_tensors) {
  return torch::arange(12).reshape({3, 4}).index({torch::tensor({0, 2}), torch::tensor({1, 3})});
}
TWIN(vw_index_adv_separated) {
  auto x = torch::arange(24).reshape({2, 3, 4});
  return x.index({torch::tensor({0, 1}), torch::indexing::Slice(), torch::tensor({0, 3})}).sizes().vec();
}
TWIN(vw_index_put_scalar) {
  auto x = torch::zeros({2, 3});
  x.index_put_({1, torch::indexing::Slice(1, torch::indexing::None)}, 5);
  return x;
}
TWIN(vw_index_put_mask) {
  auto x = torch::arange(5.);
  x.index_put_({x < 2}, -1);
  return x;
}
TWIN(vw_index_put_tensor_broadcast) {
  auto x = torch::zeros({2, 3}, torch::kLong);
  x.index_put_({torch::indexing::Slice(), 0}, torch::tensor({7, 8}));
  return x;
}
TWIN(vw_flip) { return torch::arange(6).reshape({2, 3}).flip({-1}); }
TWIN(vw_roll_flat) { return torch::arange(6).reshape({2, 3}).roll(1); }
TWIN(vw_tril) { return torch::ones({3, 3}).tril(); }
TWIN(vw_triu_1) { return torch::arange(1., 10.).reshape({3, 3}).triu(1); }
TWIN(vw_diag_vec) { return torch::diag(torch::tensor({1, 2, 3})); }
TWIN(vw_diagonal_3d) { return torch::arange(8).reshape({2, 2, 2}).diagonal(0, -2, -1); }
TWIN(vw_repeat) { return torch::tensor({1, 2}).repeat({2, 2}); }
TWIN(vw_repeat_interleave_tensor) { return torch::arange(2).repeat_interleave(torch::tensor({1, 3})); }
TWIN(vw_tile) { return torch::arange(6).reshape({2, 3}).tile({2}).sizes().vec(); }
TWIN(vw_meshgrid_ij) { return torch::meshgrid({torch::arange(2), torch::arange(3)}, "ij"); }
TWIN(vw_cat_single_copies) {
  auto x = torch::zeros({2});
  torch::cat({x}).fill_(1);
  return x;
}
TWIN(vw_index_select_0dim_index) { return torch::arange(6).reshape({2, 3}).index_select(1, torch::tensor(2)); }
TWIN(vw_index_select_2d_index_error) { return torch::arange(4).index_select(0, torch::tensor({{0, 1}})); }
TWIN(vw_gather_int32_index) { return torch::arange(3.).gather(0, torch::tensor({1}, torch::kInt)); }
TWIN(vw_masked_fill_int_mask_error) { return torch::zeros({2}).masked_fill(torch::tensor({1, 0}), 1); }
TWIN(vw_where_int_cond_error) { return torch::where(torch::tensor({1, 0}), torch::ones({2}), torch::zeros({2})); }
TWIN(vw_stack_empty_list_error) { return torch::stack(std::vector<torch::Tensor>{}); }
TWIN(vw_masked_fill_view_writes_base) {
  auto x = torch::zeros({2, 2});
  x.select(0, 1).masked_fill_(torch::tensor({true, false}), 8);
  return x;
}
