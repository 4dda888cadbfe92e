// CPU GEMM (addmm, baddbmm, addmm_bias, linear_weight_bias_grad): large float32 products go
// to the packed AVX2 kernel (sgemm.cpp), the rest to Eigen with each operand mapped in place
// as row- or column-major (transposed views cost nothing). Large products are split across
// our own threads, because Eigen parallelizes only under OpenMP, which ember does not use.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <ember/common/gemm_operand.h>
#include <ember/core/dispatch.h>
#include <ember/core/functions.h>
#include <ember/cpu/eigen_gemm.h>
#include <ember/cpu/kernels.h>
#include <ember/cpu/loops.h>
#include <ember/cpu/parallel.h>
#include <ember/cpu/sgemm.h>

namespace ember {
namespace cpu {
namespace {

// Below this many multiply-adds a product runs on one thread: waking the pool (a few
// microseconds) would cost more than the work it shares.
constexpr int64_t kGemmParallelMacs = int64_t(1) << 21;
// Row splits stay multiples of Eigen's register block, so no thread gets ragged edges.
constexpr int64_t kRowAlign = 16;

using Operand = common::GemmOperand;  // common/gemm_operand.h

template <class M, class T>
ConstMap<M> map(const T* data, const Operand& op) {
  return ConstMap<M>(data, op.rows, op.cols, Eigen::OuterStride<>(op.ld));
}

// C[r0:r1, c0:c1] = beta * C + alpha * A[r0:r1, :] @ B[:, c0:c1]; beta == 0 never reads C.
template <class T, class MA, class MB>
void gemm_tile(T* c, int64_t ldc, const MA& a, const MB& b, int64_t r0, int64_t r1, int64_t c0,
               int64_t c1, T beta, T alpha) {
  OutMap<T> out(c + r0 * ldc + c0, r1 - r0, c1 - c0, Eigen::OuterStride<>(ldc));
  auto lhs = a.middleRows(r0, r1 - r0);
  auto rhs = b.middleCols(c0, c1 - c0);
  if (beta == T(0)) {
    out.noalias() = alpha * lhs * rhs;
  } else {
    if (beta != T(1)) out *= beta;
    out.noalias() += alpha * lhs * rhs;
  }
}

// One [m, n] product, split over the larger output dim when it is big enough to share.
template <class T, class MA, class MB>
void gemm_one(T* c, const MA& a, const MB& b, T beta, T alpha, bool split) {
  const int64_t m = a.rows(), n = b.cols(), k = a.cols();
  const int64_t threads = split ? get_num_threads() : 1;
  if (threads <= 1 || m * n * k < kGemmParallelMacs || std::max(m, n) < 2 * kRowAlign) {
    gemm_tile(c, n, a, b, 0, m, 0, n, beta, alpha);
    return;
  }
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  const int64_t parts = std::min(threads, extent / kRowAlign);
  const int64_t step = (extent / parts + kRowAlign - 1) / kRowAlign * kRowAlign;
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t lo = std::min(extent, p * step);
      const int64_t hi = p + 1 == parts ? extent : std::min(extent, lo + step);
      if (lo >= hi) continue;
      if (by_rows) {
        gemm_tile(c, n, a, b, lo, hi, 0, n, beta, alpha);
      } else {
        gemm_tile(c, n, a, b, 0, m, lo, hi, beta, alpha);
      }
    }
  });
}

// The packed kernel wins once a product fills most of its 6x16 register tile (partial
// column slivers are masked) and has some depth to amortize packing; thin shapes
// (gemv-like) stay with Eigen.
bool use_packed(int64_t m, int64_t n, int64_t k) {
  return m >= 6 && n >= 4 && k >= 8 && m * n * k >= (int64_t(1) << 15);
}

