// POSIX reads and writes for serialize/: loops over short reads and writes and EINTR, with
// errors that name the operation, the file and what was being read.
#include <ember/serialize/file_io.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <ember/core/error.h>

namespace ember::serialize_io {

FdCloser::~FdCloser() {
  if (fd >= 0) ::close(fd);
}

std::string errno_text() { return std::strerror(errno); }

void write_all(const char* op, int fd, const void* data, size_t size, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    // Linux writes at most ~2 GiB per call.
    const ssize_t n = ::write(fd, p, std::min<size_t>(size, size_t{1} << 30));
    if (n < 0 && errno == EINTR) continue;
    EMBER_CHECK(n > 0, op, ": ", path, ": cannot write: ", errno_text());
    p += n;
    size -= static_cast<size_t>(n);
  }
}

void read_all(const char* op, int fd, void* data, size_t size, uint64_t offset,
              const std::string& path, const std::string& what) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n =
        ::pread(fd, p, std::min<size_t>(size, size_t{1} << 30), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    EMBER_CHECK(n >= 0, op, ": ", path, ": cannot read ", what, ": ", errno_text());
    EMBER_CHECK(n > 0, op, ": ", path, ": the file ended while reading ", what);
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
}

}  // namespace ember::serialize_io
