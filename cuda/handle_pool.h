// Library handles (cuBLAS's in cuda/gemm.cpp, cuDNN's in cuda/cudnn_conv.cpp) held one per
// (thread, device). A handle must not be used by two threads at once (setting its stream and
// the call that follows are not atomic), so each thread owns one per device. Handles of
// finished threads go back to a pool instead of being destroyed (destroying one may
// synchronize the device, and at process exit the driver may already be gone). Private to
// cuda/; includes no vendor header.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace ember {
namespace cuda {

// Handle: the caller's per-handle record (the library handle and whatever it keeps beside
// it); each Handle type has its own pool.
template <class Handle>
class ThreadHandles {
 public:
  // The calling thread's Handle for `device`: its own, else one that a finished thread left
  // in the pool, else a fresh one that create(Handle&) initializes (if create throws, the
  // fresh one is freed and the exception propagates).
  template <class Create>
  static Handle& get(int device, const Create& create) {
    thread_local Owned mine;
    if (mine.by_device.size() <= static_cast<size_t>(device)) mine.by_device.resize(device + 1);
    Handle*& handle = mine.by_device[device];
    if (handle == nullptr) {
      {
        Pool& p = pool();
        std::lock_guard<std::mutex> lock(p.mutex);
        if (p.free_by_device.size() > static_cast<size_t>(device) &&
            !p.free_by_device[device].empty()) {
          handle = p.free_by_device[device].back();
          p.free_by_device[device].pop_back();
        }
      }
      if (handle == nullptr) {
        auto fresh = std::make_unique<Handle>();
        create(*fresh);
        handle = fresh.release();  // pooled, never destroyed (see above)
      }
    }
    return *handle;
  }

 private:
  struct Pool {
    std::mutex mutex;
    std::vector<std::vector<Handle*>> free_by_device;
  };

  static Pool& pool() {
    static Pool* p = new Pool;  // leaked: it must outlive thread_local holders
    return *p;
  }

  // A thread's handles, returned to the pool when the thread ends.
  struct Owned {
    std::vector<Handle*> by_device;
    ~Owned() {
      Pool& p = pool();
      std::lock_guard<std::mutex> lock(p.mutex);
      for (size_t d = 0; d < by_device.size(); ++d) {
        if (by_device[d] == nullptr) continue;
        if (p.free_by_device.size() <= d) p.free_by_device.resize(d + 1);
        p.free_by_device[d].push_back(by_device[d]);
      }
    }
  };
};

// The stream a Handle's library handle was bound to last (Stream: cudaStream_t), so that it is
// bound again only when the caller's stream changes.
template <class Stream>
class BoundStream {
 public:
  // Runs bind() (which binds the library handle to `stream`) unless the last bind was to it.
  template <class Bind>
  void bind_to(Stream stream, const Bind& bind) {
    if (bound_ && stream_ == stream) return;
    bind();
    stream_ = stream;
    bound_ = true;
  }

 private:
  Stream stream_{};
  bool bound_ = false;
};

}  // namespace cuda
}  // namespace ember
