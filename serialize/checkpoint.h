// ember::Checkpoint: the whole state of a training run (modules, optimizers, schedulers, any
// other state as a tensor map, the global generator, epoch, step, user strings) in one atomic
// safetensors file, restored all or nothing; the layout is in docs/serialize.md, "Checkpoints".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <ember/core/error.h>
#include <ember/core/tensor.h>
#include <ember/nn/holder.h>
#include <ember/nn/module.h>
#include <ember/nn/ordered_dict.h>

namespace ember {

namespace optim {
class Optimizer;                   // optim/optimizer.h
class LRScheduler;                 // optim/schedulers.h
class ReduceLROnPlateauScheduler;  // optim/schedulers.h
using StateDict = OrderedDict<std::string, Tensor>;
}  // namespace optim

// ember extension (LibTorch has no counterpart; PyTorch programs torch.save a dict of
// state_dicts). Parts are registered by reference and read at save(), written at load():
//
//   ember::Checkpoint ckpt;
//   ckpt.add("model", model).add("optimizer", optimizer).add("scheduler", scheduler);
//   if (ember::Checkpoint::exists(path)) ckpt.load(path);   // --resume
//   for (int64_t epoch = ckpt.epoch; epoch < epochs; ++epoch) {
//     ... train ...
//     ckpt.epoch = epoch + 1;
//     ckpt.save(path);
//   }
//
// File layout (safetensors): tensor "<part>.<key>" for each entry of a part's state dict,
// "rng.state" (ember::get_rng_state()); metadata "ember.checkpoint" = "1", "ember.parts" (the
// part names, comma-separated), "epoch", "step", and "user.<key>" for each metadata entry.
class Checkpoint {
 public:
  // Registers state by reference under a unique, non-empty name without dots (and not "rng");
  // save() reads it, load() writes it. Returns *this for chaining. A module loads as
  // load_state_dict(strict = true); an optimizer or scheduler through its load_state_dict.
  Checkpoint& add(const std::string& name, nn::Module& module);
  template <class M, class = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
  Checkpoint& add(const std::string& name, const std::shared_ptr<M>& module) {
    EMBER_CHECK(module != nullptr, "Checkpoint::add: '", name, "': the module is null");
    return add_module(name, std::static_pointer_cast<nn::Module>(module));
  }
  template <class M>
  Checkpoint& add(const std::string& name, const nn::ModuleHolder<M>& module) {
    return add_module(name, std::static_pointer_cast<nn::Module>(module.ptr()));
  }
  Checkpoint& add(const std::string& name, optim::Optimizer& optimizer);
  Checkpoint& add(const std::string& name, optim::LRScheduler& scheduler);
  Checkpoint& add(const std::string& name, optim::ReduceLROnPlateauScheduler& scheduler);
  // Any other state as a flat tensor map (a sampler's position, an EMA copy...). `get` may
  // return live tensors (save() only reads them); `set` gets the file's tensors of the part
  // (keys without the "<name>." prefix) and must throw ember::Error on a map it cannot take.
  Checkpoint& add(const std::string& name, std::function<optim::StateDict()> get,
                  std::function<void(const std::map<std::string, Tensor>&)> set);

  // The global generator's state (ember::get_rng_state(), CPU and CUDA draws alike): saved
  // and restored by default. With rng(false) it is neither written nor restored (a file that
  // has it still loads).
  Checkpoint& rng(bool include);

  int64_t epoch = 0;  // saved and restored (the user's counters)
  int64_t step = 0;
  std::map<std::string, std::string> metadata;  // user strings, saved and restored

  // Writes one safetensors file atomically (a temporary file beside `path`, flushed, then
  // renamed over it, as ember::save): a failed save leaves an existing file as it was. Tensors
  // on any device are written from CPU copies, one at a time.
  void save(const std::string& path) const;

  // Restores everything registered. Each registered part must be in the file, and the file
  // may hold no other part: missing or unexpected parts throw ember::Error naming them and
  // the file, before anything changes. All or nothing: the parts' current states are copied
  // first (the memory of one more copy of the registered state, for the duration of the
  // load); if restoring a part throws, the parts restored before it are put back as they
  // were, epoch, step and metadata stay unchanged, and the error propagates (an ember::Error
  // gets the file and the part's name in front of its message).
  void load(const std::string& path);

  // True when `path` exists and is an ember checkpoint (reads the file's header only).
  static bool exists(const std::string& path);

 private:
  struct Part {
    std::string name;
    std::function<optim::StateDict()> get;
    std::function<void(const std::map<std::string, Tensor>&)> set;
  };
  Checkpoint& add_module(const std::string& name, std::shared_ptr<nn::Module> module);
  Checkpoint& add_part(Part part);

  std::vector<Part> parts_;
  bool rng_ = true;
};

}  // namespace ember
