// Small-op batching, host side: which ops qualify, the per-stream queues, and submitting
// them (see cuda/batch.h for the ordering rules; the kernel is in cuda/batch_kernel.cu).
#include <ember/cuda/batch.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/cuda/api.h>
#include <ember/cuda/check.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace batch {
namespace {

// Off with EMBER_CUDA_BATCH=0, and under EMBER_CUDA_SYNC=1 (each op must fault on its own).
bool enabled() {
  static const bool on = [] {
    const char* off = std::getenv("EMBER_CUDA_BATCH");
    return !(off != nullptr && std::strcmp(off, "0") == 0) && !detail::sync_after_kernels();
  }();
  return on;
}

// The ops recorded for one stream. Queues are created on first use and live as long as the
// process (as streams do); the mutex orders threads that share a stream.
struct Queue {
  int device;
  cudaStream_t stream;
  std::mutex mu;
  Batch batch{};  // batch.count ops recorded, not yet launched
};

std::mutex g_registry_mu;
std::vector<Queue*>& registry() {
  static auto* queues = new std::vector<Queue*>;  // leaked: used until the process ends
  return *queues;
}

Queue* find(int device, cudaStream_t stream, bool create) {
  thread_local Queue* last = nullptr;
  if (last != nullptr && last->device == device && last->stream == stream) return last;
  std::lock_guard<std::mutex> lock(g_registry_mu);
  for (Queue* q : registry()) {
    if (q->device == device && q->stream == stream) return last = q;
  }
  if (!create) return nullptr;
  Queue* q = new Queue;
  q->device = device;
  q->stream = stream;
  registry().push_back(q);
  return last = q;
}

// Launches q's ops; with q.mu held. They leave the queue even when the launch fails. The
// count of unsubmitted ops drops only once the launch is enqueued: a thread that reads 0
// and skips submitting must find the batch already ahead of its own work on the stream.
void launch_locked(Queue& q) {
  const int count = q.batch.count;
  if (count == 0) return;
  auto done = [&] {
    q.batch.count = 0;
    ::ember::detail::g_unsubmitted_cuda_ops.fetch_sub(count, std::memory_order_release);
  };
  try {
    DeviceGuard guard(q.device);
    launch(q.batch, q.stream);
  } catch (...) {
    done();
    throw;
  }
  done();
}

// Records op for the current stream of `device` (-1: the current device). The device need
// not be current: the launch sets it (launch_locked).
void record(const Op& op, int device) {
  if (device < 0) EMBER_CUDA_CHECK(cudaGetDevice(&device));
  Queue& q = *find(device, peek_current_stream(device), /*create=*/true);
  std::lock_guard<std::mutex> lock(q.mu);
  if (q.batch.count == kCapacity) launch_locked(q);
  q.batch.ops[q.batch.count++] = op;
  ::ember::detail::g_unsubmitted_cuda_ops.fetch_add(1, std::memory_order_relaxed);
}

bool small(int64_t n) { return n > 0 && n <= kMaxNumel; }

const float* floats(const Tensor& t) { return static_cast<const float*>(address(t)); }

// 1 for a contiguous operand of n elements, 0 for one element broadcast (a single element,
// or every dim of size 1 or stride 0), -1 for anything else.
int step_of(const Tensor& t, int64_t n) {
  if (t.numel() == 1) return 0;
  if (t.is_contiguous()) return t.numel() == n ? 1 : -1;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] != 1 && t.strides()[d] != 0) return -1;
  }
  return 0;
}

// Whether an input may be read by the batch kernel while it writes out[0..n): either the
// same elements (in place) or no overlap at all. A broadcast element inside out is not,
// unless out is that one element.
bool readable(const float* in, int step, const float* out, int64_t n) {
  const bool inside = in >= out && in < out + n;
  if (step == 0) return !inside || (n == 1 && in == out);
  return in == out || (in + n <= out || in >= out + n);
}

bool elementwise_code(Code code) {
  return code == Code::kAdd || code == Code::kSub || code == Code::kMul || code == Code::kDiv;
}

}  // namespace

bool try_binary(Code code, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (!enabled() || !elementwise_code(code)) return false;
  const int64_t n = out.numel();
  if (!small(n) || out.dtype() != kFloat32 || a.dtype() != kFloat32 || b.dtype() != kFloat32 ||
      !out.is_contiguous())
    return false;
  const int sa = step_of(a, n), sb = step_of(b, n);
  if (sa < 0 || sb < 0) return false;
  float* o = static_cast<float*>(address(out));
  const float *pa = floats(a), *pb = floats(b);
  if (!readable(pa, sa, o, n) || !readable(pb, sb, o, n)) return false;
  record(Op{o, pa, pb, 0.0f, static_cast<uint32_t>(n), code, static_cast<uint8_t>(sa),
            static_cast<uint8_t>(sb)},
         out.device().index());
  return true;
}

