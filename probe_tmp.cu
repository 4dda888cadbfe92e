// Temporary probe (not committed): host enqueue cost vs GPU throughput of tiny launches.
#include <ember/ember.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
using namespace ember;
__global__ void empty_kernel(float* p) { if (p && threadIdx.x == 1000) p[0] = 1; }
using clk = std::chrono::steady_clock;
template <class F> void measure(const char* name, int n, F f) {
  for (int i = 0; i < 200; ++i) f();
  cudaDeviceSynchronize();
  auto t0 = clk::now();
  for (int i = 0; i < n; ++i) f();
  auto t1 = clk::now();
  cudaDeviceSynchronize();
  auto t2 = clk::now();
  printf("%-28s host %.2f us/op, with GPU %.2f us/op (n=%d)\n", name,
         std::chrono::duration<double, std::micro>(t1 - t0).count() / n,
         std::chrono::duration<double, std::micro>(t2 - t0).count() / n, n);
}
int main() {
  float* raw; cudaMalloc(&raw, 64);
  cudaStream_t st; cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  for (int n : {500, 100000}) {
    measure("empty kernel, stream 0", n, [&] { empty_kernel<<<1, 128>>>(raw); });
    measure("empty kernel, own stream", n, [&] { empty_kernel<<<1, 128, 0, st>>>(raw); });
    Tensor s = ones({8}, kCUDA);
    measure("s = s + 1", n, [&] { s = s + 1; });
    measure("s.add_(1)", n, [&] { s.add_(1); });
    Tensor w = randn({8}, kCUDA).requires_grad_(); Tensor x = randn({8}, kCUDA);
    measure("(w*x).sum().backward()", n / 5, [&] { (w * x).sum().backward(); });
  }
  return 0;
}
