// CUDA convolutions through cuDNN (cuda/cudnn_conv.cpp), called through the dispatcher, against
// a naive double-precision reference and ember's CPU kernels: a grid of geometries (stride,
// padding, dilation, groups, depthwise, 1x1, bias, non-minimal grad_input sizes) in float32 and
// float64, with cuDNN's deterministic, benchmark and TF32 modes, batch splitting, misaligned
// pointers, side streams and empty shapes. GPU tests skip without a GPU; one test runs anywhere.
#include "cuda_conv_common.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

// Test hooks of cuda/cudnn_conv.cpp; weak, so that builds without it (CPU-only, no cuDNN) link.
extern "C" __attribute__((weak)) void ember_cudnn_set_max_chunk_elements_for_testing(int64_t n);
extern "C" __attribute__((weak)) int ember_cudnn_last_algorithm_for_testing(int kind, int* math,
                                                                            size_t* workspace);

namespace {

using namespace ember;
using namespace conv_test;

struct ConvCase {
  const char* name;
  int64_t n, c, h, w, o, kh, kw;
  int64_t sh, sw, ph, pw, dh, dw, groups;
  bool bias;
};

int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

ConvArgs args_of(const ConvCase& k) {
  ConvArgs a;
  a.stride[0] = k.sh;
  a.stride[1] = k.sw;
  a.padding[0] = k.ph;
  a.padding[1] = k.pw;
  a.dilation[0] = k.dh;
  a.dilation[1] = k.dw;
  a.groups = k.groups;
  return a;
}

std::string describe(const ConvCase& k, ScalarType dtype) {
  std::ostringstream os;
  os << k.name << " " << dtype_name(dtype) << ": input [" << k.n << ", " << k.c << ", " << k.h
     << ", " << k.w << "], weight [" << k.o << ", " << k.c / k.groups << ", " << k.kh << ", "
     << k.kw << "], stride (" << k.sh << ", " << k.sw << "), padding (" << k.ph << ", " << k.pw
     << "), dilation (" << k.dh << ", " << k.dw << "), groups " << k.groups
     << (k.bias ? ", bias" : "");
  return os.str();
}

// The three convolutions in double, by one walk over (n, o, oh, ow, ci, i, j): the forward
// sums into out, backward-input scatters into grad_input, backward-weight sums into grad_weight.
struct ConvRef {
  std::vector<double> out, grad_input, grad_weight;
};

ConvRef conv_reference(const ConvCase& k, const std::vector<double>& x,
                       const std::vector<double>& w, const std::vector<double>& b,
                       const std::vector<double>& gout) {
  const int64_t oh_n = conv_out(k.h, k.kh, k.sh, k.ph, k.dh);
  const int64_t ow_n = conv_out(k.w, k.kw, k.sw, k.pw, k.dw);
  const int64_t cg = k.c / k.groups, og = k.o / k.groups;
  ConvRef r;
  r.out.assign(static_cast<size_t>(k.n * k.o * oh_n * ow_n), 0.0);
  r.grad_input.assign(static_cast<size_t>(k.n * k.c * k.h * k.w), 0.0);
  r.grad_weight.assign(static_cast<size_t>(k.o * cg * k.kh * k.kw), 0.0);
  for (int64_t n = 0; n < k.n; ++n) {
    for (int64_t o = 0; o < k.o; ++o) {
      const int64_t g = o / og;
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          const size_t oi = static_cast<size_t>(((n * k.o + o) * oh_n + oh) * ow_n + ow);
          double acc = b.empty() ? 0.0 : b[static_cast<size_t>(o)];
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int64_t c = g * cg + ci;
            for (int64_t i = 0; i < k.kh; ++i) {
              const int64_t h = oh * k.sh - k.ph + i * k.dh;
              if (h < 0 || h >= k.h) continue;
              for (int64_t j = 0; j < k.kw; ++j) {
                const int64_t ww = ow * k.sw - k.pw + j * k.dw;
                if (ww < 0 || ww >= k.w) continue;
                const size_t xi = static_cast<size_t>(((n * k.c + c) * k.h + h) * k.w + ww);
                const size_t wi = static_cast<size_t>(((o * cg + ci) * k.kh + i) * k.kw + j);
                acc += x[xi] * w[wi];
                r.grad_input[xi] += gout[oi] * w[wi];
                r.grad_weight[wi] += gout[oi] * x[xi];
              }
            }
          }
          r.out[oi] = acc;
        }
      }
    }
  }
  return r;
}

