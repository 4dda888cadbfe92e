// The code of docs/nn.md, compiled and run by ctest (docs.nn_guide) so that every example in
// the guide builds and does what the guide says. Sections match the guide's.
#include <ember/ember.h>

#include <cmath>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("nn guide: expected ") + what);
}

// ---- A custom module ----
struct Net : ember::nn::Module {
  Net() : fc1(784, 128), fc2(128, 10) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  ember::Tensor forward(ember::Tensor x) {
    return fc2->forward(ember::relu(fc1->forward(x.view({x.size(0), -1}))));
  }
  ember::nn::Linear fc1, fc2;  // holders: fc1->weight, fc1->bias, fc1(x)
};

void custom_module() {
  using namespace ember;
  auto net = std::make_shared<Net>();
  Tensor logits = net->forward(randn({32, 1, 28, 28}));  // [32, 10]
  for (const auto& p : net->named_parameters()) {
    std::cout << p.key() << " " << p.value().sizes() << "\n";  // fc1.weight [128, 784] ...
  }
  expect(logits.sizes() == IntArrayRef({32, 10}), "logits [32, 10]");
  expect(net->named_parameters().keys() ==
             std::vector<std::string>({"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}),
         "dotted parameter names");
  net->eval();  // recursive; Dropout becomes the identity
  expect(!net->fc1->is_training(), "eval reaches children");
  net->train();
}

// ---- Sequential and printing ----
void sequential_and_printing() {
  using namespace ember;
  namespace nn = ember::nn;
  nn::Sequential seq(nn::Linear(4, 8), nn::ReLU(), nn::Dropout(0.1), nn::Linear(8, 1));
  Tensor y = seq->forward(randn({5, 4}));  // [5, 1]
  std::cout << *seq << "\n";
  // Sequential(
  //   (0): Linear(in_features=4, out_features=8, bias=true)
  //   (1): ReLU()
  //   (2): Dropout(p=0.1, inplace=false)
  //   (3): Linear(in_features=8, out_features=1, bias=true)
  // )
  auto first = seq->ptr<nn::LinearImpl>(0);  // typed access to an element
  nn::Sequential named({{"encoder", nn::Linear(4, 2)}, {"act", nn::Tanh()}});
  std::ostringstream printed;
  printed << *named;
  expect(y.sizes() == IntArrayRef({5, 1}), "sequential output [5, 1]");
  expect(first->options.out_features() == 8, "typed element");
  expect(printed.str() ==
             "Sequential(\n  (encoder): Linear(in_features=4, out_features=2, bias=true)\n"
             "  (act): Tanh()\n)",
         "the printed tree");
}

// ---- State dicts ----
void state_dicts() {
  using namespace ember;
  auto a = std::make_shared<Net>();
  auto b = std::make_shared<Net>();
  b->load_state_dict(a->state_dict());  // copies in place, by name
  auto sd = a->state_dict();
  sd.erase("fc2.bias");
  std::string message;
  try {
    b->load_state_dict(sd);  // strict: names every missing or unexpected key
  } catch (const Error& e) {
    message = e.what();
  }
  b->load_state_dict(sd, /*strict=*/false);  // skips missing and unexpected keys
  expect(allclose(a->fc1->weight, b->fc1->weight), "loaded weights");
  expect(message.find("Missing key(s) in state_dict: \"fc2.bias\"") != std::string::npos,
         "strict mode names the missing key");
}

// ---- Forward hooks ----
void hooks() {
  using namespace ember;
  nn::Linear fc(3, 2);
  Tensor seen_mean;
  auto handle = fc->register_forward_hook(
      [&](nn::Module&, const std::vector<Tensor>& /*inputs*/, Tensor& output) {
        seen_mean = output.mean().detach();  // e.g. record activations
      });
  auto pre = fc->register_forward_pre_hook(
      [](nn::Module&, std::vector<Tensor>& inputs) { inputs[0] = inputs[0] * 0; });
  Tensor y = fc(ones({4, 3}));  // hooks run: the input was zeroed, so y == bias
  pre.remove();
  handle.remove();
  expect(allclose(y, fc->bias.expand({4, 2})), "pre-hook changed the input");
  expect(seen_mean.defined(), "hook ran");
}

// ---- Functional and init ----
void functional_and_init() {
  using namespace ember;
  namespace F = ember::nn::functional;
  Tensor x = randn({4, 6});
  Tensor a = F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2));
  Tensor d = F::dropout(x, F::DropoutFuncOptions().p(0.5).training(true));
  Tensor n = F::layer_norm(x, F::LayerNormFuncOptions({6}).eps(1e-5));
  Tensor p = F::softmax(x, F::SoftmaxFuncOptions(1));

  nn::Linear fc(6, 3);
  nn::init::kaiming_normal_(fc->weight, 0.0, kFanIn, kReLU);
  nn::init::zeros_(fc->bias);
  expect(a.sizes() == x.sizes() && d.sizes() == x.sizes(), "shapes kept");
  expect(n.mean({1}).abs().max().item<float>() < 1e-5f, "layer_norm centers rows");
  expect(std::abs(p.sum().item<float>() - 4.0f) < 1e-5f, "softmax rows sum to 1");
  expect(fc->bias.abs().sum().item<float>() == 0.0f, "zeros_");
}

}  // namespace

int main() {
  custom_module();
  sequential_and_printing();
  state_dicts();
  hooks();
  functional_and_init();
  std::cout << "nn guide: ok\n";
  return 0;
}
