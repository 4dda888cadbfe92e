// LibTorch twin of examples/cnn.cpp: the same net, data, settings and batching (the data set on
// the device as [N, 1, 28, 28], a random permutation per epoch, batches by index_select), so
// tools/cnn_compare.sh can run both alternately and compare samples/s. Same options (TF32 off
// unless --tf32), the same progress bar, metrics and plot (examples/training_report.h), and the
// same last JSON line. Builds against LibTorch 1.13 (Debian) and 2.x (the PyTorch wheel).
#include <torch/torch.h>
#include <zlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "../examples/training_report.h"

namespace F = torch::nn::functional;
using examples::Clock;
using examples::seconds_since;

struct CNNImpl : torch::nn::Module {
  explicit CNNImpl(bool batch_norm)
      : conv1(torch::nn::Conv2dOptions(1, 32, 3).padding(1)),
        conv2(torch::nn::Conv2dOptions(32, 64, 3).padding(1)),
        pool(torch::nn::MaxPool2dOptions(2)),
        fc1(64 * 7 * 7, 128),
        fc2(128, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    if (batch_norm) {
      bn1 = register_module("bn1", torch::nn::BatchNorm2d(32));
      bn2 = register_module("bn2", torch::nn::BatchNorm2d(64));
    }
    register_module("pool", pool);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) {  // [N, 1, 28, 28] -> [N, 10]
    x = conv1->forward(x);
    if (bn1) x = bn1->forward(x);
    x = pool->forward(F::relu(x));  // [N, 32, 14, 14]
    x = conv2->forward(x);
    if (bn2) x = bn2->forward(x);
    x = pool->forward(F::relu(x));  // [N, 64, 7, 7]
    x = F::relu(fc1->forward(x.flatten(1)));
    return fc2->forward(x);
  }
  torch::nn::Conv2d conv1, conv2;
  torch::nn::BatchNorm2d bn1 = nullptr, bn2 = nullptr;
  torch::nn::MaxPool2d pool;
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(CNN);

// A whole gzip-compressed IDX file (LibTorch's MNIST reader takes only plain files).
static std::vector<uint8_t> read_gz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  gzclose(f);
  return bytes;
}

struct Split {
  torch::Tensor x, y;  // [N, 1, 28, 28] float, [N] int64
  int64_t size() const { return x.size(0); }
};

static Split load(const std::string& root, const std::string& prefix, torch::Device device,
                  bool normalize) {
  std::vector<uint8_t> images = read_gz(root + "/" + prefix + "-images-idx3-ubyte.gz");
  std::vector<uint8_t> labels = read_gz(root + "/" + prefix + "-labels-idx1-ubyte.gz");
  const int64_t n = static_cast<int64_t>(labels.size()) - 8;
  if (n <= 0 || static_cast<int64_t>(images.size()) != 16 + n * 784)
    throw std::runtime_error("unexpected IDX sizes in " + root);
  torch::Tensor x = torch::from_blob(images.data() + 16, {n, 1, 28, 28}, torch::kUInt8)
                        .to(torch::kFloat32)
                        .div(255.0);
  if (normalize) x = (x - 0.2860) / 0.3530;
  torch::Tensor y = torch::from_blob(labels.data() + 8, {n}, torch::kUInt8).to(torch::kInt64);
  return {x.to(device), y.to(device)};
}

// Test loss and accuracy in batches of 1000, read back once.
static std::pair<double, double> evaluate(CNN& net, const Split& test) {
  torch::NoGradGuard no_grad;
  net->eval();
  torch::Tensor correct =
      torch::zeros({}, torch::TensorOptions(torch::kInt64).device(test.x.device()));
  torch::Tensor loss_sum = torch::zeros({}, test.x.options());
  for (int64_t i = 0; i < test.size(); i += 1000) {
    const int64_t n = std::min<int64_t>(1000, test.size() - i);
    torch::Tensor logits = net->forward(test.x.narrow(0, i, n));
    torch::Tensor y = test.y.narrow(0, i, n);
    loss_sum.add_(F::cross_entropy(logits, y, F::CrossEntropyFuncOptions().reduction(torch::kSum)));
    correct.add_(logits.argmax(1).eq(y).sum());
  }
  net->train();
  return {loss_sum.item<double>() / test.size(),
          static_cast<double>(correct.item<int64_t>()) / test.size()};
}

