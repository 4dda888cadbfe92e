// The code of docs/porting-from-libtorch.md, compiled and run by ctest (docs.porting_guide): a
// LibTorch program after tools/port-from-libtorch.sh (it trains a small classifier on three
// clusters), the LibTorch names a port meets, and the differences the guide lists.
#include <ember/ember.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::logic_error("porting guide: expected " + what);
}

// ---- A worked example ----
// Three clusters of points in the plane; the target is the cluster.
class Clusters : public ember::data::Dataset<Clusters> {
 public:
  explicit Clusters(size_t n) : n_(n) {}
  ember::data::Example<> get(size_t index) override {
    const int64_t label = static_cast<int64_t>(index % 3);
    ember::Tensor center = ember::tensor({std::cos(2.1 * label), std::sin(2.1 * label)});
    return {center + 0.1 * ember::randn({2}), ember::tensor({label})};
  }
  ember::optional<size_t> size() const override { return n_; }

 private:
  size_t n_;
};

struct NetImpl : ember::nn::Module {
  NetImpl() {
    fc1 = register_module("fc1", ember::nn::Linear(2, 16));
    head = register_module(
        "head", ember::nn::Sequential(ember::nn::Linear(16, 3),
                                      ember::nn::Functional(ember::log_softmax, /*dim=*/1,
                                                            /*dtype=*/ember::nullopt)));
  }
  ember::Tensor forward(ember::Tensor x) {
    x = ember::leaky_relu(fc1->forward(x), /*negative_slope=*/0.2);
    x = ember::dropout(x, /*p=*/0.1, /*train=*/is_training());
    return head->forward(x);
  }
  ember::nn::Linear fc1{nullptr};
  ember::nn::Sequential head{nullptr};
};
EMBER_MODULE(Net);

double train_clusters() {
  ember::manual_seed(1);
  ember::Device device(ember::cuda::is_available() ? ember::kCUDA : ember::kCPU);
  Net net;
  net->to(device);

  auto loader = ember::data::make_data_loader<ember::data::samplers::SequentialSampler>(
      Clusters(300).map(ember::data::transforms::Stack<>()), /*batch_size=*/30);
  ember::optim::SGD optimizer(net->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
  ember::optim::StepLR scheduler(optimizer, /*step_size=*/5, /*gamma=*/0.5);

  for (int epoch = 1; epoch <= 10; ++epoch) {
    net->train();
    for (auto& batch : *loader) {
      auto data = batch.data.to(device), target = batch.target.to(device).view({-1});
      optimizer.zero_grad();
      auto loss = ember::nll_loss(net->forward(data), target);
      EMBER_CHECK(!std::isnan(loss.item<float>()), "loss is NaN in epoch ", epoch);
      loss.backward();
      optimizer.step();
    }
    scheduler.step();
  }

  ember::NoGradGuard no_grad;
  net->eval();
  double test_loss = 0;
  int64_t correct = 0;
  for (const auto& batch : *loader) {
    auto data = batch.data.to(device), target = batch.target.to(device).view({-1});
    auto output = net->forward(data);
    test_loss +=
        ember::nll_loss(output, target, /*weight=*/{}, ember::Reduction::Sum).item<double>();
    correct += output.argmax(1).eq(target).sum().item<int64_t>();
  }
  std::cout << ember::str("loss ", test_loss / 300, ", accuracy ", correct / 300.0) << "\n";
  return correct / 300.0;
}

// ---- Names a port meets ----
void names() {
  ember::optional<int64_t> dim = ember::nullopt;  // torch::optional
  ember::autograd::Variable v = ember::ones({2}, ember::requires_grad());
  ember::autograd::variable_list grads = ember::autograd::grad({(v * v).sum()}, {v});
  ember::ExpandingArray<2> stride(2);  // {2, 2}
  auto pool = ember::nn::Functional(ember::max_pool2d, /*kernel_size=*/2, stride, /*padding=*/0,
                                    /*dilation=*/1, /*ceil_mode=*/false);  // every argument
  auto loss = ember::mse_loss(ember::ones({3}), ember::zeros({3}), ember::Reduction::Sum);
  std::string file = ember::str("sample-", 3, ".pt");  // "sample-3.pt"
  EMBER_ASSERT(stride->at(1) == 2);
  EMBER_CHECK(loss.item<float>() == 3.0f, "mse_loss: expected 3, got ", loss.item<float>());

  expect(!dim.has_value(), "nullopt");
  expect(grads[0].eq(2).all().item<bool>(), "d(v * v)/dv == 2 v");
  expect(pool(ember::ones({1, 1, 4, 4})).sizes() == ember::IntArrayRef({1, 1, 2, 2}),
         "Functional(max_pool2d, 2, stride) to halve the size");
  expect(file == "sample-3.pt", "str to concatenate");
}

// ---- What differs on purpose ----
void differences() {
  using namespace ember;
  // Printing follows PyTorch's Python style.
  std::ostringstream printed;
  printed << tensor({1.5, 2.0});  // tensor([1.5000, 2.0000])
  expect(printed.str() == "tensor([1.5000, 2.0000])",
         "Python-style printing, got " + printed.str());

  // Literals as LibTorch's: integers are int64, floating values the default dtype.
  expect(tensor({1, 2, 3}).dtype() == kInt64, "int64 integer literals");
  expect(tensor({1.0, 2.0}).dtype() == kFloat32, "float32 floating literals");

  // zero_grad() sets gradients to none (LibTorch 2.x); zero_grad(false) zero-fills them.
  Tensor w = ones({2}, requires_grad());
  optim::SGD opt({w}, optim::SGDOptions(0.1));
  (w * w).sum().backward();
  opt.zero_grad();
  expect(!w.grad().defined(), "zero_grad() to drop the gradient");
  (w * w).sum().backward();
  opt.zero_grad(/*set_to_none=*/false);
  expect(w.grad().defined() && w.grad().sum().item<float>() == 0.0f, "zero_grad(false) zeroes");

  // clip_grad_norm_ returns the norm as a double; the _no_sync_ form keeps it on the device.
  (w * w).sum().backward();                                           // grad = [2, 2]
  double norm = nn::utils::clip_grad_norm_({w}, /*max_norm=*/100.0);  // reads the norm back
  Tensor norm_t = nn::utils::clip_grad_norm_no_sync_({w}, 100.0);     // no synchronization
  expect(std::abs(norm - std::sqrt(8.0)) < 1e-6, "clip_grad_norm_ to return sqrt(8)");
  expect(std::abs(norm_t.item<double>() - norm) < 1e-6, "the same norm on the device");

  // StepLR as LibTorch's C++ StepLR: with step_size 2, the third step() decays the lr.
  optim::StepLR step_lr(opt, /*step_size=*/2, /*gamma=*/0.1);
  std::vector<double> lrs;
  for (int i = 0; i < 3; ++i) {
    step_lr.step();
    lrs.push_back(step_lr.get_last_lr()[0]);  // 0.1, 0.1, 0.01 (Python's: 0.1, 0.01, 0.01)
  }
  expect(lrs[1] == 0.1 && std::abs(lrs[2] - 0.01) < 1e-12, "StepLR to decay at the third step");
}

}  // namespace

int main() {
  try {
    const double accuracy = train_clusters();
    expect(accuracy > 0.95, "the ported program to learn the clusters");
    names();
    differences();
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::cout << "porting guide: ok\n";
  return 0;
}
