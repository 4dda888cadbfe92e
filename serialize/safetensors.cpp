// The safetensors format: an 8-byte little-endian header length N, N bytes of JSON
// ({"name": {"dtype", "shape", "data_offsets"}, "__metadata__": {...}}) padded with spaces to
// a multiple of 8, then the tensors' bytes, row-major and little-endian, with no holes.
// Writing is atomic (temporary file, fsync, rename); reading checks every field first.
#include <ember/serialize/safetensors.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/core/checks.h>
#include <ember/serialize/file_io.h>
#include <ember/serialize/mapped_file.h>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; ember writes its memory as is");

namespace ember::safetensors {
namespace {

using serialize_io::errno_text;
using serialize_io::FdCloser;
using serialize_io::MappedFile;
using serialize_io::read_all;
using serialize_io::write_all;

// The safetensors reference implementation refuses larger headers; so does ember, so that a
// corrupt length cannot make it allocate gigabytes.
constexpr uint64_t kMaxHeaderSize = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";
// Files with at least this many bytes of tensor data load by mapping (read_file).
constexpr uint64_t kMapBytes = uint64_t(1) << 20;

struct DtypeName {
  const char* name;
  ScalarType dtype;
};
constexpr DtypeName kDtypes[] = {
    {"F32", kFloat32}, {"F64", kFloat64}, {"F16", kFloat16}, {"BF16", kBFloat16},
    {"I64", kInt64},   {"I32", kInt32},   {"U8", kUInt8},    {"BOOL", kBool},
};
// In the format but without an ember dtype: named as such rather than as "unknown".
constexpr const char* kUnsupportedDtypes[] = {"I8",      "I16",     "U16",     "U32",
                                              "U64",     "F8_E4M3", "F8_E5M2", "F8_E8M0",
                                              "F6_E2M3", "F6_E3M2", "F4",      "C64"};

const char* dtype_to_name(ScalarType dtype) {
  for (const auto& d : kDtypes) {
    if (d.dtype == dtype) return d.name;
  }
  return nullptr;
}

// Position in the safetensors crate's Dtype enum (BOOL < U8 < F16 < BF16 < I32 < F32 < F64 < I64).
int dtype_rank(ScalarType dtype) {
  switch (dtype) {
    case kBool:
      return 0;
    case kUInt8:
      return 1;
    case kFloat16:
      return 2;
    case kBFloat16:
      return 3;
    case kInt32:
      return 4;
    case kFloat32:
      return 5;
    case kFloat64:
      return 6;
    default:
      return 7;  // kInt64
  }
}

// The temporary file's name: beside the target (so rename stays on one file system), unique per
// process and call.
std::string temp_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

struct Parsed {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

// One tensor entry of the header, checked on its own.
Parsed parse_entry(const char* op, const std::string& path, const std::string& name,
                   const nlohmann::json& info) {
  const std::string where = std::string(op) + ": " + path + ": tensor '" + name + "': ";
  EMBER_CHECK(info.is_object(), where, "expected an object, got ", info.type_name());
  Parsed p;
  p.name = name;

  auto dtype_it = info.find("dtype");
  EMBER_CHECK(dtype_it != info.end() && dtype_it->is_string(), where,
              "\"dtype\" is missing or not a string");
  const std::string dtype = dtype_it->get<std::string>();
  bool found = false;
  for (const auto& d : kDtypes) {
    if (dtype == d.name) {
      p.dtype = d.dtype;
      found = true;
    }
  }
  if (!found) {
    for (const char* u : kUnsupportedDtypes) {
      EMBER_CHECK(dtype != u, where, "dtype ", dtype, " has no ember equivalent");
    }
    EMBER_THROW(where, "unknown dtype '", dtype, "'");
  }

  auto shape_it = info.find("shape");
  EMBER_CHECK(shape_it != info.end() && shape_it->is_array(), where,
              "\"shape\" is missing or not an array");
  for (const auto& s : *shape_it) {
    EMBER_CHECK(s.is_number_unsigned() &&
                    s.get<uint64_t>() <= uint64_t(std::numeric_limits<int64_t>::max()),
                where, "shape ", shape_it->dump(), " must hold non-negative integers");
    p.shape.push_back(s.get<int64_t>());
  }
  // numel * element size in bytes; an empty tensor has no bytes whatever its other sizes.
  uint64_t nbytes = element_size(p.dtype);
  if (std::find(p.shape.begin(), p.shape.end(), 0) != p.shape.end()) nbytes = 0;
  for (int64_t s : p.shape) {
    EMBER_CHECK(nbytes == 0 || uint64_t(s) <= std::numeric_limits<uint64_t>::max() / nbytes, where,
                "shape ", shape_it->dump(), " is too large");
    nbytes *= uint64_t(s);
  }

  auto offsets_it = info.find("data_offsets");
  EMBER_CHECK(offsets_it != info.end() && offsets_it->is_array() && offsets_it->size() == 2 &&
                  (*offsets_it)[0].is_number_unsigned() && (*offsets_it)[1].is_number_unsigned(),
              where, "\"data_offsets\" must be two non-negative integers [begin, end]");
  p.begin = (*offsets_it)[0].get<uint64_t>();
  p.end = (*offsets_it)[1].get<uint64_t>();
  EMBER_CHECK(p.begin <= p.end, where, "data_offsets [", p.begin, ", ", p.end,
              "] end before they begin");
  EMBER_CHECK(p.end - p.begin == nbytes, where, "data_offsets [", p.begin, ", ", p.end, "] hold ",
              p.end - p.begin, " bytes but dtype ", dtype, " and shape ", shape_it->dump(),
              " need ", nbytes);
  return p;
}

}  // namespace

void write_file(const char* op, const NamedTensors& tensors, const TensorMetadata& metadata,
                const std::string& path) {
  // Everything that can be checked is checked before the temporary file exists.
  std::vector<const std::pair<std::string, Tensor>*> order;
  order.reserve(tensors.size());
  for (const auto& entry : tensors) {
    EMBER_CHECK(!entry.first.empty(), op, ": ", path, ": a tensor has an empty name");
    EMBER_CHECK(entry.first != kMetadataKey, op, ": ", path, ": '", kMetadataKey,
                "' is reserved for the metadata and cannot name a tensor");
    EMBER_CHECK(entry.second.defined(), op, ": ", path, ": tensor '", entry.first,
                "' is undefined");
    EMBER_CHECK(dtype_to_name(entry.second.dtype()) != nullptr, op, ": ", path, ": tensor '",
                entry.first, "' has dtype ", entry.second.dtype(),
                ", which safetensors cannot hold");
    order.push_back(&entry);
  }
  // The reference implementation's order (its dtype enum descending, then by name): element
  // sizes never grow along the buffer, so every tensor starts at a multiple of its element size
  // (readers may map the file without copying), and ember writes the bytes PyTorch writes.
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    const int ra = dtype_rank(a->second.dtype()), rb = dtype_rank(b->second.dtype());
    return ra != rb ? ra > rb : a->first < b->first;
  });

  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    auto& m = header[kMetadataKey] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : metadata) m[key] = value;
  }
  uint64_t offset = 0;
  for (const auto* entry : order) {
    const Tensor& t = entry->second;
    const uint64_t nbytes = t.nbytes();
    header[entry->first] = {{"dtype", dtype_to_name(t.dtype())},
                            {"shape", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
                            {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {  // a name or metadata that is not UTF-8
    EMBER_THROW(op, ": ", path, ": cannot write the header: ", e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  unsigned char length[8];
  for (int i = 0; i < 8; ++i)
    length[i] = static_cast<unsigned char>(uint64_t(text.size()) >> (8 * i));

  // A symbolic link stays a link: the file it points to is replaced.
  std::string target = path;
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec)) {
    const auto resolved = std::filesystem::weakly_canonical(path, ec);
    if (!ec) target = resolved.string();
  }
  const std::string temp = temp_name(target);
  FdCloser file;
  file.fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  EMBER_CHECK(file.fd >= 0, op, ": ", path, ": cannot create ", temp, ": ", errno_text());
  try {
    // Replacing a file keeps its permissions (a new one gets 0666 less the umask).
    struct stat old;
    if (::stat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
      EMBER_CHECK(::fchmod(file.fd, old.st_mode & 07777) == 0, op, ": ", path,
                  ": cannot set the permissions of ", temp, ": ", errno_text());
    }
    write_all(op, file.fd, length, sizeof length, path);
    write_all(op, file.fd, text.data(), text.size(), path);
    NoGradGuard no_grad;
    for (const auto* entry : order) {
      // One CPU copy at a time: a model on the GPU never needs twice its size in host memory.
      Tensor t = entry->second;
      if (!t.is_contiguous()) t = t.contiguous();  // on its device: only the view's bytes move
      if (!t.is_cpu()) t = t.cpu();
      if (t.nbytes() > 0) write_all(op, file.fd, t.data_ptr(), t.nbytes(), path);
    }
    EMBER_CHECK(::fsync(file.fd) == 0, op, ": ", path, ": cannot flush ", temp, ": ", errno_text());
    const int fd = file.fd;
    file.fd = -1;
    EMBER_CHECK(::close(fd) == 0, op, ": ", path, ": cannot close ", temp, ": ", errno_text());
    EMBER_CHECK(::rename(temp.c_str(), target.c_str()) == 0, op, ": ", path,
                ": cannot replace it: ", errno_text());
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
}

NamedTensors read_file(const char* op, const std::string& path, TensorMetadata* metadata) {
  FdCloser file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(file.fd >= 0, op, ": ", path, ": cannot open: ", errno_text());
  struct stat st;
  EMBER_CHECK(::fstat(file.fd, &st) == 0, op, ": ", path, ": cannot stat: ", errno_text());
  EMBER_CHECK(S_ISREG(st.st_mode), op, ": ", path, ": not a regular file");
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  EMBER_CHECK(file_size >= 8, op, ": ", path, ": the file has ", file_size,
              " bytes, too few for a safetensors header length");

  unsigned char length[8];
  read_all(op, file.fd, length, 8, 0, path, "the header length");
  uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= uint64_t(length[i]) << (8 * i);
  EMBER_CHECK(header_size <= file_size - 8, op, ": ", path, ": the header length ", header_size,
              " is larger than the file (", file_size, " bytes): not a safetensors file, or ",
              "a truncated one");
  EMBER_CHECK(header_size <= kMaxHeaderSize, op, ": ", path, ": the header length ", header_size,
              " exceeds the limit of ", kMaxHeaderSize, " bytes");
  std::string text(header_size, '\0');
  read_all(op, file.fd, text.data(), text.size(), 8, path, "the header");
  EMBER_CHECK(!text.empty() && text[0] == '{', op, ": ", path,
              ": the header does not start with '{': not a safetensors file");

  // nlohmann keeps the last of duplicate keys; the callback sees every top-level key.
  std::set<std::string> seen;
  std::string duplicate;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(
        text, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          if (event == nlohmann::json::parse_event_t::key && depth == 1 && duplicate.empty()) {
            if (!seen.insert(parsed.get<std::string>()).second)
              duplicate = parsed.get<std::string>();
          }
          return true;
        });
  } catch (const nlohmann::json::exception& e) {
    EMBER_THROW(op, ": ", path, ": the header is not valid JSON: ", e.what());
  }
  EMBER_CHECK(duplicate.empty(), op, ": ", path, ": tensor '", duplicate,
              "' appears twice in the header");
  EMBER_CHECK(header.is_object(), op, ": ", path, ": the header is not a JSON object");

  if (metadata != nullptr) metadata->clear();
  std::vector<Parsed> entries;
  entries.reserve(header.size());
  for (const auto& [name, info] : header.items()) {
    if (name == kMetadataKey) {
      EMBER_CHECK(info.is_object(), op, ": ", path, ": \"", kMetadataKey,
                  "\" must be an object of strings");
      for (const auto& [key, value] : info.items()) {
        EMBER_CHECK(value.is_string(), op, ": ", path, ": metadata '", key,
                    "' is not a string but ", value.type_name());
        if (metadata != nullptr) (*metadata)[key] = value.get<std::string>();
      }
      continue;
    }
    entries.push_back(parse_entry(op, path, name, info));
  }

  // The buffer must be covered exactly: in offset order, each tensor starts where the last ended.
  const uint64_t data_start = 8 + header_size;
  const uint64_t buffer_size = file_size - data_start;
  std::sort(entries.begin(), entries.end(), [](const Parsed& a, const Parsed& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const Parsed* previous = nullptr;
  for (const Parsed& p : entries) {
    EMBER_CHECK(p.end <= buffer_size, op, ": ", path, ": tensor '", p.name, "': data_offsets [",
                p.begin, ", ", p.end, "] are out of range of the ", buffer_size,
                "-byte data buffer (truncated file?)");
    EMBER_CHECK(p.begin >= covered, op, ": ", path, ": tensor '", p.name, "': data_offsets [",
                p.begin, ", ", p.end, "] overlap tensor '", previous ? previous->name : "",
                "', which ends at ", covered);
    EMBER_CHECK(p.begin == covered, op, ": ", path, ": tensor '", p.name, "': data_offsets [",
                p.begin, ", ", p.end, "] leave bytes [", covered, ", ", p.begin,
                ") of the buffer unused");
    covered = p.end;
    previous = &p;
  }
  EMBER_CHECK(covered == buffer_size, op, ": ", path, ": the tensors cover ", covered,
              " bytes but the data buffer has ", buffer_size);

  // A large file is mapped copy-on-write and its tensors point into the mapping: no copy, and
  // pages come from the page cache on first touch. Small files, tensors whose offset does not
  // suit their dtype, and systems that refuse the mapping read into fresh memory.
  std::shared_ptr<MappedFile> mapped =
      buffer_size >= kMapBytes ? MappedFile::map(file.fd, file_size) : nullptr;
  NamedTensors result;
  result.reserve(entries.size());
  for (const Parsed& p : entries) {
    const size_t nbytes = p.end - p.begin;
    const uint64_t offset = data_start + p.begin;
    Tensor t;
    if (mapped && nbytes > 0 && offset % element_size(p.dtype) == 0) {
      t = Tensor(std::make_shared<TensorImpl>(mapped->storage(offset, nbytes), p.dtype, p.shape,
                                              contiguous_strides(p.shape), 0));
    } else {
      t = empty(p.shape, TensorOptions().dtype(p.dtype));
      if (nbytes > 0)
        read_all(op, file.fd, t.data_ptr(), nbytes, offset, path, "tensor '" + p.name + "'");
    }
    if (p.dtype == kBool) {
      // A bool byte other than 0 or 1 would be undefined behaviour in C++.
      const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
      for (size_t i = 0; i < nbytes; ++i) {
        EMBER_CHECK(bytes[i] <= 1, op, ": ", path, ": tensor '", p.name, "': byte ", i, " is ",
                    int(bytes[i]), ", not a bool (0 or 1)");
      }
    }
    result.emplace_back(p.name, std::move(t));
  }
  return result;
}

}  // namespace ember::safetensors
