// The front-ends of core/native.h: every tensor argument (and every tensor of a list) must be
// on the first tensor's device; then that device's kernel runs. The kernels' own contracts
// (shapes, dtypes, contiguity) are the callers' to meet, as core/ops.def states them.
#include <ember/core/checks.h>
#include <ember/core/error.h>
#include <ember/core/native.h>

namespace ember {
namespace native {
namespace {

void check_device(Op op, Device d, const Tensor& t) {
  EMBER_CHECK(!t.defined() || t.device() == d, op_name(op),
              ": expected every tensor on the device of the first, ", d, ", got one on ",
              t.device());
}
void check_device(Op op, Device d, TensorList list) {
  for (const Tensor& t : list) check_device(op, d, t);
}
template <class T>
void check_device(Op, Device, const T&) {}  // argument structs and numbers

Device device_of(const Tensor& t) { return t.device(); }
Device device_of(TensorList list) {
  EMBER_CHECK(!list.empty(), "native: an empty tensor list");
  return list[0].device();
}

// Checks the devices, then runs op's kernel for the device of `first` on all the arguments.
template <Op op, class First, class... Rest>
void run(const First& first, const Rest&... rest) {
  const Device d = device_of(first);
  check_device(op, d, first);
  (check_device(op, d, rest), ...);
  kernel<op>(d.type())(first, rest...);
}

}  // namespace

void conv2d(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
            const ConvArgs& args) {
  run<Op::conv2d>(out, input, weight, bias, args);
}
void conv2d_backward_input(const Tensor& grad_input, const Tensor& grad_out, const Tensor& weight,
                           const ConvArgs& args) {
  run<Op::conv2d_backward_input>(grad_input, grad_out, weight, args);
}
void conv2d_backward_weight(const Tensor& grad_weight, const Tensor& grad_out, const Tensor& input,
                            const ConvArgs& args) {
  run<Op::conv2d_backward_weight>(grad_weight, grad_out, input, args);
}

void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& in, const PoolArgs& args) {
  run<Op::max_pool2d>(out, indices, in, args);
}
void avg_pool2d(const Tensor& out, const Tensor& in, const PoolArgs& args) {
  run<Op::avg_pool2d>(out, Tensor(), in, args);
}
void max_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                         const PoolArgs& args) {
  run<Op::max_pool2d_backward>(grad_in, grad_out, indices, args);
}
void avg_pool2d_backward(const Tensor& grad_in, const Tensor& grad_out, const PoolArgs& args) {
  run<Op::avg_pool2d_backward>(grad_in, grad_out, Tensor(), args);
}

void batch_norm_stats(const Tensor& mean, const Tensor& var, const Tensor& invstd, const Tensor& in,
                      double eps) {
  run<Op::batch_norm_stats>(mean, var, invstd, in, eps);
}
void batch_norm_apply(const Tensor& out, const Tensor& in, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias) {
  run<Op::batch_norm_apply>(out, in, mean, invstd, weight, bias);
}
void batch_norm_backward_reduce(const Tensor& sum_dy, const Tensor& sum_dy_xmu,
                                const Tensor& grad_out, const Tensor& in, const Tensor& mean) {
  run<Op::batch_norm_backward_reduce>(sum_dy, sum_dy_xmu, grad_out, in, mean);
}
void batch_norm_backward_apply(const Tensor& grad_in, const Tensor& grad_out, const Tensor& in,
                               const Tensor& mean, const Tensor& invstd, const Tensor& weight,
                               const Tensor& sum_dy, const Tensor& sum_dy_xmu) {
  run<Op::batch_norm_backward_apply>(grad_in, grad_out, in, mean, invstd, weight, sum_dy,
                                     sum_dy_xmu);
}

void cross_entropy(const Tensor& out, const Tensor& lse, const Tensor& aux, const Tensor& input,
                   const Tensor& target, const Tensor& weight, const CrossEntropyArgs& args) {
  run<Op::cross_entropy>(out, lse, aux, input, target, weight, args);
}
void cross_entropy_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
                            const Tensor& target, const Tensor& weight, const Tensor& lse,
                            const Tensor& aux, const CrossEntropyArgs& args) {
  run<Op::cross_entropy_backward>(grad_input, grad_out, input, target, weight, lse, aux, args);
}

Tensor relu_backward(const Tensor& grad_out, const Tensor& result) {
  EMBER_CHECK(grad_out.sizes().equals(result.sizes()) && grad_out.dtype() == result.dtype(),
              "relu_backward: grad_out ", shape_str(grad_out.sizes()), " ", grad_out.dtype(),
              " must match the result ", shape_str(result.sizes()), " ", result.dtype());
  Tensor grad_in = empty_on(result.sizes(), result.dtype(), result.device());
  run<Op::relu_backward>(grad_in, grad_out, result);
  return grad_in;
}

std::pair<Tensor, Tensor> linear_weight_bias_grad(const Tensor& grad_out, const Tensor& input) {
  EMBER_CHECK(grad_out.dim() == 2 && input.dim() == 2 && grad_out.sizes()[0] == input.sizes()[0] &&
                  grad_out.dtype() == input.dtype() && grad_out.is_contiguous() &&
                  input.is_contiguous() && grad_out.numel() > 0 && input.numel() > 0,
              "linear_weight_bias_grad: expected contiguous non-empty [m, n] and [m, k] of one "
              "dtype, got ",
              shape_str(grad_out.sizes()), " ", grad_out.dtype(), " and ", shape_str(input.sizes()),
              " ", input.dtype());
  const int64_t n = grad_out.sizes()[1], k = input.sizes()[1];
  const int64_t w_shape[2] = {n, k};
  Tensor grad_w = empty_on(IntArrayRef(w_shape, 2), grad_out.dtype(), grad_out.device());
  Tensor grad_b = empty_on(IntArrayRef(&n, 1), grad_out.dtype(), grad_out.device());
  run<Op::linear_weight_bias_grad>(grad_w, grad_b, grad_out, input);
  return {grad_w, grad_b};
}

void sgd_step_(TensorList params, TensorList grads, TensorList momentum_buffers,
               const SgdStepArgs& args) {
  run<Op::sgd_step>(params, grads, momentum_buffers, args);
}
void adam_step_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                TensorList max_exp_avg_sqs, const AdamStepArgs& args) {
  run<Op::adam_step>(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, args);
}
void rmsprop_step_(TensorList params, TensorList grads, TensorList square_avgs,
                   TensorList grad_avgs, TensorList momentum_buffers, const RmspropStepArgs& args) {
  run<Op::rmsprop_step>(params, grads, square_avgs, grad_avgs, momentum_buffers, args);
}
void adagrad_step_(TensorList params, TensorList grads, TensorList state_sums,
                   const AdagradStepArgs& args) {
  run<Op::adagrad_step>(params, grads, state_sums, args);
}

}  // namespace native
}  // namespace ember
