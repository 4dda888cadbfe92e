// CUDA conv2d, conv2d_backward_input and conv2d_backward_weight through cuDNN 9's legacy
// convolution API (cudnnConvolutionForward / BackwardData / BackwardFilter; the bias by
// ember's add_channel_bias). Descriptors and the algorithm choice are cached per geometry, so a call costs
// a hash lookup and the cuDNN calls. The one file that includes cudnn.h; docs/cudnn.md says why
// this API and how algorithms are chosen.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ember/core/context.h>
#include <ember/core/dispatch.h>
#include <ember/core/error.h>
#include <ember/core/storage.h>
#include <ember/cuda/allocator.h>
#include <ember/cuda/api.h>
#include <ember/cuda/channel_bias.h>
#include <ember/cuda/check.h>
#include <ember/cuda/cudnn_check.h>
#include <ember/cuda/handle_pool.h>
#include <ember/cuda/kernels.h>
#include <ember/cuda/stream.h>

namespace ember {
namespace cuda {
namespace {

// ---- cuDNN handles: one per (thread, device), pooled (cuda/handle_pool.h) ----
struct Handle {
  cudnnHandle_t h = nullptr;
  BoundStream<cudaStream_t> stream;  // the stream set last (cuda/handle_pool.h)
};

// The calling thread's handle for `device` (already current), bound to `stream`. cudnnSetStream
// runs whenever the current stream differs from the one the handle was last bound to.
cudnnHandle_t handle_for(int device, cudaStream_t stream, const char* op) {
  Handle& handle = ThreadHandles<Handle>::get(
      device, [op](Handle& fresh) { EMBER_CUDNN_CHECK(op, cudnnCreate(&fresh.h)); });
  handle.stream.bind_to(stream, [&] { EMBER_CUDNN_CHECK(op, cudnnSetStream(handle.h, stream)); });
  return handle.h;
}

// ---- workspace: a block of ember's caching allocator, freed back to the cache on return ----
// Reuse of a freed block is safe in stream order: the allocator hands it out again only on the
// stream it was allocated on, which is the stream the cuDNN call ran on.
class Workspace {
 public:
  Workspace() = default;
  Workspace(size_t bytes, int device) {
    if (bytes == 0) return;
    data_ = cuda_allocator()->allocate(bytes, Device(kCUDA, device));
    bytes_ = bytes;
  }
  ~Workspace() { reset(); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace(Workspace&& o) noexcept : data_(o.data_), bytes_(o.bytes_) {
    o.data_ = DataPtr{};
    o.bytes_ = 0;
  }
  Workspace& operator=(Workspace&& o) noexcept {
    if (this != &o) {
      reset();
      data_ = o.data_;
      bytes_ = o.bytes_;
      o.data_ = DataPtr{};
      o.bytes_ = 0;
    }
    return *this;
  }
  void reset() {
    if (data_.deleter) data_.deleter(data_.ptr, data_.ctx);
    data_ = DataPtr{};
    bytes_ = 0;
  }
  void* get() const { return data_.ptr; }
  size_t bytes() const { return bytes_; }

 private:
  DataPtr data_;
  size_t bytes_ = 0;
};

// ---- the three convolutions and their cache key ----
enum Kind : int { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

const char* kind_op(int kind) {
  return kind == kForward
             ? "conv2d"
             : (kind == kBackwardData ? "conv2d_backward_input" : "conv2d_backward_weight");
}

// The sizes of one call: input (or grad_input) [N, C, H, W], weight (or grad_weight)
// [O, Cg, KH, KW], output (or grad_out) [N, O, OH, OW].
struct Geometry {
  int64_t n, c, h, w, o, cg, kh, kw, oh, ow;
};

Geometry geometry(const Tensor& x, const Tensor& weight, const Tensor& y) {
  const IntArrayRef xs = x.sizes(), ws = weight.sizes(), ys = y.sizes();
  return {xs[0], xs[1], xs[2], xs[3], ws[0], ws[1], ws[2], ws[3], ys[2], ys[3]};
}

// Everything the descriptors and the algorithm depend on. Flags that do not apply (TF32 for
// float64) are stored as 0, so that toggling them makes no new entries.
constexpr int kKeyLen = 22;
struct ConvKey {
  int64_t v[kKeyLen];
  bool operator==(const ConvKey& o) const { return std::memcmp(v, o.v, sizeof(v)) == 0; }
};

struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < kKeyLen; ++i) {
      h ^= static_cast<uint64_t>(k.v[i]) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

struct Flags {
  bool tf32, deterministic, benchmark;
};

ConvKey make_key(int kind, const Geometry& g, const ConvArgs& a, ScalarType dtype, int device,
                 const Flags& f) {
  return ConvKey{{kind,          g.n,          g.c,
                  g.h,           g.w,          g.o,
                  g.kh,          g.kw,         g.oh,
                  g.ow,          a.stride[0],  a.stride[1],
                  a.padding[0],  a.padding[1], a.dilation[0],
                  a.dilation[1], a.groups,     static_cast<int64_t>(dtype),
                  device,        f.tf32,       f.deterministic,
                  f.benchmark}};
}

// One usable algorithm, with the math type and workspace it runs with.
struct Candidate {
  int algo;
  cudnnMathType_t math;
  size_t workspace;
};

// The descriptors of one geometry and the algorithms to run it with, best first (the first
// one whose workspace can be allocated and that cuDNN accepts is used).
struct Plan {
  int kind = kForward;
  cudnnTensorDescriptor_t x = nullptr;     // input / grad_input [N, C, H, W]
  cudnnTensorDescriptor_t y = nullptr;     // output / grad_out [N, O, OH, OW]
  cudnnFilterDescriptor_t w = nullptr;     // weight / grad_weight [O, Cg, KH, KW]
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnMathType_t conv_math = CUDNN_DEFAULT_MATH;  // the math type conv is set to now
  cudnnMathType_t base_math = CUDNN_DEFAULT_MATH;  // what the flags ask for
  bool dtype_double = false;
  size_t weight_bytes = 0;
  std::vector<Candidate> candidates;

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {  // host memory only; errors cannot be reported from here
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }

  void set_math(cudnnMathType_t math, const char* op) {
    if (math == conv_math) return;
    EMBER_CUDNN_CHECK(op, cudnnSetConvolutionMathType(conv, math));
    conv_math = math;
  }
};

int to_int(int64_t v) { return static_cast<int>(v); }  // callers checked the range

void describe(Plan& p, int kind, const Geometry& g, const ConvArgs& a, bool is_double,
              const Flags& f) {
  const char* op = kind_op(kind);
  const cudnnDataType_t dt = is_double ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  p.kind = kind;
  p.dtype_double = is_double;
  p.weight_bytes = static_cast<size_t>(g.o * g.cg * g.kh * g.kw) * (is_double ? 8 : 4);
  EMBER_CUDNN_CHECK(op, cudnnCreateTensorDescriptor(&p.x));
  EMBER_CUDNN_CHECK(op, cudnnSetTensor4dDescriptor(p.x, CUDNN_TENSOR_NCHW, dt, to_int(g.n),
                                                   to_int(g.c), to_int(g.h), to_int(g.w)));
  EMBER_CUDNN_CHECK(op, cudnnCreateTensorDescriptor(&p.y));
  EMBER_CUDNN_CHECK(op, cudnnSetTensor4dDescriptor(p.y, CUDNN_TENSOR_NCHW, dt, to_int(g.n),
                                                   to_int(g.o), to_int(g.oh), to_int(g.ow)));
  EMBER_CUDNN_CHECK(op, cudnnCreateFilterDescriptor(&p.w));
  EMBER_CUDNN_CHECK(op, cudnnSetFilter4dDescriptor(p.w, dt, CUDNN_TENSOR_NCHW, to_int(g.o),
                                                   to_int(g.cg), to_int(g.kh), to_int(g.kw)));
  EMBER_CUDNN_CHECK(op, cudnnCreateConvolutionDescriptor(&p.conv));
  EMBER_CUDNN_CHECK(op, cudnnSetConvolution2dDescriptor(
                            p.conv, to_int(a.padding[0]), to_int(a.padding[1]), to_int(a.stride[0]),
                            to_int(a.stride[1]), to_int(a.dilation[0]), to_int(a.dilation[1]),
                            CUDNN_CROSS_CORRELATION, dt));
  EMBER_CUDNN_CHECK(op, cudnnSetConvolutionGroupCount(p.conv, to_int(a.groups)));
  // Full float32 (no TF32 tensor cores) unless allowed, as PyTorch with allow_tf32=False;
  // DEFAULT_MATH lets cuDNN use TF32 on Ampere and later.
  p.base_math = (!is_double && !f.tf32) ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  EMBER_CUDNN_CHECK(op, cudnnSetConvolutionMathType(p.conv, p.base_math));
  p.conv_math = p.base_math;
}

// Device pointers of one call (x: input / grad_input, w: weight / grad_weight, y: output /
// grad_out).
struct Ptrs {
  void* x;
  void* w;
  void* y;
};

// A scaling factor (alpha, beta) as cuDNN reads it: a double for float64 convolutions, a
// float otherwise.
class Scaling {
 public:
  explicit Scaling(double v) : f_(static_cast<float>(v)), d_(v) {}
  const void* get(bool is_double) const { return is_double ? static_cast<const void*>(&d_) : &f_; }

 private:
  float f_;
  double d_;
};

// ---- per-kind cuDNN entry points ----
struct FwdOps {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  using Algo = cudnnConvolutionFwdAlgo_t;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionForwardAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristics(cudnnHandle_t h, const Plan& p, int n, int* got, Perf* perf) {
    return cudnnGetConvolutionForwardAlgorithm_v7(h, p.x, p.w, p.conv, p.y, n, got, perf);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const Plan& p, const Ptrs& d, int n, int* got,
                            Perf* perf, void* ws, size_t bytes) {
    return cudnnFindConvolutionForwardAlgorithmEx(h, p.x, d.x, p.w, d.w, p.conv, p.y, d.y, n, got,
                                                  perf, ws, bytes);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Plan& p, int algo, size_t* bytes) {
    return cudnnGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.conv, p.y,
                                                   static_cast<Algo>(algo), bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const Plan& p, const Ptrs& d, int algo, void* ws,
                           size_t bytes, const void* alpha, const void* beta) {
    return cudnnConvolutionForward(h, alpha, p.x, d.x, p.w, d.w, p.conv, static_cast<Algo>(algo),
                                   ws, bytes, beta, p.y, d.y);
  }
  static bool known_nondeterministic(int) { return false; }
};

struct BwdDataOps {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristics(cudnnHandle_t h, const Plan& p, int n, int* got, Perf* perf) {
    return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.w, p.y, p.conv, p.x, n, got, perf);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const Plan& p, const Ptrs& d, int n, int* got,
                            Perf* perf, void* ws, size_t bytes) {
    return cudnnFindConvolutionBackwardDataAlgorithmEx(h, p.w, d.w, p.y, d.y, p.conv, p.x, d.x, n,
                                                       got, perf, ws, bytes);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Plan& p, int algo, size_t* bytes) {
    return cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w, p.y, p.conv, p.x,
                                                        static_cast<Algo>(algo), bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const Plan& p, const Ptrs& d, int algo, void* ws,
                           size_t bytes, const void* alpha, const void* beta) {
    return cudnnConvolutionBackwardData(h, alpha, p.w, d.w, p.y, d.y, p.conv,
                                        static_cast<Algo>(algo), ws, bytes, beta, p.x, d.x);
  }
  static bool known_nondeterministic(int algo) { return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0; }
};

struct BwdFilterOps {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  static constexpr int kAlgoCount = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static cudnnStatus_t max_count(cudnnHandle_t h, int* n) {
    return cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, n);
  }
  static cudnnStatus_t heuristics(cudnnHandle_t h, const Plan& p, int n, int* got, Perf* perf) {
    return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p.x, p.y, p.conv, p.w, n, got, perf);
  }
  static cudnnStatus_t find(cudnnHandle_t h, const Plan& p, const Ptrs& d, int n, int* got,
                            Perf* perf, void* ws, size_t bytes) {
    return cudnnFindConvolutionBackwardFilterAlgorithmEx(h, p.x, d.x, p.y, d.y, p.conv, p.w, d.w, n,
                                                         got, perf, ws, bytes);
  }
  static cudnnStatus_t workspace(cudnnHandle_t h, const Plan& p, int algo, size_t* bytes) {
    return cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.x, p.y, p.conv, p.w,
                                                          static_cast<Algo>(algo), bytes);
  }
  static cudnnStatus_t run(cudnnHandle_t h, const Plan& p, const Ptrs& d, int algo, void* ws,
                           size_t bytes, const void* alpha, const void* beta) {
    return cudnnConvolutionBackwardFilter(h, alpha, p.x, d.x, p.y, d.y, p.conv,
                                          static_cast<Algo>(algo), ws, bytes, beta, p.w, d.w);
  }
  static bool known_nondeterministic(int algo) {
    return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 ||
           algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
  }
};

// Bytes the benchmark may give cuDNN's search: the device's free memory plus what ember's cache
// holds unused (an estimate: the cache may be fragmented; allocation failures are handled).
size_t benchmark_memory_cap(int device) {
  size_t free_bytes = 0, total = 0;
  EMBER_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  const size_t reserved = reserved_bytes(device), allocated = allocated_bytes(device);
  return free_bytes + (reserved > allocated ? reserved - allocated : 0);
}

// The largest workspace up to `want` bytes that can be allocated now (halving on failure).
Workspace best_effort_workspace(size_t want, int device) {
  while (want > 0) {
    try {
      return Workspace(want, device);
    } catch (const OutOfMemoryError&) {
      want /= 2;
    }
  }
  return Workspace();
}

// Times each candidate as it will run (its own math type, the call's buffers: `target`) and
// orders them fastest first (the best of 3 runs after a warm-up); candidates that cannot get
// their workspace or that cuDNN rejects are dropped. cudnnFind*Ex's own ranking was not that of
// the runs ember makes: on the H200 the search's pick for the CNN's conv2 (float32, TF32 off)
// ran 1.1-1.4x slower than the heuristics' pick. A likely cause: results it reports with
// DEFAULT_MATH may have been timed on TF32 tensor cores, and ember runs them with FMA math.
template <class Ops>
std::vector<Candidate> time_candidates(cudnnHandle_t h, Plan& p, const Ptrs& target,
                                       const std::vector<Candidate>& candidates, int device) {
  const char* op = kind_op(p.kind);
  cudaStream_t stream = nullptr;
  EMBER_CUDNN_CHECK(op, cudnnGetStream(h, &stream));
  const Scaling one(1.0), zero(0.0);
  const void* alpha = one.get(p.dtype_double);
  const void* beta = zero.get(p.dtype_double);
  cudaEvent_t start = nullptr, stop = nullptr;
  EMBER_CUDA_CHECK(cudaEventCreate(&start));
  EMBER_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<std::pair<float, Candidate>> timed;
  try {
    for (const Candidate& c : candidates) {
      Workspace ws;
      try {
        ws = Workspace(c.workspace, device);
      } catch (const OutOfMemoryError&) {
        continue;
      }
      p.set_math(c.math, op);
      if (Ops::run(h, p, target, c.algo, ws.get(), ws.bytes(), alpha, beta) !=
          CUDNN_STATUS_SUCCESS) {
        continue;
      }
      float best = std::numeric_limits<float>::infinity();
      for (int rep = 0; rep < 3; ++rep) {
        EMBER_CUDA_CHECK(cudaEventRecord(start, stream));
        EMBER_CUDNN_CHECK(op, Ops::run(h, p, target, c.algo, ws.get(), ws.bytes(), alpha, beta));
        EMBER_CUDA_CHECK(cudaEventRecord(stop, stream));
        EMBER_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = std::min(best, ms);
      }
      timed.emplace_back(best, c);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Candidate> out;
  for (const auto& t : timed) out.push_back(t.second);
  return out;
}

// The usable algorithms of a plan, best first: cuDNN's heuristics (cudnnGet*_v7, ordered by
// expected speed) or, in benchmark mode, its timed search (cudnnFind*Ex on the call's own
// buffers, ordered by measured time). Usable: status success, deterministic when asked (by
// cuDNN's own label and the algorithms documented as non-deterministic), no TF32 tensor-core
// math for float32 unless allowed.
template <class Ops>
std::vector<Candidate> choose_algorithms(cudnnHandle_t h, Plan& p, const Ptrs& d, const Flags& f,
                                         int device) {
  const char* op = kind_op(p.kind);
  int max_n = 0;
  EMBER_CUDNN_CHECK(op, Ops::max_count(h, &max_n));
  max_n = std::max(max_n, Ops::kAlgoCount);
  std::vector<typename Ops::Perf> perf(static_cast<size_t>(max_n));
  int got = 0;
  size_t search_bytes = SIZE_MAX;
  Ptrs target = d;
  Workspace scratch;
  p.set_math(p.base_math, op);
  if (f.benchmark) {
    // Give the search the largest workspace any algorithm asks for, within what fits.
    const size_t cap = benchmark_memory_cap(device);
    size_t want = 0;
    for (int algo = 0; algo < Ops::kAlgoCount; ++algo) {
      size_t bytes = 0;
      if (Ops::workspace(h, p, algo, &bytes) == CUDNN_STATUS_SUCCESS && bytes <= cap) {
        want = std::max(want, bytes);
      }
    }
    // The search writes its output. Backward-weight chunks after the first accumulate into
    // grad_weight, so that search writes into a scratch grad_weight instead (it is small).
    // Zeroed: some algorithms read it (compute-sanitizer initcheck saw cuDNN's
    // wgrad2d_grouped_direct_kernel read an uninitialized one).
    if (p.kind == kBackwardFilter) {
      scratch = Workspace(p.weight_bytes, device);
      target.w = scratch.get();
      EMBER_CUDA_CHECK(cudaMemsetAsync(scratch.get(), 0, p.weight_bytes, current_stream()));
    }
    Workspace ws = best_effort_workspace(want, device);
    search_bytes = ws.bytes();
    EMBER_CUDNN_CHECK(op, Ops::find(h, p, target, max_n, &got, perf.data(), ws.get(), ws.bytes()));
  } else {
    EMBER_CUDNN_CHECK(op, Ops::heuristics(h, p, max_n, &got, perf.data()));
  }
  std::vector<Candidate> out;
  for (int i = 0; i < got && i < max_n; ++i) {
    const typename Ops::Perf& r = perf[static_cast<size_t>(i)];
    if (r.status != CUDNN_STATUS_SUCCESS) continue;
    const int algo = static_cast<int>(r.algo);
    if (f.deterministic &&
        (r.determinism != CUDNN_DETERMINISTIC || Ops::known_nondeterministic(algo))) {
      continue;
    }
    cudnnMathType_t math = r.mathType;
    if (p.base_math == CUDNN_FMA_MATH) {
      if (math == CUDNN_TENSOR_OP_MATH || math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) continue;
      math = CUDNN_FMA_MATH;  // DEFAULT_MATH would let cuDNN pick TF32 again
    }
    bool seen = false;
    for (const Candidate& c : out) seen = seen || (c.algo == algo && c.math == math);
    if (seen) continue;
    p.set_math(math, op);
    size_t bytes = 0;
    if (Ops::workspace(h, p, algo, &bytes) != CUDNN_STATUS_SUCCESS) continue;
    if (f.benchmark && bytes > search_bytes) continue;
    out.push_back({algo, math, bytes});
  }
  if (f.benchmark && !out.empty()) {
    std::vector<Candidate> timed = time_candidates<Ops>(h, p, target, out, device);
    if (!timed.empty()) out = std::move(timed);
  }
  p.set_math(p.base_math, op);
  return out;
}

// The algorithm lists, shared by all threads (benchmarking runs once per geometry), kept for
// the process's lifetime.
struct AlgoCache {
  std::mutex mutex;
  std::unordered_map<ConvKey, std::vector<Candidate>, ConvKeyHash> map;
};
AlgoCache& algo_cache() {
  static AlgoCache* c = new AlgoCache;
  return *c;
}

std::string geometry_str(int kind, const Geometry& g, const ConvArgs& a, bool is_double) {
  return ::ember::detail::str(
      kind == kForward ? "input" : (kind == kBackwardData ? "grad_input" : "input"), " [", g.n,
      ", ", g.c, ", ", g.h, ", ", g.w, "], weight [", g.o, ", ", g.cg, ", ", g.kh, ", ", g.kw,
      "], output [", g.n, ", ", g.o, ", ", g.oh, ", ", g.ow, "], stride [", a.stride[0], ", ",
      a.stride[1], "], padding [", a.padding[0], ", ", a.padding[1], "], dilation [", a.dilation[0],
      ", ", a.dilation[1], "], groups ", a.groups, is_double ? ", float64" : ", float32");
}

template <class Ops>
Plan& plan_for(const ConvKey& key, int kind, const Geometry& g, const ConvArgs& a, bool is_double,
               const Flags& f, cudnnHandle_t h, const Ptrs& d, int device) {
  // Descriptors are per thread: cuDNN documents handles, not descriptors, as shareable, and
  // a thread-local map needs no lock. Destroyed with the thread (host memory only).
  thread_local std::unordered_map<ConvKey, std::unique_ptr<Plan>, ConvKeyHash> plans;
  auto it = plans.find(key);
  if (__builtin_expect(it != plans.end(), 1)) return *it->second;

  auto plan = std::make_unique<Plan>();
  describe(*plan, kind, g, a, is_double, f);
  AlgoCache& cache = algo_cache();
  bool cached = false;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto found = cache.map.find(key);
    if (found != cache.map.end()) {
      plan->candidates = found->second;
      cached = true;
    }
  }
  if (!cached) {
    // Outside the lock: a benchmark takes a while. Two threads may both search; one list wins.
    std::vector<Candidate> candidates = choose_algorithms<Ops>(h, *plan, d, f, device);
    EMBER_CHECK(
        !candidates.empty(), kind_op(kind), ": cuDNN offers no usable",
        f.deterministic ? " deterministic" : "", " algorithm for ",
        geometry_str(kind, g, a, is_double),
        f.deterministic ? " (deterministic mode is on: ember::cudnn::set_deterministic)" : "");
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto ins = cache.map.emplace(key, std::move(candidates));
    plan->candidates = ins.first->second;
  }
  Plan& ref = *plan;
  plans.emplace(key, std::move(plan));
  return ref;
}

// The algorithm each kind ran with last in this thread (test_cuda_conv prints it).
struct LastRun {
  int algo = -1;
  int math = -1;
  size_t workspace = 0;
};
thread_local LastRun g_last_run[3];

// Runs the plan with its first candidate whose workspace can be allocated and that cuDNN
// accepts (as PyTorch tries algorithms in turn); any other failure throws.
template <class Ops>
void execute(cudnnHandle_t h, Plan& p, const Ptrs& d, int device, double beta, const Geometry& g,
             const ConvArgs& a) {
  const char* op = kind_op(p.kind);
  const Scaling one(1.0), scaled_beta(beta);
  const void* alpha = one.get(p.dtype_double);
  const void* beta_ptr = scaled_beta.get(p.dtype_double);
  const size_t n = p.candidates.size();
  for (size_t i = 0; i < n; ++i) {
    const Candidate& c = p.candidates[i];
    const bool last = i + 1 == n;
    Workspace ws;
    try {
      ws = Workspace(c.workspace, device);
    } catch (const OutOfMemoryError&) {
      if (last) throw;
      continue;  // an algorithm that needs less memory
    }
    p.set_math(c.math, op);
    const cudnnStatus_t st = Ops::run(h, p, d, c.algo, ws.get(), ws.bytes(), alpha, beta_ptr);
    if (st == CUDNN_STATUS_SUCCESS) {
      g_last_run[p.kind] = {c.algo, static_cast<int>(c.math), c.workspace};
      return;
    }
    if (!last && (st == CUDNN_STATUS_NOT_SUPPORTED || st == CUDNN_STATUS_BAD_PARAM)) {
      continue;  // e.g. an algorithm that this call's pointer alignment rules out
    }
    cudnn::detail::throw_cudnn_error(st, op, "the convolution (algorithm run)", __FILE__, __LINE__);
  }
  EMBER_THROW(op, ": no cuDNN algorithm could run ", geometry_str(p.kind, g, a, p.dtype_double));
}

// ---- batch splitting: cuDNN's tensors index with 32 bits ----
// Test hook (see ember_cudnn_set_max_chunk_elements_for_testing below): the most elements one
// cuDNN call's input or output may have.
std::atomic<int64_t> g_max_chunk_elements{INT_MAX};

// The samples per cuDNN call so that input and output stay within the limit.
int64_t samples_per_call(const char* op, const Geometry& g) {
  const int64_t per_sample = std::max(g.c * g.h * g.w, g.o * g.oh * g.ow);
  const int64_t limit = g_max_chunk_elements.load(std::memory_order_relaxed);
  EMBER_CHECK(per_sample <= INT_MAX && g.o * g.cg * g.kh * g.kw <= INT_MAX, op,
              ": one sample's input or output, or the weight, has 2^31 or more elements, which "
              "cuDNN cannot index (input [",
              g.n, ", ", g.c, ", ", g.h, ", ", g.w, "], weight [", g.o, ", ", g.cg, ", ", g.kh,
              ", ", g.kw, "])");
  return std::max<int64_t>(1, std::min(g.n, limit / std::max<int64_t>(per_sample, 1)));
}

Flags read_flags(bool is_double) {
  const Context& ctx = globalContext();
  return Flags{!is_double && ctx.allowTF32CuDNN(), ctx.deterministicCuDNN(), ctx.benchmarkCuDNN()};
}

// cuDNN takes the geometry as ints.
void check_args(const char* op, const ConvArgs& a) {
  bool ok = a.groups >= 1 && a.groups <= INT_MAX;
  for (int i = 0; i < 2; ++i) {
    ok = ok && a.stride[i] >= 1 && a.stride[i] <= INT_MAX && a.padding[i] >= 0 &&
         a.padding[i] <= INT_MAX && a.dilation[i] >= 1 && a.dilation[i] <= INT_MAX;
  }
  EMBER_CHECK(ok, op, ": stride [", a.stride[0], ", ", a.stride[1], "], padding [", a.padding[0],
              ", ", a.padding[1], "], dilation [", a.dilation[0], ", ", a.dilation[1],
              "] or groups ", a.groups, " out of cuDNN's range");
}

void zero_fill(const Tensor& t, cudaStream_t stream) {
  EMBER_CUDA_CHECK(cudaMemsetAsync(t.data_ptr(), 0, t.numel() * t.element_size(), stream));
}

// One convolution of `kind` over the batch in chunks: x (input or grad_input), w (weight or
// grad_weight), y (output or grad_out); `bias` for the forward. The backward-weight chunks
// after the first accumulate (beta 1).
template <class Ops>
void convolve(int kind, const Tensor& x, const Tensor& w, const Tensor& y, const Tensor& bias,
              const ConvArgs& args) {
  const char* op = kind_op(kind);
  const int device = x.device().index();
  DeviceGuard guard(device);
  const bool is_double = x.dtype() == kFloat64;
  EMBER_CHECK(is_double || x.dtype() == kFloat32, op, ": dtype ", x.dtype(),
              " is not supported on CUDA (needs float32 or float64)");
  const Geometry full = geometry(x, w, y);
  const Tensor& written = kind == kForward ? y : (kind == kBackwardData ? x : w);
  if (written.numel() == 0) return;
  // Pointers first: data_ptr() and current_stream() submit ember's batched small ops.
  char* xp = static_cast<char*>(x.data_ptr());
  char* wp = static_cast<char*>(w.data_ptr());
  char* yp = static_cast<char*>(y.data_ptr());
  cudaStream_t stream = current_stream();
  const bool add_bias = kind == kForward && bias.defined();
  // Sums over nothing (no input channels, no output channels, an empty batch for the weight's
  // gradient): the written tensor is all zeros (plus the bias for the forward).
  if (x.numel() == 0 || y.numel() == 0 || w.numel() == 0) {
    zero_fill(written, stream);
    if (add_bias) add_channel_bias(op, y, bias, stream);
    return;
  }
  check_args(op, args);
  cudnnHandle_t h = handle_for(device, stream, op);
  const Flags flags = read_flags(is_double);
  const int64_t chunk = samples_per_call(op, full);
  const int64_t esize = x.element_size();
  const int64_t x_step = full.c * full.h * full.w * esize,
                y_step = full.o * full.oh * full.ow * esize;
  for (int64_t n0 = 0; n0 < full.n; n0 += chunk) {
    Geometry g = full;
    g.n = std::min(chunk, full.n - n0);
    const Ptrs d{xp + n0 * x_step, wp, yp + n0 * y_step};
    const ConvKey key = make_key(kind, g, args, x.dtype(), device, flags);
    Plan& plan = plan_for<Ops>(key, kind, g, args, is_double, flags, h, d, device);
    const double beta = (kind == kBackwardFilter && n0 > 0) ? 1.0 : 0.0;
    execute<Ops>(h, plan, d, device, beta, g, args);
  }
  if (add_bias) add_channel_bias(op, y, bias, stream);
}

// out [N, O, OH, OW] = conv(input [N, C, H, W], weight [O, C / groups, KH, KW]) + bias [O].
void conv2d_kernel(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const ConvArgs& args) {
  convolve<FwdOps>(kForward, input, weight, out, bias, args);
}

// grad_input [N, C, H, W] from grad_out [N, O, OH, OW] and weight [O, C / groups, KH, KW]; H, W
// are grad_input's own (they may exceed what OH, OW need: conv_transpose2d's output_padding).
void conv2d_backward_input_kernel(const Tensor& grad_input, const Tensor& grad_out,
                                  const Tensor& weight, const ConvArgs& args) {
  convolve<BwdDataOps>(kBackwardData, grad_input, weight, grad_out, Tensor(), args);
}

// grad_weight [O, C / groups, KH, KW] from grad_out [N, O, OH, OW] and input [N, C, H, W].
void conv2d_backward_weight_kernel(const Tensor& grad_weight, const Tensor& grad_out,
                                   const Tensor& input, const ConvArgs& args) {
  convolve<BwdFilterOps>(kBackwardFilter, input, grad_weight, grad_out, Tensor(), args);
}

}  // namespace

void register_conv_kernels() {
  register_kernel<Op::conv2d>(kCUDA, conv2d_kernel);
  register_kernel<Op::conv2d_backward_input>(kCUDA, conv2d_backward_input_kernel);
  register_kernel<Op::conv2d_backward_weight>(kCUDA, conv2d_backward_weight_kernel);
}

}  // namespace cuda

