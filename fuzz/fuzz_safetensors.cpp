// Fuzz target: the safetensors reader (ember::load_tensors). Any input must load tensors that lie
// inside their storage or throw ember::Error; anything else is a finding.
#include <cstdio>
#include <string>

#include <ember/serialize/serialize.h>

#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ember_fuzz::scratch_dir() + "/input.safetensors";
  ember_fuzz::write_file(path, data, size);
  try {
    ember::TensorMetadata metadata;
    const auto tensors = ember::load_tensors(path, &metadata);
    for (const auto& [name, tensor] : tensors) ember_fuzz::check_tensor(tensor, name.c_str());
    if (ember_fuzz::verbose()) std::fprintf(stderr, "  loaded %zu tensors\n", tensors.size());
  } catch (const ember::Error& e) {
    // a refused file: expected
    if (ember_fuzz::verbose()) std::fprintf(stderr, "  refused: %s\n", e.what());
  }
  return 0;
}
