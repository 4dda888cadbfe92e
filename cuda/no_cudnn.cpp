// CUDA builds without cuDNN (CMake found no cudnn.h or libcudnn): the conv kernels are
// registered but throw a clear ember::Error naming the op, instead of the dispatcher's generic
// "no kernel for device cuda", and cudnn::is_available() is false. Pooling (cuda/pool.cu) needs
// no cuDNN and works as usual.
#include <ember/core/context.h>
#include <ember/core/dispatch.h>
#include <ember/core/error.h>
#include <ember/cuda/kernels.h>

namespace ember {
namespace cuda {
namespace {

[[noreturn]] void no_cudnn(const char* op) {
  EMBER_THROW(op, ": this build of ember has no cuDNN (CUDA convolutions need it)");
}

void conv2d_kernel(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const ConvArgs&) {
  no_cudnn("conv2d");
}
void conv2d_backward_input_kernel(const Tensor&, const Tensor&, const Tensor&, const ConvArgs&) {
  no_cudnn("conv2d_backward_input");
}
void conv2d_backward_weight_kernel(const Tensor&, const Tensor&, const Tensor&, const ConvArgs&) {
  no_cudnn("conv2d_backward_weight");
}

}  // namespace

void register_conv_kernels() {
  register_kernel<Op::conv2d>(kCUDA, conv2d_kernel);
  register_kernel<Op::conv2d_backward_input>(kCUDA, conv2d_backward_input_kernel);
  register_kernel<Op::conv2d_backward_weight>(kCUDA, conv2d_backward_weight_kernel);
}

}  // namespace cuda

namespace cudnn {
bool is_available() { return false; }
}  // namespace cudnn
}  // namespace ember
