// The CUDA caching allocator, in the spirit of PyTorch's CUDACachingAllocator: cudaMalloc'd
// segments split into blocks, freed blocks cached per device and stream and merged with free
// neighbours; and the pinned host allocator, whose freed blocks are cached by size.
#include <ember/cuda/allocator.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <ember/core/error.h>
#include <ember/cuda/batch.h>
#include <ember/cuda/capture.h>
#include <ember/cuda/check.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

constexpr size_t kMinBlockSize = 512;                // sizes are rounded up to multiples of this
constexpr size_t kSmallSize = size_t(1) << 20;       // requests up to 1 MiB use the small pool
constexpr size_t kSmallBuffer = size_t(2) << 20;     // small-pool segments are 2 MiB
constexpr size_t kMinLargeAlloc = size_t(10) << 20;  // requests of 1-10 MiB share
constexpr size_t kLargeBuffer = size_t(20) << 20;    //   20 MiB segments;
constexpr size_t kRoundLarge = size_t(2) << 20;      // bigger ones get 2 MiB multiples
constexpr size_t kMaxRequest = size_t(1) << 60;      // beyond this rounding would overflow

size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

std::string bytes_str(size_t n) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (n < 1024) return std::to_string(n) + " bytes";
  double v = n / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[48];
  snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

// The segment a request gets when no cached block fits.
size_t segment_size(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return round_up(size, kRoundLarge);
}

struct PrivatePool;

// A piece of a segment. The blocks of a segment form an address-ordered list through
// prev/next and all share the segment's stream and pool; a block with neither neighbour is
// a whole segment.
struct Block {
  Block(int device, cudaStream_t stream, size_t size, char* ptr, bool small)
      : device(device), stream(stream), size(size), ptr(ptr), small(small) {}
  int device;
  cudaStream_t stream;  // the stream it was allocated on: reused only there
  size_t size;
  char* ptr;
  bool small;  // from the small pool
  bool allocated = false;
  PrivatePool* owner = nullptr;  // a graph's private pool (cuda/capture.h), or the normal cache
  Block* prev = nullptr;
  Block* next = nullptr;
};

// Free blocks ordered by (stream, size, address): lower_bound of (stream, size, 0) is the
// smallest block of that stream that fits, i.e. the best fit.
struct BlockLess {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return std::less<cudaStream_t>()(a->stream, b->stream);
    if (a->size != b->size) return a->size < b->size;
    return std::less<char*>()(a->ptr, b->ptr);
  }
};
using Pool = std::set<Block*, BlockLess>;

// A CUDA graph's private pool: the free blocks of its segments (every block of a segment has
// the same owner). Once released by its last graph, its segments are adopted by the normal
// cache: the free ones at once, the rest when one of their blocks is freed.
struct PrivatePool {
  MempoolId id;
  int use_count = 0;  // graphs that hold it
  bool released = false;
  size_t segments = 0;  // segments still owned
  Pool small, large;
  Pool& of(const Block& b) { return b.small ? small : large; }
};

// The cache and statistics of one device; every member function takes its mutex.
class DeviceCache {
 public:
  explicit DeviceCache(int device) : device_(device) {}

  Block* allocate(size_t nbytes) {
    std::lock_guard<std::mutex> lock(mu_);
    if (nbytes > kMaxRequest) throw_oom(nbytes);
    const size_t size = round_up(nbytes, kMinBlockSize);
    const bool small = size <= kSmallSize;
    const cudaStream_t stream = peek_current_stream(device_);
    // A stream being captured allocates from its graph's private pool, which grows by new
    // segments (cudaMalloc: relaxed capture allows it, and it is not captured).
    PrivatePool* owner = __builtin_expect(routes_.empty(), 1) ? nullptr : route_of(stream);
    Pool& pool =
        owner != nullptr ? (small ? owner->small : owner->large) : (small ? small_ : large_);
    Block* block = take_best_fit(pool, stream, size);
    if (block == nullptr) {
      block = new_segment(stream, segment_size(size), small, nbytes);
      if (owner != nullptr) {
        block->owner = owner;
        ++owner->segments;
      }
    }
    if (should_split(*block, size)) split(pool, block, size);
    block->allocated = true;
    allocated_ += block->size;
    peak_ = std::max(peak_, allocated_);
    return block;
  }

  // Called by the DataPtr deleter: must not throw.
  void free(Block* block) {
    std::lock_guard<std::mutex> lock(mu_);
    allocated_ -= block->size;
    block->allocated = false;
    if (__builtin_expect(block->owner != nullptr, 0) && block->owner->released)
      adopt_segment(block);
    Pool& pool =
        block->owner != nullptr ? block->owner->of(*block) : (block->small ? small_ : large_);
    merge_free_neighbours(pool, block);
    pool.insert(block);
  }

