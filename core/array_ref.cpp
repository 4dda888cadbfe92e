// Printing of IntArrayRef as "[2, 3]", the shape form every error message uses.
// Out of line so that array_ref.h does not need to format anything itself.
#include <ember/core/array_ref.h>

namespace ember {

std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << '[';
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) os << ", ";
    os << a[i];
  }
  return os << ']';
}

}  // namespace ember
