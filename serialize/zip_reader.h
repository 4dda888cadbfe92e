// A small, validating reader of zip archives (the container of PyTorch's .pt files): the
// central directory, ZIP64 included, and stored or deflated entries. Private to the library.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <ember/serialize/file_io.h>

namespace ember::zip {

struct Entry {
  std::string name;
  uint64_t local_header_offset = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;  // uncompressed
  uint32_t crc32 = 0;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint16_t flags = 0;
};

// Opens `path` and reads its central directory. Every offset and size is checked against the
// file; a damaged or unsupported archive throws ember::Error "<op>: <path>: ...".
class Reader {
 public:
  Reader(const char* op, const std::string& path);

  const std::vector<Entry>& entries() const { return entries_; }
  const Entry* find(const std::string& name) const;  // nullptr when absent

  // Reads the entry's `size` bytes into dst (inflating a deflated entry) and checks its CRC-32.
  void read(const Entry& entry, void* dst) const;
  // The same into a string, refused when the entry is larger than max_size.
  std::string read_string(const Entry& entry, uint64_t max_size) const;

 private:
  uint64_t data_offset(const Entry& entry) const;
  void read_stored(const Entry& entry, uint64_t offset, void* dst) const;
  void read_deflated(const Entry& entry, uint64_t offset, void* dst) const;
  void read_central_directory();

  const char* op_;
  std::string path_;
  serialize_io::FdCloser file_;
  uint64_t file_size_ = 0;
  uint64_t central_directory_offset_ = 0;  // where entry data must end
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;  // name -> position in entries_
};

}  // namespace ember::zip
