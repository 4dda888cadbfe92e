// Instruction-count probe: N iterations of s = s + 1 and of (w * x).sum().backward() on 8 floats.
#include <ember/ember.h>
#include <cstdlib>
#include <string>
using namespace ember;
int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "add";
  const int n = argc > 2 ? std::atoi(argv[2]) : 10000;
  Tensor s = zeros({8});
  Tensor w = ones({8}).requires_grad_(true), x = ones({8});
  for (int i = 0; i < 100; ++i) { s = s + 1; (w * x).sum().backward(); }
  if (which == "add") {
    for (int i = 0; i < n; ++i) s = s + 1;
  } else {
    for (int i = 0; i < n; ++i) (w * x).sum().backward();
  }
  return s.sum().item<float>() > 0 ? 0 : 1;
}
