// Module::clone: the registry of clonable module types (filled by EMBER_MODULE and Cloneable),
// the copying of parameters, buffers and children, and the containers' clones.
// The built-in modules' clones are instantiated here, once, and registered with the registry's
// first use (nn/holder.h's EMBER_BUILTIN_MODULE), without static initializers.
#define EMBER_NN_CLONE_REGISTRY
#include <ember/nn/cloneable.h>

#include <mutex>
#include <type_traits>
#include <typeindex>
#include <unordered_map>
#include <utility>

#include <ember/core/error.h>
#include <ember/core/grad_mode.h>
#include <ember/nn/containers.h>
#include <ember/nn/modules/embedding.h>
#include <ember/nn/nn.h>

namespace ember::nn {

namespace detail {
namespace {

struct CloneEntry {
  CloneFn clone = nullptr;
  CloneAssignFn assign = nullptr;
};

struct CloneRegistry {
  std::mutex mutex;
  std::unordered_map<std::type_index, CloneEntry> entries;
};

// The built-in modules numbered by EMBER_BUILTIN_MODULE in this file's includes.
constexpr int kMaxBuiltins = 256;
static_assert(__COUNTER__ < kMaxBuiltins, "more built-in modules than kMaxBuiltins");

template <class T>
void add_builtin(CloneRegistry& reg) {
  if constexpr (!std::is_void_v<T>) reg.entries[typeid(T)] = {&clone_as<T>, &clone_assign_as<T>};
}

template <size_t... I>
void add_builtins(CloneRegistry& reg, std::index_sequence<I...>) {
  (add_builtin<typename BuiltinClone<static_cast<int>(I)>::type>(reg), ...);
}

CloneRegistry& registry() {
  static CloneRegistry* r = [] {
    auto* reg = new CloneRegistry();
    add_builtins(*reg, std::make_index_sequence<kMaxBuiltins>{});
    // The containers clone themselves (their clone() overrides); children need their assignment.
    reg->entries[typeid(SequentialImpl)] = {nullptr, &clone_assign_as<SequentialImpl>};
    reg->entries[typeid(ModuleListImpl)] = {nullptr, &clone_assign_as<ModuleListImpl>};
    reg->entries[typeid(ModuleDictImpl)] = {nullptr, &clone_assign_as<ModuleDictImpl>};
    // Modules whose holder is not an EMBER_MODULE.
    reg->entries[typeid(EmbeddingImpl)] = {&clone_as<EmbeddingImpl>,
                                           &clone_assign_as<EmbeddingImpl>};
    return reg;
  }();
  return *r;
}

CloneEntry find_entry(const Module& module) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.entries.find(typeid(module));
  return it == r.entries.end() ? CloneEntry{} : it->second;
}

// The value of a parameter or buffer in the clone: a copy, on `device` when given.
Tensor copied(const Tensor& t, const std::optional<Device>& device) {
  return device && t.device() != *device ? t.to(*device) : t.clone();
}

}  // namespace

bool register_clone(const std::type_info& type, CloneFn clone, CloneAssignFn assign) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.entries[type] = {clone, assign};
  return true;
}

void CloneAccess::prepare(Module& copy, bool clear) {
  if (clear) {
    copy.parameters_.clear();
    copy.buffers_.clear();
    copy.children_.clear();
  }
  // The copy shares the original's hook list until now; give it its own.
  if (copy.hooks_) copy.hooks_ = std::make_shared<ForwardHooks>(*copy.hooks_);
}

void CloneAccess::check_stateless(const Module& self) {
  if (!self.parameters_.is_empty() || !self.buffers_.is_empty() || !self.children_.is_empty()) {
    not_clonable(self);
  }
}

void CloneAccess::not_clonable(const Module& self) {
  EMBER_THROW("clone() has not been implemented for ", self.name(),
              ". Subclass ember::nn::Cloneable<", self.name(),
              "> instead of ember::nn::Module to inherit the ability to clone.");
}