// The tensors of one case and every result: GPU, reference, CPU kernel (when registered).
struct ConvRun {
  Tensor x, w, b, gout;  // CPU
  ConvRef ref;
  Tensor out, grad_input, grad_weight;  // CUDA results
};

ConvRun make_run(const ConvCase& k, ScalarType dtype) {
  ConvRun r;
  const int64_t oh = conv_out(k.h, k.kh, k.sh, k.ph, k.dh);
  const int64_t ow = conv_out(k.w, k.kw, k.sw, k.pw, k.dw);
  r.x = random({k.n, k.c, k.h, k.w}, dtype);
  r.w = random({k.o, k.c / k.groups, k.kh, k.kw}, dtype);
  if (k.bias) r.b = random({k.o}, dtype);
  r.gout = random({k.n, k.o, oh, ow}, dtype);
  r.ref = conv_reference(k, values(r.x), values(r.w), k.bias ? values(r.b) : std::vector<double>{},
                         values(r.gout));
  return r;
}

Tensor gpu_forward(const ConvRun& r, const ConvCase& k, const Tensor& x_dev) {
  Tensor out = nan_filled(r.gout.sizes(), r.x.dtype(), kCUDA);
  kernel<Op::conv2d>(kCUDA)(out, x_dev, r.w.cuda(), r.b.defined() ? r.b.cuda() : Tensor(),
                            args_of(k));
  return out;
}

Tensor gpu_backward_input(const ConvRun& r, const ConvCase& k) {
  Tensor gi = nan_filled(r.x.sizes(), r.x.dtype(), kCUDA);
  kernel<Op::conv2d_backward_input>(kCUDA)(gi, r.gout.cuda(), r.w.cuda(), args_of(k));
  return gi;
}

Tensor gpu_backward_weight(const ConvRun& r, const ConvCase& k) {
  Tensor gw = nan_filled(r.w.sizes(), r.x.dtype(), kCUDA);
  kernel<Op::conv2d_backward_weight>(kCUDA)(gw, r.gout.cuda(), r.x.cuda(), args_of(k));
  return gw;
}

// Runs the three CUDA kernels of a case and checks them against the reference and, when the CPU
// kernels are registered, against them too.
void check_case(const ConvCase& k, ScalarType dtype, double tol) {
  SCOPED_TRACE(describe(k, dtype));
  ConvRun r = make_run(k, dtype);
  const Tensor out = gpu_forward(r, k, r.x.cuda());
  const Tensor gi = gpu_backward_input(r, k);
  const Tensor gw = gpu_backward_weight(r, k);
  EXPECT_TRUE(close_to(out, r.ref.out, tol)) << "conv2d vs the naive reference";
  EXPECT_TRUE(close_to(gi, r.ref.grad_input, tol)) << "conv2d_backward_input vs the reference";
  EXPECT_TRUE(close_to(gw, r.ref.grad_weight, tol)) << "conv2d_backward_weight vs the reference";
  const ConvArgs a = args_of(k);
  if (has_kernel(Op::conv2d, kCPU)) {
    Tensor cpu_out = nan_filled(out.sizes(), dtype, kCPU);
    kernel<Op::conv2d>(kCPU)(cpu_out, r.x, r.w, r.b, a);
    EXPECT_TRUE(close_to(out, values(cpu_out), tol)) << "conv2d vs the CPU kernel";
  }
  if (has_kernel(Op::conv2d_backward_input, kCPU)) {
    Tensor cpu_gi = nan_filled(r.x.sizes(), dtype, kCPU);
    kernel<Op::conv2d_backward_input>(kCPU)(cpu_gi, r.gout, r.w, a);
    EXPECT_TRUE(close_to(gi, values(cpu_gi), tol)) << "conv2d_backward_input vs the CPU kernel";
  }
  if (has_kernel(Op::conv2d_backward_weight, kCPU)) {
    Tensor cpu_gw = nan_filled(r.w.sizes(), dtype, kCPU);
    kernel<Op::conv2d_backward_weight>(kCPU)(cpu_gw, r.gout, r.x, a);
    EXPECT_TRUE(close_to(gw, values(cpu_gw), tol)) << "conv2d_backward_weight vs the CPU kernel";
  }
}

