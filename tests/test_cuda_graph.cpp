// CUDA graphs (cuda/graph.h): capture and replay against eager results, the private memory
// pool, batched small ops inside a capture, illegal calls during capture, and a captured MLP
// training step. The no-GPU errors run everywhere; the rest skips without a GPU.
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "error_of.h"

namespace {

using namespace ember;

// Captures use cuBLAS for every GEMM and eager steps ember's small-GEMM kernel below 2^26
// multiply-adds (cuda/gemm.cpp): two roundings that drift apart over 50 training steps. Here
// eager steps use cuBLAS too (the limit is read at the first GEMM), so that replays and eager
// steps run the same kernels and agree within float rounding; the examples' accuracy runs
// (tools/gpu_graph_check.sh) cover the mixture.
const bool kCublasForEveryGemm = [] {
  setenv("EMBER_CUDA_SMALL_GEMM_MACS", "0", 1);
  return true;
}();

TEST(CudaGraphNoGpu, ThrowsAClearError) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  cuda::Graph g;
  std::string m = error_of([&] { g.capture_begin(); });
  EXPECT_NE(m.find("cuda::Graph::capture_begin"), std::string::npos) << m;
  m = error_of([&] { cuda::GraphCapture capture(g); });
  EXPECT_NE(m.find("CUDA"), std::string::npos) << m;
  m = error_of([&] { g.replay(); });
  EXPECT_NE(m.find("cuda::Graph::replay"), std::string::npos) << m;
  EXPECT_FALSE(g.is_captured());
  g.reset();  // nothing held: a no-op
}

class CudaGraph : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
    cuda::synchronize();
  }
};

void expect_close(const Tensor& got, const Tensor& want, double tol = 1e-5) {
  const Tensor g = got.detach().cpu(), w = want.detach().cpu();
  EXPECT_TRUE(allclose(g, w, tol, tol)) << "max |got - want| " << (g - w).abs().max().item<double>()
                                        << " of max |want| " << w.abs().max().item<double>();
}

// y = a * 2 + b and its sum, captured into static outputs, replayed on new contents of a;
// n = 64 runs the ops batched (cuda/batch.h), 100000 on their own kernels.
void capture_and_replay(int64_t n) {
  Tensor a = randn({n}).cuda(), b = randn({n}).cuda();
  cuda::Graph g;
  Tensor y, s;
  {
    cuda::GraphCapture capture(g);
    EXPECT_TRUE(g.is_capturing());
    y = a * 2 + b;
    s = y.sum();
  }
  EXPECT_TRUE(g.is_captured());
  EXPECT_NE(g.pool(), 0u);
  for (int i = 0; i < 20; ++i) {
    Tensor fresh = randn({n});
    a.copy_(fresh.cuda());
    g.replay();
    Tensor want = fresh * 2 + b.cpu();
    expect_close(y, want);
    expect_close(s, want.sum(), 1e-3);
  }
}

TEST_F(CudaGraph, ReplayMatchesEager) { capture_and_replay(100000); }

TEST_F(CudaGraph, BatchedSmallOpsAreInTheGraph) { capture_and_replay(64); }

TEST_F(CudaGraph, PendingSmallOpsRunBeforeTheCapture) {
  Tensor x = zeros({8}, kCUDA);
  x.add_(1);  // recorded for batching before the capture: must run once, now
  cuda::Graph g;
  {
    cuda::GraphCapture capture(g);
    x.mul_(2);  // recorded during the capture: in the graph
  }
  expect_close(x, full({8}, 1.0f));  // captured work does not run at capture time
  g.replay();
  g.replay();
  expect_close(x, full({8}, 4.0f));
}

