// Twin snippets: views and shapes (view/reshape/flatten/squeeze/permute/expand/narrow/select/
// slice), strides and contiguity, in-place writes through views. LibTorch spelling; see twin.h.
#include "twin.h"

TWIN(vw_view_single_int) { return torch::arange(6.).reshape({2, 3}).view(-1); }
TWIN(vw_view_two_neg1_error) { return torch::arange(12).view({-1, -1}); }
TWIN(vw_view_noncontig_error) { return torch::arange(6).reshape({2, 3}).t().view({6}); }
TWIN(vw_reshape_copy_independent) {
  auto x = torch::arange(6.).reshape({2, 3});
  auto y = x.t().reshape({6});
  y.fill_(0);
  return x;
}
TWIN(vw_reshape_view_shares) {
  auto x = torch::arange(6.);
  x.reshape({2, 3}).select(0, 0).fill_(-1);
  return x;
}
TWIN(vw_flatten_start_end) { return torch::arange(24).reshape({2, 3, 2, 2}).flatten(1, 2).sizes().vec(); }
TWIN(vw_unflatten) { return torch::arange(12).reshape({2, 6}).unflatten(1, {3, -1}); }
TWIN(vw_squeeze_all) { return torch::ones({1, 3, 1, 2}).squeeze().sizes().vec(); }
TWIN(vw_squeeze_dim) { return torch::ones({1, 3, 1}).squeeze(2).sizes().vec(); }
TWIN(vw_squeeze_non1_dim) { return torch::ones({2, 3}).squeeze(0).sizes().vec(); }
TWIN(vw_squeeze_dims_list) { return torch::ones({1, 2, 1, 1}).squeeze({0, 2}).sizes().vec(); }
TWIN(vw_unsqueeze_neg1) { return torch::arange(6).reshape({2, 3}).unsqueeze(-1).sizes().vec(); }
TWIN(vw_squeeze_inplace) {
  auto x = torch::zeros({1, 3, 1});
  x.squeeze_();
  return x.sizes().vec();
}
TWIN(vw_unsqueeze_inplace) {
  auto x = torch::arange(3);
  x.unsqueeze_(-1);
  return x;
}
TWIN(vw_permute_neg) { return torch::arange(6).reshape({1, 2, 3}).permute({-1, 0, 1}); }
TWIN(vw_permute_repeat_error) { return torch::arange(6).reshape({2, 3}).permute({0, 0}); }
TWIN(vw_transpose_neg) { return torch::arange(6).reshape({1, 2, 3}).transpose(-1, -2); }
TWIN(vw_t_vector) { return torch::arange(3).t(); }
TWIN(vw_t_3d_error) { return torch::zeros({2, 2, 2}).t(); }
TWIN(vw_transpose_inplace) {
  auto x = torch::arange(6).reshape({2, 3});
  x.t_();
  return x;
}
TWIN(vw_mT) { return torch::arange(12).reshape({2, 2, 3}).mT(); }
TWIN(vw_movedim) { return torch::arange(24).reshape({2, 3, 4}).movedim(0, -1).sizes().vec(); }
TWIN(vw_swapaxes) { return torch::arange(6).reshape({2, 3}).swapaxes(0, 1); }
TWIN(vw_transposed_not_contig) { return torch::zeros({2, 3}).t().is_contiguous(); }
TWIN(vw_clone_of_transposed_strides) { return torch::zeros({2, 3}).t().clone().strides().vec(); }
TWIN(vw_clone_of_transposed_view_error) { return torch::arange(6).reshape({2, 3}).t().clone().view({6}); }
TWIN(vw_elementwise_of_transposed_strides) { return (torch::zeros({2, 3}).t() * 2).strides().vec(); }
TWIN(vw_expand_neg1) { return torch::tensor({{1}, {2}}).expand({-1, 3}); }
TWIN(vw_expand_strides) { return torch::arange(3).expand({2, 3}).strides().vec(); }
TWIN(vw_expand_non1_error) { return torch::zeros({2}).expand({3}); }
TWIN(vw_expand_as) { return torch::tensor({1.5, 2.5}).expand_as(torch::zeros({3, 2})); }
TWIN(vw_expand_inplace_error) { return torch::zeros({1, 3}).expand({2, 3}).add_(1); }
TWIN(vw_broadcast_to) { return torch::arange(3).broadcast_to({2, 3}); }
TWIN(vw_broadcast_tensors) { return torch::broadcast_tensors({torch::arange(3), torch::ones({2, 1})}); }
TWIN(vw_narrow_neg_start) { return torch::arange(10).narrow(0, -3, 2); }
TWIN(vw_narrow_copy) { return torch::arange(12).reshape({3, 4}).narrow_copy(1, 1, 2); }
TWIN(vw_narrow_cols_contig) { return torch::zeros({3, 4}).narrow(1, 1, 2).is_contiguous(); }
TWIN(vw_select_neg) { return torch::arange(12).reshape({3, 4}).select(0, -1); }
TWIN(vw_bracket_neg) { return torch::arange(6).reshape({3, 2})[-1]; }
TWIN(vw_slice_step) { return torch::arange(10).slice(0, 1, 8, 3); }
TWIN(vw_slice_end_clamped) { return torch::arange(5).slice(0, 2, 100); }
TWIN(vw_slice_empty) { return torch::arange(5).slice(0, 4, 2); }
TWIN(vw_select_fill_writes_base) {
  auto x = torch::zeros({3, 2});
  x.select(0, 1).fill_(5);
  return x;
}
TWIN(vw_narrow_mul_writes_base) {
  auto x = torch::arange(6).reshape({2, 3});
  x.narrow(1, 1, 2).mul_(10);
  return x;
}
TWIN(vw_transpose_add_writes_base) {
  auto x = torch::zeros({2, 3});
  x.t().select(0, 0).add_(torch::tensor({1.0, 2.0}));
  return x;
}
TWIN(vw_detach_shares) {
  auto x = torch::zeros({3});
  x.detach().fill_(7);
  return x;
}
TWIN(vw_view_requires_grad) { return torch::ones({2, 2}, torch::requires_grad()).view({4}); }
TWIN(vw_clone_of_view) {
  auto x = torch::arange(6.).reshape({2, 3});
  auto c = x.select(1, 0).clone();
  x.fill_(0);
  return c;
}
TWIN(vw_reshape_as) { return torch::arange(6.).reshape({2, 3}).t().reshape_as(torch::zeros({6})); }
TWIN(vw_type_as) { return torch::arange(3).type_as(torch::zeros({1})); }
TWIN(vw_copy_broadcast) { return torch::zeros({2, 3}).copy_(torch::tensor({1, 2, 3})); }
TWIN(vw_copy_into_transposed) {
  auto x = torch::zeros({2, 3});
  x.t().copy_(torch::arange(6.).reshape({3, 2}));
  return x;
}
TWIN(vw_copy_shape_error) { return torch::zeros({2, 3}).copy_(torch::ones({2})); }
TWIN(vw_size_oob_error) { return torch::zeros({2, 3}).size(2); }
TWIN(vw_bracket_assign_tensor) {
  auto x = torch::zeros({2, 3});
  x[1] = torch::ones({3});
  return x;
}
TWIN(vw_bracket_assign_scalar) {
  auto x = torch::zeros({3});
  x[1] = 5;
  return x;
}
TWIN(vw_select_assign_tensor) {
  auto x = torch::zeros({2, 2});
  x.select(1, 0) = torch::tensor({3.0, 4.0});
  return x;
}
TWIN(vw_contiguous_of_contig_aliases) {
  auto x = torch::zeros({3});
  x.contiguous().fill_(2);
  return x;
}
TWIN(vw_type_as_same_dtype_aliases) {
  auto x = torch::zeros({3});
  x.type_as(x).fill_(4);
  return x;
}
TWIN(vw_flatten_1d_aliases) {
  auto x = torch::zeros({3});
  x.flatten().fill_(6);
  return x;
}
TWIN(vw_chunk_writes_base) {
  auto x = torch::zeros({4});
  x.chunk(2)[1].fill_(1);
  return x;
}
TWIN(vw_unbind_writes_base) {
  auto x = torch::zeros({2, 2});
  x.unbind(1)[0].fill_(3);
  return x;
}
TWIN(vw_copy_float_to_long) { return torch::zeros({3}, torch::kLong).copy_(torch::tensor({1.7, -1.7, 2.5})); }
TWIN(vw_reshape_to_scalar) { return torch::ones({1, 1}).reshape({}); }
TWIN(vw_view_empty_neg1) { return torch::zeros({0, 3}).view({-1, 3}).sizes().vec(); }
TWIN(vw_reshape_empty_neg1_error) { return torch::zeros({0, 3}).reshape({0, -1}); }
TWIN(vw_squeeze_scalar_dim0) { return torch::tensor(1.5).squeeze(0); }
TWIN(vw_select_scalar_error) { return torch::tensor(1.5).select(0, 0); }
TWIN(vw_narrow_zero_length) { return torch::arange(5).narrow(0, 5, 0).sizes().vec(); }
TWIN(vw_slice_neg_beyond) { return torch::arange(5).slice(0, -100, 2); }
TWIN(vw_expand_stride_neg) { return torch::zeros({3, 1}).expand({3, 4}).stride(-1); }
