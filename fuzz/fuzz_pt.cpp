// Fuzz target: the .pt reader (zip + restricted unpickler, ember::load_pt), CRCs fixed up so that
// mutations reach the pickle. Tensors inside their storage or ember::Error; else a finding.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <ember/serialize/serialize.h>

#include "fuzz_util.h"

namespace {

uint32_t crc32(const uint8_t* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return crc ^ 0xffffffffu;
}
uint32_t get(const std::vector<uint8_t>& b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | b[at + static_cast<size_t>(i)];
  return v;
}
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

// Rewrites the CRC-32 of every stored entry (central directory and local header) to match its
// bytes: the reader checks them, and without this nearly every mutation of data.pkl would stop
// at a CRC mismatch instead of reaching the unpickler.
void fix_crcs(std::vector<uint8_t>& b) {
  for (size_t c = 0; c + 46 <= b.size(); ++c) {
    if (get(b, c, 4) != 0x02014b50u || get(b, c + 10, 2) != 0) continue;  // central, stored
    const size_t size = get(b, c + 20, 4), local = get(b, c + 42, 4);
    if (local > b.size() || b.size() - local < 30 || get(b, local, 4) != 0x04034b50u) continue;
    const size_t start = local + 30 + get(b, local + 26, 2) + get(b, local + 28, 2);
    if (start > b.size() || b.size() - start < size) continue;
    const uint32_t crc = crc32(b.data() + start, size);
    put32(b, c + 16, crc);
    put32(b, local + 14, crc);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ember_fuzz::scratch_dir() + "/input.pt";
  std::vector<uint8_t> bytes(data, data + size);
  fix_crcs(bytes);
  ember_fuzz::write_file(path, bytes.data(), bytes.size());
  try {
    const auto tensors = ember::load_pt(path);
    for (const auto& [name, tensor] : tensors) ember_fuzz::check_tensor(tensor, name.c_str());
    if (ember_fuzz::verbose()) std::fprintf(stderr, "  loaded %zu tensors\n", tensors.size());
  } catch (const ember::Error& e) {
    // a refused file: expected
    if (ember_fuzz::verbose()) std::fprintf(stderr, "  refused: %s\n", e.what());
  }
  return 0;
}