void CloneAccess::copy_state(const Module& self, Module& copy,
                             const std::optional<Device>& device) {
  NoGradGuard no_grad;
  EMBER_CHECK(copy.parameters_.size() == self.parameters_.size(),
              "The cloned module does not have the same number of parameters as the original "
              "module. Did you forget to call reset()?");
  for (const auto& item : self.parameters_) {
    if (!item.value().defined()) continue;
    Tensor* target = copy.parameters_.find(item.key());
    EMBER_CHECK(target != nullptr && target->defined(), "clone: ", self.name(),
                "'s reset() did not create parameter '", item.key(), "'");
    target->set_data(copied(item.value(), device));
  }
  EMBER_CHECK(copy.buffers_.size() == self.buffers_.size(),
              "The cloned module does not have the same number of buffers as the original "
              "module. Did you forget to call reset()?");
  for (const auto& item : self.buffers_) {
    if (!item.value().defined()) continue;
    Tensor* target = copy.buffers_.find(item.key());
    EMBER_CHECK(target != nullptr && target->defined(), "clone: ", self.name(),
                "'s reset() did not create buffer '", item.key(), "'");
    target->set_data(copied(item.value(), device));
  }
  EMBER_CHECK(copy.children_.size() == self.children_.size(),
              "The cloned module does not have the same number of child modules as the "
              "original module. Did you forget to call reset()?");
  for (const auto& item : self.children_) {
    auto* target = copy.children_.find(item.key());
    EMBER_CHECK(target != nullptr && *target != nullptr, "clone: ", self.name(),
                "'s reset() did not create child module '", item.key(), "'");
    // Cloned, then assigned in place: the copy's own handles to its child (e.g. a holder
    // member set by reset()) keep pointing at it, as LibTorch's Cloneable::clone_.
    std::shared_ptr<Module> child = item.value()->clone(device);
    Module& existing = **target;
    EMBER_CHECK(typeid(existing) == typeid(*child), "clone: ", self.name(),
                "'s reset() created child '", item.key(), "' of another type");
    CloneEntry entry = find_entry(existing);
    if (entry.assign != nullptr) {
      entry.assign(existing, *child);
    } else {
      *target = std::move(child);
    }
  }
}

// Copies the containers' own parameters and buffers (their elements are cloned separately).
static void copy_own_tensors(const Module& self, Module& copy,
                             const std::optional<Device>& device) {
  NoGradGuard no_grad;
  for (const auto& item : self.named_parameters(/*recurse=*/false)) {
    copy.register_parameter(item.key(), copied(item.value(), device), item.value().requires_grad());
  }
  for (const auto& item : self.named_buffers(/*recurse=*/false)) {
    copy.register_buffer(item.key(), copied(item.value(), device));
  }
}

}  // namespace detail

std::shared_ptr<Module> Module::clone(const std::optional<Device>& device) const {
  detail::CloneEntry entry = detail::find_entry(*this);
  if (entry.clone == nullptr) detail::CloneAccess::not_clonable(*this);
  return entry.clone(*this, device);
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  copy->train(is_training());
  detail::copy_own_tensors(*this, *copy, device);
  const auto children = named_children();
  EMBER_CHECK(children.size() == modules_.size(), "Sequential: clone: children out of sync");
  for (size_t i = 0; i < modules_.size(); ++i) {
    copy->append(children[i].key(), modules_[i]->clone(device), forwards_[i]);
  }
  return copy;
}

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  copy->train(is_training());
  detail::copy_own_tensors(*this, *copy, device);
  for (const auto& module : modules_) copy->append(module->clone(device));
  return copy;
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  copy->train(is_training());
  detail::copy_own_tensors(*this, *copy, device);
  for (const auto& item : modules_) copy->set(item.key(), item.value()->clone(device));
  return copy;
}

}  // namespace ember::nn