template <class T>
void gemm_batch(const Tensor& out, const Tensor& a, const Tensor& b, T beta, T alpha) {
  const Operand oa = common::describe_operand(a), ob = common::describe_operand(b);
  const int64_t batch = a.dim() == 3 ? a.sizes()[0] : 1;
  const int64_t m = oa.rows, k = oa.cols, n = ob.cols;
  T* c = out.data_ptr<T>();
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  if (k == 0) {  // an empty sum: out = beta * out
    OutMap<T> all(c, batch * m, n, Eigen::OuterStride<>(n));
    if (beta == T(0)) {
      all.setZero();
    } else {
      all *= beta;
    }
    return;
  }
  // Many small products go parallel over the batch; few large ones split each product.
  const int64_t macs = m * n * k;
  const bool over_batch = batch >= 2 * get_num_threads() || macs < kGemmParallelMacs;
  const int64_t grain = over_batch ? std::max<int64_t>(1, kGemmParallelMacs / macs) : batch;
  if constexpr (std::is_same<T, float>::value && kHasPackedSgemm) {
    if (use_packed(m, n, k)) {
      const StridedMatrix sa{pa, oa.row_major ? oa.ld : 1, oa.row_major ? 1 : oa.ld};
      const StridedMatrix sb{pb, ob.row_major ? ob.ld : 1, ob.row_major ? 1 : ob.ld};
      parallel_range(batch, grain, [&](int64_t b0, int64_t b1) {
        for (int64_t i = b0; i < b1; ++i) {
          sgemm_packed(m, n, k, alpha, {sa.p + i * oa.batch_stride, sa.rs, sa.cs},
                       {sb.p + i * ob.batch_stride, sb.rs, sb.cs}, beta, c + i * m * n, n,
                       !over_batch);
        }
      });
      return;
    }
  }
  auto body = [&](auto tag_a, auto tag_b) {
    using MA = typename decltype(tag_a)::type;
    using MB = typename decltype(tag_b)::type;
    parallel_range(batch, grain, [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0; i < b1; ++i) {
        gemm_one(c + i * m * n, map<MA>(pa + i * oa.batch_stride, oa),
                 map<MB>(pb + i * ob.batch_stride, ob), beta, alpha, !over_batch);
      }
    });
  };
  with_layouts<T>(oa.row_major, ob.row_major, body);
}

// addmm and baddbmm share one kernel: the batch, if any, is dim 0 of all three tensors.
void gemm_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& beta,
                 const Scalar& alpha) {
  EMBER_DISPATCH_FLOATING_TYPES(out.dtype(), "addmm", [&] {
    gemm_batch<scalar_t>(out, a, b, beta.to<scalar_t>(), alpha.to<scalar_t>());
  });
}

// addmm_bias: bias copied to every row of out, then the product added (beta 1), as addmm
// with a broadcast self computes it.
void gemm_bias_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
                      const Scalar& alpha) {
  kernel<Op::copy>(kCPU)(out, bias.expand(out.sizes()), false);
  gemm_kernel(out, a, b, 1.0, alpha);
}

// linear_weight_bias_grad: grad_w = g^T @ x by the GEMM above, grad_b by sum's kernel over
// g's rows (as the engine's sum_to reduces a broadcast bias's gradient).
void gemm_bias_grad_kernel(const Tensor& grad_w, const Tensor& grad_b, const Tensor& g,
                           const Tensor& x) {
  gemm_kernel(grad_w, g.t(), x, 0.0, 1.0);
  const int64_t rows = 0;
  kernel<Op::sum>(kCPU)(grad_b.view({1, g.sizes()[1]}), g, IntArrayRef(&rows, 1), Scalar(0));
}

}  // namespace

void register_gemm_kernels() {
  register_kernel<Op::addmm>(kCPU, gemm_kernel);
  register_kernel<Op::baddbmm>(kCPU, gemm_kernel);
  register_kernel<Op::addmm_bias>(kCPU, gemm_bias_kernel);
  register_kernel<Op::linear_weight_bias_grad>(kCPU, gemm_bias_grad_kernel);
}

}  // namespace cpu
}  // namespace ember
