// A strict, restricted reader of Python pickles (protocols 2 to 5) into plain values; globals,
// NEWOBJ, REDUCE, BUILD and persistent ids go to hooks that allow what they know. Nothing runs.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <ember/core/tensor.h>

namespace ember::pickle {

enum class Kind : uint8_t { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Object };

// One unpickled value. Values live in an Arena and point to each other (a memoized list can be
// shared, or even contain itself), so they are never freed one by one.
struct Value {
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string text;                                // String; Global: "module.name"
  std::vector<Value*> items;                       // Tuple, List
  std::vector<std::pair<Value*, Value*>> entries;  // Dict, in insertion order
  int tag = 0;                                     // Global and Object: the hooks' own tag
  ScalarType dtype = ScalarType::Float32;          // Global and Object: the hooks' dtype
  Tensor tensor;                                   // Object: the hooks' tensor
};

const char* kind_name(Kind kind);  // "str", "tuple", ... (Python's names)

// Owns every value of one unpickling; refuses to grow past a limit, so that a hostile pickle
// cannot make it allocate without bound.
class Arena {
 public:
  explicit Arena(size_t max_values) : max_values_(max_values) {}
  Value* make(Kind kind, const std::string& where);

 private:
  std::deque<Value> values_;
  size_t max_values_;
};

// What the pickle may call. Each hook throws ember::Error (starting with `where`) to refuse.
class Hooks {
 public:
  virtual ~Hooks() = default;
  // GLOBAL / STACK_GLOBAL: a Global value for an allowed name.
  virtual Value* find_global(const std::string& module, const std::string& name) = 0;
  // REDUCE: callable(*args), where callable came from find_global.
  virtual Value* reduce(Value* callable, Value* args) = 0;
  // NEWOBJ: an object of class `cls` (from find_global) created without running anything.
  virtual Value* new_object(Value* cls, Value* args) = 0;
  // BUILD: sets `state` on `object` (an allowed case) or refuses.
  virtual void build(Value* object, Value* state) = 0;
  // BINPERSID: the object a persistent id stands for.
  virtual Value* persistent_load(Value* pid) = 0;
};

// Reads the pickle in `bytes` and returns the value STOP leaves; any opcode outside the set
// that torch.save uses, and any malformed input, throws "<where>pickle: ...".
Value* unpickle(const std::string& bytes, Arena& arena, Hooks& hooks, const std::string& where);

}  // namespace ember::pickle
