// Probe (not part of the build): GPU time per call of ember's float32 products at the MLP's
// shapes (batch 128, 784-512-256-10: the forward products, x @ W^T, and the input gradients,
// dY @ W; and the 1024-row forward), from 200 eager calls between two CUDA events queued behind
// a long product. Run it once as is (ember's small GEMM) and once with
// EMBER_CUDA_SMALL_GEMM_MACS=0 (cuBLAS) to compare. `sg cnn` times the CNN's fc1 products
// instead (128x3136 @ 3136x128 with its bias, as linear's forward; 128x128 @ 128x3136, its
// input gradient); `sg cnn tune` enables cuda::tunable first (cuBLASLt's candidates and their
// split-K variants, timed on the first call).
// Build and run on the GPU machine against a build in $B:
//   g++ -O2 -std=c++17 -I$B/include tools/probes/small_gemm_time.cpp -L$B -lember \
//     -Wl,-rpath,$B -o /tmp/sg && /tmp/sg
#include <ember/ember.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <vector>

int main(int argc, char** argv) {
  using namespace ember;
  const bool cnn = argc > 1 && std::strcmp(argv[1], "cnn") == 0;
  if (argc > 2 && std::strcmp(argv[2], "tune") == 0) cuda::tunable::enable();
  struct Shape {
    int64_t m, k, n;
    bool b_transposed;  // b is W^T (a view of W [n, k]), as linear's forward passes it
  };
  const Shape shapes[] = {{128, 784, 512, true},  {128, 512, 256, true}, {128, 256, 10, true},
                          {128, 256, 512, false}, {128, 10, 256, false}, {1024, 784, 512, true}};
  const Shape cnn_shapes[] = {{128, 3136, 128, true}, {128, 128, 3136, false}};
  for (const Shape& s : cnn ? std::vector<Shape>(std::begin(cnn_shapes), std::end(cnn_shapes))
                            : std::vector<Shape>(std::begin(shapes), std::end(shapes))) {
    const Tensor a = randn({s.m, s.k}, kCUDA);
    const Tensor w = randn({s.n, s.k}, kCUDA), bias = randn({s.n}, kCUDA);
    const Tensor b = s.b_transposed ? w.t() : randn({s.k, s.n}, kCUDA);
    // the forward products of the CNN run as linear (the bias in cuBLASLt's epilogue)
    auto product = [&] { return cnn && s.b_transposed ? linear(a, w, bias) : mm(a, b); };
    for (int i = 0; i < 20; ++i) product();
    // A long product first keeps the GPU busy while the host queues the timed calls, so the
    // span between the events is GPU time, not the host's cost per call.
    const Tensor big = randn({4096, 4096}, kCUDA);
    cuda::synchronize();
    cuda::Event start(true), stop(true);
    mm(big, big);
    constexpr int kCalls = 200;
    start.record();
    for (int i = 0; i < kCalls; ++i) product();
    stop.record();
    std::printf("%5lld x %4lld x %4lld %s: %7.2f us per call\n", static_cast<long long>(s.m),
                static_cast<long long>(s.k), static_cast<long long>(s.n),
                s.b_transposed ? "(x @ W^T)" : "(dY @ W) ",
                1000.0 * start.elapsed_time(stop) / kCalls);
  }
  return 0;
}
