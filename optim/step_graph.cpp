// cuda::StepGraph (optim/step_graph.h): warm-up on the capture stream, capture, replay, and a
// new capture when an optimizer's learning rate changed. Above optim/, over the public CUDA API.
#include <ember/optim/step_graph.h>

#include <utility>

#include <ember/core/error.h>
#include <ember/cuda/api.h>

namespace ember {
namespace cuda {

StepGraph::StepGraph(Step step, std::vector<optim::Optimizer*> optimizers, int warmup_steps)
    : step_(std::move(step)), optimizers_(std::move(optimizers)), warmup_left_(warmup_steps) {
  EMBER_CHECK(step_ != nullptr, "cuda::StepGraph: the step function is empty");
  EMBER_CHECK(warmup_steps >= 0, "cuda::StepGraph: warmup_steps must be >= 0, got ", warmup_steps);
  for (const optim::Optimizer* o : optimizers_)
    EMBER_CHECK(o != nullptr, "cuda::StepGraph: a null optimizer");
  EMBER_CHECK(is_available(), "cuda::StepGraph: CUDA is not available (no GPU found)");
}

std::vector<double> StepGraph::learning_rates() const {
  std::vector<double> lrs;
  for (const optim::Optimizer* o : optimizers_) {
    for (const auto& group : o->param_groups()) lrs.push_back(group.options().get_lr());
  }
  return lrs;
}

bool StepGraph::learning_rates_changed() const {
  size_t i = 0;
  for (const optim::Optimizer* o : optimizers_) {
    for (const auto& group : o->param_groups()) {
      if (i == lrs_.size() || group.options().get_lr() != lrs_[i]) return true;
      ++i;
    }
  }
  return i != lrs_.size();
}

Tensor StepGraph::operator()() {
  if (warmup_left_ > 0) {
    --warmup_left_;
    synchronize();  // the capture stream sees what the current stream wrote (the inputs)
    Tensor loss;
    {
      StreamGuard side(graph_capture_stream());
      loss = step_();
    }
    synchronize();  // and the current stream sees what the step wrote
    return loss;
  }
  if (graph_.is_captured() && learning_rates_changed()) graph_.reset();
  if (!graph_.is_captured()) {
    loss_ = Tensor();  // the previous capture's output goes back to its pool
    lrs_ = learning_rates();
    {
      GraphCapture capture(graph_);
      const Tensor loss = step_();
      loss_ = loss.defined() ? loss.detach() : loss;  // not the autograd graph behind it
    }
    ++captures_;
  }
  graph_.replay();
  return loss_;
}

}  // namespace cuda
}  // namespace ember
