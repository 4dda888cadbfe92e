// Printing a Scalar the way error messages want it: 2, 0.5, True.
// Floats print with 8 significant digits and always look like floats (1.0, 0.5, 1e+20).
#include <ember/core/scalar.h>

#include <cstdio>

namespace ember {

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool:
      return os << (s.toBool() ? "True" : "False");
    case Scalar::Kind::Int:
      return os << s.toLong();
    case Scalar::Kind::Float: {
      char buf[32];
      int n = std::snprintf(buf, sizeof(buf), "%.8g", s.toDouble());
      os << buf;
      // Keep floats recognisable as floats, as Python does: 1.0, not 1.
      for (int i = 0; i < n; ++i) {
        if (buf[i] == '.' || buf[i] == 'e' || buf[i] == 'n' || buf[i] == 'i') return os;
      }
      return os << ".0";
    }
  }
  return os;
}

}  // namespace ember
