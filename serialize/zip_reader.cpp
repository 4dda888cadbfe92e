// The zip reader behind load_pt: the end records (ZIP64 too, which PyTorch always writes), the
// central directory, stored or deflated (zlib) entries; every offset, size and CRC-32 checked.
#include <ember/serialize/zip_reader.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include <ember/core/error.h>

#if defined(EMBER_WITH_ZLIB)
#include <zlib.h>
#endif

namespace ember::zip {
namespace {

using serialize_io::errno_text;
using serialize_io::read_all;

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr size_t kEndSize = 22, kZip64LocatorSize = 20, kZip64EndSize = 56;
constexpr size_t kCentralHeaderSize = 46, kLocalHeaderSize = 30;
constexpr uint64_t kMaxComment = 0xffff;
// Deflate cannot compress better than about 1032:1; an entry that claims more is damaged or a
// zip bomb, and is refused before anything is allocated for it.
constexpr uint64_t kMaxDeflateRatio = 1032;

uint16_t get16(const unsigned char* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t get32(const unsigned char* p) {
  return uint32_t(get16(p)) | (uint32_t(get16(p + 2)) << 16);
}
uint64_t get64(const unsigned char* p) {
  return uint64_t(get32(p)) | (uint64_t(get32(p + 4)) << 32);
}

uint32_t crc32_of(const void* data, size_t size) {
#if defined(EMBER_WITH_ZLIB)
  uLong crc = ::crc32(0L, Z_NULL, 0);
  const Bytef* p = static_cast<const Bytef*>(data);
  while (size > 0) {
    const uInt n = static_cast<uInt>(std::min<size_t>(size, size_t{1} << 30));
    crc = ::crc32(crc, p, n);
    p += n;
    size -= n;
  }
  return static_cast<uint32_t>(crc);
#else
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xffffffffu;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
#endif
}

}  // namespace

Reader::Reader(const char* op, const std::string& path) : op_(op), path_(path) {
  file_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(file_.fd >= 0, op, ": ", path, ": cannot open: ", errno_text());
  struct stat st;
  EMBER_CHECK(::fstat(file_.fd, &st) == 0, op, ": ", path, ": cannot stat: ", errno_text());
  EMBER_CHECK(S_ISREG(st.st_mode), op, ": ", path, ": not a regular file");
  file_size_ = static_cast<uint64_t>(st.st_size);
  read_central_directory();
}

void Reader::read_central_directory() {
  EMBER_CHECK(file_size_ >= kEndSize, op_, ": ", path_, ": the file has ", file_size_,
              " bytes, too few for a zip archive (truncated?)");
  // The end record sits in the last 22 bytes plus at most a 64 KiB comment.
  const uint64_t tail_size = std::min<uint64_t>(file_size_, kEndSize + kMaxComment);
  std::vector<unsigned char> tail(tail_size);
  read_all(op_, file_.fd, tail.data(), tail.size(), file_size_ - tail_size, path_,
           "the end of the zip archive");
  int64_t found = -1;
  for (int64_t i = int64_t(tail_size - kEndSize); i >= 0; --i) {
    const unsigned char* p = tail.data() + i;
    if (get32(p) == kEndSignature && uint64_t(i) + kEndSize + get16(p + 20) == tail_size) {
      found = i;
      break;
    }
  }
  EMBER_CHECK(found >= 0, op_, ": ", path_,
              ": no zip end-of-central-directory record: the file is truncated or not a zip");
  const uint64_t end_offset = file_size_ - tail_size + uint64_t(found);
  const unsigned char* end = tail.data() + found;
  EMBER_CHECK(get16(end + 4) == 0 && get16(end + 6) == 0, op_, ": ", path_,
              ": multi-part zip archives are not supported");
  uint64_t count = get16(end + 10);
  uint64_t cd_size = get32(end + 12);
  uint64_t cd_offset = get32(end + 16);
  uint64_t cd_end_limit = end_offset;  // the central directory ends before the end records

  // ZIP64: a locator right before the end record points to the ZIP64 end record.
  if (end_offset >= kZip64LocatorSize) {
    unsigned char locator[kZip64LocatorSize];
    read_all(op_, file_.fd, locator, sizeof locator, end_offset - kZip64LocatorSize, path_,
             "the ZIP64 locator");
    if (get32(locator) == kZip64LocatorSignature) {
      const uint64_t z64_offset = get64(locator + 8);
      EMBER_CHECK(z64_offset <= end_offset - kZip64LocatorSize &&
                      end_offset - kZip64LocatorSize - z64_offset >= kZip64EndSize,
                  op_, ": ", path_, ": the ZIP64 end record's offset ", z64_offset,
                  " is out of range (damaged file)");
      unsigned char z64[kZip64EndSize];
      read_all(op_, file_.fd, z64, sizeof z64, z64_offset, path_, "the ZIP64 end record");
      EMBER_CHECK(get32(z64) == kZip64EndSignature, op_, ": ", path_,
                  ": no ZIP64 end record where the locator points (damaged file)");
      EMBER_CHECK(get32(z64 + 16) == 0 && get32(z64 + 20) == 0, op_, ": ", path_,
                  ": multi-part zip archives are not supported");
      count = get64(z64 + 32);
      cd_size = get64(z64 + 40);
      cd_offset = get64(z64 + 48);
      cd_end_limit = z64_offset;
    } else {
      EMBER_CHECK(count != 0xffff && cd_size != 0xffffffff && cd_offset != 0xffffffff, op_, ": ",
                  path_, ": the end record asks for ZIP64 but there is no ZIP64 locator");
    }
  }
  EMBER_CHECK(cd_offset <= cd_end_limit && cd_size <= cd_end_limit - cd_offset, op_, ": ", path_,
              ": the central directory (", cd_size, " bytes at ", cd_offset,
              ") lies outside the file (truncated or damaged)");
  EMBER_CHECK(count <= cd_size / kCentralHeaderSize, op_, ": ", path_, ": the archive claims ",
              count, " entries, more than its ", cd_size, "-byte central directory can hold");
  central_directory_offset_ = cd_offset;

  std::vector<unsigned char> cd(cd_size);
  read_all(op_, file_.fd, cd.data(), cd.size(), cd_offset, path_, "the zip central directory");
  entries_.reserve(count);
  uint64_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    EMBER_CHECK(
        cd_size - pos >= kCentralHeaderSize && get32(cd.data() + pos) == kCentralHeaderSignature,
        op_, ": ", path_, ": zip central directory entry ", i, " is damaged");
    const unsigned char* h = cd.data() + pos;
    Entry e;
    e.flags = get16(h + 8);
    e.method = get16(h + 10);
    e.crc32 = get32(h + 16);
    e.compressed_size = get32(h + 20);
    e.size = get32(h + 24);
    const uint64_t name_len = get16(h + 28), extra_len = get16(h + 30), comment_len = get16(h + 32);
    const uint32_t disk = get16(h + 34);
    e.local_header_offset = get32(h + 42);
    const uint64_t record = kCentralHeaderSize + name_len + extra_len + comment_len;
    EMBER_CHECK(cd_size - pos >= record, op_, ": ", path_, ": zip central directory entry ", i,
                " runs past the directory's end (damaged file)");
    e.name.assign(reinterpret_cast<const char*>(h + kCentralHeaderSize), name_len);
    // The ZIP64 extra field (id 1) holds, in order, the fields whose 32-bit value is all ones.
    const unsigned char* extra = h + kCentralHeaderSize + name_len;
    for (uint64_t x = 0; x + 4 <= extra_len;) {
      const uint16_t id = get16(extra + x), len = get16(extra + x + 2);
      EMBER_CHECK(x + 4 + len <= extra_len, op_, ": ", path_, ": zip entry '", e.name,
                  "' has a damaged extra field");
      if (id == 1) {
        const unsigned char* f = extra + x + 4;
        uint64_t left = len;
        auto take = [&](uint64_t& field) {
          EMBER_CHECK(left >= 8, op_, ": ", path_, ": zip entry '", e.name,
                      "' has a short ZIP64 extra field");
          field = get64(f);
          f += 8;
          left -= 8;
        };
        if (e.size == 0xffffffff) take(e.size);
        if (e.compressed_size == 0xffffffff) take(e.compressed_size);
        if (e.local_header_offset == 0xffffffff) take(e.local_header_offset);
      }
      x += 4 + uint64_t(len);
    }
    EMBER_CHECK(disk == 0 || disk == 0xffff, op_, ": ", path_,
                ": multi-part zip archives are not supported");
    EMBER_CHECK(index_.emplace(e.name, entries_.size()).second, op_, ": ", path_, ": zip entry '",
                e.name, "' appears twice");
    // Sizes are checked here, before anyone allocates for them: the data must fit before the
    // central directory, and inflating cannot multiply it by more than deflate's best ratio.
    EMBER_CHECK(e.compressed_size <= cd_offset, op_, ": ", path_, ": zip entry '", e.name,
                "' claims ", e.compressed_size, " bytes of data, more than the file holds");
    EMBER_CHECK(e.method != 0 || e.size == e.compressed_size, op_, ": ", path_, ": zip entry '",
                e.name, "' is stored uncompressed but its sizes differ (", e.compressed_size,
                " and ", e.size, ")");
    EMBER_CHECK(e.method != 8 || e.size / kMaxDeflateRatio <= e.compressed_size, op_, ": ", path_,
                ": zip entry '", e.name, "' claims to inflate ", e.compressed_size, " bytes to ",
                e.size, ", beyond deflate's limit (a zip bomb or a damaged file)");
    entries_.push_back(std::move(e));
    pos += record;
  }
}

const Entry* Reader::find(const std::string& name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

uint64_t Reader::data_offset(const Entry& e) const {
  const std::string where = std::string(op_) + ": " + path_ + ": zip entry '" + e.name + "': ";
  EMBER_CHECK((e.flags & 1) == 0, where, "encrypted entries are not supported");
  EMBER_CHECK(e.local_header_offset <= central_directory_offset_ &&
                  central_directory_offset_ - e.local_header_offset >= kLocalHeaderSize,
              where, "its local header offset ", e.local_header_offset,
              " is out of range (damaged file)");
  unsigned char h[kLocalHeaderSize];
  read_all(op_, file_.fd, h, sizeof h, e.local_header_offset, path_, "a zip local header");
  EMBER_CHECK(get32(h) == kLocalHeaderSignature, where, "no local header at offset ",
              e.local_header_offset, " (damaged file)");
  const uint64_t name_len = get16(h + 26), extra_len = get16(h + 28);
  const uint64_t start = e.local_header_offset + kLocalHeaderSize + name_len + extra_len;
  EMBER_CHECK(
      start <= central_directory_offset_ && e.compressed_size <= central_directory_offset_ - start,
      where, e.compressed_size, " bytes of data at offset ", start,
      " run past the entries' end at ", central_directory_offset_, " (truncated or damaged file)");
  EMBER_CHECK(name_len == e.name.size(), where, "the local header names another entry");
  std::string local_name(name_len, '\0');
  read_all(op_, file_.fd, local_name.data(), name_len, e.local_header_offset + kLocalHeaderSize,
           path_, "a zip local header");
  EMBER_CHECK(local_name == e.name, where, "the local header names another entry ('", local_name,
              "')");
  return start;
}

void Reader::read(const Entry& e, void* dst) const {
  const uint64_t start = data_offset(e);
  if (e.method == 0) {
    read_stored(e, start, dst);
  } else if (e.method == 8) {
    read_deflated(e, start, dst);
  } else {
    EMBER_THROW(op_, ": ", path_, ": zip entry '", e.name, "': compression method ", e.method,
                " is not supported (only stored and deflated)");
  }
  EMBER_CHECK(crc32_of(dst, e.size) == e.crc32, op_, ": ", path_, ": zip entry '", e.name,
              "': CRC-32 mismatch, the data is damaged");
}

void Reader::read_stored(const Entry& e, uint64_t start, void* dst) const {
  if (e.size > 0) read_all(op_, file_.fd, dst, e.size, start, path_, "zip entry '" + e.name + "'");
}

void Reader::read_deflated(const Entry& e, uint64_t start, void* dst) const {
#if defined(EMBER_WITH_ZLIB)
  const std::string where = std::string(op_) + ": " + path_ + ": zip entry '" + e.name + "': ";
  z_stream z{};
  EMBER_CHECK(::inflateInit2(&z, -MAX_WBITS) == Z_OK, where, "cannot start zlib's inflate");
  struct Ender {
    z_stream* z;
    ~Ender() { ::inflateEnd(z); }
  } ender{&z};
  std::vector<unsigned char> chunk(std::min<uint64_t>(e.compressed_size, uint64_t{1} << 20));
  unsigned char* out = static_cast<unsigned char*>(dst);
  uint64_t in_done = 0, out_done = 0;
  for (;;) {
    if (z.avail_in == 0 && in_done < e.compressed_size) {
      const size_t n = std::min<uint64_t>(chunk.size(), e.compressed_size - in_done);
      read_all(op_, file_.fd, chunk.data(), n, start + in_done, path_,
               "zip entry '" + e.name + "'");
      in_done += n;
      z.next_in = chunk.data();
      z.avail_in = static_cast<uInt>(n);
    }
    // Output goes straight into dst and never past its declared size.
    const uint64_t room = std::min<uint64_t>(e.size - out_done, uint64_t{1} << 30);
    z.next_out = out + out_done;
    z.avail_out = static_cast<uInt>(room);
    const int status = ::inflate(&z, Z_NO_FLUSH);
    out_done += room - z.avail_out;
    if (status == Z_STREAM_END) break;
    if (status == Z_BUF_ERROR) {  // no progress possible: out of room or out of input
      EMBER_CHECK(room > 0, where, "inflates to more than its declared ", e.size, " bytes");
      EMBER_THROW(where, "the deflated data ends before its stream does (damaged file)");
    }
    EMBER_CHECK(status == Z_OK, where,
                "the deflated data is damaged (zlib: ", z.msg ? z.msg : "error", ")");
  }
  EMBER_CHECK(out_done == e.size, where, "inflates to ", out_done, " bytes, not its declared ",
              e.size);
#else
  (void)start;
  (void)dst;
  EMBER_THROW(op_, ": ", path_, ": zip entry '", e.name,
              "' is deflated, and this ember was built without zlib");
#endif
}

std::string Reader::read_string(const Entry& e, uint64_t max_size) const {
  EMBER_CHECK(e.size <= max_size, op_, ": ", path_, ": zip entry '", e.name, "' has ", e.size,
              " bytes, more than the limit of ", max_size);
  std::string bytes(e.size, '\0');
  read(e, bytes.data());
  return bytes;
}

}  // namespace ember::zip
