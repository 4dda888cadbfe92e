// CPU/CUDA parity of the fused optimizer steps (cuda/optim.cu's multi-tensor kernels against
// cpu/optim.cpp): every optimizer and option combination runs a few steps on the same values
// on both devices, over tensors of odd sizes (some over a chunk of 65536 elements, more
// tensors than one launch takes, one over a launch's 320 chunks). Skips without a GPU.
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/cuda/api.h>
#include <ember/nn/clip_grad.h>
#include <ember/optim/optim.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace ember;
using namespace ember::optim;
using Make = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>;

#define REQUIRE_GPU() \
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device"

std::vector<int64_t> sizes(bool huge) {
  std::vector<int64_t> s = {1, 3, 65536, 65537, 131075, 7, 1000, 0, 12345};
  for (int i = 0; i < 120; ++i) s.push_back(1 + (i * 37) % 300);  // past every list's tensor cap
  if (huge) s.push_back(320 * 65536 + 5);                         // past a launch's 320 chunks
  return s;
}

void run_parity(const std::string& what, ScalarType dtype, const Make& make, bool huge = false) {
  manual_seed(7);
  std::vector<Tensor> cpu, gpu;
  for (int64_t n : sizes(huge)) {
    Tensor p = randn({n}, dtype);
    cpu.push_back(p.clone().requires_grad_(true));
    gpu.push_back(p.to(kCUDA).requires_grad_(true));
  }
  auto opt_cpu = make(cpu), opt_gpu = make(gpu);
  for (int step = 0; step < 3; ++step) {
    for (size_t i = 0; i < cpu.size(); ++i) {
      if (step == 1 && i % 5 == 2) {  // some parameters without a gradient this step
        cpu[i].mutable_grad() = Tensor();
        gpu[i].mutable_grad() = Tensor();
        continue;
      }
      Tensor g = randn({cpu[i].numel()}, dtype);
      cpu[i].mutable_grad() = g;
      gpu[i].mutable_grad() = g.to(kCUDA);
    }
    opt_cpu->step();
    opt_gpu->step();
  }
  const double tol = dtype == kFloat64 ? 1e-11 : 2e-5;
  for (size_t i = 0; i < cpu.size(); ++i) {
    Tensor back = gpu[i].detach().to(kCPU);
    ASSERT_TRUE(back.is_cpu());
    EXPECT_TRUE(allclose(back, cpu[i].detach(), tol, tol))
        << what << " " << dtype << " tensor " << i << " of " << cpu[i].numel();
  }
}

template <class Opt, class Options>
Make maker(Options o) {
  return [o](std::vector<Tensor> p) { return std::make_unique<Opt>(std::move(p), o); };
}

TEST(OptimCuda, SGD) {
  REQUIRE_GPU();
  for (ScalarType dt : {kFloat32, kFloat64}) {
    run_parity("sgd plain", dt, maker<SGD>(SGDOptions(0.1)));
    run_parity("sgd nesterov wd", dt,
               maker<SGD>(SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01)));
  }
  run_parity("sgd dampening (huge)", kFloat32,
             maker<SGD>(SGDOptions(0.05).momentum(0.9).dampening(0.2)), /*huge=*/true);
}

TEST(OptimCuda, Adam) {
  REQUIRE_GPU();
  for (ScalarType dt : {kFloat32, kFloat64}) {
    run_parity("adam", dt, maker<Adam>(AdamOptions(0.01)));
    run_parity("adam amsgrad wd", dt,
               maker<Adam>(AdamOptions(0.01).weight_decay(0.1).amsgrad(true)));
    run_parity("adamw", dt, maker<AdamW>(AdamWOptions(0.01)));
    run_parity("adamw amsgrad", dt, maker<AdamW>(AdamWOptions(0.01).amsgrad(true)));
  }
  run_parity("adam amsgrad (huge)", kFloat32, maker<Adam>(AdamOptions(0.01).amsgrad(true)),
             /*huge=*/true);
}

TEST(OptimCuda, RMSpropAndAdagrad) {
  REQUIRE_GPU();
  for (ScalarType dt : {kFloat32, kFloat64}) {
    run_parity("rmsprop", dt, maker<RMSprop>(RMSpropOptions(0.01)));
    run_parity("rmsprop centered", dt, maker<RMSprop>(RMSpropOptions(0.01).centered(true)));
    run_parity("rmsprop momentum", dt, maker<RMSprop>(RMSpropOptions(0.01).momentum(0.5)));
    run_parity("rmsprop all", dt,
               maker<RMSprop>(RMSpropOptions(0.01).weight_decay(0.1).momentum(0.5).centered(true)));
    run_parity(
        "adagrad", dt,
        maker<Adagrad>(
            AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.01).initial_accumulator_value(0.1)));
  }
}

// The model moved to the GPU after the optimizer was built (as Module::to does with set_data):
// the state made on the CPU follows the parameters.
TEST(OptimCuda, StateFollowsParametersToTheGpu) {
  REQUIRE_GPU();
  Tensor a = randn({1000}).requires_grad_(true);
  Tensor ref = a.detach().clone().requires_grad_(true);
  Adam opt({a}, AdamOptions(0.01).amsgrad(true)), opt_ref({ref}, AdamOptions(0.01).amsgrad(true));
  for (int step = 0; step < 3; ++step) {
    if (step == 1) {
      NoGradGuard g;
      a.set_data(a.to(kCUDA));
    }
    Tensor g = randn({1000});
    a.mutable_grad() = g.to(a.device());
    ref.mutable_grad() = g;
    opt.step();
    opt_ref.step();
  }
  ASSERT_TRUE(a.is_cuda());
  auto& st = static_cast<AdamParamState&>(*opt.state().at(a.unsafeGetTensorImpl()));
  EXPECT_TRUE(st.exp_avg().is_cuda());
  EXPECT_TRUE(st.max_exp_avg_sq().is_cuda());
  EXPECT_TRUE(allclose(a.detach().to(kCPU), ref.detach(), 1e-5, 1e-6));
}

TEST(OptimCuda, ClipGradNormOnTheDevice) {
  REQUIRE_GPU();
  std::vector<Tensor> cpu, gpu;
  for (int64_t n : {5, 70000, 3}) {
    Tensor g = randn({n});
    cpu.push_back(zeros({n}).requires_grad_(true));
    gpu.push_back(zeros({n}, TensorOptions().device(kCUDA)).requires_grad_(true));
    cpu.back().mutable_grad() = g;
    gpu.back().mutable_grad() = g.to(kCUDA);
  }
  for (double norm_type : {2.0, 1.0, std::numeric_limits<double>::infinity()}) {
    Tensor tc = nn::utils::clip_grad_norm_no_sync_(cpu, 1.0, norm_type);
    Tensor tg = nn::utils::clip_grad_norm_no_sync_(gpu, 1.0, norm_type);
    EXPECT_TRUE(tg.is_cuda());
    EXPECT_TRUE(allclose(tg.to(kCPU), tc, 1e-5, 1e-6));
    for (size_t i = 0; i < cpu.size(); ++i)
      EXPECT_TRUE(allclose(gpu[i].grad().to(kCPU), cpu[i].grad(), 1e-5, 1e-6));
  }
}

}  // namespace
