// Twin snippets: nn modules (Linear, Conv, norms, Embedding, containers, RNNs, parameter and
// buffer naming, train/eval, zero_grad, to(dtype)) and torch::nn::init. LibTorch spelling.
#include "twin.h"

#include <sstream>

TWIN(md_linear_weight_shape) {
  torch::nn::Linear lin(3, 2);
  return std::vector<int64_t>{lin->weight.size(0), lin->weight.size(1), lin->bias.size(0)};
}
TWIN(md_linear_no_bias) {
  torch::nn::Linear lin(torch::nn::LinearOptions(3, 2).bias(false));
  return std::vector<int64_t>{lin->bias.defined(), (int64_t)lin->parameters().size()};
}
TWIN(md_linear_forward_values) {
  torch::nn::Linear lin(3, 2);
  torch::NoGradGuard g;
  lin->weight.copy_(torch::linspace(-1, 1, 6).reshape({2, 3}));
  lin->bias.fill_(0.5);
  return lin->forward(torch::arange(6.).reshape({2, 3}));
}
TWIN(md_linear_forward_requires_grad) {
  torch::nn::Linear lin(3, 2);
  auto y = lin(torch::ones({4, 3}));
  return std::vector<int64_t>{y.requires_grad(), y.size(0), y.size(1)};
}
TWIN(md_linear_param_requires_grad) {
  torch::nn::Linear lin(3, 2);
  return lin->weight.requires_grad() && lin->bias.requires_grad() && lin->weight.is_leaf();
}
TWIN(md_linear_named_parameters) {
  torch::nn::Linear lin(3, 2);
  std::vector<std::string> names;
  for (const auto& p : lin->named_parameters()) names.push_back(p.key());
  return names == std::vector<std::string>{"weight", "bias"};
}
TWIN(md_linear_backward_grads) {
  torch::nn::Linear lin(2, 1);
  {
    torch::NoGradGuard g;
    lin->weight.copy_(torch::tensor({{1., -1.}}));
    lin->bias.zero_();
  }
  lin(torch::tensor({{1., 2.}, {3., 5.}})).sum().backward();
  return std::make_tuple(lin->weight.grad(), lin->bias.grad());
}
TWIN(md_zero_grad_sets_none) {
  torch::nn::Linear lin(2, 1);
  lin(torch::ones({1, 2})).sum().backward();
  lin->zero_grad();
  return lin->weight.grad();
}
TWIN(md_zero_grad_keep) {
  torch::nn::Linear lin(2, 1);
  lin(torch::ones({1, 2})).sum().backward();
  lin->zero_grad(false);
  return lin->weight.grad();
}
TWIN(md_sequential_names) {
  torch::nn::Sequential seq(torch::nn::Linear(2, 3), torch::nn::ReLU(), torch::nn::Linear(3, 1));
  std::vector<std::string> names;
  for (const auto& p : seq->named_parameters()) names.push_back(p.key());
  return names == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"};
}
TWIN(md_sequential_forward) {
  torch::nn::Sequential seq(torch::nn::Linear(2, 3), torch::nn::ReLU(), torch::nn::Linear(3, 1));
  torch::NoGradGuard g;
  for (auto& p : seq->parameters()) p.copy_(torch::linspace(-1, 1, p.numel()).reshape(p.sizes()));
  return seq->forward(torch::tensor({{1., 2.}, {-1., 0.5}}));
}
TWIN(md_sequential_flatten_linear) {
  torch::nn::Sequential seq(torch::nn::Flatten(), torch::nn::Linear(4, 2));
  torch::NoGradGuard g;
  for (auto& p : seq->parameters()) p.fill_(0.25);
  return seq->forward(torch::arange(8.).reshape({2, 2, 2}));
}
TWIN(md_sequential_functional) {
  torch::nn::Sequential seq(torch::nn::Functional(torch::relu),
                            torch::nn::Functional([](torch::Tensor x) { return x * 2; }));
  return seq->forward(torch::tensor({-1., 0.5, 2.}));
}
TWIN(md_sequential_size_index) {
  torch::nn::Sequential seq(torch::nn::Linear(2, 3), torch::nn::ReLU(), torch::nn::Linear(3, 1));
  return std::vector<int64_t>{(int64_t)seq->size(), seq[2]->as<torch::nn::Linear>()->weight.size(1)};
}
TWIN(md_sequential_named_ctor) {
  torch::nn::Sequential seq({{"fc", torch::nn::Linear(2, 3)}, {"act", torch::nn::Tanh()}});
  std::vector<std::string> names;
  for (const auto& p : seq->named_parameters()) names.push_back(p.key());
  return names == std::vector<std::string>{"fc.weight", "fc.bias"};
}
TWIN(md_module_list) {
  torch::nn::ModuleList ml(torch::nn::Linear(2, 2), torch::nn::ReLU(), torch::nn::Linear(2, 4));
  return std::vector<int64_t>{(int64_t)ml->size(), (int64_t)ml->parameters().size()};
}
TWIN(md_children_count) {
  torch::nn::Sequential seq(torch::nn::Linear(2, 3), torch::nn::ReLU(), torch::nn::Linear(3, 1));
  return std::vector<int64_t>{(int64_t)seq->children().size(), (int64_t)seq->modules().size()};
}
TWIN(md_custom_module_names) {
  struct Net : torch::nn::Module {
    Net() {
      fc = register_module("fc", torch::nn::Linear(2, 2));
      scale = register_parameter("scale", torch::ones({1}));
      register_buffer("count", torch::zeros({1}));
    }
    torch::nn::Linear fc{nullptr};
    torch::Tensor scale;
  };
  Net net;
  std::vector<std::string> names;
  for (const auto& p : net.named_parameters()) names.push_back(p.key());
  return names == std::vector<std::string>{"scale", "fc.weight", "fc.bias"} &&
         net.named_buffers().size() == 1;
}
TWIN(md_train_eval_flags) {
  torch::nn::Sequential seq(torch::nn::Linear(2, 2), torch::nn::Dropout(0.5));
  bool before = seq->is_training();
  seq->eval();
  bool child = seq[1]->is_training();
  seq->train(true);
  return std::vector<int64_t>{before, seq->is_training(), child, seq[1]->is_training()};
}
TWIN(md_train_false) {
  torch::nn::Linear lin(2, 2);
  lin->train(false);
  return lin->is_training();
}
TWIN(md_dropout_eval_identity) {
  torch::nn::Dropout drop(0.5);
  drop->eval();
  return drop(torch::arange(4.));
}
TWIN(md_dropout_p_zero_train) {
  torch::nn::Dropout drop(torch::nn::DropoutOptions(0.0));
  return drop(torch::arange(4.));
}
TWIN(md_conv2d_forward) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 2, 3).stride(1).padding(1).bias(false));
  torch::NoGradGuard g;
  conv->weight.copy_(torch::linspace(-1, 1, 18).reshape({2, 1, 3, 3}));
  return conv(torch::arange(16.).reshape({1, 1, 4, 4}));
}
TWIN(md_conv2d_stride2_shape) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 4, 3).stride(2));
  return conv(torch::ones({2, 3, 9, 9})).sizes().vec();
}
TWIN(md_conv2d_params) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 4, {3, 5}));
  return std::vector<int64_t>{conv->weight.size(2), conv->weight.size(3), conv->bias.size(0),
                              (int64_t)conv->parameters().size()};
}
TWIN(md_conv2d_padding_same) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 1, 3).padding(torch::kSame).bias(false));
  torch::NoGradGuard g;
  conv->weight.fill_(1.0);
  return conv(torch::arange(9.).reshape({1, 1, 3, 3}));
}
TWIN(md_conv1d_forward) {
  torch::nn::Conv1d conv(torch::nn::Conv1dOptions(1, 1, 2).bias(false));
  torch::NoGradGuard g;
  conv->weight.copy_(torch::tensor({{{1., -1.}}}));
  return conv(torch::arange(5.).reshape({1, 1, 5}));
}
TWIN(md_batchnorm1d_eval) {
  torch::nn::BatchNorm1d bn(3);
  bn->eval();
  return bn(torch::arange(6.).reshape({2, 3}));
}
TWIN(md_batchnorm1d_train_forward) {
  torch::nn::BatchNorm1d bn(3);
  return bn(torch::tensor({{1., 2., 3.}, {3., 6., 0.}, {5., 1., 3.}}));
}
TWIN(md_batchnorm1d_running_stats) {
  torch::nn::BatchNorm1d bn(3);
  bn(torch::tensor({{1., 2., 3.}, {3., 6., 0.}, {5., 1., 3.}}));
  return std::make_tuple(bn->running_mean, bn->running_var, bn->num_batches_tracked);
}
TWIN(md_batchnorm1d_momentum) {
  torch::nn::BatchNorm1d bn(torch::nn::BatchNorm1dOptions(2).momentum(0.5));
  bn(torch::tensor({{1., 2.}, {3., 6.}}));
  bn(torch::tensor({{1., 2.}, {3., 6.}}));
  return bn->running_mean;
}
TWIN(md_batchnorm2d_train_forward) {
  torch::nn::BatchNorm2d bn(2);
  auto y = bn(torch::arange(16.).reshape({2, 2, 2, 2}));
  return std::make_tuple(y, bn->running_mean, bn->running_var);
}
TWIN(md_batchnorm_buffers) {
  torch::nn::BatchNorm2d bn(2);
  std::vector<std::string> names;
  for (const auto& b : bn->named_buffers()) names.push_back(b.key());
  return names == std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"};
}
TWIN(md_batchnorm_no_affine) {
  torch::nn::BatchNorm1d bn(torch::nn::BatchNorm1dOptions(2).affine(false));
  return (int64_t)bn->parameters().size();
}
TWIN(md_layernorm_forward) {
  torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({3}));
  return ln(torch::tensor({{1., 2., 3.}, {2., 2., 8.}}));
}
TWIN(md_layernorm_no_affine) {
  torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({2, 2}).elementwise_affine(false));
  auto y = ln(torch::arange(8.).reshape({2, 2, 2}));
  return std::make_tuple(y, torch::tensor((int64_t)ln->parameters().size()));
}
TWIN(md_groupnorm_forward) {
  torch::nn::GroupNorm gn(torch::nn::GroupNormOptions(2, 4));
  return gn(torch::arange(8.).reshape({1, 4, 2}));
}
TWIN(md_embedding_forward) {
  torch::nn::Embedding emb(5, 2);
  torch::NoGradGuard g;
  emb->weight.copy_(torch::arange(10.).reshape({5, 2}));
  return emb(torch::tensor({0, 3, 3}));
}
TWIN(md_embedding_padding_idx_zero) {
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(5, 2).padding_idx(0));
  return emb->weight[0];
}
TWIN(md_embedding_padding_idx_grad) {
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(4, 2).padding_idx(1));
  emb(torch::tensor({1, 2, 1})).sum().backward();
  return emb->weight.grad();
}
TWIN(md_embedding_from_pretrained) {
  auto emb = torch::nn::Embedding::from_pretrained(torch::arange(6.).reshape({3, 2}));
  auto y = emb(torch::tensor({2, 0}));
  return std::make_tuple(y, torch::tensor(emb->weight.requires_grad()));
}
TWIN(md_lstm_forward) {
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(2, 3));
  torch::NoGradGuard g;
  for (auto& p : lstm->parameters()) p.copy_(torch::linspace(-0.5, 0.5, p.numel()).reshape(p.sizes()));
  auto out = lstm(torch::linspace(-1, 1, 6).reshape({3, 1, 2}));
  return std::make_tuple(std::get<0>(out), std::get<0>(std::get<1>(out)), std::get<1>(std::get<1>(out)));
}
TWIN(md_lstm_param_names) {
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(2, 3));
  std::vector<std::string> names;
  for (const auto& p : lstm->named_parameters()) names.push_back(p.key());
  return names == std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"};
}
TWIN(md_gru_forward) {
  torch::nn::GRU gru(torch::nn::GRUOptions(2, 3).batch_first(true));
  torch::NoGradGuard g;
  for (auto& p : gru->parameters()) p.copy_(torch::linspace(-0.5, 0.5, p.numel()).reshape(p.sizes()));
  return gru(torch::linspace(-1, 1, 6).reshape({1, 3, 2}));
}
TWIN(md_to_float64) {
  torch::nn::Linear lin(2, 2);
  lin->to(torch::kFloat64);
  return lin->weight.scalar_type() == torch::kFloat64 && lin->bias.scalar_type() == torch::kFloat64;
}
TWIN(md_to_float64_forward_dtype) {
  torch::nn::Linear lin(2, 2);
  lin->to(torch::kFloat64);
  torch::NoGradGuard g;
  lin->weight.fill_(1);
  lin->bias.fill_(0);
  return lin(torch::ones({1, 2}, torch::kFloat64));
}
TWIN(md_linear_dtype_mismatch_error) {
  torch::nn::Linear lin(2, 2);
  return lin(torch::ones({1, 2}, torch::kFloat64));
}
TWIN(md_linear_shape_mismatch_error) {
  torch::nn::Linear lin(3, 2);
  return lin(torch::ones({1, 2}));
}
TWIN(md_pretty_print_linear) {
  torch::nn::Linear lin(3, 2);
  std::ostringstream ss;
  ss << *lin;
  return ss.str() == "torch::nn::Linear(in_features=3, out_features=2, bias=true)";
}
TWIN(md_module_name) {
  torch::nn::Linear lin(3, 2);
  return lin->name() == "torch::nn::LinearImpl";
}
TWIN(md_clone_linear) {
  torch::nn::Linear lin(2, 2);
  torch::NoGradGuard g;
  lin->weight.fill_(1);
  auto copy = std::dynamic_pointer_cast<torch::nn::LinearImpl>(lin->clone());
  lin->weight.fill_(2);
  return copy->weight;
}
TWIN(md_relu_leaky_modules) {
  torch::nn::LeakyReLU lrelu(torch::nn::LeakyReLUOptions().negative_slope(0.2));
  auto x = torch::tensor({-2., 0., 3.});
  return std::make_tuple(torch::nn::ReLU()(x), lrelu(x));
}
TWIN(md_softmax_module) {
  torch::nn::Softmax sm(torch::nn::SoftmaxOptions(1));
  return sm(torch::tensor({{1., 2., 3.}}));
}
TWIN(md_flatten_options) {
  torch::nn::Flatten fl(torch::nn::FlattenOptions().start_dim(0).end_dim(1));
  return fl(torch::ones({2, 3, 4})).sizes().vec();
}
TWIN(md_maxpool2d_module) {
  torch::nn::MaxPool2d pool(torch::nn::MaxPool2dOptions(2));
  return pool(torch::arange(16.).reshape({1, 1, 4, 4}));
}
TWIN(md_avgpool2d_module) {
  torch::nn::AvgPool2d pool(torch::nn::AvgPool2dOptions(2).stride(1));
  return pool(torch::arange(9.).reshape({1, 1, 3, 3}));
}
TWIN(md_cross_entropy_module) {
  torch::nn::CrossEntropyLoss loss;
  return loss(torch::tensor({{1., 2., 3.}, {1., 0., -1.}}), torch::tensor({2, 0}));
}
TWIN(md_mse_loss_sum_module) {
  torch::nn::MSELoss loss(torch::nn::MSELossOptions().reduction(torch::kSum));
  return loss(torch::tensor({1., 2.}), torch::tensor({0., 4.}));
}
TWIN(md_init_constant) {
  auto w = torch::empty({2, 3});
  torch::nn::init::constant_(w, 0.5);
  return w;
}
TWIN(md_init_zeros_ones) {
  auto a = torch::empty({2});
  auto b = torch::empty({2});
  torch::nn::init::zeros_(a);
  torch::nn::init::ones_(b);
  return std::make_tuple(a, b);
}
TWIN(md_init_eye) {
  auto w = torch::empty({2, 3});
  torch::nn::init::eye_(w);
  return w;
}
TWIN(md_init_dirac) {
  auto w = torch::empty({2, 2, 3});
  torch::nn::init::dirac_(w);
  return w;
}
TWIN(md_init_on_param_no_grad_history) {
  torch::nn::Linear lin(2, 2);
  torch::nn::init::constant_(lin->weight, 0.25);
  return std::make_tuple(lin->weight, torch::tensor(lin->weight.is_leaf()));
}
TWIN(md_init_xavier_uniform_bound) {
  auto w = torch::empty({3, 4});
  torch::nn::init::xavier_uniform_(w);
  return w.abs().max().item<float>() <= std::sqrt(6.0 / 7.0) && w.abs().min().item<float>() >= 0;
}
TWIN(md_init_kaiming_uniform_bound) {
  auto w = torch::empty({8, 6});
  torch::nn::init::kaiming_uniform_(w, 0, torch::kFanIn, torch::kReLU);
  return w.abs().max().item<float>() <= 1.0;
}
TWIN(md_init_uniform_range) {
  auto w = torch::empty({50});
  torch::nn::init::uniform_(w, 2, 3);
  return w.min().item<float>() >= 2 && w.max().item<float>() <= 3;
}
TWIN(md_calculate_gain_relu_tanh) {
  return torch::tensor({torch::nn::init::calculate_gain(torch::kReLU),
                        torch::nn::init::calculate_gain(torch::kTanh),
                        torch::nn::init::calculate_gain(torch::kSigmoid),
                        torch::nn::init::calculate_gain(torch::kLinear)}, torch::kFloat64);
}
TWIN(md_calculate_gain_leaky) {
  return std::make_tuple(torch::tensor(torch::nn::init::calculate_gain(torch::kLeakyReLU), torch::kFloat64),
                         torch::tensor(torch::nn::init::calculate_gain(torch::kLeakyReLU, 0.2), torch::kFloat64));
}
TWIN(md_calculate_gain_conv2d) { return torch::nn::init::calculate_gain(torch::kConv2D); }
TWIN(md_fan_in_out) {
  auto fans = torch::nn::init::_calculate_fan_in_and_fan_out(torch::empty({4, 3, 2, 5}));
  return std::vector<int64_t>{std::get<0>(fans), std::get<1>(fans)};
}
