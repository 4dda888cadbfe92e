// Twin snippets: autograd (gradients of ops, backward/grad arguments, retain_graph, higher order,
// requires_grad propagation, guards, custom Functions, and autograd errors). LibTorch spelling.
#include "twin.h"

TWIN(ag_mul_grad) {
  auto x = torch::tensor({1., 2., 3.}, torch::requires_grad());
  (x * x).sum().backward();
  return x.grad();
}
TWIN(ag_pow_grad) {
  auto x = torch::tensor({1., -2., 3.}, torch::requires_grad());
  x.pow(3).sum().backward();
  return x.grad();
}
TWIN(ag_exp_log_grad) {
  auto x = torch::tensor({0.5, 1., 2.}, torch::requires_grad());
  (x.exp() + x.log()).sum().backward();
  return x.grad();
}
TWIN(ag_tanh_sigmoid_grad) {
  auto x = torch::linspace(-2, 2, 5).requires_grad_();
  (x.tanh() + x.sigmoid()).sum().backward();
  return x.grad();
}
TWIN(ag_relu_grad_at_zero) {
  auto x = torch::tensor({-1., 0., 2.}, torch::requires_grad());
  torch::relu(x).sum().backward();
  return x.grad();
}
TWIN(ag_abs_grad_at_zero) {
  auto x = torch::tensor({-1.5, 0., 2.}, torch::requires_grad());
  x.abs().sum().backward();
  return x.grad();
}
TWIN(ag_sqrt_div_grad) {
  auto x = torch::tensor({1., 4., 9.}, torch::requires_grad());
  auto y = torch::tensor({2., 4., 8.}, torch::requires_grad());
  (x.sqrt() / y).sum().backward();
  return std::make_tuple(x.grad(), y.grad());
}
TWIN(ag_matmul_grad) {
  auto a = torch::arange(6.).reshape({2, 3}).requires_grad_();
  auto b = torch::arange(6.).reshape({3, 2}).requires_grad_();
  torch::matmul(a, b).sum().backward();
  return std::make_tuple(a.grad(), b.grad());
}
TWIN(ag_mean_grad) {
  auto x = torch::ones({2, 4}, torch::requires_grad());
  x.mean().backward();
  return x.grad();
}
TWIN(ag_sum_dim_keepdim_grad) {
  auto x = torch::arange(6.).reshape({2, 3}).requires_grad_();
  (x.sum(-1, true) * torch::tensor({{1.}, {2.}})).sum().backward();
  return x.grad();
}
TWIN(ag_max_all_grad) {
  auto x = torch::tensor({3., 7., 1., 5.}, torch::requires_grad());
  x.max().backward();
  return x.grad();
}
TWIN(ag_max_dim_grad) {
  auto x = torch::tensor({{3., 7., 1.}, {9., 2., 4.}}).requires_grad_();
  std::get<0>(x.max(1)).sum().backward();
  return x.grad();
}
TWIN(ag_norm_grad) {
  auto x = torch::tensor({3., 4.}, torch::requires_grad());
  x.norm().backward();
  return x.grad();
}
TWIN(ag_softmax_grad) {
  auto x = torch::tensor({1., 2., 3.}, torch::requires_grad());
  (torch::softmax(x, 0) * torch::tensor({1., 0., -1.})).sum().backward();
  return x.grad();
}
TWIN(ag_log_softmax_grad) {
  auto x = torch::tensor({{1., 2., 3.}}).requires_grad_();
  torch::log_softmax(x, -1).select(1, 0).sum().backward();
  return x.grad();
}
TWIN(ag_index_select_repeat_grad) {
  auto x = torch::arange(4.).requires_grad_();
  x.index_select(0, torch::tensor({0, 0, 2})).sum().backward();
  return x.grad();
}
TWIN(ag_expand_grad) {
  auto x = torch::tensor({{1.}, {2.}}).requires_grad_();
  x.expand({2, 3}).sum().backward();
  return x.grad();
}
TWIN(ag_broadcast_add_grad) {
  auto a = torch::ones({2, 3}, torch::requires_grad());
  auto b = torch::ones({3}, torch::requires_grad());
  (a + b).sum().backward();
  return std::make_tuple(a.grad(), b.grad());
}
TWIN(ag_cat_grad) {
  auto a = torch::ones({2}, torch::requires_grad());
  auto b = torch::ones({3}, torch::requires_grad());
  (torch::cat({a, b}) * torch::arange(5.)).sum().backward();
  return std::make_tuple(a.grad(), b.grad());
}
TWIN(ag_clamp_boundary_grad) {
  auto x = torch::tensor({-1., 0., 0.5, 1., 2.}, torch::requires_grad());
  x.clamp(0, 1).sum().backward();
  return x.grad();
}
TWIN(ag_clamp_min_max_boundary_grad) {
  auto x = torch::tensor({0., 1.}, torch::requires_grad());
  auto y = torch::tensor({0., 1.}, torch::requires_grad());
  (x.clamp_min(0) + y.clamp_max(1.0)).sum().backward();
  return std::make_tuple(x.grad(), y.grad());
}
TWIN(ag_nested_literal_leaf) {
  auto x = torch::tensor({{1., 2.}, {3., 4.}}, torch::requires_grad());
  return std::vector<int64_t>{x.is_leaf(), x.requires_grad(), x.grad_fn() == nullptr};
}
TWIN(ag_nested_literal_grad) {
  auto x = torch::tensor({{1., 2.}, {3., 4.}}, torch::requires_grad());
  (x * x).sum().backward();
  return x.grad();
}
TWIN(ag_where_grad) {
  auto x = torch::tensor({1., -2., 3.}, torch::requires_grad());
  torch::where(x > 0, x * 2, x * x).sum().backward();
  return x.grad();
}
TWIN(ag_cumsum_grad) {
  auto x = torch::ones({4}, torch::requires_grad());
  torch::cumsum(x, 0).sum().backward();
  return x.grad();
}
TWIN(ag_prod_with_zero_grad) {
  auto x = torch::tensor({2., 0., 3.}, torch::requires_grad());
  x.prod().backward();
  return x.grad();
}
TWIN(ag_mse_loss_grad) {
  auto x = torch::tensor({1., 2., 3.}, torch::requires_grad());
  torch::mse_loss(x, torch::tensor({0., 2., 5.})).backward();
  return x.grad();
}
TWIN(ag_select_narrow_grad) {
  auto x = torch::arange(6.).reshape({2, 3}).requires_grad_();
  (x.select(0, 1) * 2).sum().backward();
  x.narrow(1, 0, 2).sum().backward();
  return x.grad();
}
TWIN(ag_to_double_grad_dtype) {
  auto x = torch::ones({2}, torch::requires_grad());
  (x.to(torch::kFloat64) * 3).sum().backward();
  return x.grad();
}
TWIN(ag_backward_gradient_arg) {
  auto x = torch::tensor({1., 2., 3.}, torch::requires_grad());
  (x * 2).backward(torch::tensor({1., 0.5, 2.}));
  return x.grad();
}
TWIN(ag_backward_nonscalar_error) {
  auto x = torch::tensor({1., 2., 3.}, torch::requires_grad());
  (x * 2).backward();
  return x.grad();
}
TWIN(ag_retain_graph_twice) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto y = (x * x).sum();
  y.backward({}, true);
  y.backward();
  return x.grad();
}
TWIN(ag_backward_twice_error) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto y = (x * x).sum();
  y.backward();
  y.backward();
  return x.grad();
}
TWIN(ag_accumulate_two_graphs) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  (x * 3).sum().backward();
  (x * x).sum().backward();
  return x.grad();
}
TWIN(ag_grad_zero_on_const_ref) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  (x * 3).sum().backward();
  x.grad().zero_();
  return x.grad();
}
TWIN(ag_autograd_grad_no_accumulate) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto g = torch::autograd::grad({(x * x).sum()}, {x});
  return std::make_tuple(g[0], torch::tensor(x.grad().defined()));
}
TWIN(ag_second_derivative) {
  auto x = torch::tensor({1., 2., 3.}, torch::requires_grad());
  auto g = torch::autograd::grad({x.pow(3).sum()}, {x}, {}, std::nullopt, true);
  auto g2 = torch::autograd::grad({g[0].sum()}, {x});
  return std::make_tuple(g[0], g2[0]);
}
TWIN(ag_grad_create_graph_requires_grad) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto g1 = torch::autograd::grad({(x * x).sum()}, {x}, {}, std::nullopt, true);
  auto g2 = torch::autograd::grad({(x * x).sum()}, {x});
  return std::vector<int64_t>{g1[0].requires_grad(), g2[0].requires_grad()};
}
TWIN(ag_grad_outputs_arg) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto g = torch::autograd::grad({x * x}, {x}, {torch::tensor({1., -1.})});
  return g[0];
}
TWIN(ag_grad_allow_unused) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto z = torch::tensor({1., 2.}, torch::requires_grad());
  auto g = torch::autograd::grad({(x * 2).sum()}, {x, z}, {}, std::nullopt, false, true);
  return g;
}
TWIN(ag_grad_unused_error) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto z = torch::tensor({1., 2.}, torch::requires_grad());
  return torch::autograd::grad({(x * 2).sum()}, {x, z});
}
TWIN(ag_backward_create_graph_double) {
  auto x = torch::tensor({2.}, torch::requires_grad());
  x.pow(2).sum().backward({}, std::nullopt, true);
  auto g = x.grad().clone();
  return std::make_tuple(g, torch::tensor(g.requires_grad()));
}
TWIN(ag_retain_grad_nonleaf) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto y = x * 2;
  y.retain_grad();
  (y * y).sum().backward();
  return std::make_tuple(y.grad(), x.grad());
}
TWIN(ag_nonleaf_grad_undefined) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto y = x * 2;
  (y * y).sum().backward();
  return y.grad().defined();
}
TWIN(ag_unused_leaf_grad_undefined) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto z = torch::tensor({1., 2.}, torch::requires_grad());
  (x * 2).sum().backward();
  return z.grad();
}
TWIN(ag_requires_grad_mix) {
  auto x = torch::ones({2}, torch::requires_grad());
  auto c = torch::ones({2});
  return std::vector<int64_t>{(x + c).requires_grad(), (c * 2).requires_grad(),
                              (x.detach() + c).requires_grad(), x.sum().requires_grad()};
}
TWIN(ag_requires_grad_int_error) { return torch::tensor({1, 2}).requires_grad_(true); }
TWIN(ag_set_requires_grad) {
  auto x = torch::ones({2});
  x.set_requires_grad(true);
  return x;
}
TWIN(ag_requires_grad_false) {
  auto x = torch::ones({2}, torch::requires_grad());
  x.requires_grad_(false);
  return x;
}
TWIN(ag_detach_shares_storage) {
  auto x = torch::ones({2}, torch::requires_grad());
  auto d = x.detach();
  d.add_(1);
  return std::make_tuple(x, d);
}
TWIN(ag_no_grad_guard) {
  auto x = torch::ones({2}, torch::requires_grad());
  torch::Tensor y;
  {
    torch::NoGradGuard guard;
    y = x * 2;
  }
  return std::vector<int64_t>{y.requires_grad(), (x * 2).requires_grad(), y.is_leaf()};
}
TWIN(ag_grad_mode_enabled) {
  torch::NoGradGuard guard;
  return torch::GradMode::is_enabled();
}
TWIN(ag_auto_grad_mode_false) {
  auto x = torch::ones({2}, torch::requires_grad());
  torch::AutoGradMode mode(false);
  return (x * 2).requires_grad();
}
TWIN(ag_no_grad_inplace_leaf) {
  auto x = torch::ones({2}, torch::requires_grad());
  {
    torch::NoGradGuard guard;
    x.mul_(3);
  }
  (x * x).sum().backward();
  return x.grad();
}
TWIN(ag_is_leaf) {
  auto x = torch::ones({2}, torch::requires_grad());
  auto y = x * 2;
  auto c = torch::ones({2});
  return std::vector<int64_t>{x.is_leaf(), y.is_leaf(), y.detach().is_leaf(), c.is_leaf(),
                              (c * 2).is_leaf()};
}
TWIN(ag_inplace_leaf_error) {
  auto x = torch::ones({2}, torch::requires_grad());
  x.add_(1);
  return x;
}
TWIN(ag_inplace_nonleaf_grad) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto y = x * 1;
  y.mul_(3);
  (y * x).sum().backward();
  return x.grad();
}
TWIN(ag_modified_saved_error) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto y = x.exp();
  y.add_(1);
  y.sum().backward();
  return x.grad();
}
TWIN(ag_grad_fn_mul_name) {
  auto x = torch::ones({2}, torch::requires_grad());
  return (x * 2).grad_fn()->name() == "MulBackward0";
}
TWIN(ag_grad_fn_leaf_null) {
  auto x = torch::ones({2}, torch::requires_grad());
  return x.grad_fn() == nullptr;
}
TWIN(ag_hook_doubles_grad) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  x.register_hook([](torch::Tensor g) { return g * 2; });
  (x * 3).sum().backward();
  return x.grad();
}
TWIN(ag_autograd_backward_fn) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto y = (x * x).sum();
  torch::autograd::backward({y});
  return x.grad();
}
TWIN(ag_autograd_backward_grad_tensors) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  torch::autograd::backward({x * 2, x * x}, {torch::tensor({1., 1.}), torch::tensor({0.5, 2.})});
  return x.grad();
}
TWIN(ag_backward_inputs_subset) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto z = torch::tensor({3., 4.}, torch::requires_grad());
  torch::autograd::backward({(x * z).sum()}, {}, std::nullopt, false, {x});
  return std::make_tuple(x.grad(), z.grad());
}
TWIN(ag_leaf_grad_not_requires_grad) {
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  (x * x).sum().backward();
  return x.grad().requires_grad();
}
TWIN(ag_custom_function) {
  struct MulK : public torch::autograd::Function<MulK> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x,
                                 double k = 2.0) {
      ctx->saved_data["k"] = k;
      return x * k;
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grad) {
      return {grad[0] * ctx->saved_data["k"].toDouble(), torch::Tensor()};
    }
  };
  auto x = torch::tensor({1., 2.}, torch::requires_grad());
  auto y = MulK::apply(x, 3.0);
  y.sum().backward();
  return std::make_tuple(y, x.grad());
}
TWIN(ag_custom_function_saved_tensor) {
  struct Square : public torch::autograd::Function<Square> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x) {
      ctx->save_for_backward({x});
      return x * x;
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grad) {
      auto x = ctx->get_saved_variables()[0];
      return {grad[0] * 2 * x};
    }
  };
  auto x = torch::tensor({1., -3.}, torch::requires_grad());
  Square::apply(x).sum().backward();
  return x.grad();
}
TWIN(ag_custom_function_requires_grad) {
  struct Twice : public torch::autograd::Function<Twice> {
    static torch::Tensor forward(torch::autograd::AutogradContext*, torch::Tensor x) {
      return x * 2;
    }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext*,
                                                   torch::autograd::variable_list grad) {
      return {grad[0] * 2};
    }
  };
  auto x = torch::ones({2}, torch::requires_grad());
  auto y = Twice::apply(x);
  return std::vector<int64_t>{y.requires_grad(), y.is_leaf(), Twice::apply(torch::ones({2})).requires_grad()};
}
