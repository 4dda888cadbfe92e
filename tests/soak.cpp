// Soak: trains the MLP (784-512-256-10, SGD) for many steps with batch sizes drawn from 1..512
// and reports resident memory (and CUDA's allocated/reserved bytes) as it goes (issue 18).
// Usage: soak [--steps N] [--device cpu|cuda] [--graph] [--every K] [--csv FILE] [--max-growth-mib
// M]
//   --graph (CUDA): four batch sizes (1, 64, 256, 512), each replayed from its own StepGraph.
// Exits 1 when resident memory (or CUDA's reserved memory) grows by more than M MiB (default 64)
// between the end of the first tenth of the steps and the end: unbounded growth, a leak.
#include <ember/ember.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>

namespace {

using namespace ember;
namespace F = nn::functional;

double resident_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

struct Args {
  long steps = 20000, every = 500;
  std::string device = "cpu", csv;
  bool graph = false;
  double max_growth_mib = 64;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(k + " needs a value");
      return argv[++i];
    };
    if (k == "--steps")
      a.steps = std::stol(value());
    else if (k == "--every")
      a.every = std::stol(value());
    else if (k == "--device")
      a.device = value();
    else if (k == "--csv")
      a.csv = value();
    else if (k == "--max-growth-mib")
      a.max_growth_mib = std::stod(value());
    else if (k == "--graph")
      a.graph = true;
    else
      throw std::runtime_error("unknown option " + k);
  }
  if (a.steps < 10 || a.every < 1) throw std::runtime_error("--steps >= 10 and --every >= 1");
  return a;
}

int run(const Args& a) {
  manual_seed(0);
  const Device device(a.device);
  const bool cuda = device.is_cuda();
  if (a.graph && !cuda) throw std::runtime_error("--graph needs --device cuda");
  nn::Sequential net(nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 256), nn::ReLU(),
                     nn::Linear(256, 10));
  net->to(device);
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  // Synthetic data, on the device: 4096 samples, batches by index_select.
  const Tensor x = randn({4096, 784}).to(device), y = randint(10, {4096}).to(device);
  auto step_on = [&](const Tensor& idx) {
    opt.zero_grad();
    Tensor loss = F::cross_entropy(net->forward(x.index_select(0, idx)), y.index_select(0, idx));
    loss.backward();
    opt.step();
    return loss.detach();
  };
  // --graph: one StepGraph per batch size over a static index.
  const std::vector<int64_t> graph_sizes = {1, 64, 256, 512};
  std::map<int64_t, std::pair<Tensor, std::unique_ptr<cuda::StepGraph>>> graphs;
  if (a.graph) {
    for (int64_t b : graph_sizes) {
      Tensor idx = empty({b}, TensorOptions(kInt64).device(device));
      auto g = std::make_unique<cuda::StepGraph>([&step_on, idx] { return step_on(idx); },
                                                 std::vector<optim::Optimizer*>{&opt});
      graphs.emplace(b, std::make_pair(idx, std::move(g)));
    }
  }
  std::mt19937 rng(0);
  std::uniform_int_distribution<int64_t> any_size(1, 512);
  std::uniform_int_distribution<size_t> one_of(0, graph_sizes.size() - 1);
  std::ofstream csv;
  if (!a.csv.empty()) {
    csv.open(a.csv);
    csv << "step,resident_mib,cuda_allocated_mib,cuda_reserved_mib,loss\n";
  }
  Tensor loss_sum = zeros({}, x.options());
  double rss_mark = 0, reserved_mark = 0, rss_max = 0, reserved_max = 0;
  const long mark_step = a.steps / 10;
  for (long s = 1; s <= a.steps; ++s) {
    const int64_t b = a.graph ? graph_sizes[one_of(rng)] : any_size(rng);
    const Tensor idx = randint(4096, {b}).to(device);
    if (a.graph) {
      auto& [static_idx, graph] = graphs.at(b);
      static_idx.copy_(idx);
      loss_sum.add_((*graph)());
    } else {
      loss_sum.add_(step_on(idx));
    }
    if (s % a.every == 0 || s == mark_step || s == a.steps) {
      const double loss = loss_sum.item<double>() / s;  // synchronizes
      const double rss = resident_mib();
      const double alloc = cuda ? cuda::memory_allocated() / double(1 << 20) : 0;
      const double reserved = cuda ? cuda::memory_reserved() / double(1 << 20) : 0;
      if (csv.is_open())
        csv << s << "," << rss << "," << alloc << "," << reserved << "," << loss << "\n";
      std::printf(
          "step %6ld: resident %8.1f MiB, CUDA allocated %8.1f MiB, reserved %8.1f MiB, mean loss "
          "%.4f\n",
          s, rss, alloc, reserved, loss);
      std::fflush(stdout);
      if (s == mark_step) rss_mark = rss, reserved_mark = reserved;
      if (s >= mark_step)
        rss_max = std::max(rss_max, rss), reserved_max = std::max(reserved_max, reserved);
    }
  }
  const double growth = rss_max - rss_mark, reserved_growth = reserved_max - reserved_mark;
  std::printf(
      "soak: %ld steps on %s%s: resident memory %.1f MiB after %ld steps, at most %.1f "
      "after (growth %.1f MiB); CUDA reserved growth %.1f MiB (limit %.0f MiB)\n",
      a.steps, a.device.c_str(), a.graph ? " with graphs" : "", rss_mark, mark_step, rss_max,
      growth, reserved_growth, a.max_growth_mib);
  return growth > a.max_growth_mib || reserved_growth > a.max_growth_mib ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "soak: " << e.what() << "\n";
    return 2;
  }
}
