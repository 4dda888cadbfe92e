// nn::Module: registration, traversal, device/dtype moves, state dicts, printing and hooks.
// Traversals walk the children tree recursively; module trees are shallow (a handful of levels),
// unlike autograd graphs.
#include <ember/nn/module.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <typeinfo>
#include <unordered_set>

#include <ember/core/functions.h>
#include <ember/core/half_bits.h>
#include <ember/core/grad_mode.h>

namespace ember::nn {
namespace {

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// The defined tensors of one table (parameters_ or buffers_) of `root` and, with recurse, of its
// descendants, under their dotted names. A tensor shared by two modules is listed once (under its
// first name), as PyTorch does, so that an optimizer doesn't update it twice.
OrderedDict<std::string, Tensor> named_tensors(const Module& root,
                                               OrderedDict<std::string, Tensor> Module::*table,
                                               const char* kind, bool recurse) {
  OrderedDict<std::string, Tensor> result(kind);
  std::unordered_set<const TensorImpl*> seen;
  auto collect = [&](const std::string& prefix, const Module& m) {
    for (const auto& item : m.*table) {
      if (item.value().defined() && seen.insert(item.value().unsafeGetTensorImpl()).second) {
        result.insert(join_name(prefix, item.key()), item.value());
      }
    }
  };
  if (!recurse) {
    collect("", root);
    return result;
  }
  const Module::NamedModuleApplyFunction visit = [&](const std::string& prefix, Module& m) {
    collect(prefix, m);
  };
  const_cast<Module&>(root).apply(visit, "");
  return result;
}

std::string demangled_type_name(const std::type_info& info) {
  int status = 0;
  char* raw = abi::__cxa_demangle(info.name(), nullptr, nullptr, &status);
  std::string full = status == 0 && raw != nullptr ? raw : info.name();
  std::free(raw);
  // Drop namespaces ("ember::nn::LinearImpl", "(anonymous namespace)::Net") but not the
  // qualifiers inside template arguments.
  const size_t template_start = std::min(full.find('<'), full.size());
  const size_t colon = full.rfind("::", template_start);
  std::string name = colon == std::string::npos ? full : full.substr(colon + 2);
  const std::string impl = "Impl";
  if (name.size() > impl.size() &&
      name.compare(name.size() - impl.size(), impl.size(), impl) == 0) {
    name.resize(name.size() - impl.size());
  }
  return name;
}

std::string shape_string(IntArrayRef sizes) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "]";
  return os.str();
}

// A float16 or bfloat16 value's float32 bits, exactly (every such value is a float32 value).
// A float16 or bfloat16 tensor (any strides, any device) as a new contiguous float32 CPU tensor:
// the CPU kernels only store those dtypes, so load_state_dict widens them before copy_.
Tensor widen_half(const Tensor& src) {
  const Tensor host = src.is_cpu() ? src : src.cpu();
  Tensor out = empty(host.sizes(), TensorOptions().dtype(kFloat32));
  float* dst = static_cast<float*>(out.data_ptr());
  const auto* base = static_cast<const uint16_t*>(host.data_ptr());
  const int64_t dims = host.dim();
  std::vector<int64_t> index(dims, 0);
  for (int64_t i = 0, n = host.numel(); i < n; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < dims; ++d) offset += index[d] * host.stride(d);
    dst[i] = host.dtype() == kBFloat16 ? ember::detail::bfloat16_to_float(base[offset])
                                       : ember::detail::half_to_float(base[offset]);
    for (int64_t d = dims - 1; d >= 0 && ++index[d] == host.size(d); --d) index[d] = 0;
  }
  return out;
}

}  // namespace

void RemovableHandle::remove() {
  std::shared_ptr<detail::ForwardHooks> hooks = hooks_.lock();
  if (!hooks) return;
  auto drop = [this](auto& list) {
    list.erase(std::remove_if(list.begin(), list.end(),
                              [this](const auto& entry) { return entry.first == id_; }),
               list.end());
  };
  drop(hooks->pre);
  drop(hooks->post);
  hooks_.reset();
}

const std::string& Module::name() const {
  if (!name_) name_ = demangled_type_name(typeid(*this));
  return *name_;
}

