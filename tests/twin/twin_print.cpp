// Prints every twin snippet's record as one JSON line, in name order. tools/twin-libtorch.sh
// builds it against LibTorch to make libtorch_records.jsonl; twin_compare.cpp is ember's side.
#include <algorithm>
#include <cstring>
#include <iostream>

#include "twin.h"

int main() {
  auto snippets = twin::registry();
  std::sort(snippets.begin(), snippets.end(),
            [](const auto& a, const auto& b) { return std::strcmp(a.first, b.first) < 0; });
  for (const auto& [name, fn] : snippets) std::cout << twin::run_json(name, fn) << "\n";
  return 0;
}
