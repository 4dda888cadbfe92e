// --graph for the training examples (mlp, cnn): one SGD/Adam training step over rows of the
// training set, run eagerly or replayed from a CUDA graph (cuda::StepGraph) over a static index.
#pragma once

#include <ember/ember.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

namespace examples {

// --graph auto|on|off (Options::graph). auto: on for CUDA (SGD and Adam: optim/step_graph.h).
// --tune-gemm (Options::tune_gemm): cuda::tunable, the fastest cuBLASLt algorithm per product.
template <class Options>
void add_graph_option(CLI::App& app, Options& opt) {
  app.add_option("--graph", opt.graph,
                 "replay each full batch's training step from a CUDA graph: auto (on for "
                 "CUDA), on or off; the last partial batch runs eagerly")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app.add_flag("--tune-gemm", opt.tune_gemm,
               "time cuBLASLt's candidate algorithms once per float32 product shape and keep "
               "the fastest (cuda::tunable; CUDA only)");
}

// One training step (zero_grad, forward, cross entropy, backward, optimizer step) over the
// rows `idx` of (x, y). With a graph, a full batch's rows are copied into a static index that
// the captured step gathers with: one copy and one graph launch a step (after 3 eager warm-up
// steps and the capture); a smaller batch (the epoch's last) runs eagerly.
class TrainStep {
 public:
  using Forward = std::function<ember::Tensor(const ember::Tensor&)>;

  TrainStep(Forward forward, ember::optim::Optimizer& optimizer, ember::Tensor x, ember::Tensor y,
            int64_t batch_size, bool graph)
      : forward_(std::move(forward)), optimizer_(optimizer), x_(std::move(x)), y_(std::move(y)) {
    if (!graph) return;
    static_idx_ =
        ember::empty({batch_size}, ember::TensorOptions(ember::kInt64).device(x_.device()));
    graph_ = std::make_unique<ember::cuda::StepGraph>(
        [this] { return step_on(static_idx_); },
        std::vector<ember::optim::Optimizer*>{&optimizer_});
  }

  // The step's loss (a graph's output is rewritten by the next replay: add it up at once).
  ember::Tensor operator()(const ember::Tensor& idx) {
    if (graph_ && idx.size(0) == static_idx_.size(0)) {
      static_idx_.copy_(idx);
      return (*graph_)();
    }
    return step_on(idx);
  }

  // "on" or "on (the last batch ...)" for the run's first line.
  static std::string describe(int64_t n, int64_t batch_size) {
    const int64_t rest = n % batch_size;
    return rest == 0 ? "on" : "on (the last batch of " + std::to_string(rest) + " runs eagerly)";
  }

 private:
  ember::Tensor step_on(const ember::Tensor& idx) {
    namespace F = ember::nn::functional;
    const ember::Tensor x = x_.index_select(0, idx), y = y_.index_select(0, idx);
    optimizer_.zero_grad();
    ember::Tensor loss = F::cross_entropy(forward_(x), y);
    loss.backward();
    optimizer_.step();
    return loss.detach();
  }

  Forward forward_;
  ember::optim::Optimizer& optimizer_;
  ember::Tensor x_, y_;
  ember::Tensor static_idx_;
  std::unique_ptr<ember::cuda::StepGraph> graph_;
};

// Whether --graph asks for a graph on this device.
template <class Options>
bool use_graph(const Options& opt, const ember::Device& device) {
  if (opt.graph == "off") return false;
  if (opt.graph == "on") {
    if (!device.is_cuda()) throw std::runtime_error("--graph on needs --device cuda");
    return true;
  }
  return device.is_cuda();
}

}  // namespace examples