  // Waits for the device (a cached block may still be in use by queued kernels), then
  // returns every cached whole segment to the driver.
  void empty_cache() {
    if (reserved() == 0) return;  // never used: do not create a context for nothing
    DeviceGuard guard(device_);
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
    std::lock_guard<std::mutex> lock(mu_);
    release_free_segments();
  }

  // The cap on reserved memory: `fraction` of the device's total memory (1: no cap).
  void set_memory_fraction(double fraction) {
    size_t free_b = 0, total_b = 0;
    {
      DeviceGuard guard(device_);
      EMBER_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    }
    std::lock_guard<std::mutex> lock(mu_);
    limit_ = fraction >= 1.0 ? SIZE_MAX : static_cast<size_t>(fraction * double(total_b));
    fraction_ = fraction;
  }
  double memory_fraction() {
    std::lock_guard<std::mutex> lock(mu_);
    return fraction_;
  }

  // ---- private pools (cuda/capture.h) ----
  void begin_route(MempoolId id, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& r : routes_) {
      EMBER_CHECK(r.first != stream, "CUDA graph capture: the stream is already being captured");
    }
    PrivatePool*& p = pools_[id];
    if (p == nullptr) {
      p = new PrivatePool;
      p->id = id;
    }
    ++p->use_count;
    routes_.emplace_back(stream, p);
  }

  void end_route(cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = routes_.begin(); it != routes_.end(); ++it) {
      if (it->first == stream) {
        routes_.erase(it);
        return;
      }
    }
  }

  // The last reference gone: every segment of the pool joins the normal cache.
  void release(MempoolId id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(id);
    if (it == pools_.end()) return;
    PrivatePool* p = it->second;
    if (--p->use_count > 0) return;
    pools_.erase(it);
    for (Pool* from : {&p->small, &p->large}) {
      for (Block* block : *from) {
        if (block->owner != nullptr) adopt_segment(block);
      }
      for (Block* block : *from) (block->small ? small_ : large_).insert(block);
      from->clear();
    }
    p->released = true;  // after the loop: adopt_segment deletes released pools
    if (p->segments == 0) delete p;
  }

  size_t allocated() {
    std::lock_guard<std::mutex> lock(mu_);
    return allocated_;
  }
  size_t peak() {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
  }
  size_t reserved() {
    std::lock_guard<std::mutex> lock(mu_);
    return reserved_;
  }
  void reset_peak() {
    std::lock_guard<std::mutex> lock(mu_);
    peak_ = allocated_;
  }

 private:
  PrivatePool* route_of(cudaStream_t stream) const {
    for (const auto& r : routes_) {
      if (r.first == stream) return r.second;
    }
    return nullptr;
  }

  // The segment of `block` (owned by a released pool) joins the normal cache; the pool goes
  // with its last segment. The caller moves the segment's free blocks into the normal pools.
  void adopt_segment(Block* block) {
    PrivatePool* owner = block->owner;
    Block* first = block;
    while (first->prev != nullptr) first = first->prev;
    for (Block* b = first; b != nullptr; b = b->next) b->owner = nullptr;
    if (--owner->segments == 0 && owner->released) delete owner;
  }

  static Block* take_best_fit(Pool& pool, cudaStream_t stream, size_t size) {
    Block key(-1, stream, size, nullptr, false);
    auto it = pool.lower_bound(&key);
    if (it == pool.end() || (*it)->stream != stream) return nullptr;
    Block* block = *it;
    pool.erase(it);
    return block;
  }

  // Keep the remainder as a block when it can serve a request of its pool: in the large
  // pool a remainder of 1 MiB or less would only ever serve small requests, which it cannot.
  static bool should_split(const Block& block, size_t size) {
    const size_t rest = block.size - size;
    return block.small ? rest >= kMinBlockSize : rest > kSmallSize;
  }

  // block (not in the pool) keeps its first `size` bytes; the rest becomes a free block.
  void split(Pool& pool, Block* block, size_t size) {
    Block* rest =
        new Block(device_, block->stream, block->size - size, block->ptr + size, block->small);
    rest->owner = block->owner;
    rest->prev = block;
    rest->next = block->next;
    if (rest->next != nullptr) rest->next->prev = rest;
    block->next = rest;
    block->size = size;
    pool.insert(rest);
  }

  // block (not in the pool) absorbs its free neighbours, which leave the pool.
  static void merge_free_neighbours(Pool& pool, Block* block) {
    Block* prev = block->prev;
    if (prev != nullptr && !prev->allocated) {
      pool.erase(prev);
      block->ptr = prev->ptr;
      block->size += prev->size;
      block->prev = prev->prev;
      if (block->prev != nullptr) block->prev->next = block;
      delete prev;
    }
    Block* next = block->next;
    if (next != nullptr && !next->allocated) {
      pool.erase(next);
      block->size += next->size;
      block->next = next->next;
      if (block->next != nullptr) block->next->prev = block;
      delete next;
    }
  }

  // A fresh segment of `bytes` as one block (not in any pool). On an out-of-memory error:
  // free the cached segments and retry once, then throw OutOfMemoryError.
  Block* new_segment(cudaStream_t stream, size_t bytes, bool small, size_t requested) {
    DeviceGuard guard(device_);
    void* ptr = nullptr;
    // A segment beyond the per-process cap fails as cudaMalloc would.
    auto malloc_capped = [&] {
      return reserved_ + bytes > limit_ ? cudaErrorMemoryAllocation : cudaMalloc(&ptr, bytes);
    };
    cudaError_t err = malloc_capped();
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear it: the retry may succeed
      // Freeing the cache means synchronizing the device, which a capture forbids.
      if (!routes_.empty() || capture_underway())
        throw_oom(requested,
                  " (during CUDA graph capture ember cannot free its cached memory "
                  "and retry)");
      batch::submit_all(device_);  // cached blocks may still be in use: by recorded small ops,
      EMBER_CUDA_CHECK(cudaDeviceSynchronize());  // and by queued kernels
      release_free_segments();
      err = malloc_capped();
      if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        throw_oom(requested);
      }
    }
    EMBER_CUDA_CHECK(err);
    reserved_ += bytes;
    return new Block(device_, stream, bytes, static_cast<char*>(ptr), small);
  }

  // Needs the device current and the lock held.
  void release_free_segments() {
    for (Pool* pool : {&small_, &large_}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* block = *it;
        if (block->prev != nullptr || block->next != nullptr) {
          ++it;
          continue;
        }
        EMBER_CUDA_CHECK(cudaFree(block->ptr));
        reserved_ -= block->size;
        it = pool->erase(it);
        delete block;
      }
    }
  }

  // With the lock held.
  [[noreturn]] void throw_oom(size_t requested, const char* note = "") {
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
    throw OutOfMemoryError(::ember::detail::str(
        "CUDA out of memory. Tried to allocate ", bytes_str(requested), ". GPU ", device_,
        " has a total capacity of ", bytes_str(total_b), " of which ", bytes_str(free_b),
        " is free. Of the memory ember holds, ", bytes_str(allocated_),
        " is allocated by tensors and ", bytes_str(reserved_ - allocated_),
        " is reserved but unallocated (", bytes_str(reserved_), " reserved in total).",
        limit_ != SIZE_MAX ? ::ember::detail::str(" The per-process memory fraction caps ember at ",
                                                  bytes_str(limit_), " on this device.")
                           : std::string(),
        note));
  }

  const int device_;
  std::mutex mu_;
  Pool small_;
  Pool large_;
  size_t allocated_ = 0;  // bytes of allocated blocks (rounded sizes)
  size_t peak_ = 0;
  size_t reserved_ = 0;      // bytes of all segments
  size_t limit_ = SIZE_MAX;  // reserved_ stays within it (set_per_process_memory_fraction)
  double fraction_ = 1.0;
  std::map<MempoolId, PrivatePool*> pools_;                    // the pools graphs hold
  std::vector<std::pair<cudaStream_t, PrivatePool*>> routes_;  // streams being captured
};

