// The ember::cuda API for builds without CUDA: nothing is available, stats are zero, and
// whatever needs a GPU (streams, events, guards, pinned memory) throws a clear Error.
#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/cuda/api.h>
#include <ember/cuda/graph.h>
#include <ember/cuda/module.h>

namespace ember {
namespace cuda {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  EMBER_THROW(what, ": ember was built without CUDA (no GPU support)");
}
}  // namespace

bool is_available() { return false; }
int device_count() { return 0; }
DeviceProperties get_device_properties(int) { no_cuda("cuda::get_device_properties"); }

int current_device() { no_cuda("cuda::current_device"); }

void set_device(int index) {
  EMBER_THROW("cuda: ember was built without CUDA (set_device(", index, ") is not possible)");
}

void synchronize(int) {}

size_t memory_allocated(int) { return 0; }
size_t max_memory_allocated(int) { return 0; }
size_t memory_reserved(int) { return 0; }
void reset_peak_memory_stats(int) {}
void empty_cache() {}
void set_per_process_memory_fraction(double, int) {
  no_cuda("cuda::set_per_process_memory_fraction");
}
std::pair<size_t, size_t> mem_get_info(int) { no_cuda("cuda::mem_get_info"); }
double get_per_process_memory_fraction(int) { no_cuda("cuda::get_per_process_memory_fraction"); }

void* Stream::stream() const { return handle_; }
bool Stream::query() const { no_cuda("Stream::query"); }
void Stream::synchronize() const { no_cuda("Stream::synchronize"); }

Stream getStreamFromPool(bool, int) { no_cuda("cuda::getStreamFromPool"); }
Stream getDefaultStream(int) { no_cuda("cuda::getDefaultStream"); }
Stream getCurrentStream(int) { no_cuda("cuda::getCurrentStream"); }
void setCurrentStream(Stream) { no_cuda("cuda::setCurrentStream"); }
Stream getStreamFromExternal(void*, int) { no_cuda("cuda::getStreamFromExternal"); }

StreamGuard::StreamGuard(const Stream&) { no_cuda("cuda::StreamGuard"); }
StreamGuard::~StreamGuard() = default;

// A negative index means "leave the device alone", which needs no GPU.
DeviceGuard::DeviceGuard(int device) {
  if (device >= 0) no_cuda("cuda::DeviceGuard");
}
DeviceGuard::~DeviceGuard() = default;

// An event can exist without a GPU but never be recorded, so it is never created.
Event::~Event() = default;
Event::Event(Event&& other) noexcept
    : event_(other.event_), device_(other.device_), timing_(other.timing_) {}
Event& Event::operator=(Event&& other) noexcept {
  event_ = other.event_;
  device_ = other.device_;
  timing_ = other.timing_;
  return *this;
}
void Event::record() { no_cuda("Event::record"); }
void Event::record(const Stream&) { no_cuda("Event::record"); }
void Event::block(const Stream&) const {}  // nothing recorded, nothing to wait for
bool Event::query() const { return true; }
void Event::synchronize() const {}
float Event::elapsed_time(const Event&) const { no_cuda("Event::elapsed_time"); }

namespace detail {
Tensor pin_memory(const Tensor&) { no_cuda("pin_memory"); }
bool is_pinned(const void*) { return false; }
}  // namespace detail

// ---- CUDA graphs: nothing can be captured, so nothing is ever held ----
bool is_current_stream_capturing() { return false; }
void on_each_replay(std::function<void()>) { no_cuda("cuda::on_each_replay"); }
Tensor replay_buffer(IntArrayRef, ScalarType) { no_cuda("cuda::replay_buffer"); }
MempoolId graph_pool_handle() { no_cuda("cuda::graph_pool_handle"); }
Stream graph_capture_stream(int) { no_cuda("cuda::graph_capture_stream"); }
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept {}
Graph& Graph::operator=(Graph&&) noexcept { return *this; }
void Graph::capture_begin(MempoolId) { no_cuda("cuda::Graph::capture_begin"); }
void Graph::capture_end() { no_cuda("cuda::Graph::capture_end"); }
void Graph::replay() { no_cuda("cuda::Graph::replay"); }
void Graph::reset() {}
void Graph::abort_capture() noexcept {}
GraphCapture::GraphCapture(Graph& graph, MempoolId pool)
    : GraphCapture(graph, (no_cuda("cuda::GraphCapture"), Stream(nullptr, -1)), pool) {}
GraphCapture::GraphCapture(Graph& graph, const Stream& stream, MempoolId)
    : graph_(graph), stream_(stream), guard_((no_cuda("cuda::GraphCapture"), stream)) {}
GraphCapture::~GraphCapture() noexcept(false) {}

// ---- runtime-compiled kernels ----
namespace detail {
KernelArg tensor_arg(const Tensor&) { no_cuda("cuda::Function::launch"); }
CompiledModule compile_module(const std::string&, const std::vector<std::string>&,
                              const std::vector<std::string>&, const std::string&,
                              const std::string&, const Headers&) {
  no_cuda("cuda::Module (NVRTC)");
}
int64_t nvrtc_compilations() { return 0; }
}  // namespace detail
Module::Module(const std::string&, const std::vector<std::string>&, const std::vector<std::string>&,
               const std::string&, const detail::Headers&) {
  no_cuda("cuda::Module");
}
Function Module::function(const std::string&) const { no_cuda("cuda::Module::function"); }
int Module::device_index() const { no_cuda("cuda::Module::device_index"); }
const std::string& Module::log() const { no_cuda("cuda::Module::log"); }
void Function::launch_packed(Dim3, Dim3, size_t, std::vector<detail::KernelArg>&) const {
  no_cuda("cuda::Function::launch");
}

}  // namespace cuda
}  // namespace ember

namespace ember::cudnn {
bool is_available() { return false; }
}  // namespace ember::cudnn