TEST_F(CudaGraph, PrivatePoolMemory) {
  const int64_t n = int64_t(1) << 20;  // 4 MiB: the large pool, exact rounding
  Tensor a = randn({n}, kCUDA);
  cuda::synchronize();
  cuda::empty_cache();
  const size_t allocated0 = cuda::memory_allocated(), reserved0 = cuda::memory_reserved();
  void* freed_in_capture = nullptr;
  {
    cuda::Graph g;
    Tensor y;
    {
      cuda::GraphCapture capture(g);
      {
        Tensor t = a * 2;
        freed_in_capture = t.data_ptr();
      }
      Tensor u = a * 3;  // reuses t's block within the same capture
      EXPECT_EQ(u.data_ptr(), freed_in_capture);
      y = u + 1;
    }
    const size_t reserved1 = cuda::memory_reserved();
    EXPECT_GT(reserved1, reserved0);
    EXPECT_EQ(cuda::memory_allocated(), allocated0 + n * sizeof(float));
    for (int i = 0; i < 10; ++i) g.replay();
    EXPECT_EQ(cuda::memory_reserved(), reserved1);
    expect_close(y, a.cpu() * 3 + 1);
    // The graph's free blocks are not handed to other work, nor released by empty_cache.
    {
      cuda::StreamGuard guard(cuda::graph_capture_stream());
      Tensor e = empty({n}, kCUDA);
      EXPECT_NE(e.data_ptr(), freed_in_capture);
    }
    cuda::synchronize();
    cuda::empty_cache();
    EXPECT_EQ(cuda::memory_reserved(), reserved1);
  }
  // Graph and outputs gone: the pool's segments joined the cache, which empty_cache frees.
  cuda::synchronize();
  EXPECT_EQ(cuda::memory_allocated(), allocated0);
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(), reserved0);
}

TEST_F(CudaGraph, OutputOutlivingTheGraphReturnsToTheCache) {
  Tensor a = randn({int64_t(1) << 20}, kCUDA);
  cuda::synchronize();
  cuda::empty_cache();
  const size_t reserved0 = cuda::memory_reserved();
  Tensor y;
  {
    cuda::Graph g;
    {
      cuda::GraphCapture capture(g);
      y = a + 1;
    }
    g.replay();
  }
  expect_close(y, a.cpu() + 1);  // the output stays valid after the graph is gone
  y = Tensor();
  cuda::synchronize();
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(), reserved0);
}

TEST_F(CudaGraph, SharedPool) {
  Tensor a = randn({1000}, kCUDA);
  cuda::Graph g1, g2;
  Tensor y1, y2;
  {
    cuda::GraphCapture capture(g1);
    y1 = a * 2;
  }
  {
    cuda::GraphCapture capture(g2, g1.pool());
    y2 = y1 + 1;
  }
  EXPECT_EQ(g1.pool(), g2.pool());
  Tensor fresh = randn({1000});
  a.copy_(fresh.cuda());
  g1.replay();
  g2.replay();
  expect_close(y2, fresh * 2 + 1);
}

TEST_F(CudaGraph, IllegalCallsThrowAndCaptureAgain) {
  Tensor a = randn({256}, kCUDA);
  const std::vector<std::pair<std::string, std::function<void(const Tensor&)>>> cases = {
      {"item", [](const Tensor& y) { (void)y.sum().item<float>(); }},
      {"cpu()", [](const Tensor& y) { (void)y.cpu(); }},
      {"to(kCPU)", [](const Tensor& y) { (void)y.to(kCPU); }},
      {"cuda::synchronize", [](const Tensor&) { cuda::synchronize(); }},
      {"Stream::synchronize", [](const Tensor&) { cuda::getCurrentStream().synchronize(); }},
      {"cuda::empty_cache", [](const Tensor&) { cuda::empty_cache(); }},
      {"to(kCUDA)", [](const Tensor&) { (void)ones({4}).cuda(); }},
      // multinomial: its checks read the probabilities back (a copy to the CPU), and its
      // kernel's seed and offset would be frozen
      {"a copy from CUDA to the CPU", [](const Tensor& y) { (void)multinomial(y.abs() + 0.1, 2); }},
  };
  for (const auto& [name, op] : cases) {
    cuda::Graph g;
    const std::string m = error_of([&, &op = op] {
      cuda::GraphCapture capture(g);
      Tensor y = a * 2;
      op(y);
    });
    EXPECT_NE(m.find(name), std::string::npos) << name << ": " << m;
    EXPECT_NE(m.find("graph capture"), std::string::npos) << m;
    EXPECT_FALSE(g.is_capturing());
    EXPECT_FALSE(g.is_captured());
    EXPECT_EQ(cuda::getCurrentStream(), cuda::getDefaultStream());
    // The process goes on: eager work, and a new capture.
    expect_close(a * 2, a.cpu() * 2);
    Tensor y;
    {
      cuda::GraphCapture capture(g);
      y = a + 3;
    }
    g.replay();
    expect_close(y, a.cpu() + 3);
  }
}

