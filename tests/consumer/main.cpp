// The outside consumer: includes <ember/ember.h> from an install prefix, runs a few ops and
// checks their values, so a broken install (missing header, bad link setup) fails CI.
#include <ember/ember.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace ember;
  Tensor a = arange(6, kFloat32).view({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  Tensor b = ones({3});
  Tensor c = a + b;                           // broadcast: [[1, 2, 3], [4, 5, 6]]
  Tensor m = matmul(c, c.t());                // [[14, 32], [32, 77]]
  const float total = m.sum().item<float>();  // 155
  const float last = softmax(c, 1)[1][2].item<float>();
  const float expected_last = 1.0f / (1.0f + std::exp(-1.0f) + std::exp(-2.0f));
  bool threw = false;
  try {
    matmul(a, a);  // [2, 3] x [2, 3]: must throw, not abort
  } catch (const Error&) {
    threw = true;
  }
  const bool ok = total == 155.0f && std::fabs(last - expected_last) < 1e-6f && threw &&
                  c.sizes() == IntArrayRef({2, 3});
  std::printf("consumer: sum %g, softmax %g (expected %g), matmul error %s, cuda %s: %s\n", total,
              last, expected_last, threw ? "thrown" : "missing",
              cuda::is_available() ? "available" : "not available", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
