// The disk cache of runtime-compiled kernels (cuda::Module): compiled code stored under a key
// that hashes everything the compile depends on. CUDA-free; private to cuda/ and its tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ember {
namespace cuda {
namespace detail {

// A 128-bit key as 32 hex digits, from strings and files added in order (each with its
// length, so that ("ab", "c") and ("a", "bc") differ). Not cryptographic: a cache key.
class KeyHasher {
 public:
  void add(const std::string& s);
  // A file's path and contents; every regular file under it, in path order, for a directory.
  // A missing path adds only its name.
  void add_path(const std::string& path);
  std::string hex() const;

 private:
  void bytes(const void* p, size_t n);
  uint64_t a_ = 0xcbf29ce484222325ull, b_ = 0x9e3779b97f4a7c15ull;
};

// Where entries live: $EMBER_KERNEL_CACHE, else $XDG_CACHE_HOME/ember/kernels, else
// ~/.cache/ember/kernels; "" when EMBER_KERNEL_CACHE=0 (no cache).
std::string kernel_cache_dir();
// The cache's size cap: $EMBER_KERNEL_CACHE_MAX_MB (default 1024) MiB.
size_t kernel_cache_max_bytes();

// The bytes stored under `key`: false for a missing, unreadable or damaged entry (a damaged
// one is removed). A hit marks the entry used, for least-recently-used eviction.
bool kernel_cache_load(const std::string& key, std::string* bytes);
// Stores `bytes` under `key`: written to a temporary file and renamed, so that readers never
// see a partial entry and concurrent writers leave one whole entry; then evicts the least
// recently used entries past the cap. Errors are ignored: the cache only saves time.
void kernel_cache_store(const std::string& key, const std::string& bytes);

}  // namespace detail
}  // namespace cuda
}  // namespace ember