int main(int argc, char** argv) {
  std::string data = "/usr/share/datasets/fashion-mnist", device_name, optimizer_name = "sgd";
  std::string metrics_path, plot_path;
  int epochs = 3, batch_size = 128, threads = 0;
  double lr = -1;  // -1: 0.05 for SGD, 1e-3 for Adam
  uint64_t seed = 0;
  int64_t max_steps = 0, test_samples = 0;
  bool normalize = true, batch_norm = false, tf32 = false, cudnn_benchmark = false;
  CLI::App app{"LibTorch twin of ember's cnn example."};
  app.add_option("--data", data);
  app.add_option("--device", device_name);
  app.add_option("--epochs", epochs);
  app.add_option("--batch-size", batch_size);
  app.add_option("--lr", lr);
  app.add_option("--optimizer", optimizer_name)->check(CLI::IsMember({"sgd", "adam"}));
  app.add_option("--seed", seed);
  app.add_option("--max-steps", max_steps);
  app.add_option("--test-samples", test_samples);
  app.add_option("--threads", threads);
  app.add_flag("!--no-normalize", normalize);
  app.add_flag("--bn", batch_norm);
  app.add_flag("--tf32", tf32);
  app.add_flag("--cudnn-benchmark", cudnn_benchmark);
  app.add_option("--metrics", metrics_path);
  app.add_option("--plot", plot_path);
  CLI11_PARSE(app, argc, argv);
  if (epochs < 1 || batch_size < 1) {
    std::cerr << "libtorch_cnn: --epochs and --batch-size must be at least 1\n";
    return 2;
  }
  try {
    const auto wall0 = Clock::now();
    torch::manual_seed(seed);
    if (threads > 0) torch::set_num_threads(threads);
    // Full float32 unless --tf32 (LibTorch's own default allows TF32 in cuDNN).
    at::globalContext().setAllowTF32CuDNN(tf32);
    at::globalContext().setAllowTF32CuBLAS(tf32);
    at::globalContext().setBenchmarkCuDNN(cudnn_benchmark);
    if (device_name.empty()) device_name = torch::cuda::is_available() ? "cuda" : "cpu";
    const torch::Device device(device_name);
    const Split train = load(data, "train", device, normalize);
    Split test = load(data, "t10k", device, normalize);
    if (test_samples > 0 && test_samples < test.size())
      test = {test.x.narrow(0, 0, test_samples), test.y.narrow(0, 0, test_samples)};

    CNN net(batch_norm);
    net->to(device);
    std::unique_ptr<torch::optim::Optimizer> opt;
    if (optimizer_name == "sgd") {
      opt = std::make_unique<torch::optim::SGD>(
          net->parameters(), torch::optim::SGDOptions(lr > 0 ? lr : 0.05).momentum(0.9));
    } else {
      opt = std::make_unique<torch::optim::Adam>(net->parameters(),
                                                 torch::optim::AdamOptions(lr > 0 ? lr : 1e-3));
    }
    const std::string model = batch_norm ? "cnn-bn-32-64-128-10" : "cnn-32-64-128-10";
    const int64_t n = train.size(), bs = batch_size;
    int64_t steps = (n + bs - 1) / bs;
    if (max_steps > 0) steps = std::min(steps, max_steps);

    examples::ProgressBar bar;
    examples::MetricsFile metrics(metrics_path);
    std::vector<examples::EpochRecord> records;
    double steady_s = 0, steady_samples = 0;
    int steady_epochs = 0;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      const auto t0 = Clock::now();
      torch::Tensor perm = torch::randperm(n, torch::TensorOptions(torch::kInt64).device(device));
      torch::Tensor loss_sum = torch::zeros({}, train.x.options());
      int64_t samples = 0;
      for (int64_t step = 0; step < steps; ++step) {
        const int64_t m = std::min(bs, n - step * bs);
        torch::Tensor idx = perm.narrow(0, step * bs, m);
        torch::Tensor x = train.x.index_select(0, idx), y = train.y.index_select(0, idx);
        opt->zero_grad();
        torch::Tensor loss = F::cross_entropy(net->forward(x), y);
        loss.backward();
        opt->step();
        loss_sum.add_(loss.detach());
        samples += m;
        if (bar.due()) {  // reads the loss back at most 10 times a second, on a terminal only
          const double s = seconds_since(t0);
          bar.draw(epoch, epochs, step + 1, steps, loss_sum.item<double>() / (step + 1),
                   samples / s, s / (step + 1) * (steps - step - 1));
        }
      }
      const double train_loss = loss_sum.item<double>() / steps;  // synchronizes
      const double epoch_s = seconds_since(t0);
      const auto [test_loss, test_acc] = evaluate(net, test);
      if (epoch > 1 || epochs == 1) {
        steady_s += epoch_s;
        steady_samples += samples;
        ++steady_epochs;
      }
      const examples::EpochRecord r{epoch,    train_loss, test_loss,
                                    test_acc, epoch_s,    samples / epoch_s};
      records.push_back(r);
      metrics.write(r);
      char line[256];
      std::snprintf(line, sizeof line,
                    "epoch %d/%d: train loss %.4f, test loss %.4f, test accuracy %.2f%%, %.2f s, "
                    "%.0f samples/s",
                    epoch, epochs, train_loss, test_loss, 100 * test_acc, epoch_s,
                    samples / epoch_s);
      bar.finish(line);
    }
    if (!plot_path.empty()) {
      examples::plot_curves(records, plot_path,
                            model + ", Fashion-MNIST, " + device_name + ", LibTorch");
      std::printf("curves written to %s\n", plot_path.c_str());
    }
    nlohmann::json result = {
        {"model", model},
        {"framework", "libtorch " + std::to_string(TORCH_VERSION_MAJOR) + "." +
                          std::to_string(TORCH_VERSION_MINOR)},
        {"device", device_name},
        {"epochs", epochs},
        {"batch_size", batch_size},
        {"optimizer", optimizer_name},
        {"tf32", tf32},
        {"train_samples_per_s", steady_s > 0 ? steady_samples / steady_s : 0.0},
        {"epoch_s_steady", steady_s / steady_epochs},
        {"test_acc", records.back().test_acc},
        {"wall_s", seconds_since(wall0)}};
    std::cout << result.dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "libtorch_cnn: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
