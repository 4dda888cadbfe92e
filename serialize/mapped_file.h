// A file mapped privately (copy-on-write) into memory, and CPU storages that point into it: how
// large safetensors files load without copying. Private to the library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <ember/core/storage.h>

namespace ember::serialize_io {

// The whole file at fd, mapped MAP_PRIVATE: reads see the file's pages (from the page cache,
// faulted in on first touch), writes go to private copies, so the file never changes. The
// mapping lives until the last storage made from it dies.
class MappedFile : public std::enable_shared_from_this<MappedFile> {
 public:
  // nullptr when the system refuses the mapping (the caller then reads the file instead).
  static std::shared_ptr<MappedFile> map(int fd, uint64_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return static_cast<const unsigned char*>(base_); }
  // A CPU storage of bytes [offset, offset + nbytes) of the file; it keeps the mapping alive.
  Storage storage(uint64_t offset, uint64_t nbytes);

 private:
  MappedFile(void* base, uint64_t size) : base_(base), size_(size) {}
  void* base_;
  uint64_t size_;
};

}  // namespace ember::serialize_io
