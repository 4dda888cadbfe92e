// Saving and loading tensors and modules as safetensors files, the format of Hugging Face and
// PyTorch (`safetensors.torch.save_file` / `load_file`): ember::save(net, "net.safetensors"),
// ember::load(net, "net.safetensors"), ember::load_tensors(path), ember::save(map, path).
// Saves write a temporary file beside the target and rename it over the target when complete,
// so a failed save never destroys an existing file.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/ordered_dict.h>

namespace ember {

// The "__metadata__" entry of a safetensors header: free-form string pairs ({"format": "pt"}).
using TensorMetadata = std::map<std::string, std::string>;

// ---- tensor maps ----
// Writes the tensors (any device, dtype and strides: each is written from a contiguous CPU
// copy) and the metadata. Throws ember::Error naming the path on an undefined tensor, a
// reserved or empty name, or an I/O failure; the target is then left as it was.
void save(const std::map<std::string, Tensor>& tensors, const std::string& path,
          const TensorMetadata& metadata = {});
// The same for an ordered dict, such as module->state_dict() or named_parameters().
void save(const OrderedDict<std::string, Tensor>& tensors, const std::string& path,
          const TensorMetadata& metadata = {});

// Reads every tensor of a safetensors file into new contiguous CPU tensors. The file is checked
// whole (header length, JSON, dtypes, shapes, offsets, duplicate names) and a bad one throws
// ember::Error naming the file and the tensor. `metadata`, when given, receives the header's
// "__metadata__" (empty when the file has none).
std::map<std::string, Tensor> load_tensors(const std::string& path,
                                           TensorMetadata* metadata = nullptr);

// ---- modules ----
// Saves the module's state dict: every parameter and buffer under its dotted PyTorch name
// ("fc1.weight", "features.0.bias", "bn.running_mean").
void save(const nn::Module& module, const std::string& path, const TensorMetadata& metadata = {});

// Copies the file's tensors into the module's parameters and buffers in place (keeping their
// device and dtype; values are converted as copy_ does), as PyTorch's strict load_state_dict:
// missing keys, unexpected keys and shape mismatches throw one ember::Error listing all of them,
// and then nothing is changed.
void load(nn::Module& module, const std::string& path);

// std::shared_ptr<Net> and module holders (nn::Linear, nn::Sequential), as in the API's
// `ember::save(net, "net.safetensors")`.
template <class M, class = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void save(const std::shared_ptr<M>& module, const std::string& path,
          const TensorMetadata& metadata = {}) {
  EMBER_CHECK(module != nullptr, "save: ", path, ": the module is null");
  save(static_cast<const nn::Module&>(*module), path, metadata);
}
template <class M>
void save(const nn::ModuleHolder<M>& module, const std::string& path,
          const TensorMetadata& metadata = {}) {
  save(static_cast<const nn::Module&>(*module.ptr()), path, metadata);
}
template <class M, class = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
void load(const std::shared_ptr<M>& module, const std::string& path) {
  EMBER_CHECK(module != nullptr, "load: ", path, ": the module is null");
  load(static_cast<nn::Module&>(*module), path);
}
template <class M>
void load(const nn::ModuleHolder<M>& module, const std::string& path) {
  load(static_cast<nn::Module&>(*module.ptr()), path);
}

}  // namespace ember
