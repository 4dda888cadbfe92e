// The writer and reader behind the optimizers' and schedulers' state_dict()/load_state_dict():
// named entries under a key prefix ("state.3.", "param_groups.0."), scalars as 0-dim tensors.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>
#include <ember/optim/optimizer.h>

namespace ember {
namespace optim {
namespace detail {

// Appends entries "<prefix><name>" to a state dict.
class StateWriter {
 public:
  StateWriter(StateDict& dict, std::string prefix) : dict_(dict), prefix_(std::move(prefix)) {}
  void real(const char* name, double value);                            // 0-dim float64
  void integer(const char* name, int64_t value);                        // 0-dim int64
  void flag(const char* name, bool value);                              // 0-dim bool
  void pair(const char* name, double first, double second);             // 1-D float64 of two
  void reals(const char* name, const std::vector<double>& values);      // 1-D float64
  void integers(const char* name, const std::vector<int64_t>& values);  // 1-D int64
  void step(const char* name, int64_t value);             // 0-dim float32, as PyTorch's step counts
  void text(const char* name, const std::string& value);  // 1-D uint8 of the bytes
  void tensor(const char* name, const Tensor& value);     // the tensor itself; none if undefined

 private:
  StateDict& dict_;
  std::string prefix_;
};

// Reads entries "<prefix><name>" of a state dict, recording the keys it read in `used` (so
// that the caller can report the unexpected ones). A missing required entry, or one of the
// wrong kind, throws ember::Error naming the key.
class StateReader {
 public:
  using Dict = std::map<std::string, Tensor>;
  StateReader(const Dict& dict, std::string prefix, std::set<std::string>& used)
      : dict_(dict), prefix_(std::move(prefix)), used_(used) {}

  bool has(const char* name) const;
  double real(const char* name);
  double real(const char* name, double fallback);
  int64_t integer(const char* name);
  bool flag(const char* name);
  std::pair<double, double> pair(const char* name);
  std::vector<double> reals(const char* name);
  std::vector<int64_t> integers(const char* name);
  int64_t step(const char* name);  // a non-negative whole number of any dtype
  std::string text(const char* name);
  // The tensor as stored (not copied).
  const Tensor& raw(const char* name);
  // A contiguous copy on `like`'s device and dtype; its shape must be `shape`.
  Tensor tensor(const char* name, const Tensor& like, IntArrayRef shape);
  Tensor tensor(const char* name, const Tensor& like) { return tensor(name, like, like.sizes()); }
  // PyTorch's flags that ember's optimizers don't have: maximize (must be false) and foreach,
  // fused, capturable, differentiable (read and ignored: they don't change the result).
  void pytorch_flags();
  // Marks the entries as read when present (PyTorch's attributes that don't apply to ember).
  void ignore(std::initializer_list<const char*> names);
  std::string key(const char* name) const { return prefix_ + name; }

 private:
  const Tensor& find(const char* name, int64_t numel = -1);

  const Dict& dict_;
  std::string prefix_;
  std::set<std::string>& used_;
};

// The ordered dict as a map (by key), for StateReader.
std::map<std::string, Tensor> to_map(const StateDict& dict);

// Runs `body`; an ember::Error it throws gets "<who>: " in front of its message (once).
void prefix_errors(const char* who, const std::function<void()>& body);

// Throws when `dict` has keys that are not in `used`, listing them (`who` starts the message).
void check_no_unexpected(const char* who, const StateReader::Dict& dict,
                         const std::set<std::string>& used);

}  // namespace detail
}  // namespace optim
}  // namespace ember
