// ArrayRef (a non-owning view of a list, like c10::ArrayRef) and DimVector
// (a small vector that keeps up to 8 dims inline, so shapes never hit the heap).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace ember {

template <class T>
class ArrayRef {
 public:
  ArrayRef() = default;
  ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: implicit like c10
  ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const T* begin, const T* end) : data_(begin), size_(end - begin) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  ArrayRef(std::initializer_list<T> l)  // NOLINT: valid for the full expression, as c10's
      : data_(l.begin() == l.end() ? nullptr : l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef other) const {
    return size_ == other.size_ && std::equal(begin(), end(), other.begin());
  }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

template <class T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <class T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}
template <class T>
bool operator==(ArrayRef<T> a, const std::vector<T>& b) {
  return a.equals(b);
}
template <class T>
bool operator==(const std::vector<T>& a, ArrayRef<T> b) {
  return b.equals(a);
}

using IntArrayRef = ArrayRef<int64_t>;

// Prints "[2, 3]", the form every error message uses for shapes.
std::ostream& operator<<(std::ostream& os, IntArrayRef a);

// A vector of int64_t with 8 inline slots; grows onto the heap past that.
class DimVector {
 public:
  static constexpr size_t kInline = 8;
  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { assign(n, value); }
  DimVector(IntArrayRef a) { assign(a); }  // NOLINT
  DimVector(std::initializer_list<int64_t> l) { assign(IntArrayRef(l)); }
  DimVector(const DimVector& o) { assign(IntArrayRef(o)); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(IntArrayRef(o));
    return *this;
  }
  DimVector& operator=(IntArrayRef a) {
    assign(a);
    return *this;
  }

  void assign(IntArrayRef a) {
    resize(a.size());
    std::copy(a.begin(), a.end(), data());
  }
  void assign(size_t n, int64_t value) {
    resize(n);
    std::fill(data(), data() + n, value);
  }
  void resize(size_t n) {
    if (n > kInline) {
      heap_.resize(n);
      if (size_ <= kInline) std::copy(inline_, inline_ + std::min(size_, n), heap_.data());
    } else if (size_ > kInline) {
      std::copy(heap_.data(), heap_.data() + n, inline_);
      heap_.clear();
    }
    int64_t* d = n > kInline ? heap_.data() : inline_;  // data() still reads the old size
    for (size_t i = size_; i < n; ++i) d[i] = 0;
    size_ = n;
  }
  void push_back(int64_t v) {
    resize(size_ + 1);
    data()[size_ - 1] = v;
  }
  void insert(size_t pos, int64_t v) {
    resize(size_ + 1);
    int64_t* d = data();
    for (size_t i = size_ - 1; i > pos; --i) d[i] = d[i - 1];
    d[pos] = v;
  }
  void erase(size_t pos) {
    int64_t* d = data();
    for (size_t i = pos; i + 1 < size_; ++i) d[i] = d[i + 1];
    resize(size_ - 1);
  }

  int64_t* data() { return size_ > kInline ? heap_.data() : inline_; }
  const int64_t* data() const { return size_ > kInline ? heap_.data() : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t back() const { return data()[size_ - 1]; }
  int64_t& back() { return data()[size_ - 1]; }
  operator IntArrayRef() const { return IntArrayRef(data(), size_); }  // NOLINT
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

 private:
  int64_t inline_[kInline] = {};
  std::vector<int64_t> heap_;
  size_t size_ = 0;
};

}  // namespace ember
