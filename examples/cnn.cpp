// Trains a small convolutional network on Fashion-MNIST, as ../shared/PERF.md's CNN workload:
// two 3x3 convs (32 and 64 channels) with ReLU and 2x2 max-pooling, then 3136-128-10; the data
// set lives on the device as [N, 1, 28, 28], a random permutation per epoch, batches by
// index_select (as examples/mlp.cpp). `cnn --help` lists the options; the last line of stdout
// is one JSON object with the results. benchmarks/libtorch_cnn.cpp is the same program in LibTorch.
#include <ember/ember.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common.h"
#include "train_step.h"
#include "training_report.h"

using namespace ember;
namespace F = ember::nn::functional;
using examples::Clock;
using examples::seconds_since;

// The model, written as a LibTorch user writes one. With batch_norm, a BatchNorm2d follows each
// conv (before its ReLU).
struct CNNImpl : nn::Module {
  explicit CNNImpl(bool batch_norm)
      : conv1(nn::Conv2dOptions(1, 32, 3).padding(1)),
        conv2(nn::Conv2dOptions(32, 64, 3).padding(1)),
        pool(nn::MaxPool2dOptions(2)),
        fc1(64 * 7 * 7, 128),
        fc2(128, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    if (batch_norm) {
      bn1 = register_module("bn1", nn::BatchNorm2d(32));
      bn2 = register_module("bn2", nn::BatchNorm2d(64));
    }
    register_module("pool", pool);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  Tensor forward(Tensor x) {  // [N, 1, 28, 28] -> [N, 10]
    x = conv1->forward(x);
    if (bn1) x = bn1->forward(x);
    x = pool->forward(F::relu(x));  // [N, 32, 14, 14]
    x = conv2->forward(x);
    if (bn2) x = bn2->forward(x);
    x = pool->forward(F::relu(x));  // [N, 64, 7, 7]
    x = F::relu(fc1->forward(x.flatten(1)));
    return fc2->forward(x);
  }
  nn::Conv2d conv1, conv2;
  nn::BatchNorm2d bn1 = nullptr, bn2 = nullptr;
  nn::MaxPool2d pool;
  nn::Linear fc1, fc2;
};
EMBER_MODULE(CNN);

struct Options {
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::string device;
  int epochs = 3;
  int batch_size = 128;
  double lr = -1;  // -1: 0.05 for SGD, 1e-3 for Adam
  std::string optimizer = "sgd";
  uint64_t seed = 0;
  int64_t max_steps = 0;     // per epoch; 0 = the whole training set
  int64_t test_samples = 0;  // the first N test images; 0 = all
  int threads = 0;
  std::string metrics, plot;
  bool normalize = true;  // to the training set's mean and std; else pixels in [0, 1]
  bool batch_norm = false;
  bool tf32 = false;  // TF32 in cuDNN convolutions and float32 matmuls
  bool cudnn_benchmark = false;
  bool deterministic = false;  // only cuDNN algorithms that give bitwise-repeatable results
  std::string save, resume;    // checkpoint paths
  std::string weights;         // the model's weights to start from (safetensors or .pt)
  std::string graph = "auto";  // --graph: auto, on or off
  bool tune_gemm = false;      // --tune-gemm: cuda::tunable
  std::string export_file;     // the model's weights after training (safetensors)
};

// Images as normalized float planes [N, 1, 28, 28] and labels [N], on the device.
struct DeviceSplit {
  Tensor x, y;
  int64_t size() const { return x.size(0); }
};

DeviceSplit load_split(const std::string& root, data::datasets::MNIST::Mode mode, Device device,
                       bool normalize) {
  data::datasets::MNIST set(root, mode);
  constexpr double kMean = 0.2860, kStd = 0.3530;  // Fashion-MNIST's training-set statistics
  const Tensor x = normalize ? (set.images() - kMean) / kStd : set.images();  // [N, 1, 28, 28]
  return {x.to(device), set.targets().to(device)};
}

// Test loss and accuracy in batches of 1000, read back once.
std::pair<double, double> evaluate(CNN& net, const DeviceSplit& test) {
  NoGradGuard no_grad;
  net->eval();
  Tensor correct = zeros({}, TensorOptions(kInt64).device(test.x.device()));
  Tensor loss_sum = zeros({}, test.x.options());
  for (int64_t i = 0; i < test.size(); i += 1000) {
    const int64_t n = std::min<int64_t>(1000, test.size() - i);
    Tensor logits = net->forward(test.x.narrow(0, i, n));
    Tensor y = test.y.narrow(0, i, n);
    loss_sum.add_(F::cross_entropy(logits, y, F::CrossEntropyFuncOptions().reduction(kSum)));
    correct.add_(logits.argmax(1).eq(y).sum());
  }
  net->train();
  return {loss_sum.item<double>() / test.size(),
          static_cast<double>(correct.item<int64_t>()) / test.size()};
}

int run(const Options& opt) {
  const auto wall0 = Clock::now();
  manual_seed(opt.seed);
  cuda::tunable::enable(opt.tune_gemm);
  if (opt.threads > 0) set_num_threads(opt.threads);
  // Full float32 by default, as the anchors (PyTorch's own default for cuDNN is TF32 on).
  globalContext().setAllowTF32CuDNN(opt.tf32);
  set_float32_matmul_precision(opt.tf32 ? "high" : "highest");
  cudnn::set_benchmark(opt.cudnn_benchmark);
  cudnn::set_deterministic(opt.deterministic);
  const std::string device_name =
      !opt.device.empty() ? opt.device : (cuda::is_available() ? "cuda" : "cpu");
  const Device device(device_name);

  const DeviceSplit train =
      load_split(opt.data, data::datasets::MNIST::Mode::kTrain, device, opt.normalize);
  DeviceSplit test =
      load_split(opt.data, data::datasets::MNIST::Mode::kTest, device, opt.normalize);
  if (opt.test_samples > 0 && opt.test_samples < test.size())
    test = {test.x.narrow(0, 0, opt.test_samples), test.y.narrow(0, 0, opt.test_samples)};

  CNN net(opt.batch_norm);
  net->to(device);
  if (!opt.weights.empty()) examples::load_weights(*net, opt.weights);
  std::unique_ptr<optim::Optimizer> optimizer;
  const double lr = opt.lr > 0 ? opt.lr : opt.optimizer == "sgd" ? 0.05 : 1e-3;
  if (opt.optimizer == "sgd") {
    optimizer =
        std::make_unique<optim::SGD>(net->parameters(), optim::SGDOptions(lr).momentum(0.9));
  } else {
    optimizer = std::make_unique<optim::Adam>(net->parameters(), optim::AdamOptions(lr));
  }

  const std::string model = opt.batch_norm ? "cnn-bn-32-64-128-10" : "cnn-32-64-128-10";
  const int64_t n = train.size(), bs = opt.batch_size;
  int64_t steps = (n + bs - 1) / bs;
  if (opt.max_steps > 0) steps = std::min(steps, opt.max_steps);

  // --save and --resume (examples/common.h): model (with BatchNorm's running statistics),
  // optimizer, generator, epoch in progress.
  examples::OptionText options =
      examples::shared_options(opt, "cnn", model, lr, steps, device_name);
  options["tf32"] = opt.tf32 ? "true" : "false";
  options["deterministic"] = opt.deterministic ? "true" : "false";
  options["test_samples"] = std::to_string(test.size());
  examples::RunCheckpoint checkpoint(*net, *optimizer, device, options, opt.save);
  if (!opt.resume.empty())
    checkpoint.resume(opt.resume, {"model", "optimizer"}, n, opt.lr > 0, opt.epochs);
  examples::catch_sigint();
  const bool graph = examples::use_graph(opt, device);
  examples::TrainStep train_step([&](const Tensor& x) { return net->forward(x); }, *optimizer,
                                 train.x, train.y, bs, graph);
  std::printf("%s on %s: %lld training and %lld test images, batch %d, %s%s%s\n", model.c_str(),
              device_name.c_str(), static_cast<long long>(n), static_cast<long long>(test.size()),
              opt.batch_size, opt.optimizer.c_str(), opt.tf32 ? ", TF32" : "",
              graph ? (", CUDA graph " + examples::TrainStep::describe(n, bs)).c_str() : "");
  std::fflush(stdout);  // a line a caller may wait for: training starts now

  examples::ProgressBar bar;
  examples::MetricsFile metrics(opt.metrics);
  std::vector<examples::EpochRecord> records;
  // Steady epochs: all but the first (cuDNN plans, caches and allocators warm up), or the only one.
  double steady_s = 0, steady_samples = 0;
  int steady_epochs = 0;
  const int first_epoch = checkpoint.first_epoch();
  for (int epoch = first_epoch; epoch <= opt.epochs; ++epoch) {
    const auto t0 = Clock::now();
    // A new permutation and loss sum, or the checkpoint's when it was saved mid-epoch.
    const int64_t step0 = checkpoint.begin_epoch(epoch, n, train.x.options());
    Tensor& loss_sum = checkpoint.loss_sum();
    int64_t samples = 0;  // trained in this process (for samples/s)
    double shown_loss = 0;
    for (int64_t step = step0; step < steps; ++step) {
      const int64_t m = std::min(bs, n - step * bs);
      loss_sum.add_(train_step(checkpoint.perm().narrow(0, step * bs, m)));
      samples += m;
      if (examples::step_interrupted())  // Ctrl-C: this step is done; save and stop
        return checkpoint.stop(bar, epoch - 1, step + 1);
      if (bar.due()) {  // reads the loss back (a synchronization) at most 10 times a second
        shown_loss = loss_sum.item<double>() / (step + 1);
        const double s = seconds_since(t0);
        bar.draw(epoch, opt.epochs, step + 1, steps, shown_loss, samples / s,
                 s / (step + 1 - step0) * (steps - step - 1));
      }
    }
    const double train_loss = loss_sum.item<double>() / steps;  // synchronizes
    const double epoch_s = seconds_since(t0);
    const auto [test_loss, test_acc] = evaluate(net, test);
    if (epoch > first_epoch || first_epoch == opt.epochs) {
      steady_s += epoch_s;
      steady_samples += samples;
      ++steady_epochs;
    }
    const examples::EpochRecord r{epoch,    train_loss, test_loss,
                                  test_acc, epoch_s,    samples / epoch_s};
    records.push_back(r);
    metrics.write(r);
    checkpoint.end_epoch(epoch);  // saves with --save
    char line[256];
    std::snprintf(line, sizeof line,
                  "epoch %d/%d: train loss %.4f, test loss %.4f, test accuracy %.2f%%, %.2f s, "
                  "%.0f samples/s",
                  epoch, opt.epochs, train_loss, test_loss, 100 * test_acc, epoch_s,
                  samples / epoch_s);
    bar.finish(line);
    if (examples::interrupted() && epoch < opt.epochs)  // Ctrl-C during the evaluation
      return checkpoint.stop(bar, epoch, 0);
  }
  if (opt.epochs == 0) records.push_back(examples::report_evaluation(evaluate(net, test), metrics));
  if (!opt.plot.empty()) {
    examples::plot_curves(records, opt.plot, model + ", Fashion-MNIST, " + device_name);
    std::printf("curves written to %s\n", opt.plot.c_str());
  }

  if (!opt.export_file.empty()) examples::export_weights(*net, opt.export_file);

  const double test_acc = records.empty() ? evaluate(net, test).second  // resumed, nothing left
                                          : records.back().test_acc;
  nlohmann::json result = {{"model", model},
                           {"device", device_name},
                           {"epochs", opt.epochs},
                           {"batch_size", opt.batch_size},
                           {"optimizer", opt.optimizer},
                           {"tf32", opt.tf32},
                           {"train_samples_per_s", steady_s > 0 ? steady_samples / steady_s : 0.0},
                           {"epoch_s_steady", steady_epochs > 0 ? steady_s / steady_epochs : 0.0},
                           {"test_acc", test_acc},
                           {"test_correct", std::lround(test_acc * test.size())},
                           {"graph", graph},
                           {"wall_s", seconds_since(wall0)}};
  std::cout << result.dump() << std::endl;
  return 0;
}

int main(int argc, char** argv) {
  Options opt;
  CLI::App app{"Trains a small CNN (conv 32, conv 64, 128, 10) on Fashion-MNIST with ember."};
  app.add_option("--data", opt.data, "folder with the (gzip-compressed) IDX files")
      ->capture_default_str();
  app.add_option("--device", opt.device, "cpu, cuda or cuda:N (default: cuda when available)")
      ->check(CLI::IsMember({"cpu", "cuda", "cuda:0", "cuda:1", "cuda:2", "cuda:3"}));
  app.add_option("--epochs", opt.epochs, "training epochs (0: only evaluate the model)")
      ->capture_default_str();
  app.add_option("--batch-size", opt.batch_size, "samples per step")->capture_default_str();
  app.add_option("--lr", opt.lr, "learning rate (default 0.05 for sgd, 0.001 for adam)");
  app.add_option("--optimizer", opt.optimizer, "sgd (momentum 0.9) or adam")
      ->check(CLI::IsMember({"sgd", "adam"}))
      ->capture_default_str();
  app.add_option("--seed", opt.seed, "random seed (weights and batch order)")
      ->capture_default_str();
  app.add_option("--max-steps", opt.max_steps, "at most this many steps per epoch (0: all)")
      ->capture_default_str();
  app.add_option("--test-samples", opt.test_samples,
                 "evaluate on the first N test images (0: all; for quick runs)")
      ->capture_default_str();
  app.add_option("--threads", opt.threads, "CPU threads (0: one per core)")->capture_default_str();
  app.add_flag("!--no-normalize", opt.normalize,
               "feed pixels in [0, 1] instead of normalizing to mean 0.2860, std 0.3530");
  app.add_flag("--bn", opt.batch_norm, "a BatchNorm2d after each conv (before the ReLU)");
  app.add_flag("--tf32", opt.tf32, "allow TF32 in cuDNN convolutions and float32 matmuls");
  app.add_flag("--cudnn-benchmark", opt.cudnn_benchmark,
               "time cuDNN's algorithms once per shape and keep the fastest");
  app.add_flag("--deterministic", opt.deterministic,
               "only cuDNN algorithms that give bitwise-repeatable results (exact --resume)");
  app.add_option("--metrics", opt.metrics, "write one JSON line per epoch to this file");
  app.add_option("--plot", opt.plot, "draw loss and accuracy curves into this PNG (gnuplot)");
  examples::add_save_load_options(app, opt);
  examples::add_graph_option(app, opt);  // --save, --resume, --weights, --export
  CLI11_PARSE(app, argc, argv);
  if (opt.epochs < 0 || opt.batch_size < 1) {
    std::cerr << "cnn: --epochs must be at least 0 and --batch-size at least 1\n";
    return 2;
  }
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::cerr << "cnn: " << e.what() << "\n";
    return 1;
  }
}
