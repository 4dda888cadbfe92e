// Container modules, as LibTorch's: Sequential (chains forward through its elements),
// ModuleList (an indexed list) and ModuleDict (modules by name), plus Functional, which wraps a
// tensor function as a module for use in a Sequential. Children are named "0", "1", ... (or by
// the given names), so parameters read "seq.0.weight" as in PyTorch.
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>

namespace ember::nn {

namespace detail {

template <class M, class = void>
struct has_tensor_forward : std::false_type {};
template <class M>
struct has_tensor_forward<
    M, std::enable_if_t<std::is_convertible_v<
           decltype(std::declval<M&>().forward(std::declval<const Tensor&>())), Tensor>>>
    : std::true_type {};

// forward(x) of a module known only as Module&, with its hooks: one indirect call.
using TensorForward = Tensor (*)(Module&, const Tensor&);

template <class M>
TensorForward tensor_forward_of() {
  if constexpr (has_tensor_forward<M>::value) {
    return [](Module& m, const Tensor& x) -> Tensor { return call_forward(static_cast<M&>(m), x); };
  } else {
    return nullptr;
  }
}

template <class T>
struct module_type {
  using type = typename std::decay_t<T>::ContainedType;  // a holder
};
template <class M>
struct module_type<std::shared_ptr<M>> {
  using type = M;
};

// A module given as a holder, a shared_ptr, or by value (copied into a shared_ptr).
template <class T>
auto to_module_ptr(T&& module) {
  using D = std::decay_t<T>;
  if constexpr (std::is_base_of_v<Module, D>) {
    return std::make_shared<D>(std::forward<T>(module));
  } else if constexpr (std::is_convertible_v<D, std::shared_ptr<Module>> &&
                       !std::is_base_of_v<Module, D>) {
    return std::shared_ptr<typename module_type<D>::type>(module);
  } else {
    return module.ptr();
  }
}

// m as a T, for the containers' ptr<T>(); `where...` names the element in the error
// ("Sequential: element ", 2) when it is not one.
template <class T, class... Where>
std::shared_ptr<T> element_as(const std::shared_ptr<Module>& m, const Where&... where) {
  auto cast = std::dynamic_pointer_cast<T>(m);
  EMBER_CHECK(cast != nullptr, where..., " is a ", m->name(), ", not the type asked for");
  return cast;
}

}  // namespace detail

// A (name, module) pair for the named constructors:
// `Sequential({{"fc", Linear(4, 8)}, {"act", ReLU()}})`.
class NamedModule {
 public:
  template <class M>
  NamedModule(std::string name, M&& module)  // NOLINT
      : name_(std::move(name)) {
    auto ptr = detail::to_module_ptr(std::forward<M>(module));
    using Impl = typename decltype(ptr)::element_type;
    forward_ = detail::tensor_forward_of<Impl>();
    module_ = std::move(ptr);
  }
  const std::string& name() const { return name_; }
  const std::shared_ptr<Module>& module() const { return module_; }
  detail::TensorForward forward() const { return forward_; }

 private:
  std::string name_;
  std::shared_ptr<Module> module_;
  detail::TensorForward forward_ = nullptr;
};

// Elements need `Tensor forward(const Tensor&)` (or by value).
class SequentialImpl : public Module {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  SequentialImpl() = default;
  template <class First, class... Rest,
            class = std::enable_if_t<!std::is_same_v<std::decay_t<First>, SequentialImpl>>>
  explicit SequentialImpl(First&& first, Rest&&... rest) {
    push_back(std::forward<First>(first));
    (push_back(std::forward<Rest>(rest)), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedModule> named_modules);

  template <class M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  template <class M>
  void push_back(std::string name, M&& module) {
    auto ptr = detail::to_module_ptr(std::forward<M>(module));
    using Impl = typename decltype(ptr)::element_type;
    static_assert(detail::has_tensor_forward<Impl>::value,
                  "Sequential: an element needs `Tensor forward(const Tensor&)`");
    append(std::move(name), std::move(ptr), detail::tensor_forward_of<Impl>());
  }
  // Appends the other Sequential's elements (the modules are shared, not copied).
  void extend(const SequentialImpl& other);

  // Chains the elements' forward (with their hooks); throws when empty.
  Tensor forward(const Tensor& input);

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    return detail::element_as<T>(ptr(index), "Sequential: element ", index);
  }
  template <class T>
  T& at(size_t index) const {
    return *ptr<T>(index);
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  Iterator begin() const { return modules_.begin(); }
  Iterator end() const { return modules_.end(); }

  void pretty_print(std::ostream& stream) const override { stream << "Sequential"; }
  // Clones every element (nn/clone.cpp), keeping the names.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  void append(std::string name, std::shared_ptr<Module> module, detail::TensorForward forward);

  std::vector<std::shared_ptr<Module>> modules_;
  std::vector<detail::TensorForward> forwards_;
};

EMBER_CLONE_IN_LIBRARY(SequentialImpl);
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder<SequentialImpl>() {}
  Sequential(std::initializer_list<NamedModule> named_modules)  // NOLINT
      : ModuleHolder<SequentialImpl>(std::make_shared<SequentialImpl>(named_modules)) {}
};

// A list of modules, registered as children "0", "1", ...; it has no forward.
class ModuleListImpl : public Module {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() = default;
  template <class First, class... Rest,
            class = std::enable_if_t<!std::is_same_v<std::decay_t<First>, ModuleListImpl>>>
  explicit ModuleListImpl(First&& first, Rest&&... rest) {
    push_back(std::forward<First>(first));
    (push_back(std::forward<Rest>(rest)), ...);
  }

