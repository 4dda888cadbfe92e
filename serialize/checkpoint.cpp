// ember::Checkpoint: parts registered by reference, written as "<part>.<key>" tensors of one
// safetensors file (through safetensors::write_file, atomic) and restored all or nothing.
#include <ember/serialize/checkpoint.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include <ember/core/functions.h>
#include <ember/core/grad_mode.h>
#include <ember/optim/optimizer.h>
#include <ember/optim/schedulers.h>
#include <ember/serialize/file_io.h>
#include <ember/serialize/safetensors.h>

namespace ember {
namespace {

constexpr const char* kMagicKey = "ember.checkpoint";
constexpr const char* kPartsKey = "ember.parts";
constexpr const char* kRngTensor = "rng.state";
constexpr const char* kRngPart = "rng";
constexpr const char* kUserPrefix = "user.";

int64_t parse_counter(const std::string& path, const TensorMetadata& meta, const char* key) {
  const auto it = meta.find(key);
  EMBER_CHECK(it != meta.end(), "Checkpoint::load: ", path, ": the metadata has no '", key, "'");
  const std::string& text = it->second;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  EMBER_CHECK(ec == std::errc() && end == text.data() + text.size() && !text.empty(),
              "Checkpoint::load: ", path, ": metadata '", key, "' is '", text,
              "', not a whole number");
  return value;
}

std::vector<std::string> split_parts(const std::string& text) {
  std::vector<std::string> names;
  if (text.empty()) return names;
  std::stringstream stream(text);
  std::string name;
  while (std::getline(stream, name, ',')) names.push_back(name);
  return names;
}

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text;
}

// A deep copy of a state dict (state_dict() hands out live tensors).
std::map<std::string, Tensor> snapshot(const optim::StateDict& state) {
  NoGradGuard no_grad;
  std::map<std::string, Tensor> copy;
  for (const auto& item : state) copy.emplace(item.key(), item.value().clone());
  return copy;
}

}  // namespace

Checkpoint& Checkpoint::add_part(Part part) {
  EMBER_CHECK(!part.name.empty(), "Checkpoint::add: a part's name must not be empty");
  EMBER_CHECK(part.name.find('.') == std::string::npos && part.name.find(',') == std::string::npos,
              "Checkpoint::add: '", part.name, "': a part's name cannot hold '.' or ','");
  EMBER_CHECK(part.name != kRngPart, "Checkpoint::add: '", kRngPart,
              "' is reserved for the generator's state (Checkpoint::rng)");
  for (const Part& other : parts_) {
    EMBER_CHECK(other.name != part.name, "Checkpoint::add: '", part.name,
                "' is registered already");
  }
  EMBER_CHECK(part.get && part.set, "Checkpoint::add: '", part.name,
              "': the get and set functions must not be empty");
  parts_.push_back(std::move(part));
  return *this;
}

Checkpoint& Checkpoint::add_module(const std::string& name, std::shared_ptr<nn::Module> module) {
  return add_part({name, [module] { return module->state_dict(); },
                   [module](const std::map<std::string, Tensor>& state) {
                     module->load_state_dict(state, /*strict=*/true);
                   }});
}

Checkpoint& Checkpoint::add(const std::string& name, nn::Module& module) {
  return add_part({name, [&module] { return module.state_dict(); },
                   [&module](const std::map<std::string, Tensor>& state) {
                     module.load_state_dict(state, /*strict=*/true);
                   }});
}

Checkpoint& Checkpoint::add(const std::string& name, optim::Optimizer& optimizer) {
  return add_part({name, [&optimizer] { return optimizer.state_dict(); },
                   [&optimizer](const std::map<std::string, Tensor>& state) {
                     optimizer.load_state_dict(state);
                   }});
}

Checkpoint& Checkpoint::add(const std::string& name, optim::LRScheduler& scheduler) {
  return add_part({name, [&scheduler] { return scheduler.state_dict(); },
                   [&scheduler](const std::map<std::string, Tensor>& state) {
                     scheduler.load_state_dict(state);
                   }});
}

Checkpoint& Checkpoint::add(const std::string& name, optim::ReduceLROnPlateauScheduler& scheduler) {
  return add_part({name, [&scheduler] { return scheduler.state_dict(); },
                   [&scheduler](const std::map<std::string, Tensor>& state) {
                     scheduler.load_state_dict(state);
                   }});
}

Checkpoint& Checkpoint::add(const std::string& name, std::function<optim::StateDict()> get,
                            std::function<void(const std::map<std::string, Tensor>&)> set) {
  return add_part({name, std::move(get), std::move(set)});
}

Checkpoint& Checkpoint::rng(bool include) {
  rng_ = include;
  return *this;
}

void Checkpoint::save(const std::string& path) const {
  safetensors::NamedTensors named;
  std::vector<std::string> names;
  for (const Part& part : parts_) {
    names.push_back(part.name);
    for (const auto& item : part.get())
      named.emplace_back(part.name + "." + item.key(), item.value());
  }
  if (rng_) named.emplace_back(kRngTensor, get_rng_state());

  TensorMetadata meta;
  meta[kMagicKey] = "1";
  std::string parts;
  for (const auto& name : names) parts += (parts.empty() ? "" : ",") + name;
  meta[kPartsKey] = parts;
  meta["epoch"] = std::to_string(epoch);
  meta["step"] = std::to_string(step);
  for (const auto& [key, value] : metadata) meta[kUserPrefix + key] = value;
  safetensors::write_file("Checkpoint::save", named, meta, path);
}

