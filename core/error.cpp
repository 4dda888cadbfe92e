// ember::detail::throw_error: the one place errors are raised, out of line so that
// EMBER_CHECK expands to a cheap branch plus a cold call.
#include <ember/core/error.h>

namespace ember {
namespace detail {

[[noreturn]] __attribute__((cold, noinline)) void throw_error(const std::string& msg) {
  throw Error(msg);
}

}  // namespace detail
}  // namespace ember