// Random ops in a capture draw new numbers at each replay: those the same ops draw eagerly
// from the generator's state before the replay (the CPU draws the same numbers as CUDA for a
// state), and the generator advances as much. The capture itself draws nothing.
TEST_F(CudaGraph, RandomOpsDrawNewNumbersEachReplay) {
  manual_seed(5);
  const Tensor before = get_rng_state();
  cuda::Graph g;
  Tensor u, n, k, d;
  const Tensor ones_cuda = ones({500}, kCUDA);
  {
    cuda::GraphCapture capture(g);
    u = rand({1000}, kCUDA);
    n = randn({333}, TensorOptions(kFloat64).device(kCUDA));
    k = randint(-3, 10, {77}, TensorOptions(kInt64).device(kCUDA));
    d = dropout(ones_cuda, 0.25, true);
  }
  EXPECT_TRUE(equal(get_rng_state(), before)) << "the capture advanced the generator";
  std::vector<Tensor> seen;
  for (int r = 0; r < 3; ++r) {
    if (r == 2) manual_seed(77);  // a new seed between replays takes effect
    const Tensor state = get_rng_state();
    g.replay();
    const Tensor after_replay = get_rng_state();
    set_rng_state(state);
    const Tensor u_cpu = rand({1000}), n_cpu = randn({333}, kFloat64),
                 k_cpu = randint(-3, 10, {77}), d_cpu = dropout(ones({500}), 0.25, true);
    EXPECT_TRUE(equal(get_rng_state(), after_replay)) << "replay " << r;
    EXPECT_TRUE(equal(u.cpu(), u_cpu)) << "replay " << r;
    EXPECT_TRUE(allclose(n.cpu(), n_cpu, 1e-12, 1e-12)) << "replay " << r;
    EXPECT_TRUE(equal(k.cpu(), k_cpu)) << "replay " << r;
    EXPECT_TRUE(equal(d.cpu(), d_cpu)) << "replay " << r;
    for (const Tensor& earlier : seen) EXPECT_FALSE(equal(u.cpu(), earlier)) << "replay " << r;
    seen.push_back(u.cpu());
  }
}

// What an on_each_replay hook writes into a replay_buffer reaches the captured kernels: the
// buffer shares no memory with a temporary freed earlier in the capture, whose block the
// private pool would lend to the next allocation of its size and the replay would overwrite
// (the cause of Adam's captured bias corrections going wrong inside a whole step).
TEST_F(CudaGraph, ReplayBufferKeepsWhatTheHookWrote) {
  for (int64_t n : {64, 100000}) {  // batched small ops, and kernels of their own
    const Tensor x = randn({n}, kCUDA);
    cuda::Graph g;
    Tensor out;
    double value = 0;
    {
      cuda::GraphCapture capture(g);
      { const Tensor temporary = x * 2; }  // its block returns to the pool within the capture
      const Tensor buffer = cuda::replay_buffer({n}, kFloat32);
      cuda::on_each_replay([buffer, &value] { buffer.copy_(full({buffer.numel()}, value)); });
      out = buffer + x;
    }
    for (int r = 1; r <= 3; ++r) {
      value = 10.0 * r;
      g.replay();
      EXPECT_TRUE(allclose(out.cpu(), x.cpu() + value)) << "n " << n << " replay " << r;
    }
  }
  EXPECT_NE(error_of([] {
              (void)cuda::replay_buffer({2}, kFloat64);
            }).find("cuda::replay_buffer: the current stream of cuda:"),
            std::string::npos);
}

