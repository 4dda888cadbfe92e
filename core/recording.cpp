// The tables of recording forms core calls (core/recording.h), constant-initialized: the
// pointers start at Unregistered<>::call, the per-op tables empty, until autograd fills them.
#include <ember/core/recording.h>

namespace ember::detail {

namespace recorded {
#define EMBER_RECORDED(id, function, ret, params) \
  ret(*id) params = &Unregistered<ret(*) params>::call<&id>;
#include <ember/core/recorded.def>
#undef EMBER_RECORDED
}  // namespace recorded

UnaryRecorder g_unary_recorders[kNumOps] = {};
BinaryRecorder g_binary_recorders[kNumOps] = {};

}  // namespace ember::detail
