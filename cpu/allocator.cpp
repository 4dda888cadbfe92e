// The CPU allocator: 64-byte aligned blocks (a cache line, and the widest vector load),
// with transparent huge pages requested for large blocks to cut first-touch page faults.
#include <cstdint>
#include <cstdlib>

#include <sys/mman.h>

#include <ember/core/error.h>
#include <ember/core/storage.h>

namespace ember {
namespace cpu {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kHugePage = size_t(2) << 20;

// ctx holds the pointer malloc returned; ptr may sit a few bytes above it.
void free_block(void* /*ptr*/, void* ctx) { std::free(ctx); }

class CPUAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device device) override {
    void* raw = nullptr;
    void* ptr = nullptr;
    if (nbytes >= kHugePage) {
      // Aligned to a huge page so the kernel can back the block with 2 MiB pages: a fresh
      // 64 MiB tensor then costs 32 page faults instead of 16384.
      const size_t rounded = (nbytes + kHugePage - 1) / kHugePage * kHugePage;
      if (posix_memalign(&raw, kHugePage, rounded) != 0) raw = nullptr;
#ifdef MADV_HUGEPAGE
      if (raw) madvise(raw, rounded, MADV_HUGEPAGE);  // advisory: failure is harmless
#endif
      ptr = raw;
    } else {
      // malloc plus manual alignment rather than posix_memalign, whose split-off slack
      // churns glibc's bins: this keeps a tiny op's allocation on malloc's fast path.
      // Zero-byte tensors still get a unique, valid pointer.
      raw = std::malloc(nbytes + kAlignment);
      const auto addr = reinterpret_cast<uintptr_t>(raw);
      ptr = reinterpret_cast<void*>((addr + kAlignment) & ~uintptr_t(kAlignment - 1));
    }
    if (raw == nullptr) {
      throw OutOfMemoryError(detail::str("cpu: out of memory allocating ", nbytes, " bytes"));
    }
    DataPtr out;
    out.ptr = ptr;
    out.ctx = raw;
    out.deleter = &free_block;
    return out;
  }
};

}  // namespace

Allocator* cpu_allocator() {
  static CPUAllocator allocator;
  return &allocator;
}

}  // namespace cpu
}  // namespace ember
