// ModuleHolder<Impl>: the shared_ptr wrapper behind `nn::Linear fc(4, 8); fc->weight; fc(x)`,
// as LibTorch's torch::nn::ModuleHolder, and EMBER_MODULE(Name), which defines the holder class
// `Name` for `NameImpl` (LibTorch's TORCH_MODULE). Calling a holder runs forward hooks.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/nn/cloneable.h>
#include <ember/nn/module.h>

namespace ember::nn {

namespace detail {

template <class T>
inline constexpr bool dependent_false = false;

template <class M, class... Args>
using forward_result_t = decltype(std::declval<M&>().forward(std::declval<Args>()...));

template <class M, class... Args, size_t... I>
Tensor forward_unpacked(M& module, std::vector<Tensor>& inputs, std::index_sequence<I...>) {
  return module.forward(inputs[I]...);
}

// module.forward(args...), with the module's forward hooks when it has any. Hooks need tensor
// arguments and a tensor result; the fast path (no hooks) costs one branch.
template <class M, class... Args>
forward_result_t<M, Args&&...> call_forward(M& module, Args&&... args) {
  if (!module.has_forward_hooks()) return module.forward(std::forward<Args>(args)...);
  using R = forward_result_t<M, Args&&...>;
  constexpr bool tensors_only = (std::is_same_v<std::decay_t<Args>, Tensor> && ...);
  if constexpr (tensors_only && std::is_same_v<R, Tensor>) {
    std::vector<Tensor> inputs{Tensor(args)...};
    module.run_forward_pre_hooks(inputs);
    Tensor output =
        forward_unpacked<M, Args...>(module, inputs, std::index_sequence_for<Args...>{});
    module.run_forward_hooks(inputs, output);
    return output;
  } else {
    EMBER_THROW(module.name(), ": forward hooks need forward's arguments and result to be ",
                "tensors");
  }
}

// True for ember's own modules (EMBER_BUILTIN_MODULE): the library registers their clones
// (nn/clone.cpp), so that a program including ember.h does not instantiate every built-in
// module's clone machinery in each of its files (about 8 s of compile time per file).
template <class T>
struct clone_in_library : std::false_type {};

}  // namespace detail

template <class Contained>
class ModuleHolder {
  static_assert(std::is_base_of_v<Module, Contained>,
                "ModuleHolder: the contained type must derive from nn::Module");

  template <class T>
  static constexpr bool is_self_v =
      std::is_base_of_v<ModuleHolder, std::decay_t<T>> ||
      std::is_same_v<std::decay_t<T>, std::nullptr_t> ||
      std::is_convertible_v<std::decay_t<T>, std::shared_ptr<Contained>>;

 public:
  using ContainedType = Contained;

  // Default-constructs the module; for modules without a default constructor write
  // `Linear fc = nullptr;` (the empty state) instead.
  // (Each constructor also registers Contained's clone, nn/cloneable.h.)
  ModuleHolder() : impl_(default_construct()) { register_clone(); }
  ModuleHolder(std::nullptr_t) {}  // NOLINT: `Linear fc = nullptr;`
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {  // NOLINT
    register_clone();
  }
  // Forwards to Contained's constructor: `Linear fc(4, 8)`.
  template <class Head, class... Tail,
            class = std::enable_if_t<!(sizeof...(Tail) == 0 && is_self_v<Head>)>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {
    register_clone();
  }

  Contained* operator->() { return get(); }
  const Contained* operator->() const { return get(); }
  Contained& operator*() { return *get(); }
  const Contained& operator*() const { return *get(); }
  Contained* get() {
    check_not_empty();
    return impl_.get();
  }
  const Contained* get() const {
    check_not_empty();
    return impl_.get();
  }
  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return impl_;
  }
  bool is_empty() const noexcept { return impl_ == nullptr; }
  explicit operator bool() const noexcept { return impl_ != nullptr; }

  // Calls forward, running the module's forward hooks.
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return detail::call_forward(*get(), std::forward<Args>(args)...);
  }
  // Indexing forwards to the module (Sequential, ModuleList, ModuleDict).
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  std::shared_ptr<Contained> impl_;

 private:
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      static_assert(detail::dependent_false<Contained>,
                    "This module has no default constructor: write `Linear fc = nullptr;` (the "
                    "empty state) or construct it with arguments");
      return nullptr;
    }
  }
  // Registers Contained's clone (nn/cloneable.h), unless the library does (built-in modules).
  static void register_clone() {
    if constexpr (!detail::clone_in_library<Contained>::value) {
      (void)detail::clone_registered<Contained>;
    }
  }
  void check_not_empty() const {
    EMBER_CHECK(impl_ != nullptr, "Accessing an empty ModuleHolder (constructed from nullptr): ",
                "assign a module to it first");
  }
};

template <class Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& holder) {
  return stream << *holder;
}

}  // namespace ember::nn

// The holder class of EMBER_MODULE and EMBER_BUILTIN_MODULE; members after ImplType go in it.
#define EMBER_MODULE_HOLDER_(Name, ImplType, ...)            \
  class Name : public ::ember::nn::ModuleHolder<ImplType> {  \
   public:                                                   \
    using ::ember::nn::ModuleHolder<ImplType>::ModuleHolder; \
    using Impl = ImplType;                                   \
    __VA_ARGS__                                              \
  }

// EMBER_MODULE(Linear) defines `class Linear : public ModuleHolder<LinearImpl>`, and makes
// LinearImpl clonable (Module::clone, nn/cloneable.h).
// clang-format off
#define EMBER_MODULE_IMPL(Name, ImplType)                          \
  EMBER_MODULE_HOLDER_(Name, ImplType,                             \
   private:                                                        \
    static inline const bool ember_clone_registered_ =             \
        ::ember::nn::detail::clone_registered<ImplType>;)
// clang-format on

#define EMBER_MODULE(Name) EMBER_MODULE_IMPL(Name, Name##Impl)

// Says that the library registers ImplType's clone (nn/clone.cpp), so that its holder does not
// (inside namespace ember::nn: EMBER_BUILTIN_MODULE, and the holders written by hand).
#define EMBER_CLONE_IN_LIBRARY(ImplType) \
  template <>                            \
  struct detail::clone_in_library<ImplType> : std::true_type {}

// The library's own modules (used inside namespace ember::nn): the same holder, with the
// clone registered by the library instead of in every file that includes the header. nn/clone.cpp
// defines EMBER_NN_CLONE_REGISTRY before its includes: there each use also numbers its module
// (BuiltinClone<0>, <1>, ...), and the registry adds every numbered one when first used.
#ifdef EMBER_NN_CLONE_REGISTRY
namespace ember::nn::detail {
template <int I>
struct BuiltinClone {
  using type = void;
};
}  // namespace ember::nn::detail
#define EMBER_BUILTIN_CLONE_(ImplType)       \
  template <>                                \
  struct detail::BuiltinClone<__COUNTER__> { \
    using type = ImplType;                   \
  };
#else
#define EMBER_BUILTIN_CLONE_(ImplType)
#endif
#define EMBER_BUILTIN_MODULE_IMPL(Name, ImplType) \
  EMBER_CLONE_IN_LIBRARY(ImplType);               \
  EMBER_BUILTIN_CLONE_(ImplType)                  \
  EMBER_MODULE_HOLDER_(Name, ImplType, /* no more members */)
#define EMBER_BUILTIN_MODULE(Name) EMBER_BUILTIN_MODULE_IMPL(Name, Name##Impl)