// Inference: a forward captured under NoGradGuard, replayed over new inputs.
TEST_F(CudaGraph, InferenceForwardUnderNoGrad) {
  manual_seed(0);
  nn::Sequential model(nn::Linear(64, 128), nn::ReLU(), nn::Dropout(0.5), nn::Linear(128, 10));
  model->to(kCUDA);
  model->eval();  // dropout off
  NoGradGuard no_grad;
  Tensor static_x = zeros({32, 64}, kCUDA), y;
  (void)model->forward(static_x);  // warm-up on the default stream (cuBLAS handle)
  cuda::Graph g;
  {
    cuda::GraphCapture capture(g);
    y = model->forward(static_x);
  }
  EXPECT_FALSE(y.requires_grad());
  for (int i = 0; i < 5; ++i) {
    const Tensor x = randn({32, 64}).cuda();
    static_x.copy_(x);
    g.replay();
    expect_close(y, model->forward(x).cpu());
  }
}

TEST_F(CudaGraph, MoveAndReset) {
  Tensor a = randn({100}, kCUDA);
  cuda::Graph g;
  Tensor y;
  {
    cuda::GraphCapture capture(g);
    y = a - 1;
  }
  cuda::Graph moved = std::move(g);
  EXPECT_FALSE(g.is_captured());
  EXPECT_TRUE(moved.is_captured());
  moved.replay();
  expect_close(y, a.cpu() - 1);
  moved.reset();
  EXPECT_FALSE(moved.is_captured());
  EXPECT_THROW(moved.replay(), Error);
  Tensor z;
  {
    cuda::GraphCapture capture(moved);
    z = a * a;
  }
  moved.replay();
  expect_close(z, a.cpu() * a.cpu());
}

TEST_F(CudaGraph, CaptureOnTheDefaultStreamIsRefused) {
  cuda::Graph g;
  const std::string m = error_of([&] { g.capture_begin(); });
  EXPECT_NE(m.find("default stream"), std::string::npos) << m;
  EXPECT_FALSE(g.is_capturing());
}

// A tiny MLP's training step (forward, mse_loss, backward, a manual SGD update), captured
// after 3 warm-up steps on the capture stream and replayed on new batches, against the same
// steps run eagerly from the same parameters.
struct Mlp {
  nn::Linear fc1{nn::Linear(6, 16)};
  nn::Linear fc2{nn::Linear(16, 3)};
  std::vector<Tensor> params() const { return {fc1->weight, fc1->bias, fc2->weight, fc2->bias}; }
  void to_cuda() {
    fc1->to(kCUDA);
    fc2->to(kCUDA);
  }
  void zero_grad() {
    fc1->zero_grad();
    fc2->zero_grad();
  }
  void step(const Tensor& x, const Tensor& target, double lr) {
    Tensor loss = mse_loss(fc2(fc1(x).relu()), target);
    loss.backward();
    NoGradGuard no_grad;
    for (const Tensor& p : params()) p.data().sub_(p.grad() * lr);
  }
};

