// A short tour of ember's tensors: creation, broadcasting, matmul, reductions, softmax and
// views, each result printed. README's first command builds and runs it.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  manual_seed(0);

  Tensor a = arange(6, kFloat32).view({2, 3});
  Tensor bias = tensor({10.0f, 20.0f, 30.0f});
  std::cout << "a =\n" << a << "\n\n";
  std::cout << "a + bias (broadcast [2, 3] + [3]) =\n" << a + bias << "\n\n";

  Tensor w = ones({3, 2}) * 0.5;
  std::cout << "a.matmul(w) =\n" << a.matmul(w) << "\n\n";

  std::cout << "a.sum() = " << a.sum().item<float>() << ", a.mean(1) =\n" << a.mean({1}) << "\n\n";
  auto [values, indices] = a.max(1);
  std::cout << "a.max(1): values\n" << values << "\nindices\n" << indices << "\n\n";

  std::cout << "softmax(a, 1) =\n" << softmax(a, 1) << "\n\n";

  // Views share storage: writing through a transposed slice changes a.
  Tensor col = a.t()[1];
  col.fill_(-1);
  std::cout << "after a.t()[1].fill_(-1), a =\n" << a << "\n\n";

  Tensor x = randn({2, 4});
  std::cout << "randn({2, 4}) with seed 0 =\n" << x << "\n\n";
  std::cout << "relu(x) > 0 =\n" << (relu(x) > 0) << "\n\n";

  try {
    matmul(a, a);
  } catch (const Error& e) {
    std::cout << "matmul(a, a) throws ember::Error: " << e.what() << "\n";
  }
  std::cout << "CUDA available: " << (cuda::is_available() ? "yes" : "no") << "\n";
  return 0;
}
