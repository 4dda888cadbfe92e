// TensorAccessor<T, N>: indexed access to a CPU tensor's elements through its strides, as
// LibTorch's (auto a = t.accessor<float, 2>(); a[i][j] = 1). It does not keep the tensor alive.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember {

namespace detail {
// What every rank shares: the data pointer and the sizes and strides from this dim on.
template <class T>
class AccessorBase {
 public:
  AccessorBase(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  int64_t size(int64_t dim) const { return sizes_[dim]; }
  int64_t stride(int64_t dim) const { return strides_[dim]; }
  T* data() const { return data_; }

 protected:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
}  // namespace detail

// a[i] is an accessor of rank N - 1; at rank 1 it is the element.
template <class T, size_t N>
class TensorAccessor : public detail::AccessorBase<T> {
 public:
  using detail::AccessorBase<T>::AccessorBase;
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1,
                                    this->strides_ + 1);
  }
};

template <class T>
class TensorAccessor<T, 1> : public detail::AccessorBase<T> {
 public:
  using detail::AccessorBase<T>::AccessorBase;
  T& operator[](int64_t i) const { return this->data_[this->strides_[0] * i]; }
};

}  // namespace ember
