// cuda::StepGraph: one whole training step (forward, loss, backward, optimizer step) captured
// into a CUDA graph after warm-up steps and replayed; re-captured when a learning rate changes.
#pragma once

#include <functional>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/cuda/graph.h>
#include <ember/optim/optimizer.h>

namespace ember {
namespace cuda {

// A training step over static inputs, run as PyTorch's whole-network capture recipe runs it:
// the first `warmup_steps` calls run the step eagerly on the capture stream (cuBLAS
// workspaces, momentum buffers and the like are made there), the next one captures it into a
// CUDA graph and replays it, and every later call replays it: one launch a step. Each call
// is one real training step; the caller copies the batch into the step's static inputs
// first (a copy on the current stream) and the replay follows it in stream order.
//
//   Tensor static_x = empty({128, 784}, kCUDA), static_y = empty({128}, kCUDA, kInt64);
//   cuda::StepGraph step([&] {
//     optimizer.zero_grad();                          // the capture makes the gradients
//     Tensor loss = F::cross_entropy(model->forward(static_x), static_y);
//     loss.backward();
//     optimizer.step();
//     return loss;
//   }, {&optimizer});
//   for (auto& [x, y] : batches) { static_x.copy_(x); static_y.copy_(y); loss_sum += step(); }
//
// - The learning rates of `optimizers` are read at capture; a call that finds one changed (a
//   scheduler's step, set_lr) captures again, so they take effect (one eager-speed step).
//   Other hyperparameters: call recapture() after changing them.
// - Adam and AdamW: the captured update reads its bias corrections from device memory that
//   each replay rewrites after advancing the parameters' step counts (state_dict() sees them
//   advance as in eager training). Adagrad's step depends on a host-side count a replay would
//   freeze: it refuses to be captured with an ember::Error; so does everything Graph refuses
//   (item(), copies to the CPU, synchronizations): see docs/gpu.md. Random ops (dropout) draw new
//   numbers per replay. The generator is restored after the capture, so each captured step draws
//   what the same eager step would.
// - The step must set the gradients to none first (zero_grad()'s default), so that the
//   capture's backward makes them; after replays, p.grad() holds the graph's gradients.
// - The returned loss is the graph's output tensor, rewritten by every replay: add it to a
//   sum or clone it before the next call.
class StepGraph {
 public:
  using Step = std::function<Tensor()>;
  explicit StepGraph(Step step, std::vector<optim::Optimizer*> optimizers = {},
                     int warmup_steps = 3);

  // One training step: eager (warm-up), captured and replayed, or replayed.
  Tensor operator()();
  // The next call captures again (after changing hyperparameters other than lr).
  void recapture() { graph_.reset(); }

  bool is_captured() const { return graph_.is_captured(); }
  int captures() const { return captures_; }  // how many times the step was captured
  const Graph& graph() const { return graph_; }

 private:
  std::vector<double> learning_rates() const;
  bool learning_rates_changed() const;  // since the capture (every replay asks: no allocation)

  Step step_;
  std::vector<optim::Optimizer*> optimizers_;
  int warmup_left_;
  Graph graph_;
  Tensor loss_;              // the captured step's output
  std::vector<double> lrs_;  // the learning rates captured
  int captures_ = 0;
};

}  // namespace cuda
}  // namespace ember
