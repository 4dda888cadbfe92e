// Runtime-compiled kernels (cuda/module.h): NVRTC sources launched with tensors and scalars,
// checked against ember's own ops on the CPU; compile errors, argument checks, options,
// shared memory, streams, and ordering after batched small ops.
#include <ember/ember.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace {

using namespace ember;

const char* kSource = R"(
extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void axpy(float* y, const float* x, double alpha, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = (float)(alpha * x[i]) + y[i];
}
extern "C" __global__ void block_sums(const float* x, float* out, int n) {
  extern __shared__ float partial[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
extern "C" __global__ void store_small(float* out, signed char a, short b, unsigned char c) {
  out[0] = a; out[1] = b; out[2] = c;
}
extern "C" __global__ void fill_rows(float* m, int cols) {  // m[y][x] = y * 100 + x + OFFSET
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < cols) m[y * cols + x] = y * 100.0f + x + OFFSET;
}
)";

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CudaModuleNoGpu, ThrowsAClearError) {
  if (cuda::is_available()) GTEST_SKIP() << "a GPU is present";
  const std::string m = message_of([] { cuda::Module mod(kSource); });
  EXPECT_NE(m.find("cuda::Module"), std::string::npos) << m;
}

class CudaModule : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(CudaModule, AddMatchesTheCpu) {
  cuda::Module mod(kSource, {"-DOFFSET=0"});
  const int n = 1000;
  Tensor a = randn({n}), b = randn({n});
  Tensor ga = a.cuda(), gb = b.cuda(), gc = empty({n}, kCUDA);
  mod.function("add").launch(cuda::Dim3((n + 127) / 128), {128}, ga, gb, gc, n);
  EXPECT_TRUE(equal(gc.cpu(), a + b));
  EXPECT_EQ(mod.function("add").num_params(), 4);
}

TEST_F(CudaModule, ScalarsOfEverySize) {
  cuda::Module mod(kSource, {"-DOFFSET=0"});
  Tensor x = randn({300}), y = randn({300});
  Tensor gy = y.cuda();
  mod.function("axpy").launch({3}, {128}, gy, x.cuda(), 0.5, int64_t{300});
  EXPECT_TRUE(allclose(gy.cpu(), y + x * 0.5, 1e-6, 1e-6));
  Tensor out = zeros({3}, kCUDA);
  mod.function("store_small").launch({1}, {1}, out, int8_t{-5}, int16_t{300}, uint8_t{200});
  EXPECT_TRUE(equal(out.cpu(), tensor({-5.0f, 300.0f, 200.0f})));
}

TEST_F(CudaModule, DynamicSharedMemoryAnd2DGrids) {
  cuda::Module mod(kSource, {"-DOFFSET=7"});
  Tensor x = randn({1024});
  Tensor sums = empty({8}, kCUDA);
  mod.function("block_sums")
      .launch_with_shared({8}, {128}, 128 * sizeof(float), x.cuda(), sums, 1024);
  EXPECT_TRUE(allclose(sums.cpu(), x.view({8, 128}).sum(1), 1e-4, 1e-4));

  // Past 48 KiB a kernel must opt in to more dynamic shared memory: the launch does it.
  Tensor x1k = randn({1024}), sum1k = empty({1}, kCUDA);
  mod.function("block_sums").launch_with_shared({1}, {1024}, 64 << 10, x1k.cuda(), sum1k, 1024);
  EXPECT_TRUE(allclose(sum1k.cpu(), x1k.sum().view({1}), 1e-3, 1e-3));

  Tensor m = empty({3, 40}, kCUDA);
  mod.function("fill_rows").launch(cuda::Dim3(2, 3), {32}, m, 40);  // the -D option
  Tensor expected = arange(3, kFloat32).view({3, 1}) * 100 + arange(40, kFloat32) + 7;
  EXPECT_TRUE(equal(m.cpu(), expected));
}

// Template kernels through NVRTC name expressions, looked up by those names.
TEST_F(CudaModule, TemplateKernelsByNameExpression) {
  cuda::Module mod(R"(
template <class T> __global__ void scale(T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
})",
                   {}, {"scale<float>", "scale<double>"});
  Tensor f = arange(100, kFloat32).cuda(), d = arange(100, kFloat64).cuda();
  mod.function("scale<float>").launch({1}, {128}, f, 3.0f, 100);
  mod.function("scale<double>").launch({1}, {128}, d, 0.5, 100);
  EXPECT_TRUE(equal(f.cpu(), arange(100, kFloat32) * 3));
  EXPECT_TRUE(equal(d.cpu(), arange(100, kFloat64) * 0.5));
  EXPECT_NE(message_of([&] { mod.function("scale<int>"); }).find("scale<int>"), std::string::npos);
}

