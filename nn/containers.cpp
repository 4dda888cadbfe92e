// Sequential, ModuleList and ModuleDict: child bookkeeping and Sequential's forward chain.
#include <ember/nn/containers.h>

namespace ember::nn {

// ---- Sequential ----

SequentialImpl::SequentialImpl(std::initializer_list<NamedModule> named_modules) {
  for (const NamedModule& named : named_modules) {
    EMBER_CHECK(named.forward() != nullptr, "Sequential: element '", named.name(), "' (a ",
                named.module()->name(), ") needs `Tensor forward(const Tensor&)`");
    append(named.name(), named.module(), named.forward());
  }
}

void SequentialImpl::append(std::string name, std::shared_ptr<Module> module,
                            detail::TensorForward forward) {
  register_module(std::move(name), module);
  modules_.push_back(std::move(module));
  forwards_.push_back(forward);
}

void SequentialImpl::extend(const SequentialImpl& other) {
  for (size_t i = 0; i < other.modules_.size(); ++i) {
    append(std::to_string(modules_.size()), other.modules_[i], other.forwards_[i]);
  }
}

Tensor SequentialImpl::forward(const Tensor& input) {
  EMBER_CHECK(!modules_.empty(), "Sequential: cannot call forward() on an empty Sequential");
  Tensor x = forwards_[0](*modules_[0], input);
  for (size_t i = 1; i < modules_.size(); ++i) x = forwards_[i](*modules_[i], x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const {
  EMBER_CHECK(index < modules_.size(), "Sequential: index ", index, " is out of range for ",
              modules_.size(), " modules");
  return modules_[index];
}

// ---- ModuleList ----

void ModuleListImpl::append(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  for (const auto& m : other.modules_) append(m);
}

void ModuleListImpl::insert_ptr(size_t index, std::shared_ptr<Module> module) {
  EMBER_CHECK(index <= modules_.size(), "ModuleList: insert index ", index, " is out of range for ",
              modules_.size(), " modules");
  // Children are renamed "0", "1", ... in their new order.
  for (size_t i = 0; i < modules_.size(); ++i) unregister_module(std::to_string(i));
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  for (size_t i = 0; i < modules_.size(); ++i) register_module(std::to_string(i), modules_[i]);
}

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK(index < modules_.size(), "ModuleList: index ", index, " is out of range for ",
              modules_.size(), " modules");
  return modules_[index];
}

// ---- ModuleDict ----

ModuleDictImpl::ModuleDictImpl(std::initializer_list<NamedModule> named_modules) {
  for (const NamedModule& named : named_modules) set(named.name(), named.module());
}

void ModuleDictImpl::set(const std::string& key, std::shared_ptr<Module> module) {
  if (modules_.contains(key)) {
    modules_[key] = module;
    replace_module(key, std::move(module));
  } else {
    modules_.insert(key, module);
    register_module(key, std::move(module));
  }
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = modules_[key];
  modules_.erase(key);
  unregister_module(key);
  return module;
}

void ModuleDictImpl::clear() {
  for (const std::string& key : modules_.keys()) unregister_module(key);
  modules_.clear();
}

}  // namespace ember::nn
