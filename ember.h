// The umbrella header: everything public in ember.
// Users write `#include <ember/ember.h>` and link ember::ember.
#pragma once

#include <ember/autograd/autograd.h>
#include <ember/core/array_ref.h>
#include <ember/core/context.h>
#include <ember/core/device.h>
#include <ember/core/dtype.h>
#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/scalar.h>
#include <ember/core/tensor.h>
#include <ember/core/tensor_options.h>
#include <ember/cuda/api.h>
#include <ember/cuda/elementwise_kernel.h>
#include <ember/cuda/graph.h>
#include <ember/cuda/module.h>
#include <ember/cuda/reduction_kernel.h>
#include <ember/data/data.h>
#include <ember/nn/nn.h>
#include <ember/optim/optim.h>
#include <ember/serialize/checkpoint.h>
#include <ember/serialize/serialize.h>

#include <iostream>
#include <optional>
#include <string>

// ---- c10's names that LibTorch programs use (docs/porting-from-libtorch.md) ----
namespace ember {

// torch::optional, torch::nullopt (c10::optional is std::optional in LibTorch 2.x).
template <class T>
using optional = std::optional<T>;
using std::nullopt;
using std::nullopt_t;

// torch::str / c10::str: the arguments written one after another with operator<<.
template <class... Args>
std::string str(const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return std::string();
  } else {
    return detail::str(args...);
  }
}

}  // namespace ember

// EMBER_INTERNAL_ASSERT(cond, "message", ...) and EMBER_ASSERT (LibTorch's TORCH_INTERNAL_ASSERT
// and AT_ASSERT): when cond is false, throw ember::Error naming the condition, file and line.
#define EMBER_INTERNAL_ASSERT(cond, ...)                                                           \
  do {                                                                                             \
    if (__builtin_expect(!(cond), 0)) {                                                            \
      ::ember::detail::throw_error(::ember::detail::str(                                           \
          #cond " INTERNAL ASSERT FAILED at \"", __FILE__, "\":", __LINE__, ". ", ##__VA_ARGS__)); \
    }                                                                                              \
  } while (0)
#define EMBER_ASSERT(cond, ...) EMBER_INTERNAL_ASSERT(cond, ##__VA_ARGS__)

// EMBER_WARN("message", ...): LibTorch's TORCH_WARN, a line on stderr; the program goes on.
#define EMBER_WARN(...)                                                                           \
  do {                                                                                            \
    std::cerr << ::ember::detail::str("[W ", __FILE__, ":", __LINE__, "] Warning: ", __VA_ARGS__, \
                                      " (function ", __func__, ")\n");                            \
  } while (0)