// A chosen stream (CuPy's stream=), and headers given as strings.
TEST_F(CudaModule, LaunchOnAStreamWithAHeaderFromAString) {
  cuda::Module mod("#include \"offset.h\"\n" + std::string(kSource), {}, {}, "with_header.cu",
                   {{"offset.h", "#define OFFSET 5\n"}});
  const cuda::Stream side = cuda::getStreamFromPool();
  Tensor m = empty({2, 40}, kCUDA);
  cuda::synchronize();  // m's allocation on the current stream is done before the side uses it
  mod.function("fill_rows").launch_on(side, cuda::Dim3(2, 2), {32}, 0, m, 40);
  side.synchronize();
  EXPECT_EQ(cuda::getCurrentStream(), cuda::getDefaultStream());  // restored
  Tensor expected = arange(2, kFloat32).view({2, 1}) * 100 + arange(40, kFloat32) + 5;
  EXPECT_TRUE(equal(m.cpu(), expected));
}

TEST_F(CudaModule, CompileErrorsCarryTheLog) {
  const std::string m = message_of([] {
    cuda::Module mod("extern \"C\" __global__ void k(float* x) { x[0] = undefined_name; }", {}, {},
                     "broken.cu");
  });
  EXPECT_NE(m.find("broken.cu"), std::string::npos) << m;
  EXPECT_NE(m.find("undefined_name"), std::string::npos) << m;
  // OFFSET undefined: the -D option is what makes kSource compile
  EXPECT_NE(message_of([] { cuda::Module mod(kSource); }).find("OFFSET"), std::string::npos);
}

TEST_F(CudaModule, BadArgumentsAreErrorsNotCrashes) {
  cuda::Module mod(kSource, {"-DOFFSET=0"});
  cuda::Function add = mod.function("add");
  Tensor g = zeros({4}, kCUDA);
  std::string m = message_of([&] { add.launch({1}, {4}, g, g, g); });
  EXPECT_NE(m.find("takes 4 arguments, got 3"), std::string::npos) << m;
  m = message_of([&] { add.launch({1}, {4}, g, g, g, int64_t{4}); });  // int parameter
  EXPECT_NE(m.find("argument 3 is a int64 (8 bytes)"), std::string::npos) << m;
  m = message_of([&] { add.launch({1}, {4}, zeros({4}), g, g, 4); });
  EXPECT_NE(m.find("CUDA tensors"), std::string::npos) << m;
  // Launch shapes CUDA can't run are refused before the launch, naming the kernel.
  m = message_of([&] { add.launch({0}, {4}, g, g, g, 4); });
  EXPECT_NE(m.find("add): grid and block sizes must be at least 1"), std::string::npos) << m;
  m = message_of([&] { add.launch({1}, {1025}, g, g, g, 4); });
  EXPECT_NE(m.find("block (1025, 1, 1) exceeds CUDA's limits"), std::string::npos) << m;
  m = message_of([&] { add.launch({1}, {32, 64}, g, g, g, 4); });
  EXPECT_NE(m.find("has 2048 threads"), std::string::npos) << m;
  m = message_of([&] { add.launch({1, 65536}, {4}, g, g, g, 4); });
  EXPECT_NE(m.find("exceeds CUDA's limits"), std::string::npos) << m;
  m = message_of([&] { add.launch_with_shared({1}, {4}, size_t(1) << 30, g, g, g, 4); });
  EXPECT_NE(m.find("dynamic shared memory"), std::string::npos) << m;
  m = message_of([&] { mod.function("no_such_kernel"); });
  EXPECT_NE(m.find("no_such_kernel"), std::string::npos) << m;
}

TEST_F(CudaModule, SeesRecordedSmallOpsAndRunsOnTheCurrentStream) {
  cuda::Module mod(kSource, {"-DOFFSET=0"});
  Tensor a = ones({8}, kCUDA) * 3;  // small ops: recorded, not yet launched
  Tensor b = full({8}, 2.0f, kCUDA);
  Tensor c = empty({8}, kCUDA);
  cuda::Stream side = cuda::getStreamFromPool();
  cuda::Event ready;
  ready.record();
  {
    cuda::StreamGuard guard(side);
    ready.block(side);
    mod.function("add").launch({1}, {32}, a, b, c, 8);
    c.add_(1);  // ordered after the kernel on the side stream
  }
  side.synchronize();
  EXPECT_TRUE(equal(c.cpu(), full({8}, 6.0f)));
}

}  // namespace

// A tensor on another GPU than the module's is refused before the launch, by cuda::Module
// and by ElementwiseKernel (needs two GPUs; skipped on one).
TEST_F(CudaModule, TensorOnAnotherDeviceIsRefusedBeforeTheLaunch) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  cuda::Module mod(kSource);  // compiled for cuda:0, the current device
  const Tensor a = ones({8}, kCUDA), c = empty({8}, kCUDA);
  const Tensor b1 = ones({8}, Device(kCUDA, 1));
  std::string m = message_of([&] { mod.function("add").launch({1}, {32}, a, b1, c, 8); });
  EXPECT_NE(m.find("argument 1 is a tensor on cuda:1 but the module runs on cuda:0"),
            std::string::npos)
      << m;
  cuda::ElementwiseKernel add("float32 x, float32 y", "float32 z", "z = x + y", "add2");
  m = message_of([&] { (void)add(a, b1); });
  EXPECT_NE(m.find("tensors on cuda:0 and cuda:1"), std::string::npos) << m;
}
