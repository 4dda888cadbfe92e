// ExpandingArray<D>: D integers given as one value (repeated) or as a list of exactly D, as
// LibTorch's torch::ExpandingArray, so that `Conv2dOptions(1, 32, 3)` and `{3, 5}` both read as
// a 2-d kernel size. ExpandingArrayWithOptionalElem<D> allows "same as input" (nullopt) entries,
// as the adaptive pooling options' output_size does. Both print as LibTorch's (`3`, `[3, 3]`).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

#include <ember/core/array_ref.h>
#include <ember/core/error.h>

namespace ember {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(std::initializer_list<T> list)  // NOLINT: implicit, as LibTorch's
      : ExpandingArray(ArrayRef<T>(list)) {}
  ExpandingArray(std::vector<T> vec) : ExpandingArray(ArrayRef<T>(vec)) {}  // NOLINT
  ExpandingArray(ArrayRef<T> values) {                                      // NOLINT
    EMBER_CHECK(values.size() == D, "Expected ", D, " values, but instead got ", values.size());
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  ExpandingArray(T single_size) { values_.fill(single_size); }         // NOLINT
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_.data(), D); }  // NOLINT
  size_t size() const noexcept { return D; }

 protected:
  std::array<T, D> values_;
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& array) {
  if (D == 1) return stream << array->at(0);
  stream << "[";
  for (size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << array->at(i);
  return stream << "]";
}

// Entries may be std::nullopt; a plain value or list converts as ExpandingArray's does.
template <size_t D, typename T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, std::optional<T>> {
 public:
  using ExpandingArray<D, std::optional<T>>::ExpandingArray;
  ExpandingArrayWithOptionalElem(std::initializer_list<T> list)  // NOLINT
      : ExpandingArrayWithOptionalElem(ArrayRef<T>(list)) {}
  ExpandingArrayWithOptionalElem(std::vector<T> vec)  // NOLINT
      : ExpandingArrayWithOptionalElem(ArrayRef<T>(vec)) {}
  ExpandingArrayWithOptionalElem(ArrayRef<T> values)  // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>()) {
    EMBER_CHECK(values.size() == D, "Expected ", D, " values, but instead got ", values.size());
    for (size_t i = 0; i < D; ++i) this->values_[i] = values[i];
  }
  ExpandingArrayWithOptionalElem(T single_size)  // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>(single_size)) {}
  ExpandingArrayWithOptionalElem(const std::array<T, D>& values)  // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>()) {
    for (size_t i = 0; i < D; ++i) this->values_[i] = values[i];
  }
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArrayWithOptionalElem<D, T>& array) {
  auto put = [&](const std::optional<T>& e) -> std::ostream& {
    return e.has_value() ? (stream << *e) : (stream << "None");
  };
  if (D == 1) return put(array->at(0));
  stream << "[";
  for (size_t i = 0; i < D; ++i) {
    if (i) stream << ", ";
    put(array->at(i));
  }
  return stream << "]";
}

}  // namespace ember
