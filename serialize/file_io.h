// Small POSIX file helpers shared by the readers and writers of serialize/: an fd closer,
// errno's text, and reads and writes that loop until done. Private to the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ember::serialize_io {

// Closes fd on scope exit (errors are reported by an explicit close where they matter).
struct FdCloser {
  int fd = -1;
  FdCloser() = default;
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser();
};

std::string errno_text();

// Writes all `size` bytes; throws "<op>: <path>: cannot write: ..." on failure.
void write_all(const char* op, int fd, const void* data, size_t size, const std::string& path);

// Reads exactly `size` bytes at `offset`; throws naming `what` on an error or an early end.
void read_all(const char* op, int fd, void* data, size_t size, uint64_t offset,
              const std::string& path, const std::string& what);

}  // namespace ember::serialize_io
