// ember::save / ember::load / ember::load_tensors: tensor maps and modules to and from
// safetensors files. Modules go through their state dict, so names are PyTorch's and a state
// dict saved by `safetensors.torch.save_file(model.state_dict(), path)` loads by name.
#include <ember/serialize/serialize.h>

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

std::map<std::string, Tensor> load_tensors(const std::string& path, TensorMetadata* metadata) {
  safetensors::NamedTensors named = safetensors::read_file("load_tensors", path, metadata);
  std::map<std::string, Tensor> result;
  for (auto& [name, tensor] : named) result.emplace(std::move(name), std::move(tensor));
  return result;
}

void save(const nn::Module& module, const std::string& path, const TensorMetadata& metadata) {
  save(module.state_dict(), path, metadata);
}

void load(nn::Module& module, const std::string& path) {
  const safetensors::NamedTensors named = safetensors::read_file("load", path, nullptr);
  const std::map<std::string, Tensor> tensors(named.begin(), named.end());
  try {
    module.load_state_dict(tensors, /*strict=*/true);
  } catch (const Error& e) {
    EMBER_THROW("load: ", path, ": ", e.what());
  }
}

}  // namespace ember
