// ember::Error and the checks that raise it.
// Library code throws; it never aborts, exits or prints in place of throwing.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// Thrown when a device allocation fails even after the cache was emptied.
class OutOfMemoryError : public Error {
 public:
  explicit OutOfMemoryError(const std::string& what) : Error(what) {}
};

namespace detail {
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
[[noreturn]] void throw_error(const std::string& msg);
// EMBER_CHECK's message: the given parts, or the default when none is given.
template <class... Args>
std::string check_message(const char* default_message, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return default_message;
  } else {
    return str(args...);
  }
}
}  // namespace detail

}  // namespace ember

// EMBER_CHECK(cond, "op: message ", value, ...) throws ember::Error when cond is false;
// EMBER_CHECK(cond) alone says "Expected cond to be true, but got false." as TORCH_CHECK does.
#define EMBER_CHECK(cond, ...)                                              \
  do {                                                                      \
    if (__builtin_expect(!(cond), 0)) {                                     \
      ::ember::detail::throw_error(::ember::detail::check_message(          \
          "Expected " #cond " to be true, but got false.", ##__VA_ARGS__)); \
    }                                                                       \
  } while (0)

#define EMBER_THROW(...) ::ember::detail::throw_error(::ember::detail::str(__VA_ARGS__))