  template <class M>
  void push_back(M&& module) {
    append(detail::to_module_ptr(std::forward<M>(module)));
  }
  void extend(const ModuleListImpl& other);
  // Inserts before `index`; later children are renumbered.
  template <class M>
  void insert(size_t index, M&& module) {
    insert_ptr(index, detail::to_module_ptr(std::forward<M>(module)));
  }

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    return detail::element_as<T>(ptr(index), "ModuleList: element ", index);
  }
  template <class T>
  T& at(size_t index) const {
    return *ptr<T>(index);
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  Iterator begin() const { return modules_.begin(); }
  Iterator end() const { return modules_.end(); }

  void pretty_print(std::ostream& stream) const override { stream << "ModuleList"; }
  // Clones every element (nn/clone.cpp), keeping the names.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  void append(std::shared_ptr<Module> module);
  void insert_ptr(size_t index, std::shared_ptr<Module> module);

  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_BUILTIN_MODULE(ModuleList);

// Modules by name, in insertion order; it has no forward.
class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(std::initializer_list<NamedModule> named_modules);

  template <class M>
  void update(const std::string& key, M&& module) {
    set(key, detail::to_module_ptr(std::forward<M>(module)));
  }
  // Removes and returns the module under key.
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.is_empty(); }
  bool contains(const std::string& key) const { return modules_.contains(key); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  const std::vector<OrderedDict<std::string, std::shared_ptr<Module>>::Item>& items() const {
    return modules_.items();
  }
  std::shared_ptr<Module> operator[](const std::string& key) const { return modules_[key]; }
  template <class T>
  std::shared_ptr<T> ptr(const std::string& key) const {
    return detail::element_as<T>(modules_[key], "ModuleDict: module '", key, "'");
  }
  template <class T>
  T& at(const std::string& key) const {
    return *ptr<T>(key);
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

  void pretty_print(std::ostream& stream) const override { stream << "ModuleDict"; }
  // Clones every element (nn/clone.cpp), keeping the names.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;

 private:
  void set(const std::string& key, std::shared_ptr<Module> module);

  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"Module"};
};

EMBER_CLONE_IN_LIBRARY(ModuleDictImpl);
class ModuleDict : public ModuleHolder<ModuleDictImpl> {
 public:
  using ModuleHolder<ModuleDictImpl>::ModuleHolder;
  ModuleDict() : ModuleHolder<ModuleDictImpl>() {}
  ModuleDict(std::initializer_list<NamedModule> named_modules)  // NOLINT
      : ModuleHolder<ModuleDictImpl>(std::make_shared<ModuleDictImpl>(named_modules)) {}
};

// Wraps a tensor function as a module: `Sequential(Linear(4, 8), Functional(ember::relu))`.
// Arguments after the function are bound after the input, as LibTorch's (std::bind):
// `Functional(ember::leaky_relu, 0.2)`, `Functional(ember::max_pool2d, 3, 2, 0, 1, false)`.
class FunctionalImpl : public Module {
 public:
  using Function = std::function<Tensor(Tensor)>;
  explicit FunctionalImpl(Function function) : function_(std::move(function)) {}
  template <class SomeFunction, class... Args, class = std::enable_if_t<(sizeof...(Args) > 0)>>
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : function_(
            std::bind(original_function, std::placeholders::_1, std::forward<Args>(args)...)) {}
  Tensor forward(const Tensor& input) { return function_(input); }
  void pretty_print(std::ostream& stream) const override { stream << "Functional()"; }

 private:
  std::function<Tensor(Tensor)> function_;
};
EMBER_BUILTIN_MODULE(Functional);

}  // namespace ember::nn