// The grid. Cases whose (H + 2 pad - dil (K - 1) - 1) is not a multiple of the stride have
// input rows no window reaches: grad_input's size is more than OH needs, as in
// conv_transpose2d with output_padding, and those rows must come out zero.
const std::vector<ConvCase>& grid() {
  static const std::vector<ConvCase> cases = {
      // name            n  c   h   w   o  kh kw sh sw ph pw dh dw  g  bias
      {"3x3 pad 1", 2, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
      {"no padding", 2, 4, 9, 7, 6, 3, 2, 1, 1, 0, 0, 1, 1, 1, false},
      {"stride 2, pad 1", 2, 3, 9, 9, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, true},
      {"unreached rows (output_padding)", 2, 3, 8, 8, 4, 3, 3, 3, 3, 0, 0, 1, 1, 1, false},
      {"unreached, stride 4 pad 1", 1, 2, 10, 9, 3, 2, 2, 4, 4, 1, 1, 1, 1, 1, true},
      {"stride (2, 3)", 2, 3, 8, 8, 4, 3, 3, 2, 3, 1, 0, 1, 1, 1, false},
      {"rect stride/pad", 1, 3, 11, 7, 4, 5, 3, 3, 1, 2, 1, 1, 1, 1, true},
      {"dilation 2", 1, 3, 10, 10, 5, 3, 3, 1, 1, 2, 2, 2, 2, 1, true},
      {"dilation (1, 3) stride 2", 2, 2, 12, 13, 3, 3, 3, 2, 2, 1, 3, 1, 3, 1, false},
      {"groups 2", 2, 4, 7, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 2, true},
      {"groups 3 stride 2", 1, 6, 9, 8, 9, 3, 3, 2, 2, 1, 1, 1, 1, 3, false},
      {"depthwise", 2, 6, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6, true},
      {"depthwise x2 stride 2", 2, 4, 9, 9, 8, 3, 3, 2, 2, 1, 1, 1, 1, 4, false},
      {"1x1", 3, 8, 5, 5, 16, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},
      {"1x1 stride 2", 2, 8, 7, 6, 4, 1, 1, 2, 2, 0, 0, 1, 1, 1, false},
      {"5x5 pad 2", 2, 3, 12, 12, 4, 5, 5, 1, 1, 2, 2, 1, 1, 1, true},
      {"kernel = input", 2, 3, 5, 5, 2, 5, 5, 1, 1, 0, 0, 1, 1, 1, true},
      {"one sample, one channel", 1, 1, 6, 6, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
      {"CNN conv1 shape (small batch)", 2, 1, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
      {"CNN conv2 shape (small batch)", 2, 32, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
  };
  return cases;
}

// Saves cuDNN's switches and sets the defaults the comparisons assume (TF32 off: full float32).
class CudaConv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    if (!cudnn::is_available()) GTEST_SKIP() << "this build has no cuDNN (see CudaConvNoCudnn)";
    saved_benchmark_ = cudnn::benchmark();
    saved_deterministic_ = cudnn::deterministic();
    saved_tf32_ = cudnn::allow_tf32();
    cudnn::set_benchmark(false);
    cudnn::set_deterministic(false);
    cudnn::set_allow_tf32(false);
    manual_seed(1234);
  }
  void TearDown() override {
    if (!cuda::is_available() || !cudnn::is_available()) return;
    cudnn::set_benchmark(saved_benchmark_);
    cudnn::set_deterministic(saved_deterministic_);
    cudnn::set_allow_tf32(saved_tf32_);
    if (ember_cudnn_set_max_chunk_elements_for_testing) {
      ember_cudnn_set_max_chunk_elements_for_testing(0);
    }
  }

 private:
  bool saved_benchmark_ = false, saved_deterministic_ = false, saved_tf32_ = false;
};

TEST(CudnnNoGpu, IsNotAvailableWithoutAGpu) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  EXPECT_FALSE(cudnn::is_available());
}

// CUDA builds without cuDNN: the kernels throw naming the op.
TEST(CudaConvNoCudnn, KernelsSayThereIsNoCudnn) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  if (cudnn::is_available()) GTEST_SKIP() << "this build has cuDNN";
  Tensor x = zeros({1, 1, 3, 3}, kCUDA), w = zeros({1, 1, 1, 1}, kCUDA);
  Tensor out = zeros({1, 1, 3, 3}, kCUDA);
  const auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string m1 = message([&] { kernel<Op::conv2d>(kCUDA)(out, x, w, Tensor(), {}); });
  EXPECT_NE(m1.find("conv2d: this build of ember has no cuDNN"), std::string::npos) << m1;
  const std::string m2 =
      message([&] { kernel<Op::conv2d_backward_input>(kCUDA)(x, out, w, ConvArgs{}); });
  EXPECT_NE(m2.find("conv2d_backward_input: this build of ember has no cuDNN"), std::string::npos)
      << m2;
  const std::string m3 =
      message([&] { kernel<Op::conv2d_backward_weight>(kCUDA)(w, out, x, ConvArgs{}); });
  EXPECT_NE(m3.find("conv2d_backward_weight: this build of ember has no cuDNN"), std::string::npos)
      << m3;
}

