// Writes tests/data/cnn_reference.txt: LibTorch's (1.13's, Debian's libtorch-dev) outputs and
// input gradients of every case of tests/cases/cnn_cases.inc, the same source that
// tests/test_nn_norm.cpp and tests/test_nn_conv_modules.cpp compile for ember. One line per case:
// the name, then "o" (an output), "g" (an input's gradient of sum_k out_k * coef_k) or "n" (an
// input without one) entries as sizes:values (%.17g), separated by ';'.
// Build: g++ -std=c++17 -O1 tools/cnn_reference.cpp -Itests/cases
//          -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -o /tmp/cnn_reference
//        /tmp/cnn_reference > tests/data/cnn_reference.txt
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace NS = torch;
using torch::Tensor;

struct CnnCase {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;
};
constexpr auto no_value = c10::nullopt;

#include "cnn_cases.inc"

// sin(0.37 i + phase) over `shape` (float64), i the flat index: the inputs of every case.
Tensor wave(const std::vector<int64_t>& shape, double phase) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * i + phase);
  return torch::tensor(v, torch::kFloat64).reshape(shape);
}

void print(char kind, const Tensor& t) {
  std::printf(";%c ", kind);
  if (!t.defined()) {
    std::printf(":");
    return;
  }
  for (int64_t i = 0; i < t.dim(); ++i) std::printf("%s%lld", i ? "," : "", (long long)t.size(i));
  std::printf(":");
  Tensor flat = t.to(torch::kFloat64).reshape(-1);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf("%s%.17g", i ? " " : "", flat[i].item<double>());
}

void run(const std::vector<CnnCase>& cases) {
  for (const CnnCase& c : cases) {
    torch::manual_seed(0);
    std::vector<Tensor> in;
    for (size_t i = 0; i < c.shapes.size(); ++i)
      in.push_back(wave(c.shapes[i], 0.5 + i).requires_grad_(true));
    std::vector<Tensor> out = c.fn(in);
    std::printf("%s", c.name.c_str());
    Tensor loss = torch::zeros({}, torch::kFloat64);
    for (const Tensor& o : out) {
      print('o', o.detach());
      if (!o.is_floating_point() || !o.requires_grad()) continue;
      loss = loss +
             (o * (torch::arange(o.numel(), torch::kFloat64) * 0.1 + 1.5).reshape(o.sizes())).sum();
    }
    if (loss.requires_grad()) loss.backward();
    for (const Tensor& x : in) print(x.grad().defined() ? 'g' : 'n', x.grad());
    std::printf("\n");
  }
}

int main() {
  run(norm_cases());
  run(module_cases());
}
