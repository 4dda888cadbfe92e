// BatchNorm1d/2d: PyTorch's _BatchNorm.forward (the running-average factor, num_batches_tracked,
// batch statistics whenever not tracking), the input-rank checks and LibTorch's printing.
#include <ember/nn/modules/batchnorm.h>

#include <ember/core/grad_mode.h>
#include <ember/nn/layer_ops.h>

namespace ember::nn {

template <size_t D, typename Derived>
Tensor BatchNormImplBase<D, Derived>::forward(const Tensor& input) {
  this->_check_input_dim(input);
  const auto& o = this->options;
  double factor = o.momentum().value_or(0.0);
  if (this->is_training() && o.track_running_stats() && this->num_batches_tracked.defined()) {
    {
      NoGradGuard no_grad;
      this->num_batches_tracked.add_(1);
    }
    // momentum std::nullopt: the cumulative moving average (reads the count back: a host sync
    // on CUDA, as in PyTorch).
    if (!o.momentum().has_value()) {
      factor = 1.0 / this->num_batches_tracked.template item<double>();
    }
  }
  // Batch statistics in training, and in eval when there are no running ones.
  const bool use_batch_stats = this->is_training() || !o.track_running_stats();
  // (Without track_running_stats the running buffers are undefined: nothing is updated.)
  return ember::batch_norm(input, this->weight, this->bias, this->running_mean, this->running_var,
                           use_batch_stats, factor, o.eps());
}

template <size_t D, typename Derived>
void BatchNormImplBase<D, Derived>::pretty_print(std::ostream& stream) const {
  const auto& o = this->options;
  stream << "BatchNorm" << D << "d(" << o.num_features() << ", eps=" << o.eps() << ", momentum=";
  if (o.momentum().has_value()) {
    stream << *o.momentum();
  } else {
    stream << "None";
  }
  stream << ", affine=" << (o.affine() ? "true" : "false")
         << ", track_running_stats=" << (o.track_running_stats() ? "true" : "false") << ")";
}

template class BatchNormImplBase<1, BatchNorm1dImpl>;
template class BatchNormImplBase<2, BatchNorm2dImpl>;

void BatchNorm1dImpl::_check_input_dim(const Tensor& input) {
  EMBER_CHECK(input.defined(), "BatchNorm1d: input must be defined");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "BatchNorm1d: expected 2D or 3D input (got ",
              input.dim(), "D input)");
}

void BatchNorm2dImpl::_check_input_dim(const Tensor& input) {
  EMBER_CHECK(input.defined(), "BatchNorm2d: input must be defined");
  EMBER_CHECK(input.dim() == 4, "BatchNorm2d: expected 4D input (got ", input.dim(), "D input)");
}

}  // namespace ember::nn