TEST_F(CudaGraph, MlpTrainingStepMatchesEager) {
  const double lr = 0.05;
  manual_seed(0);
  Mlp graphed, eager;
  {
    NoGradGuard no_grad;
    const auto from = graphed.params(), to = eager.params();
    for (size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  }
  graphed.to_cuda();
  eager.to_cuda();
  std::vector<std::pair<Tensor, Tensor>> batches;
  for (int i = 0; i < 13; ++i) batches.emplace_back(randn({32, 6}).cuda(), randn({32, 3}).cuda());

  Tensor static_x = empty({32, 6}, kCUDA), static_y = empty({32, 3}, kCUDA);
  cuda::synchronize();
  {
    cuda::StreamGuard side(cuda::graph_capture_stream());
    for (int i = 0; i < 3; ++i) {
      static_x.copy_(batches[i].first);
      static_y.copy_(batches[i].second);
      graphed.zero_grad();
      graphed.step(static_x, static_y, lr);
    }
  }
  cuda::synchronize();
  for (int i = 0; i < 3; ++i) {
    eager.zero_grad();
    eager.step(batches[i].first, batches[i].second, lr);
  }

  cuda::Graph g;
  graphed.zero_grad();  // the backward in the capture makes the gradients, from the pool
  {
    cuda::GraphCapture capture(g);
    graphed.step(static_x, static_y, lr);
  }
  for (int i = 3; i < 13; ++i) {
    static_x.copy_(batches[i].first);
    static_y.copy_(batches[i].second);
    g.replay();
    eager.zero_grad();
    eager.step(batches[i].first, batches[i].second, lr);
  }
  const auto got = graphed.params(), want = eager.params();
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i]);
}

// ---- cuda::StepGraph (optim/step_graph.h): whole training steps replayed against eager ----

namespace F = nn::functional;

nn::Sequential small_mlp() {
  return nn::Sequential(nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 256), nn::ReLU(),
                        nn::Linear(256, 10));
}

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;
std::unique_ptr<optim::Optimizer> sgd_momentum(std::vector<Tensor> params) {
  return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.05).momentum(0.9));
}

// 50 steps (SGD with momentum unless `make_opt` says otherwise) of two copies of one model,
// one through StepGraph and one eagerly, on the same batches; the learning rate changes at
// step 30 (a second capture). Losses, parameters, buffers (BatchNorm's running statistics)
// and the optimizer's state (step counts included) agree within float rounding.
void expect_step_graph_matches_eager(const std::function<nn::Sequential()>& make,
                                     std::vector<int64_t> input_shape,
                                     const MakeOptimizer& make_opt = sgd_momentum) {
  constexpr int64_t kClasses = 10;
  const int64_t batch = input_shape[0];
  manual_seed(0);
  nn::Sequential graphed = make();
  manual_seed(0);
  nn::Sequential eager = make();
  graphed->to(kCUDA);
  eager->to(kCUDA);
  const std::unique_ptr<optim::Optimizer> graphed_opt = make_opt(graphed->parameters());
  const std::unique_ptr<optim::Optimizer> eager_opt = make_opt(eager->parameters());
  Tensor static_x = empty(input_shape, kCUDA);
  Tensor static_y = empty({batch}, TensorOptions(kInt64).device(kCUDA));
  cuda::StepGraph step(
      [&] {
        graphed_opt->zero_grad();
        Tensor loss = F::cross_entropy(graphed->forward(static_x), static_y);
        loss.backward();
        graphed_opt->step();
        return loss;
      },
      {graphed_opt.get()});
  for (int i = 0; i < 50; ++i) {
    const Tensor x = randn(input_shape).cuda(), y = randint(kClasses, {batch}).cuda();
    if (i == 30) {
      const double lr = graphed_opt->param_groups()[0].options().get_lr() / 5;
      graphed_opt->param_groups()[0].options().set_lr(lr);
      eager_opt->param_groups()[0].options().set_lr(lr);
    }
    static_x.copy_(x);
    static_y.copy_(y);
    const double got = step().item<double>();
    eager_opt->zero_grad();
    Tensor loss = F::cross_entropy(eager->forward(x), y);
    loss.backward();
    eager_opt->step();
    EXPECT_NEAR(got, loss.item<double>(), 1e-4 * (1 + std::abs(got))) << "step " << i;
  }
  const optim::StateDict got_state = graphed_opt->state_dict(),
                         want_state = eager_opt->state_dict();
  ASSERT_EQ(got_state.size(), want_state.size());
  for (const auto& item : want_state) {
    const Tensor* got = got_state.find(item.key());
    ASSERT_NE(got, nullptr) << item.key();
    expect_close(got->to(kFloat64), item.value().to(kFloat64), 1e-4);
  }
  EXPECT_TRUE(step.is_captured());
  EXPECT_EQ(step.captures(), 2);  // at step 3 and after the lr change
  const auto got = graphed->parameters(), want = eager->parameters();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i], 1e-4);
  const auto got_b = graphed->buffers(), want_b = eager->buffers();
  ASSERT_EQ(got_b.size(), want_b.size());
  for (size_t i = 0; i < got_b.size(); ++i) expect_close(got_b[i], want_b[i], 1e-4);
}

