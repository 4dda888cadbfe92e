// Probe (not part of the build): GPU time per call of ember's float32 products at the MLP's
// shapes (batch 128, 784-512-256-10: the forward products, x @ W^T, and the input gradients,
// dY @ W; and the 1024-row forward), from 200 eager calls between two CUDA events queued behind
// a long product. Run it once as is (ember's small GEMM) and once with
// EMBER_CUDA_SMALL_GEMM_MACS=0 (cuBLAS) to compare.
// Build and run on the GPU machine against a build in $B:
//   g++ -O2 -std=c++17 -I$B/include tools/probes/small_gemm_time.cpp -L$B -lember \
//     -Wl,-rpath,$B -o /tmp/sg && /tmp/sg
#include <ember/ember.h>

#include <cstdio>

int main() {
  using namespace ember;
  struct Shape {
    int64_t m, k, n;
    bool b_transposed;  // b is W^T (a view of W [n, k]), as linear's forward passes it
  };
  const Shape shapes[] = {{128, 784, 512, true},  {128, 512, 256, true}, {128, 256, 10, true},
                          {128, 256, 512, false}, {128, 10, 256, false}, {1024, 784, 512, true}};
  for (const Shape& s : shapes) {
    const Tensor a = randn({s.m, s.k}, kCUDA);
    const Tensor b = s.b_transposed ? randn({s.n, s.k}, kCUDA).t() : randn({s.k, s.n}, kCUDA);
    for (int i = 0; i < 20; ++i) mm(a, b);
    // A long product first keeps the GPU busy while the host queues the timed calls, so the
    // span between the events is GPU time, not the host's cost per call.
    const Tensor big = randn({4096, 4096}, kCUDA);
    cuda::synchronize();
    cuda::Event start(true), stop(true);
    mm(big, big);
    constexpr int kCalls = 200;
    start.record();
    for (int i = 0; i < kCalls; ++i) mm(a, b);
    stop.record();
    std::printf("%5lld x %4lld x %4lld %s: %7.2f us per call\n", static_cast<long long>(s.m),
                static_cast<long long>(s.k), static_cast<long long>(s.n),
                s.b_transposed ? "(x @ W^T)" : "(dY @ W) ",
                1000.0 * start.elapsed_time(stop) / kCalls);
  }
  return 0;
}