// One cache per device, made on first use and never destroyed: tensors that outlive main()
// (statics) still return their blocks safely.
const std::vector<DeviceCache*>& caches() {
  static const std::vector<DeviceCache*>* all = [] {
    auto* v = new std::vector<DeviceCache*>();
    for (int d = 0; d < device_count(); ++d) v->push_back(new DeviceCache(d));
    return v;
  }();
  return *all;
}

DeviceCache* cache_of(int device) {
  const auto& all = caches();
  return device >= 0 && device < static_cast<int>(all.size()) ? all[device] : nullptr;
}

void free_block(void* /*ptr*/, void* ctx) {
  Block* block = static_cast<Block*>(ctx);
  caches()[block->device]->free(block);
}

// EMBER_CUDA_NO_CACHING=1: every tensor gets its own cudaMalloc and is cudaFree'd when it
// dies, so compute-sanitizer memcheck sees overruns that a cached block would hide (slow;
// memory_allocated() and friends do not count these blocks).
bool caching_disabled() {
  static const bool off = [] {
    const char* v = std::getenv("EMBER_CUDA_NO_CACHING");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  return off;
}

void free_uncached(void* ptr, void* /*ctx*/) {
  // Recorded small ops may still use the memory: launch them first (cudaFree waits for them).
  // A deleter must not throw.
  try {
    batch::submit_all();
  } catch (...) {
    cudaGetLastError();
  }
  if (cudaFree(ptr) != cudaSuccess) cudaGetLastError();
}

class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device device) override {
    if (nbytes == 0) return {};
    int index = device.index();
    if (index < 0) EMBER_CUDA_CHECK(cudaGetDevice(&index));
    if (caching_disabled()) {
      EMBER_CHECK(!capture_underway(),
                  "CUDA graph capture needs the caching allocator: unset "
                  "EMBER_CUDA_NO_CACHING");
      DeviceGuard guard(index);
      void* ptr = nullptr;
      // Rounded to whole 32-bit words as every cached block is: kernels that update one
      // byte with a 32-bit atomic (scatter_add on uint8) touch the whole word around it.
      const size_t rounded = (nbytes + 3) / 4 * 4;
      if (cudaMalloc(&ptr, rounded) != cudaSuccess) {
        cudaGetLastError();
        throw OutOfMemoryError(::ember::detail::str("cuda: out of memory allocating ", nbytes,
                                                    " bytes on device ", index,
                                                    " (EMBER_CUDA_NO_CACHING is set)"));
      }
      // The padding is zeroed (this mode serves compute-sanitizer): those atomics read it, and
      // initcheck would report each such read of never-written bytes.
      if (rounded > nbytes) {
        EMBER_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(ptr) + nbytes, 0, rounded - nbytes,
                                         peek_current_stream(index)));
      }
      return DataPtr{ptr, nullptr, &free_uncached};
    }
    DeviceCache* cache = cache_of(index);
    EMBER_CHECK(cache != nullptr, "cuda: device ", index, " does not exist (", device_count(),
                " CUDA devices)");
    Block* block = cache->allocate(nbytes);
    return DataPtr{block->ptr, block, &free_block};
  }
};