TEST_F(CudaConv, GridFloat32) {
  if (!has_kernel(Op::conv2d, kCPU)) {
    std::printf("note: no CPU conv kernels registered; comparing with the naive reference only\n");
  }
  for (const ConvCase& k : grid()) check_case(k, kFloat32, tol_for(kFloat32));
}

TEST_F(CudaConv, GridFloat64) {
  for (const ConvCase& k : grid()) check_case(k, kFloat64, tol_for(kFloat64));
}

TEST_F(CudaConv, BenchmarkModeGivesTheSameResults) {
  cudnn::set_benchmark(true);
  for (const ConvCase& k : grid()) check_case(k, kFloat32, tol_for(kFloat32));
  check_case(grid()[9], kFloat64, tol_for(kFloat64));
}

TEST_F(CudaConv, Tf32AllowedStaysClose) {
  // TF32 keeps 10 mantissa bits: looser, but still far from wrong.
  cudnn::set_allow_tf32(true);
  for (const ConvCase& k : grid()) check_case(k, kFloat32, 1e-2);
}

// Deterministic mode: only algorithms cuDNN labels deterministic, so the weight gradient (a sum
// over the batch, which atomics would reorder) and the input gradient repeat bit for bit.
void check_repeatable(const ConvCase& k) {
  SCOPED_TRACE(describe(k, kFloat32));
  ConvRun r = make_run(k, kFloat32);
  const Tensor gw1 = gpu_backward_weight(r, k), gw2 = gpu_backward_weight(r, k);
  EXPECT_TRUE(same_bits(gw1, gw2)) << "conv2d_backward_weight twice";
  const Tensor gi1 = gpu_backward_input(r, k), gi2 = gpu_backward_input(r, k);
  EXPECT_TRUE(same_bits(gi1, gi2)) << "conv2d_backward_input twice";
  const Tensor o1 = gpu_forward(r, k, r.x.cuda()), o2 = gpu_forward(r, k, r.x.cuda());
  EXPECT_TRUE(same_bits(o1, o2)) << "conv2d twice";
  EXPECT_TRUE(close_to(gw1, r.ref.grad_weight, tol_for(kFloat32)));
  EXPECT_TRUE(close_to(gi1, r.ref.grad_input, tol_for(kFloat32)));
  EXPECT_TRUE(close_to(o1, r.ref.out, tol_for(kFloat32)));
}

