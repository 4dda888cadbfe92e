// The per-element math of the fused optimizer steps (ops.def's *_step), written once for the
// CPU loops (cpu/optim.cpp) and the CUDA multi-tensor kernels (cuda/optim.cu), so that both
// backends round alike. Follows PyTorch's single-tensor formulas operation by operation
// (torch/optim/*.py), in T (float for float32, double for float64); and the kernels that pick
// the functor and its tensor lists (at the end), which each backend registers with its own loop.
// Private to the backends (common/: compiled by g++ for cpu/ and by nvcc for cuda/).
#pragma once

#include <cmath>
#include <cstdint>

#include <ember/core/dispatch.h>
#include <ember/core/host_device.h>

namespace ember {
namespace optim_math {

template <class T>
EMBER_HOST_DEVICE inline T sqrt_of(T x) {
#if defined(__CUDA_ARCH__)
  return ::sqrt(x);
#else
  return std::sqrt(x);
#endif
}

// Each functor updates element i of tensor lists given as raw pointers ptr[0..N): ptr[0] is
// the parameter, ptr[1] its gradient, then the state in the order ops.def lists it.
// Scalars are converted to T once, on the host, as PyTorch converts Python floats.

template <class T, bool kMomentum>
struct SgdStep {
  static constexpr const char* kName = "sgd_step";
  static constexpr int N = kMomentum ? 3 : 2;
  T neg_lr, momentum, one_minus_dampening, weight_decay;
  bool nesterov, first_step;
  explicit SgdStep(const SgdStepArgs& a)
      : neg_lr(T(-a.lr)),
        momentum(T(a.momentum)),
        one_minus_dampening(T(1 - a.dampening)),
        weight_decay(T(a.weight_decay)),
        nesterov(a.nesterov),
        first_step(a.first_step) {}
  EMBER_HOST_DEVICE inline void operator()(T* const* ptr, int64_t i) const {
    T p = ptr[0][i];
    T d = ptr[1][i];
    if (weight_decay != T(0)) d = d + weight_decay * p;  // grad.add(param, alpha=wd)
    if constexpr (kMomentum) {
      T buf = first_step ? d : ptr[2][i] * momentum + one_minus_dampening * d;
      ptr[2][i] = buf;
      d = nesterov ? d + momentum * buf : buf;
    }
    ptr[0][i] = p + neg_lr * d;
  }
};

template <class T, bool kAmsgrad>
struct AdamStep {
  static constexpr const char* kName = "adam_step";
  static constexpr int N = kAmsgrad ? 5 : 4;
  T beta1, one_minus_beta1, beta2, one_minus_beta2, eps, weight_decay, decay_factor;
  T neg_step_size, bias_correction2_sqrt;
  const double* step_scalars;  // when set, the two above from device memory (AdamStepArgs)
  bool decoupled;
  explicit AdamStep(const AdamStepArgs& a)
      : beta1(T(a.beta1)),
        one_minus_beta1(T(1 - a.beta1)),
        beta2(T(a.beta2)),
        one_minus_beta2(T(1 - a.beta2)),
        eps(T(a.eps)),
        weight_decay(T(a.weight_decay)),
        decay_factor(T(1 - a.lr * a.weight_decay)),
        neg_step_size(T(-a.step_size)),
        bias_correction2_sqrt(T(a.bias_correction2_sqrt)),
        step_scalars(a.step_scalars),
        decoupled(a.decoupled_weight_decay) {}
  EMBER_HOST_DEVICE inline void operator()(T* const* ptr, int64_t i) const {
    T p = ptr[0][i];
    T g = ptr[1][i];
    if (decoupled) {
      p = p * decay_factor;  // param.mul_(1 - lr * weight_decay)
    } else if (weight_decay != T(0)) {
      g = g + weight_decay * p;
    }
    const T m = ptr[2][i] * beta1 + one_minus_beta1 * g;      // exp_avg.mul_(b1).add_(g, 1-b1)
    const T v = ptr[3][i] * beta2 + one_minus_beta2 * g * g;  // .mul_(b2).addcmul_(g, g, 1-b2)
    ptr[2][i] = m;
    ptr[3][i] = v;
    T vhat = v;
    if constexpr (kAmsgrad) {
      const T vmax = ptr[4][i];
      vhat = vmax > v ? vmax : v;
      ptr[4][i] = vhat;
    }
    // The same conversions from double as the host's, so a captured step rounds as eager.
    const T nss = step_scalars ? T(-step_scalars[0]) : neg_step_size;
    const T bc2 = step_scalars ? T(step_scalars[1]) : bias_correction2_sqrt;
    const T denom = sqrt_of(vhat) / bc2 + eps;
    ptr[0][i] = p + nss * m / denom;  // addcdiv_(m, denom, value=-step_size)
  }
};

// ptr: param, grad, square_avg, [grad_avg if kCentered], [momentum_buffer if kMomentum]
template <class T, bool kCentered, bool kMomentum>
struct RmspropStep {
  static constexpr const char* kName = "rmsprop_step";
  static constexpr int N = 3 + (kCentered ? 1 : 0) + (kMomentum ? 1 : 0);
  static constexpr int kBuf = kCentered ? 4 : 3;
  T neg_lr, alpha, one_minus_alpha, eps, weight_decay, momentum;
  explicit RmspropStep(const RmspropStepArgs& a)
      : neg_lr(T(-a.lr)),
        alpha(T(a.alpha)),
        one_minus_alpha(T(1 - a.alpha)),
        eps(T(a.eps)),
        weight_decay(T(a.weight_decay)),
        momentum(T(a.momentum)) {}
  EMBER_HOST_DEVICE inline void operator()(T* const* ptr, int64_t i) const {
    T g = ptr[1][i];
    if (weight_decay != T(0)) g = g + weight_decay * ptr[0][i];
    const T sq = ptr[2][i] * alpha + one_minus_alpha * g * g;
    ptr[2][i] = sq;
    T avg;
    if constexpr (kCentered) {
      const T ga = ptr[3][i] * alpha + one_minus_alpha * g;
      ptr[3][i] = ga;
      avg = sqrt_of(sq + T(-1) * ga * ga);  // square_avg.addcmul(ga, ga, value=-1).sqrt_()
    } else {
      avg = sqrt_of(sq);
    }
    avg = avg + eps;
    if constexpr (kMomentum) {
      const T buf = ptr[kBuf][i] * momentum + g / avg;  // buf.mul_(momentum).addcdiv_(g, avg)
      ptr[kBuf][i] = buf;
      ptr[0][i] = ptr[0][i] + neg_lr * buf;
    } else {
      ptr[0][i] = ptr[0][i] + neg_lr * g / avg;
    }
  }
};

template <class T>
struct AdagradStep {
  static constexpr const char* kName = "adagrad_step";
  static constexpr int N = 3;
  T neg_clr, weight_decay, eps;
  explicit AdagradStep(const AdagradStepArgs& a)
      : neg_clr(T(-a.clr)), weight_decay(T(a.weight_decay)), eps(T(a.eps)) {}
  EMBER_HOST_DEVICE inline void operator()(T* const* ptr, int64_t i) const {
    T g = ptr[1][i];
    if (weight_decay != T(0)) g = g + weight_decay * ptr[0][i];
    const T sum = ptr[2][i] + T(1) * g * g;  // state_sum.addcmul_(g, g, value=1)
    ptr[2][i] = sum;
    const T std = sqrt_of(sum) + eps;
    ptr[0][i] = ptr[0][i] + neg_clr * g / std;
  }
};

// ---- the kernels: which functor, over which lists ----
// The one choice both backends make: each kernel calls Run()(T{}, step, lists) with T float for
// float32 parameters and double for float64, step the functor above that the arguments ask for
// and lists the tensor lists it reads, in its pointer order (state that the variant does not
// use is left out). Run is the backend's loop over the tensors (cpu/optim.cpp's
// ForEachTensor, cuda/optim.cu's MultiTensorApply); the backends register sgd_step<Run> etc.
// Host code.

template <class F>
void with_param_type(TensorList params, const F& f) {
  if (params[0].dtype() == kFloat64) {
    f(double{});
  } else {
    f(float{});
  }
}

template <class Run>
void sgd_step(TensorList params, TensorList grads, TensorList bufs, const SgdStepArgs& a) {
  if (params.empty()) return;
  with_param_type(params, [&](auto t) {
    using T = decltype(t);
    if (a.momentum != 0) {
      Run()(t, SgdStep<T, true>(a), {params, grads, bufs});
    } else {
      Run()(t, SgdStep<T, false>(a), {params, grads});
    }
  });
}

template <class Run>
void adam_step(TensorList params, TensorList grads, TensorList m, TensorList v, TensorList vmax,
               const AdamStepArgs& a) {
  if (params.empty()) return;
  with_param_type(params, [&](auto t) {
    using T = decltype(t);
    if (a.amsgrad) {
      Run()(t, AdamStep<T, true>(a), {params, grads, m, v, vmax});
    } else {
      Run()(t, AdamStep<T, false>(a), {params, grads, m, v});
    }
  });
}

template <class Run>
void rmsprop_step(TensorList params, TensorList grads, TensorList sq, TensorList ga,
                  TensorList bufs, const RmspropStepArgs& a) {
  if (params.empty()) return;
  with_param_type(params, [&](auto t) {
    using T = decltype(t);
    const bool momentum = a.momentum > 0;
    if (a.centered && momentum) {
      Run()(t, RmspropStep<T, true, true>(a), {params, grads, sq, ga, bufs});
    } else if (a.centered) {
      Run()(t, RmspropStep<T, true, false>(a), {params, grads, sq, ga});
    } else if (momentum) {
      Run()(t, RmspropStep<T, false, true>(a), {params, grads, sq, bufs});
    } else {
      Run()(t, RmspropStep<T, false, false>(a), {params, grads, sq});
    }
  });
}

template <class Run>
void adagrad_step(TensorList params, TensorList grads, TensorList sums, const AdagradStepArgs& a) {
  if (params.empty()) return;
  with_param_type(params, [&](auto t) {
    using T = decltype(t);
    Run()(t, AdagradStep<T>(a), {params, grads, sums});
  });
}

}  // namespace optim_math
}  // namespace ember