void Module::check_module_name(const char* op, const std::string& name) const {
  EMBER_CHECK(!name.empty(), op, ": the name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, op, ": the name '", name,
              "' must not contain a dot");
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_module_name("register_parameter", name);
  if (tensor.defined()) {
    // A parameter is a leaf: values computed with history start a fresh leaf, as nn.Parameter.
    if (!tensor.is_leaf()) tensor = tensor.detach();
    tensor.set_requires_grad(requires_grad);
  }
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_module_name("register_buffer", name);
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::unregister_module(const std::string& name) { children_.erase(name); }

// ---- traversal ----

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  return named_tensors(*this, &Module::parameters_, "Parameter", recurse);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return named_parameters(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  return named_tensors(*this, &Module::buffers_, "Buffer", recurse);
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  return children_;
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(
    const std::string& name_prefix, bool include_self) {
  OrderedDict<std::string, std::shared_ptr<Module>> result("Module");
  std::unordered_set<const Module*> seen;
  if (include_self) {
    std::shared_ptr<Module> self = weak_from_this().lock();
    EMBER_CHECK(self != nullptr, "named_modules: the module '", name(),
                "' must be owned by a std::shared_ptr to list itself (use "
                "std::make_shared, or include_self=false)");
    seen.insert(this);
    result.insert(name_prefix, std::move(self));
  }
  std::function<void(const std::string&, const Module&)> walk = [&](const std::string& prefix,
                                                                    const Module& m) {
    for (const auto& child : m.children_) {
      if (!seen.insert(child.value().get()).second) continue;
      const std::string name = join_name(prefix, child.key());
      result.insert(name, child.value());
      walk(name, *child.value());
    }
  };
  walk(name_prefix, *this);
  return result;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) {
  return named_modules("", include_self).values();
}

void Module::apply(const ModuleApplyFunction& fn) {
  fn(*this);
  for (auto& child : children_) child.value()->apply(fn);
}

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  apply_named(fn, name_prefix);
}

void Module::apply_named(const NamedModuleApplyFunction& fn, const std::string& prefix) {
  fn(prefix, *this);
  for (auto& child : children_) child.value()->apply_named(fn, join_name(prefix, child.key()));
}

// ---- modes, devices, gradients ----

void Module::train(bool on) {
  is_training_ = on;
  for (auto& child : children_) child.value()->train(on);
}

void Module::to_impl(std::optional<Device> device, std::optional<ScalarType> dtype,
                     bool non_blocking) {
  NoGradGuard no_grad;
  // Tensor::set_data keeps each tensor's identity (optimizers hold the handles).
  auto move = [&](const Tensor& t) {
    if (!t.defined()) return;
    const Device d = device ? *device : t.device();
    const ScalarType s = dtype && t.is_floating_point() ? *dtype : t.dtype();
    if (t.device() == d && t.dtype() == s) return;
    t.set_data(t.detach().to(d, s, non_blocking));
    const Tensor& g = t.grad();
    if (g.defined()) g.set_data(g.detach().to(d, s, non_blocking));
  };
  apply([&](Module& m) {
    for (auto& p : m.parameters_) move(p.value());
    for (auto& b : m.buffers_) move(b.value());
  });
}

void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  to_impl(device, dtype, non_blocking);
}
void Module::to(ScalarType dtype, bool non_blocking) { to_impl(std::nullopt, dtype, non_blocking); }
void Module::to(Device device, bool non_blocking) { to_impl(device, std::nullopt, non_blocking); }

void Module::zero_grad(bool set_to_none) {
  // Straight over the registered tensors (no name building): this runs every training step.
  // A parameter shared by two modules is visited twice, which is harmless here.
  NoGradGuard no_grad;
  apply([set_to_none](Module& m) {
    for (auto& item : m.parameters_) {
      const Tensor& p = item.value();
      if (!p.defined() || !p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad() = Tensor();
      } else {
        p.mutable_grad().zero_();
      }
    }
  });
}

// ---- state dicts ----

OrderedDict<std::string, Tensor> Module::state_dict() const {
  OrderedDict<std::string, Tensor> result("Key");
  const_cast<Module*>(this)->apply_named(
      [&](const std::string& prefix, Module& m) {
        for (const auto& p : m.parameters_) {
          if (p.value().defined()) result.insert(join_name(prefix, p.key()), p.value().detach());
        }
        for (const auto& b : m.buffers_) {
          if (b.value().defined()) result.insert(join_name(prefix, b.key()), b.value().detach());
        }
      },
      "");
  return result;
}

IncompatibleKeys Module::load_state_dict(const OrderedDict<std::string, Tensor>& state_dict,
                                         bool strict) {
  return load_state_dict_impl([&](const std::string& key) { return state_dict.find(key); },
                              state_dict.keys(), strict);
}