const std::vector<ConvCase>& repeat_cases() {
  static const std::vector<ConvCase> cases = {
      {"batch 16, 3x3", 16, 16, 16, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
      {"stride 2, 5x5", 8, 8, 17, 17, 16, 5, 5, 2, 2, 2, 2, 1, 1, 1, false},
      {"depthwise", 8, 16, 12, 12, 16, 3, 3, 1, 1, 1, 1, 1, 1, 16, false},
  };
  return cases;
}

TEST_F(CudaConv, DeterministicModeIsBitwiseRepeatable) {
  cudnn::set_deterministic(true);
  for (const ConvCase& k : repeat_cases()) check_repeatable(k);
}

TEST_F(CudaConv, DeterministicBenchmarkModeIsBitwiseRepeatable) {
  cudnn::set_deterministic(true);
  cudnn::set_benchmark(true);
  for (const ConvCase& k : repeat_cases()) check_repeatable(k);
}

// Batches whose tensors pass cuDNN's 32-bit element limit are split; the hook lowers the limit
// so that the splitting (and the weight gradient's accumulation over chunks) runs on small
// tensors: 2 samples per call here, chunks of 2, 2 and 1.
TEST_F(CudaConv, SplitsTheBatchWhenTensorsAreTooLarge) {
  if (!ember_cudnn_set_max_chunk_elements_for_testing) GTEST_SKIP() << "no test hook";
  const ConvCase k = {"chunked", 5, 3, 9, 9, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, true};
  const int64_t per_sample = std::max<int64_t>(3 * 9 * 9, 4 * 5 * 5);
  ember_cudnn_set_max_chunk_elements_for_testing(2 * per_sample + 1);
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    for (ScalarType dtype : {kFloat32, kFloat64}) {
      SCOPED_TRACE(std::string(benchmark ? "benchmark " : "heuristics ") + dtype_name(dtype));
      ConvRun r = make_run(k, dtype);
      EXPECT_TRUE(close_to(gpu_forward(r, k, r.x.cuda()), r.ref.out, tol_for(dtype)));
      EXPECT_TRUE(close_to(gpu_backward_input(r, k), r.ref.grad_input, tol_for(dtype)));
      EXPECT_TRUE(close_to(gpu_backward_weight(r, k), r.ref.grad_weight, tol_for(dtype)));
    }
  }
}

// A contiguous tensor need not start on a 16-byte boundary (a narrowed view): cuDNN's
// alignment-dependent algorithms must not be used on it, or ember falls back to another.
TEST_F(CudaConv, InputsAtUnalignedAddresses) {
  const ConvCase& k = grid()[0];
  for (ScalarType dtype : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype_name(dtype));
    ConvRun r = make_run(k, dtype);
    const int64_t numel = r.x.numel();
    Tensor flat = zeros({numel + 1}, opts(dtype, kCUDA));
    Tensor x_dev = flat.narrow(0, 1, numel).view({k.n, k.c, k.h, k.w});
    x_dev.copy_(r.x);
    ASSERT_TRUE(x_dev.is_contiguous());
    EXPECT_TRUE(close_to(gpu_forward(r, k, x_dev), r.ref.out, tol_for(dtype)));
    Tensor gw = nan_filled(r.w.sizes(), dtype, kCUDA);
    kernel<Op::conv2d_backward_weight>(kCUDA)(gw, r.gout.cuda(), x_dev, args_of(k));
    EXPECT_TRUE(close_to(gw, r.ref.grad_weight, tol_for(dtype)));
    Tensor gflat = nan_filled({numel + 1}, dtype, kCUDA);
    Tensor gi = gflat.narrow(0, 1, numel).view({k.n, k.c, k.h, k.w});
    kernel<Op::conv2d_backward_input>(kCUDA)(gi, r.gout.cuda(), r.w.cuda(), args_of(k));
    EXPECT_TRUE(close_to(gi, r.ref.grad_input, tol_for(dtype)));
  }
}

// The kernels run on the current stream: on a side stream, results are there once that stream
// is synchronized; back on the default stream, the handle is rebound.
TEST_F(CudaConv, RunsOnTheCurrentStream) {
  const ConvCase& k = grid()[2];
  ConvRun r = make_run(k, kFloat32);
  Tensor x = r.x.cuda(), w = r.w.cuda(), b = r.b.cuda(), gout = r.gout.cuda();
  cuda::synchronize();
  cuda::Stream side = cuda::getStreamFromPool();
  Tensor out = empty(r.gout.sizes(), opts(kFloat32, kCUDA));
  Tensor gw = empty(r.w.sizes(), opts(kFloat32, kCUDA));
  {
    cuda::StreamGuard guard(side);
    for (int rep = 0; rep < 3; ++rep) {
      kernel<Op::conv2d>(kCUDA)(out, x, w, b, args_of(k));
      kernel<Op::conv2d_backward_weight>(kCUDA)(gw, gout, x, args_of(k));
    }
    side.synchronize();
  }
  EXPECT_TRUE(close_to(out, r.ref.out, tol_for(kFloat32)));
  EXPECT_TRUE(close_to(gw, r.ref.grad_weight, tol_for(kFloat32)));
  EXPECT_TRUE(close_to(gpu_forward(r, k, x), r.ref.out, tol_for(kFloat32)));
}

