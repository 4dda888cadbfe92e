// Small-op batching, device side: one block runs a batch of recorded tiny ops in order, with
// a barrier between ops so each sees the results of the ones before (cuda/batch.h).
#include <cstdint>

#include <ember/cuda/batch.h>
#include <ember/cuda/check.h>

namespace ember {
namespace cuda {
namespace batch {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float apply(const Op& op, uint32_t i) {
  const float x = op.a[i * op.a_step];
  const float y = op.b != nullptr ? op.b[i * op.b_step] : op.value;
  switch (op.code) {
    case Code::kAdd:
      return x + y;
    case Code::kSub:
      return x - y;
    case Code::kMul:
      return x * y;
    default:  // kDiv
      return x / y;
  }
}

// The block's total of one value per thread (in double, as the reduction kernels combine
// their threads' float partial sums); valid in thread 0.
__device__ double block_total(double v, double* warp_totals) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  double total = 0;
  if (threadIdx.x == 0) {
    for (int w = 0; w < kThreads / 32; ++w) total += warp_totals[w];
  }
  return total;
}

__global__ void __launch_bounds__(kThreads) run_batch(const __grid_constant__ Batch batch) {
  __shared__ double warp_totals[kThreads / 32];
  for (int k = 0; k < batch.count; ++k) {
    const Op& op = batch.ops[k];
    switch (op.code) {
      case Code::kFill: {
        const uint32_t word = __float_as_uint(op.value);
        auto* out = reinterpret_cast<uint32_t*>(op.out);
        for (uint32_t i = threadIdx.x; i < op.n; i += kThreads) out[i] = word;
        break;
      }
      case Code::kCopy: {
        auto* out = reinterpret_cast<uint32_t*>(op.out);
        const auto* in = reinterpret_cast<const uint32_t*>(op.a);
        for (uint32_t i = threadIdx.x; i < op.n; i += kThreads) out[i] = in[i];
        break;
      }
      case Code::kSum:
      case Code::kMean: {
        float partial = 0;
        for (uint32_t i = threadIdx.x; i < op.n; i += kThreads) partial += op.a[i];
        const double total = block_total(partial, warp_totals);
        if (threadIdx.x == 0) {
          op.out[0] = static_cast<float>(op.code == Code::kSum ? total : total / op.n);
        }
        break;
      }
      default:
        for (uint32_t i = threadIdx.x; i < op.n; i += kThreads) op.out[i] = apply(op, i);
    }
    __syncthreads();  // the next op may read what this one wrote
  }
}

}  // namespace

void launch(const Batch& batch, cudaStream_t stream) {
  run_batch<<<1, kThreads, 0, stream>>>(batch);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace batch
}  // namespace cuda
}  // namespace ember
