// LibTorch's indexing types (ember::indexing::Slice, None, Ellipsis, TensorIndex), the
// arguments of Tensor::index({...}) and Tensor::index_put_({...}, v) (core/ops_indexing.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <ostream>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/tensor.h>

namespace ember {
namespace indexing {

constexpr int64_t INDEX_MIN = INT64_MIN;
constexpr int64_t INDEX_MAX = INT64_MAX;

enum class TensorIndexType { None, Ellipsis, SymInt, Boolean, Slice, Tensor };

// `None` inserts a dim of size 1 (unsqueeze); `Ellipsis` (or "...") stands for the dims not
// otherwise indexed.
constexpr std::nullopt_t None = std::nullopt;
struct EllipsisIndexType final {
  EllipsisIndexType() = default;
};
inline constexpr EllipsisIndexType Ellipsis{};

// Python's start:stop:step; missing bounds take the defaults of the step's sign. A negative
// step is refused when the slice is applied ("step must be greater than zero"), as LibTorch.
class Slice final {
 public:
  Slice(std::optional<int64_t> start_index = std::nullopt,
        std::optional<int64_t> stop_index = std::nullopt,
        std::optional<int64_t> step_index = std::nullopt) {
    step_ = step_index.value_or(1);
    EMBER_CHECK(step_ != 0, "slice step cannot be zero");
    start_ = start_index.value_or(step_ < 0 ? INDEX_MAX : 0);
    stop_ = stop_index.value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX);
  }
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t start_ = 0;
  int64_t stop_ = INDEX_MAX;
  int64_t step_ = 1;
};
std::ostream& operator<<(std::ostream& stream, const Slice& slice);

// One entry of t.index({...}): None, Ellipsis ("..."), an integer, a bool, a Slice or a Tensor
// (int64/int32 indices or a bool/uint8 mask).
class TensorIndex final {
 public:
  TensorIndex(std::nullopt_t) : type_(TensorIndexType::None) {}         // NOLINT
  TensorIndex(EllipsisIndexType) : type_(TensorIndexType::Ellipsis) {}  // NOLINT
  TensorIndex(const char* str) : type_(TensorIndexType::Ellipsis) {     // NOLINT
    EMBER_CHECK(std::strcmp(str, "...") == 0,
                "Expected \"...\" to represent an ellipsis index, but got \"", str, "\"");
  }
  TensorIndex(int64_t integer) : integer_(integer), type_(TensorIndexType::SymInt) {}  // NOLINT
  TensorIndex(int integer) : integer_(integer), type_(TensorIndexType::SymInt) {}      // NOLINT
  template <class T, class = std::enable_if_t<std::is_same<bool, T>::value>>
  TensorIndex(T boolean) : boolean_(boolean), type_(TensorIndexType::Boolean) {}  // NOLINT
  TensorIndex(Slice slice) : slice_(slice), type_(TensorIndexType::Slice) {}      // NOLINT
  TensorIndex(Tensor tensor)
      : tensor_(std::move(tensor)), type_(TensorIndexType::Tensor) {}  // NOLINT

  bool is_none() const { return type_ == TensorIndexType::None; }
  bool is_ellipsis() const { return type_ == TensorIndexType::Ellipsis; }
  bool is_integer() const { return type_ == TensorIndexType::SymInt; }
  int64_t integer() const { return integer_; }
  bool is_boolean() const { return type_ == TensorIndexType::Boolean; }
  bool boolean() const { return boolean_; }
  bool is_slice() const { return type_ == TensorIndexType::Slice; }
  const Slice& slice() const { return slice_; }
  bool is_tensor() const { return type_ == TensorIndexType::Tensor; }
  const Tensor& tensor() const { return tensor_; }
  TensorIndexType type() const { return type_; }

 private:
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
  TensorIndexType type_;
};
std::ostream& operator<<(std::ostream& stream, const TensorIndex& tensor_index);
std::ostream& operator<<(std::ostream& stream, const std::vector<TensorIndex>& tensor_indices);

}  // namespace indexing
}  // namespace ember
