// Module::clone's machinery, as LibTorch's torch::nn::Cloneable: a deep copy copy-constructs the
// module's type, rebuilds its parameters with reset(), then copies their values and clones
// children.
#pragma once

#include <memory>
#include <optional>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include <ember/core/device.h>
#include <ember/nn/module.h>

namespace ember::nn {

namespace detail {

using CloneFn = std::shared_ptr<Module> (*)(const Module&, const std::optional<Device>&);
using CloneAssignFn = void (*)(Module&, const Module&);

// Records how modules of `type` clone (and how one is assigned in place, for children).
bool register_clone(const std::type_info& type, CloneFn clone, CloneAssignFn assign);

// The non-template steps of a clone (they touch Module's private dicts).
struct CloneAccess {
  // Clears the copy's parameters, buffers and children before reset() rebuilds them, and gives
  // it forward hooks of its own.
  static void prepare(Module& copy, bool clear);
  // Fails unless `self` has no parameters, buffers or children (a type without reset()).
  static void check_stateless(const Module& self);
  // Copies the values of `self`'s parameters and buffers into the copy's (to `device`, if
  // given), and clones `self`'s children into the copy's, in place.
  static void copy_state(const Module& self, Module& copy, const std::optional<Device>& device);
  [[noreturn]] static void not_clonable(const Module& self);
};

template <class T, class = void>
struct has_reset : std::false_type {};
template <class T>
struct has_reset<T, std::void_t<decltype(std::declval<T&>().reset())>> : std::true_type {};

template <class T>
std::shared_ptr<Module> clone_as(const Module& self, const std::optional<Device>& device) {
  if constexpr (std::is_copy_constructible_v<T>) {
    auto copy = std::make_shared<T>(static_cast<const T&>(self));
    if constexpr (has_reset<T>::value) {
      CloneAccess::prepare(*copy, /*clear=*/true);
      copy->reset();
    } else {
      CloneAccess::check_stateless(self);
      CloneAccess::prepare(*copy, /*clear=*/false);
    }
    CloneAccess::copy_state(self, *copy, device);
    return copy;
  } else {
    CloneAccess::not_clonable(self);
  }
}

template <class T>
void clone_assign_as(Module& target, const Module& source) {
  if constexpr (std::is_copy_assignable_v<T>) {
    static_cast<T&>(target) = static_cast<const T&>(source);
  } else {
    CloneAccess::not_clonable(source);
  }
}

// Instantiated (by EMBER_MODULE and Cloneable) for every module type: registers its clone.
template <class T>
inline const bool clone_registered = register_clone(typeid(T), &clone_as<T>, &clone_assign_as<T>);

}  // namespace detail

// The base of a user module that clones, as LibTorch's: reset() must (re)create every parameter,
// buffer and child. Modules defined with EMBER_MODULE clone without it when they have a reset().
template <class Derived>
class Cloneable : public Module {
 public:
  Cloneable() { (void)detail::clone_registered<Derived>; }
  explicit Cloneable(std::string name) : Module(std::move(name)) {
    (void)detail::clone_registered<Derived>;
  }
  virtual void reset() = 0;
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    return detail::clone_as<Derived>(*this, device);
  }
};

}  // namespace ember::nn
