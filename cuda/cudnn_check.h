// EMBER_CUDNN_CHECK(op, expr): wraps every cuDNN call of cuda/cudnn_conv.cpp so that a failure
// throws ember::Error naming the op ("conv2d"), the call, file:line, cuDNN's status string and
// cuDNN 9's last detailed message. Private to cuda/, included only by cuda/cudnn_conv.cpp (the
// one file that sees cudnn.h: cuDNN's headers are large and slow to compile).
#pragma once

#include <cudnn.h>

#include <ember/core/error.h>

namespace ember {
namespace cudnn {
namespace detail {

[[noreturn]] inline void throw_cudnn_error(cudnnStatus_t status, const char* op, const char* expr,
                                           const char* file, int line) {
  char last[512] = {0};
  cudnnGetLastErrorString(last, sizeof(last));  // cuDNN 9: why, in words (may be empty)
  ::ember::detail::throw_error(::ember::detail::str(
      op, ": cuDNN error ", static_cast<int>(status), " (", cudnnGetErrorString(status), ") in ",
      expr, " at ", file, ":", line, last[0] != '\0' ? ": " : "", last));
}

}  // namespace detail
}  // namespace cudnn
}  // namespace ember

#define EMBER_CUDNN_CHECK(op, expr)                                                              \
  do {                                                                                           \
    cudnnStatus_t ember_cudnn_st_ = (expr);                                                      \
    if (__builtin_expect(ember_cudnn_st_ != CUDNN_STATUS_SUCCESS, 0)) {                          \
      ::ember::cudnn::detail::throw_cudnn_error(ember_cudnn_st_, op, #expr, __FILE__, __LINE__); \
    }                                                                                            \
  } while (0)
