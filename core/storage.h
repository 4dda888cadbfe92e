// Storage: a refcounted block of memory on one device, from that device's allocator.
// Views share one Storage; its version counter is bumped by in-place writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <ember/core/device.h>

namespace ember {

// A pointer plus the function that frees it (nullptr for borrowed memory).
struct DataPtr {
  void* ptr = nullptr;
  void* ctx = nullptr;  // passed to deleter (e.g. a cache block)
  void (*deleter)(void* ptr, void* ctx) = nullptr;
};

// One allocator per device type, registered by the backend at start-up.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes, Device device) = 0;
};

void set_allocator(DeviceType type, Allocator* allocator);
Allocator* get_allocator(DeviceType type);  // throws if the backend is not registered

class StorageImpl {
 public:
  StorageImpl(DataPtr data, size_t nbytes, Device device)
      : data_(data), nbytes_(nbytes), device_(device) {}
  ~StorageImpl() {
    if (data_.deleter) data_.deleter(data_.ptr, data_.ctx);
  }
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  void* data() const { return data_.ptr; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  uint32_t version() const { return version_; }
  void bump_version() { ++version_; }

 private:
  DataPtr data_;
  size_t nbytes_;
  Device device_;
  uint32_t version_ = 0;
};

using Storage = std::shared_ptr<StorageImpl>;

// Allocates nbytes on device through the registered allocator.
Storage make_storage(size_t nbytes, Device device);

}  // namespace ember
