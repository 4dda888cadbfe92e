// Gradcheck entries of the recurrent modules (RNNCell, LSTMCell, GRUCell, a 2-layer bidirectional
// LSTM, GRU and RNN): the module's own parameters are sample inputs, so every weight is checked.
#include "op_table.h"

#include <memory>
#include <tuple>

namespace optable {
namespace {

namespace nn = ember::nn;
using ember::kFloat64;

// The modules of the samples; an entry's function finds its module by its first parameter.
std::vector<std::shared_ptr<nn::Module>>& modules() {
  static std::vector<std::shared_ptr<nn::Module>> all;
  return all;
}

template <class M>
M& module_of(const Tensor& first_param) {
  for (const auto& m : modules()) {
    if (m->parameters()[0].is_same(first_param)) return dynamic_cast<M&>(*m);
  }
  EMBER_THROW("table_rnn: no module owns this parameter");
}

// `inputs` followed by the module's parameters (float64 on d), the module kept for the function.
// In float32 (the parity pass): the inputs cast and a float32 clone's parameters, the clone kept.
template <class Holder>
std::vector<Sample> with_params(const std::string& desc, Holder holder, Device d,
                                tensor_list inputs) {
  holder->to(d, kFloat64);
  modules().push_back(holder.ptr());
  auto float32 = [module = holder.ptr(), inputs]() {
    std::shared_ptr<nn::Module> copy = module->clone();
    copy->to(ember::kFloat32);
    modules().push_back(copy);
    tensor_list cast;
    for (const Tensor& x : inputs)
      cast.push_back(x.detach().to(ember::kFloat32).requires_grad_(x.requires_grad()));
    for (const Tensor& p : copy->parameters()) cast.push_back(p);
    return cast;
  };
  for (const Tensor& p : holder->parameters()) inputs.push_back(p);
  return {{desc, inputs, float32}};
}

Register reg({
    {"nn/LSTMCell",
     [](const tensor_list& x) {
       auto [h, c] = module_of<nn::LSTMCellImpl>(x[3]).forward(x[0], std::make_tuple(x[1], x[2]));
       return tensor_list{h, c};
     },
     [](Device d) {
       return with_params("[2, 3] -> 4", nn::LSTMCell(3, 4), d,
                          {input({2, 3}, d), input({2, 4}, d), input({2, 4}, d)});
     }},
    {"nn/GRUCell",
     fn1([](const tensor_list& x) { return module_of<nn::GRUCellImpl>(x[2]).forward(x[0], x[1]); }),
     [](Device d) {
       return with_params("[2, 3] -> 4", nn::GRUCell(3, 4), d,
                          {input({2, 3}, d), input({2, 4}, d)});
     }},
    {"nn/RNNCell tanh",
     fn1([](const tensor_list& x) { return module_of<nn::RNNCellImpl>(x[2]).forward(x[0], x[1]); }),
     [](Device d) {
       return with_params("[2, 3] -> 4", nn::RNNCell(3, 4), d,
                          {input({2, 3}, d), input({2, 4}, d)});
     }},
    {"nn/RNNCell relu unbatched",
     fn1([](const tensor_list& x) { return module_of<nn::RNNCellImpl>(x[2]).forward(x[0], x[1]); }),
     [](Device d) {
       return with_params("[3] -> 4",
                          nn::RNNCell(nn::RNNCellOptions(3, 4).nonlinearity(ember::kReLU)), d,
                          {input({3}, d), input({4}, d)});
     }},
    {"nn/LSTM 2-layer bidirectional",
     [](const tensor_list& x) {
       auto [out, hc] = module_of<nn::LSTMImpl>(x[3]).forward(x[0], std::make_tuple(x[1], x[2]));
       return tensor_list{out, std::get<0>(hc), std::get<1>(hc)};
     },
     [](Device d) {
       return with_params("[3, 2, 2] -> 3",
                          nn::LSTM(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true)), d,
                          {input({3, 2, 2}, d), input({4, 2, 3}, d), input({4, 2, 3}, d)});
     },
     /*gradgrad=*/false},
    {"nn/GRU bidirectional batch_first",
     [](const tensor_list& x) {
       auto [out, h] = module_of<nn::GRUImpl>(x[2]).forward(x[0], x[1]);
       return tensor_list{out, h};
     },
     [](Device d) {
       return with_params("[2, 3, 2] -> 3",
                          nn::GRU(nn::GRUOptions(2, 3).bidirectional(true).batch_first(true)), d,
                          {input({2, 3, 2}, d), input({2, 2, 3}, d)});
     },
     /*gradgrad=*/false},
    {"nn/RNN 2-layer no bias",
     [](const tensor_list& x) {
       auto [out, h] = module_of<nn::RNNImpl>(x[2]).forward(x[0], x[1]);
       return tensor_list{out, h};
     },
     [](Device d) {
       return with_params("[3, 2, 2] -> 3", nn::RNN(nn::RNNOptions(2, 3).num_layers(2).bias(false)),
                          d, {input({3, 2, 2}, d), input({2, 2, 3}, d)});
     }},
    {"nn/LSTM proj_size unbatched",
     [](const tensor_list& x) {
       auto [out, hc] = module_of<nn::LSTMImpl>(x[3]).forward(x[0], std::make_tuple(x[1], x[2]));
       return tensor_list{out, std::get<0>(hc), std::get<1>(hc)};
     },
     [](Device d) {
       return with_params("[3, 2] -> 3 proj 2", nn::LSTM(nn::LSTMOptions(2, 3).proj_size(2)), d,
                          {input({3, 2}, d), input({1, 2}, d), input({1, 3}, d)});
     },
     /*gradgrad=*/false},
});

}  // namespace
}  // namespace optable
