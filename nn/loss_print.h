// The printing the loss modules share (nn/loss.cpp, nn/loss_more.cpp): PyTorch's repr, which
// leaves the default reduction (mean) and other defaults out. Internal to those two files.
#pragma once

#include <initializer_list>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>

#include <ember/nn/functional_loss.h>

namespace ember::nn::detail {

// "reduction=sum" when not the default mean, else "".
inline const char* reduction_text(Reduction r) {
  switch (r) {
    case Reduction::kNone:
      return "reduction=none";
    case Reduction::kSum:
      return "reduction=sum";
    case Reduction::kBatchMean:
      return "reduction=batchmean";
    default:
      return "";
  }
}

// Name(first, reduction=...), the reduction only when not the default.
inline void print_loss(std::ostream& stream, const char* name, const std::string& first,
                       Reduction r) {
  stream << name << "(" << first;
  if (*reduction_text(r)) stream << (first.empty() ? "" : ", ") << reduction_text(r);
  stream << ")";
}

// "key=value, key=value" of the numeric options given.
inline std::string loss_fields(std::initializer_list<std::pair<const char*, double>> values) {
  std::ostringstream os;
  const char* sep = "";
  for (const auto& [key, value] : values) {
    os << sep << key << "=" << value;
    sep = ", ";
  }
  return os.str();
}

}  // namespace ember::nn::detail
