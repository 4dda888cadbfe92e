// Helpers shared by tests/test_serialize*.cpp: a scratch folder, whole-file reads and writes,
// byte-exact tensor comparison, and hand-made safetensors files for the error tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <ember/ember.h>

namespace serialize_test {

// A fresh folder under the system's temp dir, removed with everything in it at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ember_ser_XXXXXX").string();
    char* made = ::mkdtemp(pattern.data());
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = made;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  // Names of the entries in the folder (to see that no temporary file was left behind).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A safetensors file from a header text (padded to 8 bytes as the spec asks) and data bytes.
inline std::string make_safetensors(std::string header, const std::string& data) {
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(uint64_t(header.size()) >> (8 * i));
  return bytes + header + data;
}

// Same dtype, shape and bytes (bit-exact, NaN-safe).
inline void expect_identical(const ember::Tensor& actual, const ember::Tensor& expected,
                             const std::string& what) {
  ASSERT_TRUE(actual.defined()) << what;
  EXPECT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec()) << what;
  const ember::Tensor a = actual.cpu().contiguous(), e = expected.cpu().contiguous();
  ASSERT_EQ(a.nbytes(), e.nbytes()) << what;
  if (a.nbytes() > 0) {
    EXPECT_EQ(std::memcmp(a.data_ptr(), e.data_ptr(), a.nbytes()), 0) << what;
  }
}

// Runs fn, which must throw ember::Error whose message contains every one of `parts`.
inline void expect_error(const std::function<void()>& fn,
                         std::initializer_list<std::string> parts) {
  try {
    fn();
  } catch (const ember::Error& e) {
    const std::string msg = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
    }
    return;
  }
  ADD_FAILURE() << "expected an ember::Error";
}

}  // namespace serialize_test
