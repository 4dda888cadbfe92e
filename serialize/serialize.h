// Saving and loading tensors and modules as safetensors files, the format of Hugging Face and
// PyTorch (`safetensors.torch.save_file` / `load_file`): ember::save(net, "net.safetensors"),
// ember::load(net, "net.safetensors"), ember::load_tensors(path), ember::save(map, path); and
// PyTorch's own .pt/.pth files with ember::load_pt(path) and ember::load(net, "model.pt");
// LibTorch's save/load of a tensor, a vector of tensors and an optimizer. A whole training run's
// state in one file: ember::Checkpoint (serialize/checkpoint.h). Saves write a temporary file
// beside the target and rename it over the target when complete, so a failed save never destroys an
// existing file.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/nn/arg.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/ordered_dict.h>

namespace ember {

namespace optim {
class Optimizer;  // optim/optimizer.h
}  // namespace optim

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
// A braced list of names and tensors: save({{"w", w}, {"b", b}}, path).
void save(std::initializer_list<std::pair<std::string, Tensor>> tensors, const std::string& path,
          const TensorMetadata& metadata = {});

// Reads every tensor of a safetensors file into new contiguous CPU tensors. The file is checked
// whole (header length, JSON, dtypes, shapes, offsets, duplicate names) and a bad one throws
// ember::Error naming the file and the tensor. `metadata`, when given, receives the header's
// "__metadata__" (empty when the file has none). A file with >= 1 MiB of tensor data is mapped
// copy-on-write, as PyTorch's safetensors loader does (docs/serialize.md, "Large files"): no
// copy is made, pages are read on first touch, and writing to a loaded tensor never changes the
// file; the file must not be truncated or rewritten in place while its tensors live (save
// replaces files by renaming, which is safe).
std::map<std::string, Tensor> load_tensors(const std::string& path,
                                           TensorMetadata* metadata = nullptr);

// ---- PyTorch's .pt / .pth files ----
// Reads what `torch.save(obj, path)` writes (the zip format of PyTorch >= 1.6) when obj is a
// tensor, a state dict or dicts, lists and tuples of tensors, nested. Containers are flattened
// to dotted names as a state dict's: dict keys ("fc.weight"), list and tuple indices
// ("layers.0", "1.bias"); a lone tensor is named "". Leaves that are not tensors (None, bool,
// int, float, str) are skipped, and so is a state dict's _metadata. Tensors come back on the
// CPU (whatever device they were saved from) as torch.load gives them: with the saved sizes,
// strides and offset, as views of one CPU storage per saved storage, so tensors that shared a
// storage share one (call .contiguous() or .clone() to separate them).
// The pickle is read by a restricted unpickler, as torch.load(weights_only=True): only
// tensors, storages, OrderedDict, dict, list, tuple, str, int, float, bool and None; any other
// global (os.system, builtins.eval, a class of the saving program) is refused with an
// ember::Error naming it, and nothing is ever executed. The legacy format (PyTorch < 1.6, or
// _use_new_zipfile_serialization=False) and TorchScript archives are refused with an error that
// says so; a damaged file throws ember::Error naming the file and the problem.
std::map<std::string, Tensor> load_pt(const std::string& path);

// ---- modules ----
// Saves the module's state dict: every parameter and buffer under its dotted PyTorch name
// ("fc1.weight", "features.0.bias", "bn.running_mean").
void save(const nn::Module& module, const std::string& path, const TensorMetadata& metadata = {});

// How load(module, path, options) matches the file's names to the module's:
// LoadOptions().strict(false).strip_prefix("module.").
struct LoadOptions {
  // As load_state_dict's strict: when false, missing and unexpected keys are returned instead of
  // thrown (shape mismatches still throw).
  EMBER_ARG(bool, strict) = true;
  // Removed from the front of every file name that starts with it before matching, as PyTorch's
  // consume_prefix_in_state_dict_if_present: "module." for what DataParallel and
  // DistributedDataParallel save. Names without it are kept as they are.
  EMBER_ARG(std::string, strip_prefix);
};

// Copies the file's tensors into the module's parameters and buffers in place, as PyTorch's
// load_state_dict: each keeps its device and dtype, and values are converted as copy_ does (a
// tensor saved from cuda:0 loads into a CPU module, a float16 or bfloat16 one into a float32
// module). By default strict: missing keys, unexpected keys and shape mismatches throw one
// ember::Error naming the file and listing all of them, and then nothing is changed. With
// options.strict(false) only shape mismatches throw, and the keys that did not match are
// returned (their names after strip_prefix). The file is a safetensors file or a PyTorch
// .pt/.pth file (read as load_pt does), told apart by its first bytes, whatever its name.
nn::IncompatibleKeys load(nn::Module& module, const std::string& path,
                          const LoadOptions& options = LoadOptions());

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
nn::IncompatibleKeys load(const std::shared_ptr<M>& module, const std::string& path,
                          const LoadOptions& options = LoadOptions()) {
  EMBER_CHECK(module != nullptr, "load: ", path, ": the module is null");
  return load(static_cast<nn::Module&>(*module), path, options);
}
template <class M>
nn::IncompatibleKeys load(const nn::ModuleHolder<M>& module, const std::string& path,
                          const LoadOptions& options = LoadOptions()) {
  return load(static_cast<nn::Module&>(*module.ptr()), path, options);
}

// ---- tensors and lists of tensors (LibTorch's torch::save(tensor) / torch::load(tensor)) ----
// save(tensor) writes a safetensors file of one tensor named "tensor"; save(tensors) one with
// the tensors named "0", "1", ... (a braced list {a, b} works). Any device and strides; saved
// atomically as above.
void save(const Tensor& tensor, const std::string& path, const TensorMetadata& metadata = {});
void save(const std::vector<Tensor>& tensors, const std::string& path,
          const TensorMetadata& metadata = {});
void save(std::initializer_list<Tensor> tensors, const std::string& path,
          const TensorMetadata& metadata = {});
// load(tensor) replaces the variable with the file's tensor (a new contiguous CPU tensor, as
// torch::load gives): the file must hold exactly one tensor, whatever its name. load(tensors)
// replaces the vector's contents with the file's tensors "0", "1", ..., "n-1" in that order
// (any other name, or a gap, throws). The file is a safetensors file or a PyTorch .pt file of
// a tensor (torch.save(t)) or of a list or tuple of tensors (torch.save([a, b])), told apart by
// its first bytes. On an error nothing is assigned.
void load(Tensor& tensor, const std::string& path);
void load(std::vector<Tensor>& tensors, const std::string& path);

// ---- optimizers ----
// LibTorch's torch::save(optimizer, path) / torch::load(optimizer, path): the optimizer's
// state_dict() (PyTorch's layout, flattened: "state.<i>.<buffer>", "param_groups.<g>.<option>";
// docs/optim.md) as a safetensors file, saved atomically as above. load also reads the archive
// LibTorch's torch::save(optimizer, path) writes (SGD, Adam: docs/serialize.md). It throws
// ember::Error naming the file and what differs (group count, parameter count, a buffer's shape, a
// missing or unexpected key), and then leaves the optimizer as it was.
void save(const optim::Optimizer& optimizer, const std::string& path,
          const TensorMetadata& metadata = {});
void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace ember
