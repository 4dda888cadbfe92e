// CPU kernels of the fused optimizer steps (sgd_step, adam_step, rmsprop_step, adagrad_step):
// one pass over each parameter that reads and writes every operand once, with no temporaries
// (the composite form makes several). Large tensors are split over the thread pool. The math
// is common/optim_math.h, shared with the CUDA kernels.
#include <array>

#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/common/optim_math.h>

namespace ember {
namespace cpu {
namespace {

// Applies f to every element of tensor i of each list; lists[k] is empty for unused state.
template <class T, class F>
void for_each_tensor(const F& f, std::initializer_list<TensorList> lists) {
  const TensorList params = *lists.begin();
  for (size_t i = 0; i < params.size(); ++i) {
    std::array<T*, F::N> ptr{};
    int k = 0;
    for (TensorList list : lists) {
      if (list.empty()) continue;
      ptr[k++] = list[i].data_ptr<T>();
    }
    parallel_range(params[i].numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
      T* const* p = ptr.data();
      for (int64_t j = begin; j < end; ++j) f(p, j);
    });
  }
}

template <class T>
void sgd_typed(TensorList params, TensorList grads, TensorList bufs, const SgdStepArgs& a) {
  if (a.momentum != 0) {
    for_each_tensor<T>(optim_math::SgdStep<T, true>(a), {params, grads, bufs});
  } else {
    for_each_tensor<T>(optim_math::SgdStep<T, false>(a), {params, grads});
  }
}

void sgd_step(TensorList params, TensorList grads, TensorList bufs, const SgdStepArgs& a) {
  if (params.empty()) return;
  if (params[0].dtype() == kFloat64) return sgd_typed<double>(params, grads, bufs, a);
  sgd_typed<float>(params, grads, bufs, a);
}

template <class T>
void adam_typed(TensorList params, TensorList grads, TensorList m, TensorList v, TensorList vmax,
                const AdamStepArgs& a) {
  if (a.amsgrad) {
    for_each_tensor<T>(optim_math::AdamStep<T, true>(a), {params, grads, m, v, vmax});
  } else {
    for_each_tensor<T>(optim_math::AdamStep<T, false>(a), {params, grads, m, v});
  }
}

void adam_step(TensorList params, TensorList grads, TensorList m, TensorList v, TensorList vmax,
               const AdamStepArgs& a) {
  if (params.empty()) return;
  if (params[0].dtype() == kFloat64) return adam_typed<double>(params, grads, m, v, vmax, a);
  adam_typed<float>(params, grads, m, v, vmax, a);
}

template <class T>
void rmsprop_typed(TensorList params, TensorList grads, TensorList sq, TensorList ga,
                   TensorList bufs, const RmspropStepArgs& a) {
  using optim_math::RmspropStep;
  const bool momentum = a.momentum > 0;
  if (a.centered && momentum) {
    for_each_tensor<T>(RmspropStep<T, true, true>(a), {params, grads, sq, ga, bufs});
  } else if (a.centered) {
    for_each_tensor<T>(RmspropStep<T, true, false>(a), {params, grads, sq, ga});
  } else if (momentum) {
    for_each_tensor<T>(RmspropStep<T, false, true>(a), {params, grads, sq, bufs});
  } else {
    for_each_tensor<T>(RmspropStep<T, false, false>(a), {params, grads, sq});
  }
}

void rmsprop_step(TensorList params, TensorList grads, TensorList sq, TensorList ga,
                  TensorList bufs, const RmspropStepArgs& a) {
  if (params.empty()) return;
  if (params[0].dtype() == kFloat64) return rmsprop_typed<double>(params, grads, sq, ga, bufs, a);
  rmsprop_typed<float>(params, grads, sq, ga, bufs, a);
}

void adagrad_step(TensorList params, TensorList grads, TensorList sums, const AdagradStepArgs& a) {
  if (params.empty()) return;
  if (params[0].dtype() == kFloat64) {
    for_each_tensor<double>(optim_math::AdagradStep<double>(a), {params, grads, sums});
  } else {
    for_each_tensor<float>(optim_math::AdagradStep<float>(a), {params, grads, sums});
  }
}

}  // namespace

void register_optim_kernels() {
  register_kernel<Op::sgd_step>(kCPU, &sgd_step);
  register_kernel<Op::adam_step>(kCPU, &adam_step);
  register_kernel<Op::rmsprop_step>(kCPU, &rmsprop_step);
  register_kernel<Op::adagrad_step>(kCPU, &adagrad_step);
}

}  // namespace cpu
}  // namespace ember
