// The code of docs/custom-kernels.md, compiled and run by ctest (docs.custom_kernels_guide) so
// that every example in the guide builds and does what the guide says. With a GPU each section
// launches its kernels and checks them against built-in ops; without one, each kernel source is
// compiled by NVRTC for sm_90 (no GPU needed) and the launches are skipped.
#include <ember/ember.h>

#include <iostream>
#include <stdexcept>
#include <string>

using namespace ember;

namespace {

void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("custom kernels guide: expected ") + what);
}

// ---- Grids, blocks and threads ----
const char* kAdd = R"(
extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;   // this thread's element
  if (i < n) c[i] = a[i] + b[i];                   // the last block may run past n
})";

void grids_blocks_threads() {
  Tensor a = randn({1024}, kCUDA), b = randn({1024}, kCUDA), c = empty({1024}, kCUDA);
  cuda::Module(kAdd).function("add").launch(/*grid=*/{32}, /*block=*/{32}, a, b, c, 1024);
  expect(equal(c, a + b), "32 blocks of 32 threads to add 1024 floats");

  const cuda::DeviceProperties p = cuda::get_device_properties();
  expect(p.warp_size == 32 && p.max_threads_per_block >= 1024, "the device's limits");
  // A launch past the limits is refused before it reaches the driver, naming the kernel.
  bool refused = false;
  try {
    cuda::Module(kAdd).function("add").launch({1}, {2048}, a, b, c, 1024);
  } catch (const Error& e) {
    refused = std::string(e.what()).find("add") != std::string::npos;
  }
  expect(refused, "a 2048-thread block refused");
}

// ---- Raw kernels: cuda::Module ----
const char* kAxpy = R"(
extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
})";

void raw_kernels() {
  cuda::Module mod(kAxpy, {"--use_fast_math"});  // NVRTC options (-D..., -I...)
  Tensor x = randn({4096}, kCUDA), y = zeros({4096}, kCUDA);
  mod.function("axpy").launch(/*grid=*/{32}, /*block=*/{128}, y, x, 2.0f, 4096);
  expect(allclose(y, 2 * x), "axpy");

  // Templates through name expressions; a header given as a string.
  cuda::Module scale(R"(
#include "factor.h"
template <class T> __global__ void scale(T* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= SCALE;
})",
                     {}, {"scale<float>", "scale<double>"}, "scale.cu",
                     {{"factor.h", "#define SCALE 3"}});
  Tensor v = ones({100}, TensorOptions(kFloat64).device(kCUDA));
  scale.function("scale<double>").launch({1}, {128}, v, 100);
  expect(equal(v, full({100}, 3.0, TensorOptions(kFloat64).device(kCUDA))), "scale<double>");
}

// ---- ElementwiseKernel, ReductionKernel ----
void elementwise_and_reduction() {
  cuda::ElementwiseKernel squared_sum("T x, T y", "T z", "z = x * x + y", "squared_sum");
  Tensor x = randn({4, 5}, kCUDA), y = randn({5}, kCUDA);
  Tensor z = squared_sum(x, y);  // y broadcasts over the rows
  expect(allclose(z, x * x + y), "squared_sum");
  Tensor out = empty({4, 5}, kCUDA);
  squared_sum.call({x, 2.5, out});  // a scalar input, an output given
  expect(allclose(out, x * x + 2.5), "squared_sum into out");

  cuda::ReductionKernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  Tensor all = l2norm(x);                        // over every element: a 0-dim tensor
  Tensor rows = l2norm.call({x}, /*dim=*/1)[0];  // over one dim
  expect(allclose(all, x.square().sum().sqrt()), "l2norm over all");
  expect(allclose(rows, x.square().sum(1).sqrt()), "l2norm of each row");
}

// ---- A custom fused op in autograd ----
struct Swish : autograd::Function<Swish> {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    static const cuda::ElementwiseKernel kernel("T x", "T y", "y = x / (1 + exp(-x))",
                                                "swish_forward");
    ctx->save_for_backward({x});
    return kernel(x);
  }
  static autograd::tensor_list backward(autograd::AutogradContext* ctx,
                                        autograd::tensor_list grads) {
    static const cuda::ElementwiseKernel kernel(
        "T x, T g", "T dx", "T s = 1 / (1 + exp(-x)); dx = g * s * (1 + x * (1 - s))",
        "swish_backward");
    return {kernel(ctx->get_saved_variables()[0], grads[0])};
  }
};

void fused_op() {
  const Tensor x = randn({16}, TensorOptions(kFloat64).device(kCUDA)).requires_grad_();
  expect(allclose(Swish::apply(x), x * sigmoid(x)), "swish equals x * sigmoid(x)");
  expect(
      autograd::gradcheck([](const autograd::tensor_list& in) { return Swish::apply(in[0]); }, {x}),
      "swish passes gradcheck");
}

// ---- Without a GPU: the same sources through NVRTC ----
void compile_only() {
  for (const char* src : {kAdd, kAxpy}) {
    const cuda::detail::CompiledModule m =
        cuda::detail::compile_module(src, {}, {}, "guide.cu", "sm_90");
    expect(!m.cubin.empty(), "a cubin");
  }
  cuda::ElementwiseKernel squared_sum("T x, T y", "T z", "z = x * x + y", "squared_sum");
  const cuda::detail::CompiledModule m = cuda::detail::compile_module(
      squared_sum.source({kFloat32, kFloat32}), {}, {}, "squared_sum.cu", "sm_90");
  expect(!m.cubin.empty(), "the ElementwiseKernel's generated source compiles");
}

}  // namespace

int main() {
  if (cuda::is_available()) {
    grids_blocks_threads();
    raw_kernels();
    elementwise_and_reduction();
    fused_op();
    std::cout << "custom kernels guide: every section ran on the GPU\n";
    return 0;
  }
  try {
    compile_only();
    std::cout << "custom kernels guide: no GPU; the kernels compiled with NVRTC\n";
  } catch (const Error& e) {
    if (std::string(e.what()).find("built without CUDA") == std::string::npos) throw;
    std::cout << "custom kernels guide: ember was built without CUDA; nothing to run\n";
  }
  return 0;
}
