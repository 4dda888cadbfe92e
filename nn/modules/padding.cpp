// Padding modules: forward through nn/layer_ops.h's pad with each module's mode, and LibTorch's
// printing.
#include <ember/nn/modules/padding.h>

#include <ember/nn/layer_ops.h>

namespace ember::nn {

namespace detail {
namespace {
// LibTorch's module names and F::pad's modes.
const char* module_name(PadFill fill) {
  switch (fill) {
    case PadFill::kReflection:
      return "ReflectionPad";
    case PadFill::kReplication:
      return "ReplicationPad";
    default:
      return "ZeroPad";
  }
}
}  // namespace

template <size_t D, PadFill Fill>
Tensor PadImpl<D, Fill>::forward(const Tensor& input) {
  switch (Fill) {
    case PadFill::kReflection:
      return ember::pad(input, options.padding(), "reflect");
    case PadFill::kReplication:
      return ember::pad(input, options.padding(), "replicate");
    default:
      return ember::pad(input, options.padding(), "constant", 0.0);
  }
}
template <size_t D, PadFill Fill>
void PadImpl<D, Fill>::pretty_print(std::ostream& stream) const {
  stream << module_name(Fill) << D << "d(padding=" << options.padding() << ")";
}
}  // namespace detail

template <size_t D>
Tensor ConstantPadImpl<D>::forward(const Tensor& input) {
  return ember::pad(input, options.padding(), "constant", options.value());
}
template <size_t D>
void ConstantPadImpl<D>::pretty_print(std::ostream& stream) const {
  stream << "ConstantPad" << D << "d(padding=" << options.padding() << ", value=" << options.value()
         << ")";
}

template class detail::PadImpl<1, detail::PadFill::kReflection>;
template class detail::PadImpl<2, detail::PadFill::kReflection>;
template class detail::PadImpl<3, detail::PadFill::kReflection>;
template class detail::PadImpl<1, detail::PadFill::kReplication>;
template class detail::PadImpl<2, detail::PadFill::kReplication>;
template class detail::PadImpl<3, detail::PadFill::kReplication>;
template class detail::PadImpl<1, detail::PadFill::kZero>;
template class detail::PadImpl<2, detail::PadFill::kZero>;
template class detail::PadImpl<3, detail::PadFill::kZero>;
template class ConstantPadImpl<1>;
template class ConstantPadImpl<2>;
template class ConstantPadImpl<3>;

}  // namespace ember::nn
