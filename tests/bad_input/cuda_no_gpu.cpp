// Bad-input suite, CUDA without a GPU: every way of asking for the GPU on a machine that has
// none must throw a clean ember::Error that says so (no abort, no CUDA runtime error escaping
// unwrapped). Skipped where a GPU is present.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <ember/optim/step_graph.h>

#include "bad_input.h"

using namespace ember;
using bad_input::expect_error;

namespace {

class BadCudaNoGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  }
};

// How the errors say there is no GPU: a CUDA build on a machine without one, or a build
// without CUDA (CI's sanitizer build). Alternatives separated by '|' (bad_input.h).
const char* kNoGpu =
    "no CUDA device is available|CUDA is not available (no GPU found)|ember was built without "
    "CUDA";

TEST_F(BadCudaNoGpu, TensorCuda) {
  expect_error([] { ones({2}).cuda(); }, {"cuda", kNoGpu});
}

TEST_F(BadCudaNoGpu, ToCudaWithDtype) {
  expect_error([] { ones({2}).to(Device(kCUDA), kFloat64); }, {"cuda", kNoGpu});
}

TEST_F(BadCudaNoGpu, ToCudaIndexOne) {
  expect_error([] { ones({2}).to(Device("cuda:1")); }, {"to", "cuda:1", kNoGpu});
}

TEST_F(BadCudaNoGpu, ZerosOnCudaZero) {
  expect_error([] { zeros({2, 3}, Device(kCUDA, 0)); }, {"zeros", "cuda:0", kNoGpu});
}

TEST_F(BadCudaNoGpu, RandnOnCuda) {
  expect_error([] { randn({4}, Device(kCUDA, 0)); }, {"randn", "cuda:0", kNoGpu});
}

TEST_F(BadCudaNoGpu, ArangeOnCuda) {
  expect_error([] { arange(5, TensorOptions().device(Device(kCUDA, 0))); }, {"cuda", kNoGpu});
}

TEST_F(BadCudaNoGpu, FromBlobOnCuda) {
  float data[2] = {1, 2};
  expect_error([&] { from_blob(data, {2}, TensorOptions().device(Device(kCUDA, 0))); },
               {"from_blob", "cuda:0", kNoGpu});
}

TEST_F(BadCudaNoGpu, PinMemory) {
  expect_error([] { ones({2}).pin_memory(); }, {"pin_memory", kNoGpu});
}

TEST_F(BadCudaNoGpu, ModuleToCuda) {
  nn::Linear fc(2, 3);
  expect_error([&] { fc->to(Device(kCUDA, 0)); }, {"cuda:0", kNoGpu});
}

TEST_F(BadCudaNoGpu, SetDevice) {
  expect_error([] { cuda::set_device(0); }, {"set_device", "0", "does not exist|not possible"});
}

TEST_F(BadCudaNoGpu, CurrentDevice) {
  expect_error([] { cuda::current_device(); }, {"cuda::current_device", kNoGpu});
}

// Open (cuda/stream.cpp, not changed here): without a GPU, the stream and event calls report
// cudaGetDevice's error ("CUDA driver version is insufficient") instead of naming the call and
// saying there is no GPU. Asserted: a clean ember::Error from the CUDA layer.
TEST_F(BadCudaNoGpu, StreamFromPool) {
  expect_error([] { cuda::getStreamFromPool(); },
               {"getStreamFromPool", "no CUDA device is available|built without CUDA"});
}

TEST_F(BadCudaNoGpu, EventRecord) {
  cuda::Event event;
  expect_error([&] { event.record(); },
               {"Event::record", "no CUDA device is available|built without CUDA"});
}

TEST_F(BadCudaNoGpu, ModuleWithOptions) {
  const char* source = R"(extern "C" __global__ void k(float* x) { x[0] = 1; })";
  expect_error([&] { cuda::Module mod(source, {"-DN=4"}, {}, "k.cu"); }, {"cuda::Module", kNoGpu});
}

TEST_F(BadCudaNoGpu, GraphCaptureEndWithoutBegin) {
  cuda::Graph graph;
  expect_error([&] { graph.capture_end(); },
               {"cuda::Graph::capture_end", "capture_begin was not called|built without CUDA"});
}

TEST_F(BadCudaNoGpu, GraphCaptureStream) {
  expect_error([] { cuda::graph_capture_stream(); }, {"cuda::graph_capture_stream", kNoGpu});
}

TEST_F(BadCudaNoGpu, GraphCaptureOnAnExplicitStream) {
  cuda::Graph graph;
  expect_error([&] { cuda::GraphCapture capture(graph, cuda::Stream(nullptr, 0)); },
               {"StreamGuard|GraphCapture", "no CUDA device is available|built without CUDA"});
  EXPECT_FALSE(graph.is_capturing());
}

TEST_F(BadCudaNoGpu, StepGraphWithOptimizer) {
  Tensor w = zeros({2}, TensorOptions().requires_grad(true));
  optim::SGD sgd({w}, optim::SGDOptions(0.1));
  expect_error([&] { cuda::StepGraph step([&] { return w.sum(); }, {&sgd}, 0); },
               {"cuda::StepGraph", kNoGpu});
}

}  // namespace