// ---- pinned host memory ----

struct PinnedBlock {
  void* ptr;
  size_t size;
  std::vector<cudaEvent_t> uses;  // recorded after asynchronous copies that touch the block
};

// Sizes are rounded up to powers of two (at least 512 bytes) so that cached blocks fit
// later requests of similar size.
size_t pinned_size(size_t nbytes) {
  size_t size = kMinBlockSize;
  while (size < nbytes) size <<= 1;
  return size;
}

class PinnedAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device /*device*/) override {
    if (nbytes == 0) return {};
    if (nbytes > kMaxRequest) throw_oom(nbytes);
    const size_t size = pinned_size(nbytes);
    std::lock_guard<std::mutex> lock(mu_);
    PinnedBlock* block = take_cached(size);
    if (block == nullptr) block = new_block(size, nbytes);
    live_[reinterpret_cast<uintptr_t>(block->ptr)] = block;
    return DataPtr{block->ptr, block, &release};
  }

  void record_use(const void* ptr, cudaStream_t stream, int device) {
    std::lock_guard<std::mutex> lock(mu_);
    const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    auto it = live_.upper_bound(p);
    if (it == live_.begin()) return;
    --it;
    PinnedBlock* block = it->second;
    if (p >= it->first + block->size) return;  // not ours
    DeviceGuard guard(device);  // an event belongs to the device current at its creation
    cudaEvent_t event = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    const cudaError_t err = cudaEventRecord(event, stream);
    if (err != cudaSuccess) {
      cudaEventDestroy(event);
      EMBER_CUDA_CHECK(err);
    }
    block->uses.push_back(event);
  }

 private:
  static void release(void* /*ptr*/, void* ctx);

  void free(PinnedBlock* block) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(reinterpret_cast<uintptr_t>(block->ptr));
    cached_.emplace(block->size, block);
  }

  PinnedBlock* take_cached(size_t size) {
    auto range = cached_.equal_range(size);
    for (auto it = range.first; it != range.second; ++it) {
      if (!copies_done(it->second)) continue;
      PinnedBlock* block = it->second;
      cached_.erase(it);
      return block;
    }
    return nullptr;
  }

  // True when no recorded copy still uses the block; drops the events of finished ones.
  static bool copies_done(PinnedBlock* block) {
    while (!block->uses.empty()) {
      const cudaError_t err = cudaEventQuery(block->uses.back());
      if (err == cudaErrorNotReady) {
        cudaGetLastError();
        return false;
      }
      EMBER_CUDA_CHECK(err);
      cudaEventDestroy(block->uses.back());
      block->uses.pop_back();
    }
    return true;
  }

  PinnedBlock* new_block(size_t size, size_t requested) {
    void* ptr = nullptr;
    // Portable: page-locked for every device, not only the current one.
    cudaError_t err = cudaHostAlloc(&ptr, size, cudaHostAllocPortable);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      release_cached();
      err = cudaHostAlloc(&ptr, size, cudaHostAllocPortable);
      if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        throw_oom(requested);
      }
    }
    EMBER_CUDA_CHECK(err);
    return new PinnedBlock{ptr, size, {}};
  }

  // Frees the cached blocks that no pending copy uses (with the lock held).
  void release_cached() {
    for (auto it = cached_.begin(); it != cached_.end();) {
      PinnedBlock* block = it->second;
      if (!copies_done(block)) {
        ++it;
        continue;
      }
      if (cudaFreeHost(block->ptr) != cudaSuccess) cudaGetLastError();
      delete block;
      it = cached_.erase(it);
    }
  }

  [[noreturn]] static void throw_oom(size_t requested) {
    throw OutOfMemoryError(
        ::ember::detail::str("pin_memory: out of page-locked host memory: "
                             "tried to allocate ",
                             bytes_str(requested), " with cudaHostAlloc"));
  }

  std::mutex mu_;
  std::map<uintptr_t, PinnedBlock*> live_;      // handed out, by address
  std::multimap<size_t, PinnedBlock*> cached_;  // freed, by size
};

