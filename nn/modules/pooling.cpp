// Pooling modules: forwards through nn::functional (functional_conv.h) and LibTorch's printing
// (without the "torch::nn::" prefix).
#include <ember/nn/modules/pooling.h>

#include <ember/nn/functional_conv.h>

namespace ember::nn {

namespace F = functional;

template <size_t D>
void MaxPoolImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "MaxPool" << D << "d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation()
         << ", ceil_mode=" << (options.ceil_mode() ? "true" : "false") << ")";
}
template class MaxPoolImpl<1>;
template class MaxPoolImpl<2>;

template <size_t D>
void AvgPoolImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "AvgPool" << D << "d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}
template class AvgPoolImpl<1>;
template class AvgPoolImpl<2>;

Tensor MaxPool1dImpl::forward(const Tensor& input) { return F::max_pool1d(input, options); }
std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return F::max_pool1d_with_indices(input, options);
}

Tensor MaxPool2dImpl::forward(const Tensor& input) { return F::max_pool2d(input, options); }
std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return F::max_pool2d_with_indices(input, options);
}

Tensor AvgPool1dImpl::forward(const Tensor& input) { return F::avg_pool1d(input, options); }
Tensor AvgPool2dImpl::forward(const Tensor& input) { return F::avg_pool2d(input, options); }

Tensor AdaptiveAvgPool1dImpl::forward(const Tensor& input) {
  return F::adaptive_avg_pool1d(input, options);
}
Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return F::adaptive_avg_pool2d(input, options);
}

Tensor AdaptiveMaxPool1dImpl::forward(const Tensor& input) {
  return F::adaptive_max_pool1d(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return F::adaptive_max_pool1d_with_indices(input, options);
}
Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& input) {
  return F::adaptive_max_pool2d(input, options);
}
std::tuple<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return F::adaptive_max_pool2d_with_indices(input, options);
}

}  // namespace ember::nn