TEST_F(CudaGraph, StepGraphMlpMatchesEagerOver50Steps) {
  expect_step_graph_matches_eager(small_mlp, {128, 784});
}

TEST_F(CudaGraph, StepGraphCnnMatchesEagerOver50Steps) {
  expect_step_graph_matches_eager(
      [] {
        return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)), nn::BatchNorm2d(8),
                              nn::ReLU(), nn::MaxPool2d(2),
                              nn::Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1)), nn::ReLU(),
                              nn::MaxPool2d(2), nn::Flatten(), nn::Linear(16 * 7 * 7, 10));
      },
      {32, 1, 28, 28});
}

// Adam's bias corrections come from device memory that each replay rewrites; the step counts
// in state_dict() advance as in eager training.
TEST_F(CudaGraph, StepGraphWithAdamMatchesEagerOver50Steps) {
  expect_step_graph_matches_eager(small_mlp, {128, 784}, [](std::vector<Tensor> params) {
    return std::make_unique<optim::Adam>(params, optim::AdamOptions(1e-3));
  });
}

TEST_F(CudaGraph, StepGraphWithAdamWAmsgradMatchesEagerOver50Steps) {
  expect_step_graph_matches_eager(small_mlp, {128, 784}, [](std::vector<Tensor> params) {
    return std::make_unique<optim::AdamW>(
        params, optim::AdamWOptions(1e-3).weight_decay(0.1).amsgrad(true));
  });
}

// A graph that captured an Adam step, replayed after the optimizer is gone or its state was
// replaced, throws instead of updating with stale counts.
TEST_F(CudaGraph, AdamReplayAfterTheOptimizerChangedThrows) {
  nn::Linear fc(8, 4);
  fc->to(kCUDA);
  Tensor x = randn({16, 8}, kCUDA);
  auto adam = std::make_unique<optim::Adam>(fc->parameters(), optim::AdamOptions(1e-3));
  optim::Adam* opt = adam.get();
  cuda::StepGraph step(
      [&] {
        opt->zero_grad();
        Tensor loss = fc->forward(x).square().mean();
        loss.backward();
        opt->step();
        return loss;
      },
      {opt}, /*warmup_steps=*/1);
  for (int i = 0; i < 3; ++i) (void)step();
  EXPECT_TRUE(step.is_captured());
  const auto& st = static_cast<const optim::AdamParamState&>(
      *adam->state().at(fc->weight.unsafeGetTensorImpl()));
  EXPECT_EQ(st.step(), 3);
  // Moved: the counts carry on (StepGraph, which holds the old address, sees the learning
  // rates gone and captures again).
  optim::Adam moved(std::move(*adam));
  opt = &moved;
  (void)step();
  EXPECT_EQ(
      static_cast<const optim::AdamParamState&>(*moved.state().at(fc->weight.unsafeGetTensorImpl()))
          .step(),
      4);
  // State replaced: the captured kernels would update the old tensors.
  moved.load_state_dict(moved.state_dict());
  std::string m = error_of([&] { (void)step(); });
  EXPECT_NE(m.find("state changed since the capture"), std::string::npos) << m;
  step.recapture();
  (void)step();
  // Destroyed.
  {
    optim::Adam gone(std::move(moved));
    opt = &gone;
    step.recapture();
    (void)step();
  }
  m = error_of([&] { (void)step(); });
  EXPECT_NE(m.find("no longer exists"), std::string::npos) << m;
}

