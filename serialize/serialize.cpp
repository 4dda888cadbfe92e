// ember::save / ember::load / ember::load_tensors: tensor maps and modules to and from
// safetensors files (and modules from PyTorch's .pt files). Modules go through their state dict,
// so names are PyTorch's and `torch.save(model.state_dict(), path)` or
// `safetensors.torch.save_file(model.state_dict(), path)` loads by name.
#include <ember/serialize/serialize.h>

#include <set>

#include <ember/optim/optimizer.h>
#include <ember/serialize/pt_reader.h>
#include <ember/serialize/safetensors.h>

namespace ember {

void save(const std::map<std::string, Tensor>& tensors, const std::string& path,
          const TensorMetadata& metadata) {
  safetensors::write_file("save", safetensors::NamedTensors(tensors.begin(), tensors.end()),
                          metadata, path);
}

void save(const OrderedDict<std::string, Tensor>& tensors, const std::string& path,
          const TensorMetadata& metadata) {
  safetensors::NamedTensors named;
  named.reserve(tensors.size());
  for (const auto& item : tensors) named.emplace_back(item.key(), item.value());
  safetensors::write_file("save", named, metadata, path);
}

void save(std::initializer_list<std::pair<std::string, Tensor>> tensors, const std::string& path,
          const TensorMetadata& metadata) {
  std::set<std::string> names;
  for (const auto& entry : tensors) {
    EMBER_CHECK(names.insert(entry.first).second, "save: ", path, ": tensor '", entry.first,
                "' appears twice");
  }
  safetensors::write_file("save", safetensors::NamedTensors(tensors.begin(), tensors.end()),
                          metadata, path);
}

namespace {

// A safetensors file's tensors by name (read_file checked that no name repeats).
std::map<std::string, Tensor> read_safetensors(const char* op, const std::string& path,
                                               TensorMetadata* metadata) {
  safetensors::NamedTensors named = safetensors::read_file(op, path, metadata);
  std::map<std::string, Tensor> result;
  for (auto& [name, tensor] : named) result.emplace(std::move(name), std::move(tensor));
  return result;
}

// A safetensors or .pt file's tensors by name (load's reader for either format).
std::map<std::string, Tensor> read_any(const std::string& path) {
  if (pt::has_pt_signature(path)) return pt::read_file("load", path);
  return read_safetensors("load", path, nullptr);
}

safetensors::NamedTensors numbered(ArrayRef<Tensor> tensors) {
  safetensors::NamedTensors named;
  named.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) named.emplace_back(std::to_string(i), tensors[i]);
  return named;
}

}  // namespace

std::map<std::string, Tensor> load_tensors(const std::string& path, TensorMetadata* metadata) {
  return read_safetensors("load_tensors", path, metadata);
}

// ---- tensors and lists of tensors ----

void save(const Tensor& tensor, const std::string& path, const TensorMetadata& metadata) {
  safetensors::write_file("save", {{"tensor", tensor}}, metadata, path);
}

void save(const std::vector<Tensor>& tensors, const std::string& path,
          const TensorMetadata& metadata) {
  safetensors::write_file("save", numbered(tensors), metadata, path);
}

void save(std::initializer_list<Tensor> tensors, const std::string& path,
          const TensorMetadata& metadata) {
  save(std::vector<Tensor>(tensors), path, metadata);
}

void load(Tensor& tensor, const std::string& path) {
  std::map<std::string, Tensor> tensors = read_any(path);
  EMBER_CHECK(tensors.size() == 1, "load: ", path, ": expected a file of one tensor, found ",
              tensors.size());
  Tensor loaded = std::move(tensors.begin()->second);
  tensor = loaded.contiguous();  // itself when it is contiguous already
}

void load(std::vector<Tensor>& tensors, const std::string& path) {
  std::map<std::string, Tensor> loaded = read_any(path);
  std::vector<Tensor> result(loaded.size());
  for (auto& [name, tensor] : loaded) {
    size_t index = 0;
    bool numeric = !name.empty() && name.size() <= 18 && (name == "0" || name[0] != '0');
    for (char c : name) numeric = numeric && c >= '0' && c <= '9';
    if (numeric) index = std::stoull(name);
    EMBER_CHECK(numeric && index < result.size(), "load: ", path,
                ": expected a list of tensors named 0 to ", loaded.size() - 1, ", found tensor '",
                name, "'");
    result[index] = tensor.contiguous();
  }
  tensors = std::move(result);
}

// ---- modules ----

void save(const nn::Module& module, const std::string& path, const TensorMetadata& metadata) {
  save(module.state_dict(), path, metadata);
}

nn::IncompatibleKeys load(nn::Module& module, const std::string& path, const LoadOptions& options) {
  std::map<std::string, Tensor> tensors = read_any(path);
  const std::string& prefix = options.strip_prefix();
  if (!prefix.empty()) {
    std::map<std::string, Tensor> stripped;
    for (auto& [name, tensor] : tensors) {
      const bool has = name.compare(0, prefix.size(), prefix) == 0;
      std::string key = has ? name.substr(prefix.size()) : name;
      EMBER_CHECK(stripped.emplace(key, std::move(tensor)).second, "load: ", path, ": '", name,
                  "' names '", key, "' once '", prefix, "' is stripped, as another tensor does");
    }
    tensors = std::move(stripped);
  }
  try {
    return module.load_state_dict(tensors, options.strict());
  } catch (const Error& e) {
    EMBER_THROW("load: ", path, ": ", e.what());
  }
}

// ---- optimizers: through the state dict ----

void save(const optim::Optimizer& optimizer, const std::string& path,
          const TensorMetadata& metadata) {
  save(optimizer.state_dict(), path, metadata);
}

void load(optim::Optimizer& optimizer, const std::string& path) {
  const std::map<std::string, Tensor> tensors = read_any(path);
  try {
    optimizer.load_state_dict(tensors);
  } catch (const Error& e) {
    EMBER_THROW("load: ", path, ": ", e.what());
  }
}

}  // namespace ember
