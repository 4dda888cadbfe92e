// CPU kernels of the fused cross entropy (class-index targets): the forward computes each
// row's logsumexp, its loss (label smoothing, class weights, ignore_index) and the mean/sum;
// the backward writes grad_input = scale * (softmax * s - q) in one pass over the rows.
// The reference for the CUDA kernels (cuda/cross_entropy.cu): same math, same accumulators.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include <ember/core/dispatch.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/parallel.h>

namespace ember {
namespace cpu {
namespace {

template <class T>
using Row = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using OutRow = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// Loss of one row given its logits x [C]: l = (1 - eps) * w_t * (lse - x_t)
//   + eps / C * sum_c w_c * (lse - x_c); `row_weight` gets w_t (what the mean divides by).
template <class T>
T row_loss(const T* x, int64_t c, int64_t t, const T* w, T wsum, double eps, T* lse_out,
           double* row_weight) {
  const Row<T> row(x, c);
  const T max = row.maxCoeff();
  const T lse = max + std::log((row - max).exp().sum());
  *lse_out = lse;
  const T wt = w ? w[t] : T(1);
  *row_weight = wt;
  T loss = T(1 - eps) * wt * (lse - x[t]);
  if (eps > 0) {
    // sum_c w_c (lse - x_c) = (lse - max) * sum_c w_c - sum_c w_c (x_c - max): no large terms
    const T shifted = w ? (Row<T>(w, c) * (row - max)).sum() : (row - max).sum();
    loss += T(eps / c) * ((lse - max) * wsum - shifted);
  }
  return loss;
}

// out [] or [N], lse [N], aux [2]; input [N, C], target [N], weight [C] or undefined.
template <class T>
void forward(const Tensor& out, const Tensor& lse, const Tensor& aux, const Tensor& input,
             const Tensor& target, const Tensor& weight, const CrossEntropyArgs& args) {
  const int64_t n = input.size(0), c = input.size(1);
  const T* x = input.data_ptr<T>();
  const int64_t* tgt = target.data_ptr<int64_t>();
  const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
  T* lse_p = lse.data_ptr<T>();
  T* out_p = out.data_ptr<T>();
  T* aux_p = aux.data_ptr<T>();
  const T wsum = w ? Row<T>(w, c).sum() : static_cast<T>(c);
  // Per-row (loss, weight) in double, summed in row order afterwards: the same result for
  // any number of threads.
  const bool reduce = args.reduction != 0;
  std::vector<double> rows(reduce ? 2 * n : 0);
  parallel_for(0, n, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(c, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const int64_t t = tgt[r];
                   T loss = 0;
                   double rw = 0;
                   if (t == args.ignore_index) {
                     lse_p[r] = 0;  // unused by the backward
                   } else {
                     loss =
                         row_loss(x + r * c, c, t, w, wsum, args.label_smoothing, lse_p + r, &rw);
                   }
                   if (reduce) {
                     rows[2 * r] = loss;
                     rows[2 * r + 1] = rw;
                   } else {
                     out_p[r] = loss;
                   }
                 }
               });
  double total = 0, total_weight = 0;
  for (int64_t r = 0; r < (reduce ? n : 0); ++r) {
    total += rows[2 * r];
    total_weight += rows[2 * r + 1];
  }
  if (args.reduction == 1) out_p[0] = static_cast<T>(total / total_weight);
  if (args.reduction == 2) out_p[0] = static_cast<T>(total);
  aux_p[0] = static_cast<T>(total_weight);
  aux_p[1] = wsum;
}

// grad_input [N, C]; grad_out [] or [N]; the rest as the forward's.
template <class T>
void backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
              const Tensor& target, const Tensor& weight, const Tensor& lse, const Tensor& aux,
              const CrossEntropyArgs& args) {
  const int64_t n = input.size(0), c = input.size(1);
  const T* x = input.data_ptr<T>();
  const int64_t* tgt = target.data_ptr<int64_t>();
  const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
  const T* lse_p = lse.data_ptr<T>();
  const T* g = grad_out.data_ptr<T>();
  const T* aux_p = aux.data_ptr<T>();
  T* gi = grad_input.data_ptr<T>();
  const double eps = args.label_smoothing;
  const T g_all = args.reduction == 1 ? g[0] / aux_p[0] : g[0];
  const T wsum = aux_p[1];
  parallel_for(0, n, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(c, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   OutRow<T> out(gi + r * c, c);
                   const int64_t t = tgt[r];
                   if (t == args.ignore_index) {
                     out.setZero();
                     continue;
                   }
                   const T scale = args.reduction == 0 ? g[r] : g_all;
                   const T wt = w ? w[t] : T(1);
                   // q_c = (1 - eps) w_t [c == t] + eps / C w_c, s = sum_c q_c
                   const T s = T(1 - eps) * wt + T(eps / c) * wsum;
                   out = (Row<T>(x + r * c, c) - lse_p[r]).exp() * (scale * s);
                   if (eps > 0) {
                     if (w) {
                       out -= Row<T>(w, c) * T(scale * eps / c);
                     } else {
                       out -= T(scale * eps / c);
                     }
                   }
                   out[t] -= scale * T(1 - eps) * wt;
                 }
               });
}

void forward_kernel(const Tensor& out, const Tensor& lse, const Tensor& aux, const Tensor& input,
                    const Tensor& target, const Tensor& weight, const CrossEntropyArgs& args) {
  EMBER_DISPATCH_FLOATING_TYPES(input.dtype(), "cross_entropy", [&] {
    forward<scalar_t>(out, lse, aux, input, target, weight, args);
  });
}

void backward_kernel(const Tensor& grad_input, const Tensor& grad_out, const Tensor& input,
                     const Tensor& target, const Tensor& weight, const Tensor& lse,
                     const Tensor& aux, const CrossEntropyArgs& args) {
  EMBER_DISPATCH_FLOATING_TYPES(input.dtype(), "cross_entropy_backward", [&] {
    backward<scalar_t>(grad_input, grad_out, input, target, weight, lse, aux, args);
  });
}

}  // namespace

void register_cross_entropy_kernels() {
  register_kernel<Op::cross_entropy>(kCPU, forward_kernel);
  register_kernel<Op::cross_entropy_backward>(kCPU, backward_kernel);
}

}  // namespace cpu
}  // namespace ember