namespace cudnn {
// A GPU, and a cuDNN 9 whose convolution library loads (cuDNN 9 opens its sub-libraries on
// first use; cudnnCnnVersionCheck makes it open and check libcudnn_cnn now).
bool is_available() {
  static const bool available = [] {
    if (!cuda::is_available()) return false;
    if (cudnnGetVersion() / 10000 != CUDNN_MAJOR) return false;
    return cudnnCnnVersionCheck() == CUDNN_STATUS_SUCCESS;
  }();
  return available;
}
}  // namespace cudnn
}  // namespace ember

// Test hook for tests/test_cuda_conv.cpp (declared weak there, so that builds without this file
// still link): limits the elements per cuDNN call so that the batch splitting that tensors of
// 2^31 or more elements need runs on small ones. n <= 0 restores the default.
extern "C" void ember_cudnn_set_max_chunk_elements_for_testing(int64_t n) {
  ember::cuda::g_max_chunk_elements.store(n > 0 ? n : INT_MAX, std::memory_order_relaxed);
}

// Test hook: the cuDNN algorithm (cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t), math type and
// workspace bytes of the calling thread's last conv2d (kind 0), conv2d_backward_input (1) or
// conv2d_backward_weight (2); -1 before any.
extern "C" int ember_cudnn_last_algorithm_for_testing(int kind, int* math, size_t* workspace) {
  if (kind < 0 || kind > 2) return -1;
  const ember::cuda::LastRun& r = ember::cuda::g_last_run[kind];
  if (math) *math = r.math;
  if (workspace) *workspace = r.workspace;
  return r.algo;
}
