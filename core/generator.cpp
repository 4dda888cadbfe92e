// The global Philox generator state: a seed and a counter offset. Random ops reserve
// counters under a lock, so concurrent ops never reuse a stream (scheme in generator.h).
#include <ember/core/generator.h>

#include <mutex>

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

PhiloxSeed next_philox(uint64_t count) {
  GeneratorState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  PhiloxSeed r{s.seed, s.offset};
  s.offset += count;
  return r;
}

}  // namespace ember
