// InstanceNorm1d/2d: forward as LibTorch's (unbatched inputs run as a batch of one; running
// stats used in eval only when tracked), input-rank checks and printing.
#include <ember/nn/modules/instancenorm.h>

#include <ember/nn/layer_ops.h>

namespace ember::nn {

template <size_t D, typename Derived>
Tensor InstanceNormImpl<D, Derived>::forward(const Tensor& input) {
  this->_check_input_dim(input);
  const auto& o = this->options;
  auto apply = [&](const Tensor& x) {
    return ember::instance_norm(x, this->weight, this->bias, this->running_mean, this->running_var,
                                this->is_training() || !o.track_running_stats(), o.momentum(),
                                o.eps());
  };
  if (input.dim() == static_cast<int64_t>(D) + 1) return apply(input.unsqueeze(0)).squeeze(0);
  return apply(input);
}

template <size_t D, typename Derived>
void InstanceNormImpl<D, Derived>::pretty_print(std::ostream& stream) const {
  const auto& o = this->options;
  stream << "InstanceNorm" << D << "d(" << o.num_features() << ", eps=" << o.eps()
         << ", momentum=" << o.momentum() << ", affine=" << (o.affine() ? "true" : "false")
         << ", track_running_stats=" << (o.track_running_stats() ? "true" : "false") << ")";
}

template class InstanceNormImpl<1, InstanceNorm1dImpl>;
template class InstanceNormImpl<2, InstanceNorm2dImpl>;

void InstanceNorm1dImpl::_check_input_dim(const Tensor& input) {
  EMBER_CHECK(input.defined(), "InstanceNorm1d: input must be defined");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "InstanceNorm1d: expected 2D or 3D input (got ",
              input.dim(), "D input)");
}

void InstanceNorm2dImpl::_check_input_dim(const Tensor& input) {
  EMBER_CHECK(input.defined(), "InstanceNorm2d: input must be defined");
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "InstanceNorm2d: expected 3D or 4D input (got ",
              input.dim(), "D input)");
}

}  // namespace ember::nn
