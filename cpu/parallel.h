// parallel_for over [begin, end) on a small pool of CPU threads (set_num_threads).
// Ranges smaller than grain run inline on the caller, so tiny ops pay nothing.
#pragma once

#include <cstdint>
#include <functional>

namespace ember {
namespace cpu {

// Calls fn(chunk_begin, chunk_end) over disjoint chunks covering [begin, end).
// Runs inline when (end - begin) <= grain or only one thread is configured.
// Exceptions thrown by fn are rethrown on the caller.
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn);

// Elementwise ops go parallel above this many elements.
constexpr int64_t kParallelGrain = 32768;

}  // namespace cpu
}  // namespace ember