void Checkpoint::load(const std::string& path) {
  TensorMetadata meta;
  safetensors::NamedTensors named = safetensors::read_file("Checkpoint::load", path, &meta);
  EMBER_CHECK(meta.count(kMagicKey) != 0 && meta.at(kMagicKey) == "1", "Checkpoint::load: ", path,
              ": not an ember checkpoint (no \"", kMagicKey, "\": \"1\" in its metadata)");
  EMBER_CHECK(meta.count(kPartsKey) != 0, "Checkpoint::load: ", path, ": the metadata has no '",
              kPartsKey, "'");
  const int64_t new_epoch = parse_counter(path, meta, "epoch");
  const int64_t new_step = parse_counter(path, meta, "step");

  // Every tensor belongs to a part listed in the file, or is the generator's state.
  const std::vector<std::string> file_parts = split_parts(meta.at(kPartsKey));
  std::map<std::string, std::map<std::string, Tensor>> by_part;
  for (const auto& name : file_parts) by_part[name];
  Tensor rng_state;
  for (auto& [name, tensor] : named) {
    if (name == kRngTensor) {
      rng_state = std::move(tensor);
      continue;
    }
    const size_t dot = name.find('.');
    const std::string part = name.substr(0, dot);
    EMBER_CHECK(dot != std::string::npos && by_part.count(part) != 0, "Checkpoint::load: ", path,
                ": tensor '", name, "' belongs to no part of the file (parts: ", join(file_parts),
                ")");
    by_part[part].emplace(name.substr(dot + 1), std::move(tensor));
  }
  named.clear();

  // The parts must match the registered ones exactly.
  std::vector<std::string> missing, unexpected;
  std::set<std::string> registered;
  for (const Part& part : parts_) {
    registered.insert(part.name);
    if (by_part.count(part.name) == 0) missing.push_back(part.name);
  }
  for (const auto& name : file_parts) {
    if (registered.count(name) == 0) unexpected.push_back(name);
  }
  if (rng_ && !rng_state.defined()) missing.push_back(kRngPart);
  if (!missing.empty() || !unexpected.empty()) {
    std::string message = "Checkpoint::load: " + path + ":";
    if (!missing.empty()) message += " missing part(s) " + join(missing) + ";";
    if (!unexpected.empty()) message += " unexpected part(s) " + join(unexpected) + ";";
    message.pop_back();
    EMBER_THROW(message);
  }

  // All or nothing: copy the current states, restore part by part, put back on failure.
  std::vector<std::map<std::string, Tensor>> before;
  before.reserve(parts_.size());
  for (const Part& part : parts_) before.push_back(snapshot(part.get()));
  const Tensor rng_before = rng_ ? get_rng_state() : Tensor();
  size_t done = 0;  // parts restored; parts_.size() when the generator's state failed
  try {
    for (; done < parts_.size(); ++done) parts_[done].set(by_part.at(parts_[done].name));
    if (rng_) set_rng_state(rng_state);
  } catch (const std::exception& e) {
    // The failing part too: a setter that changed something before throwing is undone.
    const size_t last = std::min(done + 1, parts_.size());
    std::string rollback_error;
    for (size_t i = 0; i < last; ++i) {
      try {
        parts_[i].set(before[i]);
      } catch (const std::exception& again) {
        rollback_error +=
            std::string("; putting back part '") + parts_[i].name + "' failed too: " + again.what();
      }
    }
    if (rng_) set_rng_state(rng_before);
    const std::string part = done < parts_.size() ? parts_[done].name : kRngPart;
    if (dynamic_cast<const Error*>(&e) != nullptr) {
      EMBER_THROW("Checkpoint::load: ", path, ": part '", part, "': ", e.what(), rollback_error);
    }
    throw;
  }
  epoch = new_epoch;
  step = new_step;
  metadata.clear();
  for (const auto& [key, value] : meta) {
    if (key.compare(0, 5, kUserPrefix) == 0) metadata[key.substr(5)] = value;
  }
}

bool Checkpoint::exists(const std::string& path) {
  // The header only: a checkpoint can be gigabytes.
  serialize_io::FdCloser file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd < 0) return false;
  struct stat st;
  if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 8) return false;
  unsigned char length[8];
  if (::pread(file.fd, length, 8, 0) != 8) return false;
  uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= uint64_t(length[i]) << (8 * i);
  if (header_size > static_cast<uint64_t>(st.st_size) - 8 || header_size > 100'000'000) {
    return false;
  }
  std::string text(header_size, '\0');
  if (::pread(file.fd, text.data(), text.size(), 8) != static_cast<ssize_t>(text.size())) {
    return false;
  }
  const nlohmann::json header = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!header.is_object()) return false;
  const auto meta = header.find("__metadata__");
  if (meta == header.end() || !meta->is_object()) return false;
  const auto magic = meta->find(kMagicKey);
  return magic != meta->end() && magic->is_string() && magic->get<std::string>() == "1";
}

}  // namespace ember
