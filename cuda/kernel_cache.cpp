// The disk cache of runtime-compiled kernels (cuda/kernel_cache.h): one file per entry,
// "<key>.kernel" = magic, payload size, payload hash, payload; LRU by modification time.
#include <ember/cuda/kernel_cache.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

namespace ember {
namespace cuda {
namespace detail {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'E', 'M', 'B', 'R', 'K', 'E', 'R', '1'};
constexpr const char* kSuffix = ".kernel";

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

fs::path entry_path(const std::string& dir, const std::string& key) {
  return fs::path(dir) / (key + kSuffix);
}

// Removes the least recently used entries until the cache holds at most `cap` bytes.
void evict(const std::string& dir, size_t cap) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  uintmax_t total = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() != kSuffix) continue;
    std::error_code e2;
    const uintmax_t size = fs::file_size(p, e2);
    const fs::file_time_type t = fs::last_write_time(p, e2);
    if (e2) continue;
    total += size;
    entries.emplace_back(t, p);
  }
  if (total <= cap) return;
  std::sort(entries.begin(), entries.end());
  for (const auto& [time, path] : entries) {
    if (total <= cap) break;
    std::error_code e2;
    const uintmax_t size = fs::file_size(path, e2);
    if (!e2 && fs::remove(path, e2)) total -= size;
  }
}

}  // namespace

void KeyHasher::bytes(const void* p, size_t n) {
  const auto* c = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) {
    a_ = (a_ ^ c[i]) * 0x100000001b3ull;
    b_ = (b_ + c[i] + 1) * 0xff51afd7ed558ccdull;
    b_ ^= b_ >> 29;
  }
}

void KeyHasher::add(const std::string& s) {
  const uint64_t n = s.size();
  bytes(&n, sizeof n);
  bytes(s.data(), s.size());
}

void KeyHasher::add_path(const std::string& path) {
  add(path);
  std::error_code ec;
  std::vector<std::string> files;
  if (fs::is_directory(path, ec)) {
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code e2;
      if (it->is_regular_file(e2)) files.push_back(it->path().string());
    }
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
  }
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    add(f);
    add(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  }
}

std::string KeyHasher::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a_),
                static_cast<unsigned long long>(b_));
  return buf;
}

std::string kernel_cache_dir() {
  const char* own = std::getenv("EMBER_KERNEL_CACHE");
  if (own != nullptr && *own != '\0') return std::strcmp(own, "0") == 0 ? "" : own;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg != '\0') return (fs::path(xdg) / "ember" / "kernels").string();
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0')
    return (fs::path(home) / ".cache" / "ember" / "kernels").string();
  return "";
}

size_t kernel_cache_max_bytes() {
  const char* v = std::getenv("EMBER_KERNEL_CACHE_MAX_MB");
  char* end = nullptr;
  const unsigned long long mb = v != nullptr ? std::strtoull(v, &end, 10) : 0;
  return (v != nullptr && end != v ? mb : 1024ull) << 20;
}

bool kernel_cache_load(const std::string& key, std::string* bytes) {
  const std::string dir = kernel_cache_dir();
  if (dir.empty()) return false;
  const fs::path path = entry_path(dir, key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const size_t header = sizeof kMagic + 16;
  const bool whole = file.size() >= header &&
                     std::memcmp(file.data(), kMagic, sizeof kMagic) == 0 &&
                     get_u64(file.data() + 8) == file.size() - header;
  std::string payload = whole ? file.substr(header) : std::string();
  if (!whole || fnv1a(payload) != get_u64(file.data() + 16)) {  // damaged: rebuilt by the caller
    std::error_code ec;
    fs::remove(path, ec);
    return false;
  }
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // used now (LRU)
  *bytes = std::move(payload);
  return true;
}

void kernel_cache_store(const std::string& key, const std::string& bytes) {
  const std::string dir = kernel_cache_dir();
  if (dir.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  static std::atomic<unsigned> serial{0};
  const fs::path final_path = entry_path(dir, key);
  const fs::path tmp = fs::path(dir) / (key + ".tmp." + std::to_string(getpid()) + "." +
                                        std::to_string(serial.fetch_add(1)));
  std::string file(kMagic, sizeof kMagic);
  put_u64(file, bytes.size());
  put_u64(file, fnv1a(bytes));
  file += bytes;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, final_path, ec);  // atomic on POSIX: the entry is whole or absent
  if (ec) fs::remove(tmp, ec);
  evict(dir, kernel_cache_max_bytes());
}

}  // namespace detail
}  // namespace cuda
}  // namespace ember
