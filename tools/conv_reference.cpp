// Writes tests/data/conv_reference.txt: LibTorch's outputs and input gradients of every case
// of tests/cases/conv_cases.inc (the same source tests/test_nn_conv.cpp compiles for ember).
// One line per case: name, then "o" or "g" entries (an output or an input's gradient of
// sum_k (out_k * coef_k)) as sizes:values (%.17g), separated by ';'.
// Build: g++ -std=c++17 -O1 tools/conv_reference.cpp -Itests/cases
//          -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -o /tmp/conv_reference
//        /tmp/conv_reference > tests/data/conv_reference.txt
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace NS = torch;
using torch::Tensor;

struct ConvCase {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> fn;
};

#include "conv_cases.inc"

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
  for (int64_t i = 0; i < t.dim(); ++i) std::printf("%s%lld", i ? "," : "", (long long)t.size(i));
  std::printf(":");
  Tensor flat = t.to(torch::kFloat64).reshape(-1);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf("%s%.17g", i ? " " : "", flat[i].item<double>());
}

int main() {
  for (const ConvCase& c : conv_cases()) {
    std::vector<Tensor> in;
    for (size_t i = 0; i < c.shapes.size(); ++i)
      in.push_back(wave(c.shapes[i], 0.5 + i).requires_grad_(true));
    std::vector<Tensor> out = c.fn(in);
    std::printf("%s", c.name.c_str());
    Tensor loss = torch::zeros({}, torch::kFloat64);
    for (const Tensor& o : out) {
      print('o', o.detach());
      if (!o.is_floating_point()) continue;
      loss = loss +
             (o * (torch::arange(o.numel(), torch::kFloat64) * 0.1 + 1.5).reshape(o.sizes())).sum();
    }
    loss.backward();
    for (const Tensor& x : in) print('g', x.grad());
    std::printf("\n");
  }
}
