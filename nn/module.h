// nn::Module: the base of every layer and model, as LibTorch's torch::nn::Module. It owns named
// parameters, buffers and child modules (names dotted as PyTorch's: "features.0.weight"),
// switches train/eval, moves itself between devices and dtypes in place, saves and loads state
// dicts, prints itself as a tree, and runs forward hooks when called through its holder.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/device.h>
#include <ember/core/dtype.h>
#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/nn/ordered_dict.h>

namespace ember::nn {

class Module;
template <class Contained>
class ModuleHolder;

// A pre-hook sees forward's tensor arguments and may change them; a hook sees the arguments
// and the output and may replace the output. Both run when the module is called through its
// holder or a container (`fc(x)`, `seq->forward(x)`), not through `fc->forward(x)`.
using ForwardPreHook = std::function<void(Module&, std::vector<Tensor>& inputs)>;
using ForwardHook = std::function<void(Module&, const std::vector<Tensor>& inputs, Tensor& output)>;

namespace detail {
struct CloneAccess;
struct ForwardHooks {
  uint64_t next_id = 0;
  std::vector<std::pair<uint64_t, ForwardPreHook>> pre;
  std::vector<std::pair<uint64_t, ForwardHook>> post;
};
}  // namespace detail

// What a non-strict load_state_dict found (PyTorch's _IncompatibleKeys): the module's keys that
// the state dict lacked, and the state dict's keys that name nothing in the module, each in order.
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
  bool empty() const { return missing_keys.empty() && unexpected_keys.empty(); }
};

// Returned by register_forward_(pre_)hook; remove() unregisters the hook (idempotent, and safe
// after the module is gone).
class RemovableHandle {
 public:
  RemovableHandle() = default;
  RemovableHandle(std::weak_ptr<detail::ForwardHooks> hooks, uint64_t id)
      : hooks_(std::move(hooks)), id_(id) {}
  void remove();

 private:
  std::weak_ptr<detail::ForwardHooks> hooks_;
  uint64_t id_ = 0;
};

class Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;

  Module() = default;
  // The name printed for this module; by default the demangled type name without "Impl".
  explicit Module(std::string name) : name_(std::move(name)) {}
  virtual ~Module() = default;

  const std::string& name() const;

  // ---- registration ----
  // Stores a leaf that requires grad (unless requires_grad is false) and returns it. An
  // undefined tensor is allowed (an absent bias) and is skipped by parameters().
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    static_assert(std::is_base_of_v<Module, M>, "register_module: M must derive from nn::Module");
    check_module_name("register_module", name);
    EMBER_CHECK(module != nullptr, "register_module: module '", name, "' is null");
    children_.insert(std::move(name), std::static_pointer_cast<Module>(module));
    return module;
  }
  template <class M>
  std::shared_ptr<M> register_module(std::string name, const ModuleHolder<M>& holder) {
    return register_module(std::move(name), holder.ptr());
  }
  // Swaps the child registered under `name` (which must exist) for another module.
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    EMBER_CHECK(module != nullptr, "replace_module: module '", name, "' is null");
    children_[name] = std::static_pointer_cast<Module>(module);
    return module;
  }
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, const ModuleHolder<M>& holder) {
    return replace_module(name, holder.ptr());
  }
  void unregister_module(const std::string& name);

  // ---- traversal (own entries first, then children's, depth first, as PyTorch) ----
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  // These include the module itself, so it must be owned by a std::shared_ptr.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true);
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(
      const std::string& name_prefix = "", bool include_self = true);

  // fn(module) over this module and every descendant, parents first; the named form gets
  // dotted names ("" for this module, or name_prefix).
  void apply(const ModuleApplyFunction& fn);
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = "");

  // The first form casts this module to M (an Impl type or a holder type); nullptr if it isn't.
  template <class M>
  auto* as() {
    if constexpr (std::is_base_of_v<Module, M>) {
      return dynamic_cast<M*>(this);
    } else {
      return dynamic_cast<typename M::ContainedType*>(this);
    }
  }

  // A deep copy, as LibTorch's Cloneable::clone: the same type, with parameters and buffers
  // copied (to `device` if given) and children cloned, under the same names. Modules of
  // EMBER_MODULE types and Cloneable<Derived> subclasses clone (nn/cloneable.h); others throw.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  // ---- modes, devices, gradients ----
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const { return is_training_; }

  // Moves parameters and buffers (and existing gradients) in place: every Tensor handle to a
  // parameter, such as an optimizer's, sees the new data. A dtype applies to floating-point
  // tensors only (integer buffers keep theirs), as in PyTorch.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);

  // set_to_none drops the gradients (the default, as PyTorch 2); otherwise zeroes them.
  virtual void zero_grad(bool set_to_none = true);

  // ---- state dicts ----
  // Parameters and buffers by dotted name, detached (sharing memory with the module).
  OrderedDict<std::string, Tensor> state_dict() const;
  // Copies values in place, converted to each parameter's and buffer's own dtype and device (a
  // float16 or bfloat16 tensor into a float32 module, a CPU tensor into a CUDA one). Shape
  // mismatches always throw; in strict mode (the default) missing and unexpected keys do too.
  // One Error lists every problem, and then nothing is changed. Otherwise returns the keys that
  // were missing from state_dict and those it had that the module lacks (both empty after a
  // strict load), as PyTorch's load_state_dict returns _IncompatibleKeys.
  IncompatibleKeys load_state_dict(const OrderedDict<std::string, Tensor>& state_dict,
                                   bool strict = true);
  IncompatibleKeys load_state_dict(const std::map<std::string, Tensor>& state_dict,
                                   bool strict = true);

  // ---- printing ----
  // One line about this module alone (children are printed by operator<<).
  virtual void pretty_print(std::ostream& stream) const;
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;

  // ---- forward hooks ----
  RemovableHandle register_forward_pre_hook(ForwardPreHook hook);
  RemovableHandle register_forward_hook(ForwardHook hook);
  bool has_forward_hooks() const {
    return hooks_ != nullptr && !(hooks_->pre.empty() && hooks_->post.empty());
  }
  void run_forward_pre_hooks(std::vector<Tensor>& inputs);
  void run_forward_hooks(const std::vector<Tensor>& inputs, Tensor& output);

 private:
  friend struct detail::CloneAccess;
  void check_module_name(const char* op, const std::string& name) const;
  IncompatibleKeys load_state_dict_impl(
      const std::function<const Tensor*(const std::string&)>& lookup,
      const std::vector<std::string>& keys, bool strict);
  void apply_named(const NamedModuleApplyFunction& fn, const std::string& prefix);
  void to_impl(std::optional<Device> device, std::optional<ScalarType> dtype, bool non_blocking);

  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};
  mutable std::optional<std::string> name_;
  std::shared_ptr<detail::ForwardHooks> hooks_;
  bool is_training_ = true;
};

// Prints the module tree as PyTorch does: "Net(\n  (fc1): Linear(...)\n)".
std::ostream& operator<<(std::ostream& stream, const Module& module);

}  // namespace ember::nn
