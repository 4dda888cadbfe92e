// The CPU allocator: 64-byte aligned blocks (a cache line, and the widest vector load).
// Large blocks use huge pages and a small reuse cache, since page faults, not bandwidth,
// would otherwise dominate every large elementwise op that allocates its output.
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include <sys/mman.h>

#include <ember/core/error.h>
#include <ember/core/storage.h>

namespace ember {
namespace cpu {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kHugePage = size_t(2) << 20;
// Freed large blocks kept for reuse, at most this many bytes in all.
constexpr size_t kMaxCachedBytes = size_t(512) << 20;

// Freed blocks of >= 2 MiB, reused for requests of the same rounded size: a training
// step or a benchmark loop allocates the same large sizes again and again, and a fresh
// block costs a page fault and a kernel zeroing per page on first touch (a 64 MiB
// block: ~20 ms of faults vs ~5 ms to stream it). Large ops only, so a mutex is cheap.
class LargeBlockCache {
 public:
  void* take(size_t rounded) {
    std::lock_guard<std::mutex> lock(m_);
    for (size_t i = 0; i < blocks_.size(); ++i) {
      if (blocks_[i].first == rounded) {
        void* p = blocks_[i].second;
        blocks_[i] = blocks_.back();
        blocks_.pop_back();
        cached_bytes_ -= rounded;
        return p;
      }
    }
    return nullptr;
  }

  void give(void* p, size_t rounded) {
    {
      std::lock_guard<std::mutex> lock(m_);
      // Evict older blocks of other sizes rather than refuse the newest one.
      while (cached_bytes_ + rounded > kMaxCachedBytes && !blocks_.empty()) {
        std::free(blocks_.front().second);
        cached_bytes_ -= blocks_.front().first;
        blocks_.erase(blocks_.begin());
      }
      if (cached_bytes_ + rounded <= kMaxCachedBytes) {
        blocks_.emplace_back(rounded, p);
        cached_bytes_ += rounded;
        return;
      }
    }
    std::free(p);
  }

  void release_all() {
    std::lock_guard<std::mutex> lock(m_);
    for (auto& block : blocks_) std::free(block.second);
    blocks_.clear();
    cached_bytes_ = 0;
  }

 private:
  std::mutex m_;
  std::vector<std::pair<size_t, void*>> blocks_;  // (rounded size, block), oldest first
  size_t cached_bytes_ = 0;
};

// Never destroyed: tensors freed during static destruction still find it.
LargeBlockCache& large_cache() {
  static auto* cache = new LargeBlockCache;
  return *cache;
}

// Small blocks: ctx is the pointer malloc returned; ptr sits up to 64 bytes above it.
void free_small(void* /*ptr*/, void* ctx) { std::free(ctx); }
// Large blocks: ctx carries the rounded size.
void free_large(void* ptr, void* ctx) { large_cache().give(ptr, reinterpret_cast<uintptr_t>(ctx)); }

class CPUAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device device) override {
    DataPtr out;
    if (nbytes >= kHugePage) {
      const size_t rounded = (nbytes + kHugePage - 1) / kHugePage * kHugePage;
      void* p = large_cache().take(rounded);
      if (p == nullptr) {
        // Aligned to a huge page so the kernel can back the block with 2 MiB pages: 32
        // page faults for 64 MiB instead of 16384.
        if (posix_memalign(&p, kHugePage, rounded) != 0) {
          large_cache().release_all();  // cached blocks of other sizes, then one retry
          if (posix_memalign(&p, kHugePage, rounded) != 0) throw_oom(nbytes);
        }
#ifdef MADV_HUGEPAGE
        madvise(p, rounded, MADV_HUGEPAGE);  // advisory: failure is harmless
#endif
      }
      out.ptr = p;
      out.ctx = reinterpret_cast<void*>(static_cast<uintptr_t>(rounded));
      out.deleter = &free_large;
      return out;
    }
    // malloc plus manual alignment rather than posix_memalign, whose split-off slack
    // churns glibc's bins: a tiny op's allocation stays on malloc's fast path.
    // Zero-byte tensors still get a unique, valid pointer.
    void* raw = std::malloc(nbytes + kAlignment);
    if (raw == nullptr) throw_oom(nbytes);
    const auto addr = reinterpret_cast<uintptr_t>(raw);
    out.ptr = reinterpret_cast<void*>((addr + kAlignment) & ~uintptr_t(kAlignment - 1));
    out.ctx = raw;
    out.deleter = &free_small;
    return out;
  }

 private:
  [[noreturn]] static void throw_oom(size_t nbytes) {
    throw OutOfMemoryError(detail::str("cpu: out of memory allocating ", nbytes, " bytes"));
  }
};

}  // namespace

Allocator* cpu_allocator() {
  static auto* allocator = new CPUAllocator;  // never destroyed, like the cache
  return allocator;
}

}  // namespace cpu
}  // namespace ember