IncompatibleKeys Module::load_state_dict(const std::map<std::string, Tensor>& state_dict,
                                         bool strict) {
  std::vector<std::string> keys;
  keys.reserve(state_dict.size());
  for (const auto& entry : state_dict) keys.push_back(entry.first);
  return load_state_dict_impl(
      [&](const std::string& key) -> const Tensor* {
        auto it = state_dict.find(key);
        return it == state_dict.end() ? nullptr : &it->second;
      },
      keys, strict);
}

IncompatibleKeys Module::load_state_dict_impl(
    const std::function<const Tensor*(const std::string&)>& lookup,
    const std::vector<std::string>& keys, bool strict) {
  const OrderedDict<std::string, Tensor> own = state_dict();
  std::vector<std::string> missing, unexpected, mismatched;
  std::vector<std::pair<Tensor, const Tensor*>> copies;
  for (const auto& item : own) {
    const Tensor* src = lookup(item.key());
    if (src == nullptr || !src->defined()) {
      missing.push_back(item.key());
      continue;
    }
    if (src->sizes() != item.value().sizes()) {
      mismatched.push_back("size mismatch for " + item.key() + ": copying a param with shape " +
                           shape_string(src->sizes()) +
                           " from checkpoint, the shape in current model is " +
                           shape_string(item.value().sizes()) + ".");
      continue;
    }
    copies.emplace_back(item.value(), src);
  }
  for (const std::string& key : keys) {
    if (!own.contains(key)) unexpected.push_back(key);
  }
  const bool fail = !mismatched.empty() || (strict && (!missing.empty() || !unexpected.empty()));
  if (fail) {
    auto quoted = [](const std::vector<std::string>& names) {
      std::string s;
      for (size_t i = 0; i < names.size(); ++i) s += (i ? ", \"" : "\"") + names[i] + "\"";
      return s;
    };
    std::string msg = "Error(s) in loading state_dict for " + name() + ":";
    if (strict && !missing.empty())
      msg += "\n\tMissing key(s) in state_dict: " + quoted(missing) + ".";
    if (strict && !unexpected.empty()) {
      msg += "\n\tUnexpected key(s) in state_dict: " + quoted(unexpected) + ".";
    }
    for (const std::string& m : mismatched) msg += "\n\t" + m;
    EMBER_THROW(msg);
  }
  // Everything is validated before the first copy, so a failed load leaves the module as it was.
  NoGradGuard no_grad;
  for (auto& [dst, src] : copies) {
    const bool half = src->dtype() == kFloat16 || src->dtype() == kBFloat16;
    dst.copy_(half && dst.dtype() != src->dtype() ? widen_half(*src) : *src);
  }
  return {std::move(missing), std::move(unexpected)};
}

// ---- printing ----

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& child : children_) {
    stream << next << "(" << child.key() << "): ";
    child.value()->pretty_print_recursive(stream, next);
    stream << "\n";
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

// ---- hooks ----

RemovableHandle Module::register_forward_pre_hook(ForwardPreHook hook) {
  EMBER_CHECK(hook != nullptr, "register_forward_pre_hook: the hook is empty");
  if (!hooks_) hooks_ = std::make_shared<detail::ForwardHooks>();
  const uint64_t id = hooks_->next_id++;
  hooks_->pre.emplace_back(id, std::move(hook));
  return RemovableHandle(hooks_, id);
}

RemovableHandle Module::register_forward_hook(ForwardHook hook) {
  EMBER_CHECK(hook != nullptr, "register_forward_hook: the hook is empty");
  if (!hooks_) hooks_ = std::make_shared<detail::ForwardHooks>();
  const uint64_t id = hooks_->next_id++;
  hooks_->post.emplace_back(id, std::move(hook));
  return RemovableHandle(hooks_, id);
}

void Module::run_forward_pre_hooks(std::vector<Tensor>& inputs) {
  if (!hooks_) return;
  // A copy: a hook may remove itself (or others) while running.
  const auto pre = hooks_->pre;
  const size_t count = inputs.size();
  for (const auto& entry : pre) {
    entry.second(*this, inputs);
    EMBER_CHECK(inputs.size() == count, name(), ": a forward pre-hook changed the number of ",
                "inputs from ", count, " to ", inputs.size());
  }
}

void Module::run_forward_hooks(const std::vector<Tensor>& inputs, Tensor& output) {
  if (!hooks_) return;
  const auto post = hooks_->post;
  for (const auto& entry : post) entry.second(*this, inputs, output);
}

}  // namespace ember::nn
