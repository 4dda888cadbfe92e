// LibTorch twin of examples/mlp.cpp: the same net, data, settings and batching (the data set on
// the device, a random permutation per epoch, batches by index_select), so tools/mlp_compare.sh
// can run both alternately and compare samples/s. Same options and the same last JSON line.
#include <torch/torch.h>
#include <zlib.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace F = torch::nn::functional;
using Clock = std::chrono::steady_clock;

static double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct MLPImpl : torch::nn::Module {
  MLPImpl() : fc1(784, 512), fc2(512, 256), fc3(256, 10) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return fc3->forward(F::relu(fc2->forward(F::relu(fc1->forward(x)))));
  }
  torch::nn::Linear fc1, fc2, fc3;
};
TORCH_MODULE(MLP);

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
  torch::Tensor x, y;
};

static Split load(const std::string& root, const std::string& prefix, torch::Device device,
                  bool normalize) {
  std::vector<uint8_t> images = read_gz(root + "/" + prefix + "-images-idx3-ubyte.gz");
  std::vector<uint8_t> labels = read_gz(root + "/" + prefix + "-labels-idx1-ubyte.gz");
  const int64_t n = static_cast<int64_t>(labels.size()) - 8;
  if (n <= 0 || static_cast<int64_t>(images.size()) != 16 + n * 784)
    throw std::runtime_error("unexpected IDX sizes in " + root);
  torch::Tensor x =
      torch::from_blob(images.data() + 16, {n, 784}, torch::kUInt8).to(torch::kFloat32).div(255.0);
  if (normalize) x = (x - 0.2860) / 0.3530;
  torch::Tensor y = torch::from_blob(labels.data() + 8, {n}, torch::kUInt8).to(torch::kInt64);
  return {x.to(device), y.to(device)};
}

int main(int argc, char** argv) {
  std::string data = "/usr/share/datasets/fashion-mnist", device_name;
  int epochs = 5, batch_size = 128, threads = 0;
  double lr = 0.05;
  uint64_t seed = 0;
  int64_t max_steps = 0;
  bool normalize = true;
  CLI::App app{"LibTorch twin of ember's mlp example."};
  app.add_option("--data", data);
  app.add_option("--device", device_name);
  app.add_option("--epochs", epochs);
  app.add_option("--batch-size", batch_size);
  app.add_option("--lr", lr);
  app.add_option("--seed", seed);
  app.add_option("--max-steps", max_steps);
  app.add_option("--threads", threads);
  app.add_flag("!--no-normalize", normalize);
  CLI11_PARSE(app, argc, argv);
  try {
    const auto wall0 = Clock::now();
    torch::manual_seed(seed);
    if (threads > 0) torch::set_num_threads(threads);
    if (device_name.empty()) device_name = torch::cuda::is_available() ? "cuda" : "cpu";
    const torch::Device device(device_name);
    const Split train = load(data, "train", device, normalize);
    const Split test = load(data, "t10k", device, normalize);

    MLP net;
    net->to(device);
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(lr).momentum(0.9));
    const int64_t n = train.x.size(0), bs = batch_size;
    int64_t steps = (n + bs - 1) / bs;
    if (max_steps > 0) steps = std::min(steps, max_steps);

    double steady_s = 0, steady_samples = 0, test_acc = 0;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      const auto t0 = Clock::now();
      torch::Tensor perm = torch::randperm(n, torch::TensorOptions(torch::kInt64).device(device));
      torch::Tensor loss_sum = torch::zeros({}, train.x.options());
      int64_t samples = 0;
      for (int64_t step = 0; step < steps; ++step) {
        const int64_t m = std::min(bs, n - step * bs);
        torch::Tensor idx = perm.narrow(0, step * bs, m);
        torch::Tensor x = train.x.index_select(0, idx), y = train.y.index_select(0, idx);
        opt.zero_grad();
        torch::Tensor loss = F::cross_entropy(net->forward(x), y);
        loss.backward();
        opt.step();
        loss_sum.add_(loss.detach());
        samples += m;
      }
      const double train_loss = loss_sum.item<double>() / steps;
      const double epoch_s = seconds_since(t0);
      {
        torch::NoGradGuard no_grad;
        net->eval();
        torch::Tensor correct =
            torch::zeros({}, torch::TensorOptions(torch::kInt64).device(device));
        for (int64_t i = 0; i < test.x.size(0); i += 1000) {
          const int64_t m = std::min<int64_t>(1000, test.x.size(0) - i);
          torch::Tensor logits = net->forward(test.x.narrow(0, i, m));
          correct.add_(logits.argmax(1).eq(test.y.narrow(0, i, m)).sum());
        }
        net->train();
        test_acc = static_cast<double>(correct.item<int64_t>()) / test.x.size(0);
      }
      if (epoch > 1 || epochs == 1) {
        steady_s += epoch_s;
        steady_samples += samples;
      }
      std::printf("epoch %d/%d: train loss %.4f, test accuracy %.2f%%, %.2f s, %.0f samples/s\n",
                  epoch, epochs, train_loss, 100 * test_acc, epoch_s, samples / epoch_s);
    }
    nlohmann::json result = {{"model", "mlp-784-512-256-10"},
                             {"framework", "libtorch " + std::to_string(TORCH_VERSION_MAJOR) + "." +
                                               std::to_string(TORCH_VERSION_MINOR)},
                             {"device", device_name},
                             {"epochs", epochs},
                             {"batch_size", batch_size},
                             {"train_samples_per_s", steady_samples / steady_s},
                             {"epoch_s_steady", steady_s / (epochs > 1 ? epochs - 1 : 1)},
                             {"test_acc", test_acc},
                             {"wall_s", seconds_since(wall0)}};
    std::cout << result.dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "libtorch_mlp: " << e.what() << "\n";
    return 1;
  }
}
