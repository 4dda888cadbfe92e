// Optimizer::state_dict/load_state_dict in PyTorch's layout ("state.<i>.<name>",
// "param_groups.<g>.<option>"), and the StateWriter/StateReader that the optimizers and
// schedulers write and read their entries with.
#include <ember/optim/state_dict.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>

namespace ember {
namespace optim {
namespace detail {

// ---- StateWriter ----

void StateWriter::real(const char* name, double value) {
  dict_.insert(prefix_ + name, ember::tensor(value, kFloat64));
}

void StateWriter::integer(const char* name, int64_t value) {
  dict_.insert(prefix_ + name, ember::tensor(value, kInt64));
}

void StateWriter::flag(const char* name, bool value) {
  dict_.insert(prefix_ + name, ember::tensor(value, kBool));
}

void StateWriter::pair(const char* name, double first, double second) {
  reals(name, {first, second});
}

void StateWriter::reals(const char* name, const std::vector<double>& values) {
  dict_.insert(prefix_ + name, ember::tensor(values, kFloat64));
}

void StateWriter::integers(const char* name, const std::vector<int64_t>& values) {
  dict_.insert(prefix_ + name, ember::tensor(values, kInt64));
}

void StateWriter::step(const char* name, int64_t value) {
  dict_.insert(prefix_ + name, ember::tensor(static_cast<float>(value), kFloat32));
}

void StateWriter::text(const char* name, const std::string& value) {
  Tensor bytes = empty({static_cast<int64_t>(value.size())}, kUInt8);
  if (!value.empty()) std::memcpy(bytes.data_ptr<uint8_t>(), value.data(), value.size());
  dict_.insert(prefix_ + name, bytes);
}

void StateWriter::tensor(const char* name, const Tensor& value) {
  if (value.defined()) dict_.insert(prefix_ + name, value);
}

// ---- StateReader ----

bool StateReader::has(const char* name) const { return dict_.count(key(name)) != 0; }

const Tensor& StateReader::find(const char* name, int64_t numel) {
  const std::string k = key(name);
  auto it = dict_.find(k);
  EMBER_CHECK(it != dict_.end(), "missing key '", k, "'");
  EMBER_CHECK(it->second.defined(), "'", k, "' is an undefined tensor");
  EMBER_CHECK(numel < 0 || it->second.numel() == numel, "'", k, "' has ", it->second.numel(),
              " elements, expected ", numel, " (shape ", it->second.sizes(), ")");
  used_.insert(k);
  return it->second;
}

const Tensor& StateReader::raw(const char* name) { return find(name); }

double StateReader::real(const char* name) {
  const Tensor& t = find(name, 1);
  EMBER_CHECK(t.dtype() != kFloat16 && t.dtype() != kBFloat16, "'", key(name), "' has dtype ",
              t.dtype());
  return t.to(kCPU).to(kFloat64).item<double>();
}

double StateReader::real(const char* name, double fallback) {
  return has(name) ? real(name) : fallback;
}

int64_t StateReader::integer(const char* name) {
  const double v = real(name);
  EMBER_CHECK(std::isfinite(v) && v == std::floor(v) && std::abs(v) < 9.0e15, "'", key(name),
              "' is ", v, ", expected a whole number");
  return static_cast<int64_t>(v);
}

bool StateReader::flag(const char* name) { return real(name) != 0; }

std::pair<double, double> StateReader::pair(const char* name) {
  const std::vector<double> v = reals(name);
  EMBER_CHECK(v.size() == 2, "'", key(name), "' has ", v.size(), " values, expected 2");
  return {v[0], v[1]};
}

std::vector<double> StateReader::reals(const char* name) {
  const Tensor& t = find(name);
  EMBER_CHECK(t.dim() <= 1, "'", key(name), "' has shape ", t.sizes(), ", expected 1-D");
  Tensor c = t.to(kCPU).to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

std::vector<int64_t> StateReader::integers(const char* name) {
  const std::vector<double> v = reals(name);
  std::vector<int64_t> result;
  result.reserve(v.size());
  for (double x : v) {
    EMBER_CHECK(x == std::floor(x) && std::abs(x) < 9.0e15, "'", key(name), "' holds ", x,
                ", expected whole numbers");
    result.push_back(static_cast<int64_t>(x));
  }
  return result;
}

int64_t StateReader::step(const char* name) {
  const int64_t v = integer(name);
  EMBER_CHECK(v >= 0, "'", key(name), "' is ", v, ", expected a step count >= 0");
  return v;
}

std::string StateReader::text(const char* name) {
  const Tensor& t = find(name);
  EMBER_CHECK(t.dtype() == kUInt8 && t.dim() == 1, "'", key(name),
              "' must be a 1-D uint8 tensor (a string's bytes), got ", t.dtype(), " of shape ",
              t.sizes());
  Tensor c = t.to(kCPU).contiguous();
  const char* p = reinterpret_cast<const char*>(c.data_ptr<uint8_t>());
  return std::string(p, p + c.numel());
}

Tensor StateReader::tensor(const char* name, const Tensor& like, IntArrayRef shape) {
  const Tensor& t = find(name);
  EMBER_CHECK(t.sizes().equals(shape), "'", key(name), "' has shape ", t.sizes(),
              ", the parameter's state needs ", shape);
  EMBER_CHECK(t.is_floating_point() && t.dtype() != kFloat16 && t.dtype() != kBFloat16, "'",
              key(name), "' has dtype ", t.dtype(), ", expected float32 or float64");
  NoGradGuard no_grad;
  Tensor copy = empty(shape, TensorOptions().dtype(like.dtype()).device(like.device()));
  copy.copy_(t);
  return copy;
}

void StateReader::pytorch_flags() {
  if (has("maximize"))
    EMBER_CHECK(!flag("maximize"), "'", key("maximize"),
                "' is true: ember's optimizers don't maximize");
  ignore({"foreach", "fused", "capturable", "differentiable"});
}

void StateReader::ignore(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    auto it = dict_.find(key(name));
    if (it != dict_.end()) used_.insert(it->first);
  }
}

void check_no_unexpected(const char* who, const StateReader::Dict& dict,
                         const std::set<std::string>& used) {
  std::string unexpected;
  size_t count = 0;
  for (const auto& item : dict) {
    if (used.count(item.first)) continue;
    if (count++ < 8) unexpected += (unexpected.empty() ? "'" : ", '") + item.first + "'";
  }
  if (count > 8) unexpected += ", ...";
  EMBER_CHECK(count == 0, who, ": ", count, " unexpected key", count == 1 ? "" : "s",
              " in the state dict: ", unexpected);
}

std::map<std::string, Tensor> to_map(const StateDict& dict) {
  std::map<std::string, Tensor> result;
  for (const auto& item : dict) result.emplace(item.key(), item.value());
  return result;
}

void prefix_errors(const char* who, const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    const std::string what = e.what(), head = std::string(who) + ":";
    if (what.compare(0, head.size(), head) == 0) throw;
    EMBER_THROW(who, ": ", what);
  }
}

}  // namespace detail

// ---- Optimizer ----

namespace {

// "state.12.exp_avg" -> 12; -1 when the key is not "<head><digits>.<name>".
int64_t index_after(const std::string& key, const std::string& head) {
  if (key.compare(0, head.size(), head) != 0) return -1;
  size_t i = head.size(), j = i;
  while (j < key.size() && j - i < 12 && key[j] >= '0' && key[j] <= '9') ++j;
  if (j == i || j + 1 >= key.size() || key[j] != '.') return -1;
  return std::stoll(key.substr(i, j - i));
}

std::string state_prefix(int64_t index) { return "state." + std::to_string(index) + "."; }
std::string group_prefix(size_t group) { return "param_groups." + std::to_string(group) + "."; }

}  // namespace

StateDict Optimizer::state_dict() const {
  StateDict dict("State dict key");
  std::vector<std::vector<int64_t>> indices(param_groups_.size());
  int64_t index = 0;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    for (const Tensor& p : param_groups_[g].params()) {
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it != state_.end() && it->second) {
        detail::StateWriter out(dict, state_prefix(index));
        write_param_state(*it->second, out);
      }
      indices[g].push_back(index++);
    }
  }
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    detail::StateWriter out(dict, group_prefix(g));
    write_options(param_groups_[g].options(), out);
    out.integers("params", indices[g]);
  }
  return dict;
}

