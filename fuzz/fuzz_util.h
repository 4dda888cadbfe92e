// Helpers shared by the fuzz targets: reading the fuzzer's bytes as small numbers, writing an
// input to a file under /dev/shm (the file readers take paths), and failing loudly on a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <ember/core/tensor.h>

namespace ember_fuzz {

// The fuzzer's bytes read front to back; past the end every read gives 0.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A small signed number in [lo, lo + span): arguments that are often valid, sometimes not.
  int64_t small(int64_t lo, int64_t span) { return lo + static_cast<int64_t>(u8() % span); }
  // Any signed byte, for arguments that should mostly be wrong.
  int64_t any() { return static_cast<int8_t>(u8()); }
  const uint8_t* rest() const { return data_ + (pos_ < size_ ? pos_ : size_); }
  size_t rest_size() const { return pos_ < size_ ? size_ - pos_ : 0; }
  void skip(size_t n) { pos_ = pos_ + n < size_ ? pos_ + n : size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// EMBER_FUZZ_VERBOSE=1: say what each input did (for reading a corpus or reducing a finding).
inline bool verbose() {
  static const bool on = std::getenv("EMBER_FUZZ_VERBOSE") != nullptr;
  return on;
}

// A scratch folder of this process under /dev/shm (or /tmp), made once and removed at exit.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string d = std::string(base) + "/ember_fuzz_" + std::to_string(getpid());
    std::filesystem::create_directories(d);
    return d;
  }();
  static const bool cleanup = std::atexit([] {
                                std::error_code ignored;
                                std::filesystem::remove_all(scratch_dir(), ignored);
                              }) == 0;
  (void)cleanup;
  return dir;
}

// Writes the bytes to `path`, replacing it.
inline void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

// A finding: say what and stop (libFuzzer keeps the input as a crash reproducer).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "ember fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

constexpr int64_t kMaxTouch = int64_t{1} << 20;

// Checks that every element of `t` lies inside its storage (from its sizes, strides and storage
// offset; nothing to check for a tensor without elements), then reads every element (clone;
// only up to kMaxTouch elements), so that a wrong geometry the check missed is seen by
// AddressSanitizer.
inline void check_tensor(const ember::Tensor& t, const char* what) {
  if (!t.defined() || t.numel() == 0) return;
  const ember::TensorImpl& impl = *t.impl();
  // 128-bit: a wrong geometry may overflow 64 bits, and that must show here, not as UB
  __int128 lo = impl.storage_offset(), hi = impl.storage_offset();
  for (size_t d = 0; d < impl.sizes().size(); ++d) {
    const __int128 span = static_cast<__int128>(impl.sizes()[d] - 1) * impl.strides()[d];
    (span < 0 ? lo : hi) += span;
  }
  const auto element = static_cast<int64_t>(ember::element_size(impl.dtype()));
  const auto capacity = static_cast<int64_t>(impl.storage()->nbytes()) / element;
  if (lo < 0 || hi >= capacity) {
    std::string msg = std::string(what) + ": elements outside the storage: sizes [";
    for (int64_t s : impl.sizes()) msg += std::to_string(s) + ",";
    msg += "] strides [";
    for (int64_t s : impl.strides()) msg += std::to_string(s) + ",";
    msg += "] offset " + std::to_string(impl.storage_offset()) + ", element offsets " +
           std::to_string(static_cast<long long>(lo)) + ".." +
           std::to_string(static_cast<long long>(hi)) + ", storage holds " +
           std::to_string(capacity);
    finding(msg);
  }
  if (t.numel() > kMaxTouch) return;  // a broadcast view of billions: the geometry is enough
  const ember::Tensor copy = t.clone();
  if (copy.numel() != t.numel()) finding(std::string(what) + ": clone changed numel");
}

}  // namespace ember_fuzz
