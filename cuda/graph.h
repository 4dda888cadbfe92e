// The public CUDA graph API, as torch.cuda.CUDAGraph and torch.cuda.graph: capture the work
// queued on a side stream once, replay it with one launch. Declarations only (no CUDA headers).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/cuda/api.h>

namespace ember {
namespace cuda {

// The id of a graph's private memory pool (0: none). Graphs captured with the same id share
// the pool, as PyTorch's graph_pool_handle().
using MempoolId = uint64_t;

// A fresh pool id to share between several graphs: capture_begin(pool) with it.
MempoolId graph_pool_handle();

// A captured CUDA graph (a cudaGraph_t and its cudaGraphExec_t). Work queued on the current
// stream between capture_begin() and capture_end() is recorded, not run; replay() runs it
// again, on the same memory. Tensors allocated on the capturing stream during capture come
// from the graph's private pool (cuda/allocator.cpp), which keeps them for replays; reset()
// or the destructor returns them to the normal cache. Move-only.
//
// During capture, host synchronizations (cuda::synchronize, Stream::synchronize/query),
// copies between the CPU and the GPU (item(), cpu(), to(kCPU), cuda()) and empty_cache()
// throw ember::Error naming the operation (docs/gpu.md, "CUDA graphs").
//
// Random ops (rand, randn, randint, dropout, bernoulli...) may be captured: each replay draws
// new numbers, the ones the same ops would draw eagerly at that point of the generator, which
// advances by the counters they use (multinomial is refused). The capture itself does not
// advance the generator (it is restored at capture_end).
class Graph {
 public:
  Graph() = default;
  ~Graph();
  Graph(Graph&& other) noexcept;
  Graph& operator=(Graph&& other) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Starts capturing the current stream of the current device, which must not be the
  // default stream (GraphCapture switches to a side stream). pool: share the private pool
  // of the graphs captured with that id (0: a pool of its own).
  void capture_begin(MempoolId pool = 0);
  // Ends the capture and instantiates the graph; a capture that failed (an illegal call
  // slipped past ember's checks) throws here and leaves the graph empty.
  void capture_end();
  // Launches the captured work on the current stream of the graph's device.
  void replay();
  // Frees the graph and its exec and releases the private pool (its memory returns to the
  // cache once the last graph sharing it is reset); the Graph may capture again.
  void reset();
  // The private pool's id (0 before capture_begin).
  MempoolId pool() const { return pool_; }

  bool is_capturing() const { return capturing_; }
  bool is_captured() const { return exec_ != nullptr; }
  int device_index() const { return device_; }

 private:
  friend class GraphCapture;
  // Ends a capture abandoned by an exception: the recorded work is discarded. Never throws.
  void abort_capture() noexcept;

  void* graph_ = nullptr;         // cudaGraph_t
  void* exec_ = nullptr;          // cudaGraphExec_t
  void* stream_ = nullptr;        // cudaStream_t captured (its pool's blocks belong to it)
  void* replay_event_ = nullptr;  // cudaEvent_t recorded after the last replay
  // Graph-safe random numbers: the captured random kernels read the generator's (seed,
  // offset) from this device memory (2 uint64s), which replay() sets from the generator,
  // reserving the `rng_counters_` counters they use, as PyTorch's graph-safe generator does.
  void* rng_state_ = nullptr;
  int rng_device_ = -1;  // the device rng_state_ lives on
  uint64_t rng_counters_ = 0;
  uint64_t rng_saved_[2] = {0, 0};  // the generator at capture_begin (restored at its end)
  std::vector<std::function<void()>> replay_hooks_;  // on_each_replay's, run before each launch
  int device_ = -1;
  MempoolId pool_ = 0;
  bool capturing_ = false;
};

// `with torch.cuda.graph(g):` as an RAII guard. Synchronizes the device, makes a side stream
// current (a pool stream kept for captures on this device, or `stream`), begins the capture,
// and at scope exit ends it and restores the stream. If the scope is left by an exception,
// the capture is discarded and the graph left empty, so a new capture can follow.
//
//   cuda::Graph g;
//   { cuda::GraphCapture capture(g);  y = model(static_x); }
//   static_x.copy_(batch);  g.replay();   // y holds the new result
class GraphCapture {
 public:
  explicit GraphCapture(Graph& graph, MempoolId pool = 0);
  GraphCapture(Graph& graph, const Stream& stream, MempoolId pool = 0);
  // Ends the capture (capture_end's errors propagate unless an exception is in flight).
  ~GraphCapture() noexcept(false);
  GraphCapture(const GraphCapture&) = delete;
  GraphCapture& operator=(const GraphCapture&) = delete;

  // The stream being captured (make other streams wait on it with Events to fork work).
  const Stream& stream() const { return stream_; }

 private:
  Graph& graph_;
  Stream stream_;
  StreamGuard guard_;
  int exceptions_ = 0;  // std::uncaught_exceptions() at construction
};

// Whether the current stream of the current device is being captured, as
// torch.cuda.is_current_stream_capturing(): ops whose host-side state a graph would freeze
// (Adagrad's step count) refuse to be captured. False without CUDA.
bool is_current_stream_capturing();

// For code whose captured kernels read host-side values that change from step to step (Adam's
// step count and bias corrections): `f` runs before every replay of the graph being captured
// on the current stream, with the graph's device and stream current, and may queue work (a
// copy into the device memory those kernels read) that the replay then follows. A replay
// propagates f's exceptions and launches nothing. Throws when the current stream is not being
// captured.
void on_each_replay(std::function<void()> f);

// Device memory for such values: a tensor of `sizes` and `dtype` on the device being captured
// on the current stream, allocated outside the capture's private pool and held until its last
// user lets go (after the graph's reset, its blocks wait for the last replay). The private pool
// lends blocks freed earlier in the capture to later allocations, so a buffer allocated there
// could share memory with a captured temporary, which the replay would then write over what
// the hook wrote. Throws when the current stream is not being captured.
Tensor replay_buffer(IntArrayRef sizes, ScalarType dtype);

// The stream GraphCapture captures on by default for `device` (-1: the current one): one pool
// stream per device, the same each time. Warm up on it before capturing, as PyTorch does on
// a side stream, so that lazily created library state (cuBLAS workspaces) exists.
Stream graph_capture_stream(int device = -1);

}  // namespace cuda
}  // namespace ember