bool try_scalar(Code code, const Tensor& out, const Tensor& a, float s) {
  if (!enabled() || !elementwise_code(code)) return false;
  const int64_t n = out.numel();
  if (!small(n) || out.dtype() != kFloat32 || a.dtype() != kFloat32 || !out.is_contiguous())
    return false;
  const int sa = step_of(a, n);
  if (sa < 0) return false;
  float* o = static_cast<float*>(address(out));
  const float* pa = floats(a);
  if (!readable(pa, sa, o, n)) return false;
  record(Op{o, pa, nullptr, s, static_cast<uint32_t>(n), code, static_cast<uint8_t>(sa), 0},
         out.device().index());
  return true;
}

bool try_fill(void* data, int64_t n, int elem_size, uint64_t bits) {
  if (!enabled() || n <= 0 || elem_size <= 0) return false;
  const int64_t nbytes = n * elem_size;
  if (nbytes % 4 != 0 || nbytes / 4 > kMaxNumel || reinterpret_cast<uintptr_t>(data) % 4 != 0)
    return false;
  // The pattern of one element as a 32-bit word: smaller elements repeat, an 8-byte one
  // qualifies only when its two halves are equal (zero, for one).
  uint32_t word = 0;
  if (elem_size == 8) {
    if (static_cast<uint32_t>(bits) != static_cast<uint32_t>(bits >> 32)) return false;
    word = static_cast<uint32_t>(bits);
  } else if (elem_size == 1 || elem_size == 2 || elem_size == 4) {
    for (int i = 0; i < 4; i += elem_size)
      std::memcpy(reinterpret_cast<char*>(&word) + i, &bits, elem_size);
  } else {
    return false;
  }
  float value;
  std::memcpy(&value, &word, 4);
  record(Op{static_cast<float*>(data), nullptr, nullptr, value, static_cast<uint32_t>(nbytes / 4),
            Code::kFill, 0, 0},
         /*device=*/-1);  // the caller's, made current
  return true;
}

bool try_copy(const Tensor& dst, const Tensor& src) {
  if (!enabled() || dst.dtype() != src.dtype() || !dst.is_contiguous() || !src.is_contiguous())
    return false;
  const int64_t nbytes = static_cast<int64_t>(dst.nbytes());
  char* d = static_cast<char*>(address(dst));
  const char* s = static_cast<const char*>(address(src));
  if (nbytes <= 0 || nbytes % 4 != 0 || nbytes / 4 > kMaxNumel ||
      reinterpret_cast<uintptr_t>(d) % 4 != 0 || reinterpret_cast<uintptr_t>(s) % 4 != 0)
    return false;
  if (s < d + nbytes && d < s + nbytes) return false;  // overlapping: memcpy's rules
  record(Op{reinterpret_cast<float*>(d), reinterpret_cast<const float*>(s), nullptr, 0.0f,
            static_cast<uint32_t>(nbytes / 4), Code::kCopy, 1, 0},
         dst.device().index());
  return true;
}

bool try_reduce(Code code, const Tensor& out, const Tensor& in) {
  if (!enabled() || (code != Code::kSum && code != Code::kMean)) return false;
  if (out.numel() != 1 || !small(in.numel()) || out.dtype() != kFloat32 || in.dtype() != kFloat32 ||
      !in.is_contiguous())
    return false;
  float* o = static_cast<float*>(address(out));
  const float* a = floats(in);
  if (o >= a && o < a + in.numel()) return false;
  record(Op{o, a, nullptr, 0.0f, static_cast<uint32_t>(in.numel()), code, 1, 0},
         out.device().index());
  return true;
}

void submit(int device, cudaStream_t stream) {
  if (::ember::detail::g_unsubmitted_cuda_ops.load(std::memory_order_acquire) == 0) return;
  if (device < 0) EMBER_CUDA_CHECK(cudaGetDevice(&device));
  Queue* q = find(device, stream, /*create=*/false);
  if (q == nullptr) return;
  std::lock_guard<std::mutex> lock(q->mu);
  launch_locked(*q);
}

void submit_all(int device) {
  if (::ember::detail::g_unsubmitted_cuda_ops.load(std::memory_order_acquire) == 0) return;
  std::vector<Queue*> queues;
  {
    std::lock_guard<std::mutex> lock(g_registry_mu);
    queues = registry();
  }
  for (Queue* q : queues) {
    if (device >= 0 && q->device != device) continue;
    std::lock_guard<std::mutex> lock(q->mu);
    launch_locked(*q);
  }
}

}  // namespace batch
}  // namespace cuda
}  // namespace ember