void Optimizer::load_state_dict(const StateDict& state_dict) {
  load_state_dict(detail::to_map(state_dict));
}

void Optimizer::load_state_dict(const std::map<std::string, Tensor>& dict) {
  detail::prefix_errors("load_state_dict", [&] {
    // the keys: which parameters have state, how many groups there are
    std::vector<int64_t> with_state;
    int64_t groups = 0;
    for (const auto& item : dict) {
      const int64_t s = index_after(item.first, "state.");
      if (s >= 0 && (with_state.empty() || with_state.back() != s)) with_state.push_back(s);
      const int64_t g = index_after(item.first, "param_groups.");
      if (g >= 0) groups = std::max(groups, g + 1);
    }
    EMBER_CHECK(groups == static_cast<int64_t>(param_groups_.size()), "the state dict has ", groups,
                " parameter group", groups == 1 ? "" : "s", ", the optimizer has ",
                param_groups_.size());

    // the groups' options (into copies) and the map from saved indices to parameters
    std::set<std::string> used;
    std::vector<std::unique_ptr<OptimizerOptions>> options;
    std::unordered_map<int64_t, const Tensor*> param_of;
    for (size_t g = 0; g < param_groups_.size(); ++g) {
      const auto& params = param_groups_[g].params();
      detail::StateReader in(dict, group_prefix(g), used);
      const std::vector<int64_t> ids = in.integers("params");
      EMBER_CHECK(ids.size() == params.size(), "parameter group ", g, " has ", ids.size(),
                  " parameters in the state dict, ", params.size(), " in the optimizer");
      for (size_t k = 0; k < ids.size(); ++k)
        EMBER_CHECK(param_of.emplace(ids[k], &params[k]).second, "parameter index ", ids[k],
                    " appears more than once in the groups' params");
      options.push_back(param_groups_[g].options().clone());
      read_options(in, *options.back());
    }

    // the per-parameter state (sorted by key, so the indices come in string order: dedupe)
    std::sort(with_state.begin(), with_state.end());
    with_state.erase(std::unique(with_state.begin(), with_state.end()), with_state.end());
    StateMap state;
    for (int64_t s : with_state) {
      auto it = param_of.find(s);
      EMBER_CHECK(it != param_of.end(), "the state dict has state for parameter ", s,
                  ", which is in none of its groups (the optimizer has ", size(), " parameters)");
      detail::StateReader in(dict, state_prefix(s), used);
      state[it->second->unsafeGetTensorImpl()] = read_param_state(in, *it->second);
    }
    detail::check_no_unexpected("load_state_dict", dict, used);

    // commit (nothing below throws)
    for (size_t g = 0; g < param_groups_.size(); ++g)
      param_groups_[g].set_options(std::move(options[g]));
    state_ = std::move(state);
  });
}

void Optimizer::write_options(const OptimizerOptions&, detail::StateWriter&) const {
  EMBER_THROW("state_dict: this optimizer does not support state_dict");
}

void Optimizer::read_options(detail::StateReader&, OptimizerOptions&) const {
  EMBER_THROW("load_state_dict: this optimizer does not support load_state_dict");
}

void Optimizer::write_param_state(const OptimizerParamState&, detail::StateWriter&) const {
  EMBER_THROW("state_dict: this optimizer does not support state_dict");
}

std::unique_ptr<OptimizerParamState> Optimizer::read_param_state(detail::StateReader&,
                                                                 const Tensor&) const {
  EMBER_THROW("load_state_dict: this optimizer does not support load_state_dict");
}

}  // namespace optim
}  // namespace ember