// Sums over nothing: no input channels (out = bias), no output channels (grad_input = 0), an
// empty batch (grad_weight = 0; the forward writes nothing).
TEST_F(CudaConv, EmptyDimensions) {
  ConvArgs a;
  a.padding[0] = a.padding[1] = 1;
  Tensor bias = tensor({1.5f, -2.0f}).cuda();
  Tensor out = nan_filled({2, 2, 4, 4}, kFloat32, kCUDA);
  kernel<Op::conv2d>(kCUDA)(out, zeros({2, 0, 4, 4}, kCUDA), zeros({2, 0, 3, 3}, kCUDA), bias, a);
  std::vector<double> want(32, 1.5);
  std::fill(want.begin() + 16, want.begin() + 32, -2.0);
  std::vector<double> got = values(out);
  for (int n = 0; n < 2; ++n) {  // [n, o, h, w]: o = 0 -> 1.5, o = 1 -> -2
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(got[static_cast<size_t>(n * 32 + i)], want[static_cast<size_t>(i)])
          << n << ", " << i;
    }
  }
  Tensor gi = nan_filled({2, 3, 4, 4}, kFloat32, kCUDA);
  kernel<Op::conv2d_backward_input>(kCUDA)(gi, zeros({2, 0, 4, 4}, kCUDA),
                                           zeros({0, 3, 3, 3}, kCUDA), a);
  EXPECT_TRUE(close_to(gi, std::vector<double>(96, 0.0), 0.0));
  Tensor gw = nan_filled({2, 3, 3, 3}, kFloat32, kCUDA);
  kernel<Op::conv2d_backward_weight>(kCUDA)(gw, zeros({0, 2, 4, 4}, kCUDA),
                                            zeros({0, 3, 4, 4}, kCUDA), a);
  EXPECT_TRUE(close_to(gw, std::vector<double>(54, 0.0), 0.0));
  Tensor none = empty({0, 2, 4, 4}, kCUDA);
  kernel<Op::conv2d>(kCUDA)(none, zeros({0, 3, 4, 4}, kCUDA), zeros({2, 3, 3, 3}, kCUDA), bias, a);
  cuda::synchronize();
}

