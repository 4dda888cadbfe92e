// Reading MNIST's IDX files: a 4-byte big-endian magic number (2051 images, 2049 labels),
// big-endian 32-bit dimensions, then unsigned bytes. Plain files go through stdio, .gz files
// through zlib (when ember was built with it); pixels are read and converted in large chunks.
#include <ember/data/datasets/mnist.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#ifdef EMBER_WITH_ZLIB
#include <zlib.h>
#endif

#include <ember/core/functions.h>

namespace ember {
namespace data {
namespace datasets {
namespace {

constexpr uint32_t kImageMagic = 2051;  // 0x00000803: unsigned bytes, 3 dims
constexpr uint32_t kLabelMagic = 2049;  // 0x00000801: unsigned bytes, 1 dim
constexpr int64_t kRows = 28, kCols = 28;
constexpr size_t kChunk = size_t{1} << 20;  // bytes per read

bool file_exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

// One IDX file, plain or gzip-compressed, read front to back.
class IdxReader {
 public:
  IdxReader(const std::string& root, const std::string& name, const char* what) {
    const std::string dir = root.empty() || root.back() == '/' ? root : root + "/";
    const std::string plain = dir + name, gz = plain + ".gz";
    if (file_exists(plain)) {
      path_ = plain;
      file_ = std::fopen(plain.c_str(), "rb");
      EMBER_CHECK(file_, "MNIST: cannot open ", plain);
    } else if (file_exists(gz)) {
      path_ = gz;
#ifdef EMBER_WITH_ZLIB
      gz_ = gzopen(gz.c_str(), "rb");
      EMBER_CHECK(gz_, "MNIST: cannot open ", gz);
      gzbuffer(static_cast<gzFile>(gz_), 1 << 18);
#else
      EMBER_THROW("MNIST: found ", gz, " but ember was built without zlib, so it cannot read ",
                  ".gz files; decompress it (gunzip ", gz, ") or rebuild ember with zlib");
#endif
    } else {
      EMBER_THROW("MNIST: cannot find the ", what, ": tried ", plain, " and ", gz);
    }
  }
  ~IdxReader() {
    if (file_) std::fclose(file_);
#ifdef EMBER_WITH_ZLIB
    if (gz_) gzclose(static_cast<gzFile>(gz_));
#endif
  }
  IdxReader(const IdxReader&) = delete;
  IdxReader& operator=(const IdxReader&) = delete;

  const std::string& path() const { return path_; }

  // Up to n bytes; fewer only at the end of the data.
  size_t read(void* dst, size_t n) {
    if (file_) {
      const size_t got = std::fread(dst, 1, n, file_);
      EMBER_CHECK(got == n || !std::ferror(file_), "MNIST: error reading ", path_);
      return got;
    }
#ifdef EMBER_WITH_ZLIB
    size_t total = 0;
    while (total < n) {  // gzread takes an unsigned count
      const unsigned ask = static_cast<unsigned>(std::min<size_t>(n - total, 1u << 30));
      const int got = gzread(static_cast<gzFile>(gz_), static_cast<char*>(dst) + total, ask);
      if (got < 0) {
        int code = 0;
        const char* msg = gzerror(static_cast<gzFile>(gz_), &code);
        EMBER_THROW("MNIST: cannot decompress ", path_, ": ", msg);
      }
      total += static_cast<size_t>(got);
      if (static_cast<unsigned>(got) < ask) break;
    }
    return total;
#else
    return 0;
#endif
  }

