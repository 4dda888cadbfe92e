// Padding modules: forward through nn/layer_ops.h's pad with each module's mode, and LibTorch's
// printing.
#include <ember/nn/modules/padding.h>

#include <ember/nn/layer_ops.h>

namespace ember::nn {

template <size_t D>
Tensor ReflectionPadImpl<D>::forward(const Tensor& input) {
  return ember::pad(input, options.padding(), "reflect");
}
template <size_t D>
void ReflectionPadImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "ReflectionPad" << D << "d(padding=" << options.padding() << ")";
}

template <size_t D>
Tensor ReplicationPadImpl<D>::forward(const Tensor& input) {
  return ember::pad(input, options.padding(), "replicate");
}
template <size_t D>
void ReplicationPadImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "ReplicationPad" << D << "d(padding=" << options.padding() << ")";
}

template <size_t D>
Tensor ZeroPadImpl<D>::forward(const Tensor& input) {
  return ember::pad(input, options.padding(), "constant", 0.0);
}
template <size_t D>
void ZeroPadImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "ZeroPad" << D << "d(padding=" << options.padding() << ")";
}

template <size_t D>
Tensor ConstantPadImpl<D>::forward(const Tensor& input) {
  return ember::pad(input, options.padding(), "constant", options.value());
}
template <size_t D>
void ConstantPadImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "ConstantPad" << D << "d(padding=" << options.padding() << ", value=" << options.value()
         << ")";
}

template class ReflectionPadImpl<1>;
template class ReflectionPadImpl<2>;
template class ReflectionPadImpl<3>;
template class ReplicationPadImpl<1>;
template class ReplicationPadImpl<2>;
template class ReplicationPadImpl<3>;
template class ZeroPadImpl<1>;
template class ZeroPadImpl<2>;
template class ZeroPadImpl<3>;
template class ConstantPadImpl<1>;
template class ConstantPadImpl<2>;
template class ConstantPadImpl<3>;

}  // namespace ember::nn