// The CNN example's conv2 (batch 128, 32 -> 64 channels, 14x14, 3x3, pad 1, float32, TF32 off):
// checked against the CPU kernels (or, without them, the forward of two samples against the
// reference), then timed; the figures are printed for comparison with PyTorch (the target:
// forward + backward within 1.1x of PyTorch's on the H200).
TEST_F(CudaConv, CnnConv2ShapeMatchesAndReportsItsTime) {
  const ConvCase k = {"CNN conv2", 128, 32, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  const ConvArgs a = args_of(k);
  Tensor x = random({128, 32, 14, 14}, kFloat32), w = random({64, 32, 3, 3}, kFloat32);
  Tensor b = random({64}, kFloat32), gout = random({128, 64, 14, 14}, kFloat32);
  Tensor dx = x.cuda(), dw = w.cuda(), db = b.cuda(), dgout = gout.cuda();
  Tensor out = nan_filled({128, 64, 14, 14}, kFloat32, kCUDA);
  Tensor gi = nan_filled({128, 32, 14, 14}, kFloat32, kCUDA);
  Tensor gw = nan_filled({64, 32, 3, 3}, kFloat32, kCUDA);
  kernel<Op::conv2d>(kCUDA)(out, dx, dw, db, a);
  kernel<Op::conv2d_backward_input>(kCUDA)(gi, dgout, dw, a);
  kernel<Op::conv2d_backward_weight>(kCUDA)(gw, dgout, dx, a);
  if (has_kernel(Op::conv2d, kCPU) && has_kernel(Op::conv2d_backward_input, kCPU) &&
      has_kernel(Op::conv2d_backward_weight, kCPU)) {
    Tensor co = empty(out.sizes()), cgi = empty(gi.sizes()), cgw = empty(gw.sizes());
    kernel<Op::conv2d>(kCPU)(co, x, w, b, a);
    kernel<Op::conv2d_backward_input>(kCPU)(cgi, gout, w, a);
    kernel<Op::conv2d_backward_weight>(kCPU)(cgw, gout, x, a);
    EXPECT_TRUE(close_to(out, values(co), tol_for(kFloat32)));
    EXPECT_TRUE(close_to(gi, values(cgi), tol_for(kFloat32)));
    EXPECT_TRUE(close_to(gw, values(cgw), tol_for(kFloat32)));
  } else {
    ConvCase two = k;
    two.n = 2;
    const Tensor x2 = x.narrow(0, 0, 2).contiguous();
    const ConvRef ref = conv_reference(two, values(x2), values(w), values(b),
                                       values(gout.narrow(0, 0, 2).contiguous()));
    EXPECT_TRUE(close_to(out.narrow(0, 0, 2), ref.out, tol_for(kFloat32)));
  }

  const std::vector<double> before = values(out);
  // Each timed batch is queued behind a ~20 ms spin kernel: the events then measure the GPU's
  // own time (not the host's launch rate), and the host time is the enqueue cost alone (a call
  // that synchronized would show the spin in it).
  cuda::Module spin_module(R"(extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64(); while (clock64() - t0 < cycles) {} })");
  const cuda::Function spin = spin_module.function("spin");
  const auto time_us = [&](const std::function<void()>& f) {
    const int iters = 10;
    for (int i = 0; i < 3; ++i) f();
    cuda::synchronize();
    spin.launch({1}, {1}, int64_t{40000000});
    cuda::Event start(true), stop(true);
    start.record();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    stop.record();
    stop.synchronize();
    const double host = std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
    return std::make_pair(1000.0 * start.elapsed_time(stop) / iters, host);
  };
  std::pair<double, double> all{0, 0};
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    const auto fwd = time_us([&] { kernel<Op::conv2d>(kCUDA)(out, dx, dw, db, a); });
    const auto bwi = time_us([&] { kernel<Op::conv2d_backward_input>(kCUDA)(gi, dgout, dw, a); });
    const auto bww = time_us([&] { kernel<Op::conv2d_backward_weight>(kCUDA)(gw, dgout, dx, a); });
    all = time_us([&] {
      kernel<Op::conv2d>(kCUDA)(out, dx, dw, db, a);
      kernel<Op::conv2d_backward_input>(kCUDA)(gi, dgout, dw, a);
      kernel<Op::conv2d_backward_weight>(kCUDA)(gw, dgout, dx, a);
    });
    std::printf(
        "[CNN conv2 b128 32->64 14x14 3x3 fp32, TF32 off, %s] GPU us per call (host enqueue "
        "us):\n  forward+bias %.1f (%.1f), backward_input %.1f (%.1f), backward_weight %.1f "
        "(%.1f), all three %.1f (%.1f)\n",
        benchmark ? "cudnn benchmark" : "heuristics", fwd.first, fwd.second, bwi.first, bwi.second,
        bww.first, bww.second, all.first, all.second);
    if (ember_cudnn_last_algorithm_for_testing) {
      for (int kind = 0; kind < 3; ++kind) {
        int math = -1;
        size_t ws = 0;
        const int algo = ember_cudnn_last_algorithm_for_testing(kind, &math, &ws);
        std::printf("  %s: cuDNN algo %d, math type %d, workspace %zu bytes\n",
                    kind == 0 ? "forward" : (kind == 1 ? "backward_input" : "backward_weight"),
                    algo, math, ws);
      }
    }
  }
  EXPECT_GT(all.first, 0.0);
  EXPECT_TRUE(close_to(out, before, tol_for(kFloat32))) << "the forward after the timing loops";
}

}  // namespace
