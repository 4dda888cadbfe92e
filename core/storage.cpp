// The per-device allocator registry and make_storage, the one allocation path of ember.
// make_storage is on every op's path: one allocator call and one make_shared, nothing else.
#include <ember/core/storage.h>

#include <ember/core/device_hooks.h>
#include <ember/core/dispatch.h>
#include <ember/core/error.h>

namespace ember {

namespace {
// Written by backends while init_backends() holds its lock, read afterwards.
Allocator* g_allocators[kNumDeviceTypes] = {};

[[noreturn]] void no_allocator(DeviceType type) {
#ifdef EMBER_WITH_CUDA
  EMBER_THROW("no allocator for device ", type,
              type == kCUDA ? ": no CUDA device is available" : ": the backend is not registered");
#else
  EMBER_THROW("no allocator for device ", type,
              type == kCUDA ? ": ember was built without CUDA" : ": the backend is not registered");
#endif
}
}  // namespace

void set_allocator(DeviceType type, Allocator* allocator) {
  g_allocators[static_cast<int>(type)] = allocator;
}

Allocator* get_allocator(DeviceType type) {
  Allocator* a = g_allocators[static_cast<int>(type)];
  if (__builtin_expect(a == nullptr, 0)) {
    init_backends();  // a caller may ask before any tensor exists
    a = g_allocators[static_cast<int>(type)];
    if (a == nullptr) no_allocator(type);
  }
  return a;
}

Storage make_storage(size_t nbytes, Device device) {
  init_backends();  // one acquire load once the backends are up
  Allocator* allocator = g_allocators[static_cast<int>(device.type())];
  if (__builtin_expect(allocator == nullptr, 0)) no_allocator(device.type());
  // "cuda" without an index means the current device; storages always record which one.
  if (device.is_cuda() && !device.has_index())
    device = Device(kCUDA, device_hooks().current_device());
  return std::make_shared<StorageImpl>(allocator->allocate(nbytes, device), nbytes, device);
}

}  // namespace ember