PinnedAllocator* the_pinned_allocator() {
  static PinnedAllocator* allocator = new PinnedAllocator();  // never destroyed, as caches()
  return allocator;
}

void PinnedAllocator::release(void* /*ptr*/, void* ctx) {
  the_pinned_allocator()->free(static_cast<PinnedBlock*>(ctx));
}

}  // namespace

Allocator* cuda_allocator() {
  static CudaAllocator allocator;
  return &allocator;
}

size_t allocated_bytes(int device) {
  DeviceCache* c = cache_of(device);
  return c != nullptr ? c->allocated() : 0;
}
size_t peak_allocated_bytes(int device) {
  DeviceCache* c = cache_of(device);
  return c != nullptr ? c->peak() : 0;
}
void reset_peak_allocated_bytes(int device) {
  if (DeviceCache* c = cache_of(device)) c->reset_peak();
}
size_t reserved_bytes(int device) {
  DeviceCache* c = cache_of(device);
  return c != nullptr ? c->reserved() : 0;
}

void set_memory_fraction(double fraction, int device) {
  DeviceCache* c = cache_of(device);
  EMBER_CHECK(c != nullptr, "cuda::set_per_process_memory_fraction: device ", device,
              " does not exist (", device_count(), " CUDA devices)");
  c->set_memory_fraction(fraction);
}
double memory_fraction(int device) {
  DeviceCache* c = cache_of(device);
  EMBER_CHECK(c != nullptr, "cuda::get_per_process_memory_fraction: device ", device,
              " does not exist (", device_count(), " CUDA devices)");
  return c->memory_fraction();
}

void release_cached_memory() {
  check_device_not_capturing("cuda::empty_cache", -1);
  batch::submit_all();  // recorded small ops may use cached blocks
  for (DeviceCache* c : caches()) c->empty_cache();
}

void begin_allocate_to_pool(int device, MempoolId id, cudaStream_t stream) {
  DeviceCache* c = cache_of(device);
  EMBER_CHECK(c != nullptr, "cuda: device ", device, " does not exist");
  c->begin_route(id, stream);
}

void end_allocate_to_pool(int device, cudaStream_t stream) {
  if (DeviceCache* c = cache_of(device)) c->end_route(stream);
}

void release_pool(int device, MempoolId id) {
  if (DeviceCache* c = cache_of(device)) c->release(id);
}

Allocator* pinned_allocator() { return the_pinned_allocator(); }

void record_pinned_use(const void* ptr, cudaStream_t stream, int device) {
  the_pinned_allocator()->record_use(ptr, stream, device);
}

bool is_pinned_pointer(const void* ptr) {
  if (ptr == nullptr) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    cudaGetLastError();  // not an error for us: the memory is simply not CUDA's
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

// ---- DeviceGuard (declared in cuda/api.h) ----

DeviceGuard::DeviceGuard(int device) {
  if (device < 0) return;
  int current = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device) {
    EMBER_CUDA_CHECK(cudaSetDevice(device));
    previous_ = current;
  }
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

}  // namespace cuda
}  // namespace ember
