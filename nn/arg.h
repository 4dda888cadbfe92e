// EMBER_ARG(T, name): an option field with a chaining setter, as LibTorch's TORCH_ARG, so that
// `LinearOptions(4, 8).bias(false)` sets and `options.bias()` reads. Used by every options struct.
#pragma once

#include <utility>

#ifndef EMBER_ARG
#define EMBER_ARG(T, name)                                        \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline auto name(T&& new_##name)->decltype(*this) {             \
    this->name##_ = std::move(new_##name);                        \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_
#endif