TEST_F(CudaGraph, StepGraphRefusesAdagrad) {
  nn::Linear fc(8, 4);
  fc->to(kCUDA);
  Tensor x = randn({16, 8}, kCUDA);
  optim::Adagrad adagrad(fc->parameters(), optim::AdagradOptions(1e-2));
  cuda::StepGraph adagrad_step(
      [&] {
        adagrad.zero_grad();
        Tensor loss = fc->forward(x).square().mean();
        loss.backward();
        adagrad.step();
        return loss;
      },
      {&adagrad}, /*warmup_steps=*/1);
  (void)adagrad_step();  // the warm-up step runs eagerly: Adagrad is fine there
  std::string m = error_of([&] { (void)adagrad_step(); });
  EXPECT_NE(m.find("Adagrad.step"), std::string::npos) << m;
  EXPECT_NE(m.find("CUDA graph"), std::string::npos) << m;
  EXPECT_FALSE(adagrad_step.is_captured());
  EXPECT_EQ(cuda::getCurrentStream(), cuda::getDefaultStream());
  // Eager training goes on.
  optim::SGD sgd(fc->parameters(), optim::SGDOptions(0.1));
  sgd.zero_grad();
  fc->forward(x).square().mean().backward();
  sgd.step();
  EXPECT_TRUE(fc->weight.isfinite().all().item<bool>());
}

// Dropout in a captured step: each replay draws a new mask, the one the eager step draws from
// the same generator state, so graphed and eager training agree step by step.
TEST_F(CudaGraph, StepGraphWithDropoutMatchesEager) {
  auto make = [] {
    return nn::Sequential(nn::Linear(64, 128), nn::ReLU(), nn::Dropout(0.3), nn::Linear(128, 10));
  };
  manual_seed(0);
  nn::Sequential graphed = make();
  manual_seed(0);
  nn::Sequential eager = make();
  graphed->to(kCUDA);
  eager->to(kCUDA);
  const auto options = optim::SGDOptions(0.05).momentum(0.9);
  optim::SGD graphed_opt(graphed->parameters(), options), eager_opt(eager->parameters(), options);
  Tensor static_x = empty({32, 64}, kCUDA);
  Tensor static_y = empty({32}, TensorOptions(kInt64).device(kCUDA));
  cuda::StepGraph step(
      [&] {
        graphed_opt.zero_grad();
        Tensor loss = F::cross_entropy(graphed->forward(static_x), static_y);
        loss.backward();
        graphed_opt.step();
        return loss;
      },
      {&graphed_opt});
  std::vector<double> graphed_losses;
  for (int i = 0; i < 20; ++i) {
    const Tensor x = randn({32, 64}).cuda(), y = randint(10, {32}).cuda();
    static_x.copy_(x);
    static_y.copy_(y);
    manual_seed(1000 + i);
    const double got = step().item<double>();
    manual_seed(1000 + i);
    eager_opt.zero_grad();
    Tensor loss = F::cross_entropy(eager->forward(x), y);
    loss.backward();
    eager_opt.step();
    EXPECT_NEAR(got, loss.item<double>(), 1e-4 * (1 + std::abs(got))) << "step " << i;
    graphed_losses.push_back(got);
  }
  EXPECT_TRUE(step.is_captured());
  EXPECT_EQ(step.captures(), 1);
  const auto got = graphed->parameters(), want = eager->parameters();
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i], 1e-4);
}

TEST(CudaGraphNoGpu, StepGraphThrowsAClearError) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  const std::string m = error_of([] { cuda::StepGraph step([] { return Tensor(); }); });
  EXPECT_NE(m.find("cuda::StepGraph"), std::string::npos) << m;
}

}  // namespace
