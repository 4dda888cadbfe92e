// The global Philox generator state: a seed and a counter offset. Random ops reserve
// counters under a lock, so concurrent ops never reuse a stream (scheme in generator.h).
#include <ember/core/generator.h>

#include <cstring>
#include <mutex>

#include <ember/core/error.h>
#include <ember/core/functions.h>

namespace ember {

namespace {
constexpr uint64_t kDefaultSeed = 67280421310721ull;  // PyTorch's default seed

struct GeneratorState {
  std::mutex mutex;
  uint64_t seed = kDefaultSeed;
  uint64_t offset = 0;
};

GeneratorState& state() {
  static GeneratorState s;
  return s;
}
}  // namespace

uint64_t default_seed() { return kDefaultSeed; }

void manual_seed(uint64_t seed) {
  GeneratorState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.seed = seed;
  s.offset = 0;
}

namespace {
constexpr int64_t kStateBytes = 16;  // seed, offset: little-endian uint64s

void put_le(uint8_t* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(const uint8_t* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(in[i]) << (8 * i);
  return v;
}
}  // namespace

Tensor get_rng_state() {
  PhiloxSeed now;
  {
    GeneratorState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    now = PhiloxSeed{s.seed, s.offset};
  }
  Tensor t = empty({kStateBytes}, kUInt8);
  put_le(t.data_ptr<uint8_t>(), now.seed);
  put_le(t.data_ptr<uint8_t>() + 8, now.offset);
  return t;
}

void set_rng_state(const Tensor& new_state) {
  EMBER_CHECK(new_state.defined(), "set_rng_state: the state is an undefined tensor");
  EMBER_CHECK(new_state.dtype() == kUInt8 && new_state.dim() == 1 &&
                  new_state.numel() == kStateBytes && new_state.device().is_cpu(),
              "set_rng_state: expected a CPU uint8 tensor of ", kStateBytes,
              " bytes (as get_rng_state returns), got ", new_state.dtype(), " of shape ",
              new_state.sizes(), " on ", new_state.device());
  const Tensor c = new_state.contiguous();
  const uint64_t seed = get_le(c.data_ptr<uint8_t>());
  const uint64_t offset = get_le(c.data_ptr<uint8_t>() + 8);
  GeneratorState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.seed = seed;
  s.offset = offset;
}

namespace cuda {
Tensor get_rng_state() { return ember::get_rng_state(); }
void set_rng_state(const Tensor& new_state) { ember::set_rng_state(new_state); }
}  // namespace cuda

PhiloxSeed next_philox(uint64_t count) {
  GeneratorState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  PhiloxSeed r{s.seed, s.offset};
  s.offset += count;
  return r;
}

}  // namespace ember
