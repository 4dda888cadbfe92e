// Test helpers for the data tests: a temporary folder, and writers of small MNIST IDX files
// (plain, or gzip-compressed when the test links zlib: EMBER_TEST_HAS_ZLIB).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#ifdef EMBER_TEST_HAS_ZLIB
#include <zlib.h>
#endif

namespace data_test {

// A fresh folder under the system's temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("ember_data_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void put_be32(std::vector<unsigned char>& out, uint32_t v) {
  out.push_back(static_cast<unsigned char>(v >> 24));
  out.push_back(static_cast<unsigned char>(v >> 16));
  out.push_back(static_cast<unsigned char>(v >> 8));
  out.push_back(static_cast<unsigned char>(v));
}

// The IDX bytes of `count` rows x cols images whose pixel (n, r, c) is pixel(n, r, c).
inline std::vector<unsigned char> idx_images(uint32_t count, uint32_t rows = 28, uint32_t cols = 28,
                                             uint32_t magic = 2051) {
  std::vector<unsigned char> out;
  put_be32(out, magic);
  put_be32(out, count);
  put_be32(out, rows);
  put_be32(out, cols);
  for (uint32_t n = 0; n < count; ++n) {
    for (uint32_t i = 0; i < rows * cols; ++i)
      out.push_back(static_cast<unsigned char>((n * 37 + i * 7) % 256));
  }
  return out;
}
inline unsigned char pixel(int64_t n, int64_t r, int64_t c) {
  return static_cast<unsigned char>((n * 37 + (r * 28 + c) * 7) % 256);
}

// Labels n % 10.
inline std::vector<unsigned char> idx_labels(uint32_t count, uint32_t magic = 2049) {
  std::vector<unsigned char> out;
  put_be32(out, magic);
  put_be32(out, count);
  for (uint32_t n = 0; n < count; ++n) out.push_back(static_cast<unsigned char>(n % 10));
  return out;
}

inline void write_file(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

#ifdef EMBER_TEST_HAS_ZLIB
inline void write_gz(const std::string& path, const std::vector<unsigned char>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}
#endif

// A whole split: <prefix>-images-idx3-ubyte and <prefix>-labels-idx1-ubyte ("train", "t10k").
inline void write_split(const TempDir& dir, const std::string& prefix, uint32_t count,
                        bool gz = false) {
  const std::string images = dir.file(prefix + "-images-idx3-ubyte");
  const std::string labels = dir.file(prefix + "-labels-idx1-ubyte");
  if (!gz) {
    write_file(images, idx_images(count));
    write_file(labels, idx_labels(count));
    return;
  }
#ifdef EMBER_TEST_HAS_ZLIB
  write_gz(images + ".gz", idx_images(count));
  write_gz(labels + ".gz", idx_labels(count));
#endif
}

}  // namespace data_test
