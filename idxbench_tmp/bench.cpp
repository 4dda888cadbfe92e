#include <ember/ember.h>
#include <chrono>
#include <cstdio>
using namespace ember;
template <class F>
double per_call(F f, int batch = 50) {
  f();
  cuda::synchronize();
  double best = 1e9;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) f();
    cuda::synchronize();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / batch);
  }
  return best * 1e6;
}
int main() {
  const int64_t n = 1 << 20;
  Tensor x = randn({n}, kCUDA);
  Tensor idx = randint(0, n, {n}, TensorOptions(kInt64).device(kCUDA));
  std::printf("ember index_1M %.2f us\n", per_call([&] { x.index({idx}); }));
  std::printf("ember index_select_1M %.2f us\n", per_call([&] { x.index_select(0, idx); }));
  std::printf("ember remainder+index_select_1M %.2f us\n", per_call([&] { x.index_select(0, idx.remainder(n)); }));
  std::printf("ember remainder_1M %.2f us\n", per_call([&] { idx.remainder(n); }));
  std::printf("ember wrap3_1M %.2f us\n", per_call([&] { where(idx < 0, idx + n, idx); }));
  Tensor x2 = randn({1024, 1024}, kCUDA);
  Tensor r = randint(0, 1024, {1024}, TensorOptions(kInt64).device(kCUDA));
  std::printf("ember index_rows_1Kx1K %.2f us\n", per_call([&] { x2.index({r}); }));
  Tensor m = x > 0;
  std::printf("ember mask_1M %.2f us\n", per_call([&] { x.index({m}); }, 10));
  Tensor y = x.clone();
  std::printf("ember index_put_1M %.2f us\n", per_call([&] { y.index_put_({idx}, 1.0); }, 10));
  std::printf("ember index_put_acc_1M %.2f us\n", per_call([&] { y.index_put_({idx}, x, true); }, 10));
  return 0;
}