  // Checks the magic number, then reads the `ndims` dimensions that follow it.
  std::vector<int64_t> header(uint32_t magic, int ndims) {
    unsigned char bytes[12];
    size_t got = read(bytes, 4);
    check_header(got, 4);
    const uint32_t found = be32(bytes);
    if (found != magic) {
      const bool gzip = bytes[0] == 0x1f && bytes[1] == 0x8b;
      EMBER_THROW("MNIST: ", path_, " has magic number ", found, ", expected ", magic,
                  gzip ? " (the file is gzip-compressed: name it with .gz)"
                       : " (is it an IDX file of the right kind?)");
    }
    const size_t n = 4 * static_cast<size_t>(ndims);
    got = read(bytes, n);
    check_header(4 + got, 4 + n);
    std::vector<int64_t> dims(static_cast<size_t>(ndims));
    for (int i = 0; i < ndims; ++i) dims[static_cast<size_t>(i)] = be32(bytes + 4 * i);
    return dims;
  }

  // The `count` bytes after the header, read chunk by chunk so that memory grows only with what
  // the file holds: a header may claim far more (2^31 images in a file of one), and that must
  // be an error naming the file, not an allocation of gigabytes.
  std::vector<unsigned char> read_data(size_t count, const char* what) {
    std::vector<unsigned char> bytes;
    while (bytes.size() < count) {
      const size_t done = bytes.size(), want = std::min(count - done, kChunk);
      bytes.resize(done + want);
      const size_t got = read(bytes.data() + done, want);
      bytes.resize(done + got);
      EMBER_CHECK(got == want, "MNIST: ", path_, " is truncated: expected ", count, " bytes of ",
                  what, " after the header, found ", bytes.size());
    }
    return bytes;
  }

 private:
  void check_header(size_t got, size_t need) const {
    EMBER_CHECK(got == need, "MNIST: ", path_, " is truncated: its header needs ", need,
                " bytes, the file has ", got);
  }
  static uint32_t be32(const unsigned char* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  void* gz_ = nullptr;  // gzFile
};

Tensor read_images(const std::string& root, bool train) {
  IdxReader in(root, train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte",
               train ? "training images" : "test images");
  const std::vector<int64_t> dims = in.header(kImageMagic, 3);
  EMBER_CHECK(dims[1] == kRows && dims[2] == kCols, "MNIST: ", in.path(), " holds ", dims[1], " x ",
              dims[2], " images, expected ", kRows, " x ", kCols);
  const int64_t count = dims[0];
  const std::vector<unsigned char> pixels =
      in.read_data(static_cast<size_t>(count * kRows * kCols), "pixels");
  Tensor images = empty({count, 1, kRows, kCols}, kFloat32);
  float* out = images.data_ptr<float>();
  // x / 255 (not x * (1 / 255)): the same floats as LibTorch's to(kFloat32).div_(255).
  for (size_t i = 0; i < pixels.size(); ++i) out[i] = static_cast<float>(pixels[i]) / 255.0f;
  return images;
}

Tensor read_labels(const std::string& root, bool train, std::string* path) {
  IdxReader in(root, train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte",
               train ? "training labels" : "test labels");
  *path = in.path();
  const int64_t count = in.header(kLabelMagic, 1)[0];
  const std::vector<unsigned char> bytes = in.read_data(static_cast<size_t>(count), "labels");
  Tensor labels = empty({count}, kInt64);
  int64_t* out = labels.data_ptr<int64_t>();
  for (size_t i = 0; i < bytes.size(); ++i) out[i] = bytes[i];
  return labels;
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode) : train_(mode == Mode::kTrain) {
  images_ = read_images(root, train_);
  std::string labels_path;
  targets_ = read_labels(root, train_, &labels_path);
  EMBER_CHECK(images_.size(0) == targets_.size(0), "MNIST: ", images_.size(0), " images but ",
              targets_.size(0), " labels (", labels_path, ")");
}

Example<> MNIST::get(size_t index) {
  const int64_t n = images_.size(0);
  EMBER_CHECK(index < static_cast<size_t>(n), "MNIST::get: index ", index, " is out of range for ",
              n, " examples");
  const auto i = static_cast<int64_t>(index);
  return {images_[i], targets_[i]};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

}  // namespace datasets
}  // namespace data
}  // namespace ember
