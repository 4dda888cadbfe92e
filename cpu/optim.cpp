// CPU kernels of the fused optimizer steps (sgd_step, adam_step, rmsprop_step, adagrad_step):
// one pass over each parameter that reads and writes every operand once, with no temporaries
// (the composite form makes several). Large tensors are split over the thread pool. The math,
// and which functor runs over which lists, is common/optim_math.h, shared with the CUDA kernels.
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
      // Local copies: a store through a tensor pointer could alias the caller's functor or
      // pointer array, which would keep the compiler from vectorizing the loop for AVX2.
      const F step = f;
      const std::array<T*, F::N> p = ptr;
      for (int64_t j = begin; j < end; ++j) step(p.data(), j);
    });
  }
}

// The CPU loop for optim_math's kernels.
struct ForEachTensor {
  template <class T, class F>
  void operator()(T, const F& f, std::initializer_list<TensorList> lists) const {
    for_each_tensor<T>(f, lists);
  }
};

}  // namespace

void register_optim_kernels() {
  register_kernel<Op::sgd_step>(kCPU, &optim_math::sgd_step<ForEachTensor>);
  register_kernel<Op::adam_step>(kCPU, &optim_math::adam_step<ForEachTensor>);
  register_kernel<Op::rmsprop_step>(kCPU, &optim_math::rmsprop_step<ForEachTensor>);
  register_kernel<Op::adagrad_step>(kCPU, &optim_math::adagrad_step<ForEachTensor>);
}

}  // namespace cpu
}  // namespace ember
