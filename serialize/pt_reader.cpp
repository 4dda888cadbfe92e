// ember::load_pt: PyTorch's zip .pt files and LibTorch's torch::save archives. data.pkl goes
// through the restricted unpickler with hooks that allow only tensors' globals and LibTorch's
// inert __torch__.Module objects; tensors are views of storages read from data/<key>.
#include <ember/serialize/pt_reader.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include <ember/core/functions.h>
#include <ember/serialize/serialize.h>
#include <ember/serialize/unpickler.h>
#include <ember/serialize/zip_reader.h>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "load_pt reads little-endian storages into memory as they are");

namespace ember::pt {
namespace {

using pickle::Kind;
using pickle::Value;

// Limits that keep a hostile file from making the reader allocate or recurse without bound;
// each is far above what a real checkpoint needs (about 20 values per tensor).
constexpr uint64_t kMaxPickleBytes = uint64_t{256} << 20;
constexpr size_t kMaxValues = size_t{8} << 20;
constexpr int kMaxDepth = 100;
constexpr size_t kMaxVisits = size_t{1} << 22;

enum Tag : int {
  kOrderedDict = 1,
  kRebuildTensor,
  kRebuildParameter,
  kStorageClass,
  kStorage,
  kTensor,
  kArchiveClass,  // __torch__.Module: the class of LibTorch's serialize::OutputArchive objects
  kArchiveObject  // one of its objects: `entries` holds its attributes, set by BUILD
};

// LibTorch's torch::save writes a TorchScript-style archive whose objects are all of class
// "Module" in __torch__ or __torch__.___torch_mangle_<N>; their attributes are tensors,
// numbers, strings and other such objects. The code/ entries that TorchScript would run are
// never read. A class of any other name is a TorchScript program's (torch.jit.save), refused.
bool is_archive_class(const std::string& module, const std::string& name) {
  if (name != "Module") return false;
  if (module == "__torch__") return true;
  const std::string mangle = "__torch__.___torch_mangle_";
  return module.size() > mangle.size() && module.compare(0, mangle.size(), mangle) == 0 &&
         module.find_first_not_of("0123456789", mangle.size()) == std::string::npos;
}

struct StorageClass {
  const char* name;
  ScalarType dtype;
};
constexpr StorageClass kStorageClasses[] = {
    {"FloatStorage", kFloat32},     {"DoubleStorage", kFloat64}, {"HalfStorage", kFloat16},
    {"BFloat16Storage", kBFloat16}, {"LongStorage", kInt64},     {"IntStorage", kInt32},
    {"ByteStorage", kUInt8},        {"BoolStorage", kBool},
};
// PyTorch's other storage classes, named with their element type when refused.
constexpr const char* kUnsupportedStorages[][2] = {
    {"CharStorage", "int8"},
    {"ShortStorage", "int16"},
    {"ComplexHalfStorage", "complex32"},
    {"ComplexFloatStorage", "complex64"},
    {"ComplexDoubleStorage", "complex128"},
    {"QUInt8Storage", "quint8"},
    {"QInt8Storage", "qint8"},
    {"QInt32Storage", "qint32"},
    {"QUInt4x2Storage", "quint4x2"},
    {"QUInt2x4Storage", "quint2x4"},
    {"UntypedStorage", "untyped bytes"},
};

std::string read_head(const std::string& path, size_t n) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string head(n, '\0');
  const ssize_t got = ::pread(fd, head.data(), n, 0);
  ::close(fd);
  head.resize(got > 0 ? size_t(got) : 0);
  return head;
}

// PyTorch's legacy format starts with a pickle of its magic number: PROTO 2 (or the protocol
// asked for), LONG1 of 10 bytes. No safetensors file starts so: its header would be > 100 MB.
bool is_legacy(const std::string& head) {
  return head.size() >= 4 && head[0] == '\x80' && head[1] >= 2 && head[1] <= 5 &&
         head[2] == '\x8a' && head[3] == '\x0a';
}

bool is_kind(const Value* v, Kind kind) { return v != nullptr && v->kind == kind; }

// The allowed globals and what calling them builds.
class TorchHooks : public pickle::Hooks {
 public:
  TorchHooks(const zip::Reader& zip, std::string top, std::string where, pickle::Arena& arena)
      : zip_(zip), top_(std::move(top)), where_(std::move(where)), arena_(arena) {}

  Value* find_global(const std::string& module, const std::string& name) override {
    const std::string full = module + "." + name;
    int tag = 0;
    ScalarType dtype = kFloat32;
    if (full == "collections.OrderedDict") {
      tag = kOrderedDict;
    } else if (full == "torch._utils._rebuild_tensor_v2") {
      tag = kRebuildTensor;
    } else if (full == "torch._utils._rebuild_parameter") {
      tag = kRebuildParameter;
    } else if (is_archive_class(module, name)) {
      tag = kArchiveClass;
    } else if (module == "torch") {
      for (const auto& s : kStorageClasses) {
        if (name == s.name) {
          tag = kStorageClass;
          dtype = s.dtype;
        }
      }
      for (const auto& u : kUnsupportedStorages) {
        EMBER_CHECK(name != u[0], where_, "global '", full, "': ", u[1],
                    " tensors have no ember dtype");
      }
    }
    EMBER_CHECK(tag != 0 || module.compare(0, 9, "__torch__") != 0, where_, "global '", full,
                "' is a TorchScript program's class (torch.jit.save), which is not read: only "
                "LibTorch's torch::save archives (objects of class __torch__.Module) load");
    EMBER_CHECK(tag != 0, where_, "global '", full,
                "' is not allowed: only tensors, state dicts and dicts, lists and tuples of them "
                "load (torch.load's weights_only set); nothing in the file is ever executed");
    Value* g = make(Kind::Global);
    g->text = full;
    g->tag = tag;
    g->dtype = dtype;
    return g;
  }

  Value* reduce(Value* callable, Value* args) override {
    const std::vector<Value*>& a = args->items;
    switch (callable->tag) {
      case kOrderedDict:
        EMBER_CHECK(a.empty(), where_, "collections.OrderedDict is called with arguments");
        return make(Kind::Dict);
      case kRebuildTensor:
        return rebuild_tensor(a);
      case kRebuildParameter:
        // (data, requires_grad, backward_hooks): the tensor itself.
        EMBER_CHECK(a.size() == 3 && is_tensor(a[0]), where_,
                    "torch._utils._rebuild_parameter takes (tensor, requires_grad, hooks)");
        return a[0];
      default:
        EMBER_THROW(where_, "global '", callable->text, "' cannot be called");
    }
  }

  Value* new_object(Value* cls, Value* args) override {
    EMBER_CHECK(cls->tag == kArchiveClass, where_, "global '", cls->text,
                "' cannot be created (NEWOBJ)");
    EMBER_CHECK(args->items.empty(), where_, "a ", cls->text, " is created with arguments");
    Value* object = make(Kind::Object);
    object->tag = kArchiveObject;
    object->text = cls->text;
    return object;
  }

  void build(Value* object, Value* state) override {
    if (object->kind == Kind::Object && object->tag == kArchiveObject) {
      // Its attributes, recorded as they are: a dict of str names, set once (`boolean` marks
      // the object built).
      EMBER_CHECK(object->boolean == false, where_, "a ", object->text, " is built twice");
      EMBER_CHECK(state->kind == Kind::Dict, where_, "a ", object->text, "'s state is a ",
                  pickle::kind_name(state->kind), ", not a dict of attributes");
      for (const auto& [key, value] : state->entries) {
        EMBER_CHECK(key->kind == Kind::String, where_, "a ", object->text,
                    "'s attribute is named by a ", pickle::kind_name(key->kind), ", not a str");
      }
      object->entries = state->entries;
      object->boolean = true;
      return;
    }
    // An OrderedDict's attributes (a state dict's _metadata: module versions): ignored.
    EMBER_CHECK(object->kind == Kind::Dict, where_, "BUILD (setting the state of an object) on a ",
                pickle::kind_name(object->kind), " is not allowed");
    EMBER_CHECK(state->kind == Kind::Dict || state->kind == Kind::None, where_,
                "an OrderedDict's state is a ", pickle::kind_name(state->kind), ", not a dict");
  }

  Value* persistent_load(Value* pid) override {
    // ('storage', storage class, key, location, numel)
    const auto& p = pid->items;
    EMBER_CHECK(pid->kind == Kind::Tuple && p.size() == 5 && is_kind(p[0], Kind::String) &&
                    p[0]->text == "storage",
                where_, "a persistent id is not ('storage', class, key, location, numel)");
    EMBER_CHECK(p[1]->kind == Kind::Global && p[1]->tag == kStorageClass &&
                    p[2]->kind == Kind::String && p[3]->kind == Kind::String &&
                    p[4]->kind == Kind::Int && p[4]->integer >= 0,
                where_, "a storage's persistent id has the wrong types");
    const ScalarType dtype = p[1]->dtype;
    const std::string& key = p[2]->text;
    const int64_t numel = p[4]->integer;
    // Tensors that share a storage name it twice; it is read once. Its location ("cpu",
    // "cuda:0", ...) does not matter: everything loads to the CPU.
    const auto cached = storages_.find(key);
    if (cached != storages_.end()) {
      EMBER_CHECK(cached->second->dtype == dtype && cached->second->tensor.numel() == numel, where_,
                  "storage '", key, "' is named with two different types or sizes");
      return cached->second;
    }
    const std::string entry_name = top_ + "/data/" + key;
    const zip::Entry* entry = zip_.find(entry_name);
    EMBER_CHECK(entry != nullptr, where_, "storage '", key, "': the archive has no entry '",
                entry_name, "'");
    const uint64_t esize = element_size(dtype);
    EMBER_CHECK(uint64_t(numel) <= entry->size / esize && uint64_t(numel) * esize == entry->size,
                where_, "storage '", key, "': ", numel, " elements of ", dtype, " need ",
                uint64_t(numel) <= (~uint64_t(0)) / esize ? std::to_string(numel * esize) : "more",
                " bytes but '", entry_name, "' holds ", entry->size);
    Tensor data = empty({numel}, TensorOptions().dtype(dtype));
    zip_.read(*entry, data.data_ptr());
    if (dtype == kBool) {
      // A bool byte other than 0 or 1 would be undefined behaviour in C++.
      const auto* bytes = static_cast<const unsigned char*>(data.data_ptr());
      for (int64_t i = 0; i < numel; ++i) {
        EMBER_CHECK(bytes[i] <= 1, where_, "storage '", key, "': byte ", i, " is ", int(bytes[i]),
                    ", not a bool (0 or 1)");
      }
    }
    Value* storage = make(Kind::Object);
    storage->tag = kStorage;
    storage->dtype = dtype;
    storage->text = key;
    storage->tensor = std::move(data);
    storages_.emplace(key, storage);
    return storage;
  }

  static bool is_tensor(const Value* v) { return v->kind == Kind::Object && v->tag == kTensor; }

 private:
  Value* make(Kind kind) { return arena_.make(kind, where_); }

  std::vector<int64_t> int_tuple(const Value* v, const char* what) {
    EMBER_CHECK(v->kind == Kind::Tuple, where_, "a tensor's ", what, " is a ",
                pickle::kind_name(v->kind), ", not a tuple");
    std::vector<int64_t> out;
    for (const Value* x : v->items) {
      EMBER_CHECK(x->kind == Kind::Int && x->integer >= 0, where_, "a tensor's ", what,
                  " holds something other than a non-negative int");
      out.push_back(x->integer);
    }
    return out;
  }

  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, backward_hooks[, metadata])
  Value* rebuild_tensor(const std::vector<Value*>& a) {
    EMBER_CHECK((a.size() == 6 || a.size() == 7) && a[0]->kind == Kind::Object &&
                    a[0]->tag == kStorage && a[1]->kind == Kind::Int && a[1]->integer >= 0 &&
                    a[4]->kind == Kind::Bool,
                where_, "torch._utils._rebuild_tensor_v2 is called with the wrong arguments");
    const Tensor& storage = a[0]->tensor;
    const int64_t offset = a[1]->integer;
    const std::vector<int64_t> sizes = int_tuple(a[2], "size");
    const std::vector<int64_t> strides = int_tuple(a[3], "stride");
    EMBER_CHECK(sizes.size() == strides.size(), where_, "a tensor has ", sizes.size(),
                " sizes but ", strides.size(), " strides");
    // The last element the view reaches must lie in the storage (overflow-checked).
    int64_t last = offset;
    // So must the element count, even of an empty tensor (its other sizes multiplied).
    int64_t count = 1;
    bool empty_view = false, overflow = false, too_many = false;
    for (size_t i = 0; i < sizes.size(); ++i) {
      int64_t step = 0;
      if (sizes[i] == 0) empty_view = true;
      overflow |= __builtin_mul_overflow(sizes[i] > 0 ? sizes[i] - 1 : 0, strides[i], &step);
      overflow |= __builtin_add_overflow(last, step, &last);
      too_many |= __builtin_mul_overflow(count, std::max<int64_t>(sizes[i], 1), &count);
    }
    EMBER_CHECK(!too_many, where_, "a tensor of size ", shape_str(sizes),
                " has more elements than int64 counts");
    const int64_t numel = storage.numel();
    EMBER_CHECK(empty_view ? offset <= numel : (!overflow && last < numel), where_,
                "a tensor of size ", shape_str(sizes), ", stride ", shape_str(strides),
                " and offset ", offset, " reaches outside its storage '", a[0]->text, "' of ",
                numel, " elements");
    Value* t = make(Kind::Object);
    t->tag = kTensor;
    t->dtype = storage.dtype();
    t->tensor = empty_view ? empty(sizes, TensorOptions().dtype(storage.dtype()))
                           : storage.as_strided(sizes, strides, offset);
    return t;
  }

  static std::string shape_str(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  }

  const zip::Reader& zip_;
  std::string top_, where_;
  pickle::Arena& arena_;
  std::unordered_map<std::string, Value*> storages_;
};

// Containers become dotted names as in a state dict: dict keys and list/tuple indices joined
// by '.', a lone tensor is "". Other leaves (None, numbers, strings) are skipped.
class Flattener {
 public:
  explicit Flattener(const std::string& where) : where_(where) {}

  void add(const Value* v, const std::string& name, int depth) {
    EMBER_CHECK(depth <= kMaxDepth, where_, "'", name, "': containers nest more than ", kMaxDepth,
                " levels deep (or refer to themselves)");
    EMBER_CHECK(++visits_ <= kMaxVisits, where_, "the containers hold more than ", kMaxVisits,
                " values (shared ones counted each time they are reached)");
    switch (v->kind) {
      case Kind::Object:
        if (v->tag == kArchiveObject) {  // a LibTorch archive's object: its attributes
          for (const auto& [key, value] : v->entries) add(value, join(name, key->text), depth + 1);
          return;
        }
        EMBER_CHECK(v->tag == kTensor, where_, "'", name,
                    "' is a bare storage, not a tensor (not supported)");
        EMBER_CHECK(out.emplace(name, v->tensor).second, where_, "the name '", name,
                    "' is given to two tensors");
        return;
      case Kind::Dict:
        for (const auto& [key, value] : v->entries)
          add(value, join(name, key_text(key, name)), depth + 1);
        return;
      case Kind::List:
      case Kind::Tuple:
        for (size_t i = 0; i < v->items.size(); ++i)
          add(v->items[i], join(name, std::to_string(i)), depth + 1);
        return;
      default:
        return;  // None, bool, int, float, str, a reference to an allowed global
    }
  }

  std::map<std::string, Tensor> out;

 private:
  static std::string join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
  }
  std::string key_text(const Value* key, const std::string& name) const {
    if (key->kind == Kind::String) return key->text;
    if (key->kind == Kind::Int) return std::to_string(key->integer);
    EMBER_THROW(where_, "'", name, "': a dict key is a ", pickle::kind_name(key->kind),
                "; only str and int keys name tensors");
  }

  std::string where_;
  size_t visits_ = 0;
};

// ---- LibTorch's torch::save(optimizer) archives ----
// serialize(OutputArchive&, Optimizer&) writes "pytorch_version", "state" (one object per
// parameter with state, named by its TensorImpl's address as "0x...", holding its buffers and
// step) and "param_groups" ("param_groups/size", then "param_groups/<g>": "params/size",
// "params/<k>" the addresses, "options" the group's options). They map onto ember's
// optimizer state dict: "state.<i>.<name>", "param_groups.<g>.<option>" and
// "param_groups.<g>.params", the parameters numbered in group order as PyTorch numbers them.

const Value* attribute(const Value* object, const std::string& name) {
  for (const auto& [key, value] : object->entries) {
    if (key->text == name) return value;
  }
  return nullptr;
}

// An object's attributes by name, for the lookups of numbered ones ("params/<k>"), so that a
// hostile archive with millions of them costs time linear in its size.
std::unordered_map<std::string, const Value*> attributes(const Value* object) {
  std::unordered_map<std::string, const Value*> out;
  for (const auto& [key, value] : object->entries) out.emplace(key->text, value);
  return out;
}

const Value* find(const std::unordered_map<std::string, const Value*>& map,
                  const std::string& name) {
  const auto it = map.find(name);
  return it == map.end() ? nullptr : it->second;
}

bool is_archive_object(const Value* v) {
  return v != nullptr && v->kind == Kind::Object && v->tag == kArchiveObject;
}

bool is_optimizer_archive(const Value* root) {
  return is_archive_object(root) && attribute(root, "pytorch_version") != nullptr &&
         is_archive_object(attribute(root, "state")) &&
         is_archive_object(attribute(root, "param_groups"));
}

// A number, flag or tuple of numbers (Adam's betas) as ember's state dicts hold it.
Tensor option_tensor(const Value* v, const std::string& name, const std::string& where) {
  switch (v->kind) {
    case Kind::Float:
      return tensor(v->real, kFloat64);
    case Kind::Int:
      return tensor(v->integer, kInt64);
    case Kind::Bool:
      return tensor(v->boolean, kBool);
    case Kind::Tuple: {
      std::vector<double> reals;
      for (const Value* x : v->items) {
        EMBER_CHECK(x->kind == Kind::Float || x->kind == Kind::Int, where, "optimizer option '",
                    name, "' is a tuple holding a ", pickle::kind_name(x->kind));
        reals.push_back(x->kind == Kind::Float ? x->real : double(x->integer));
      }
      return tensor(reals, kFloat64);
    }
    case Kind::Object:
      if (v->tag == kTensor) return v->tensor;
      break;
    default:
      break;
  }
  EMBER_THROW(where, "optimizer entry '", name, "' is a ", pickle::kind_name(v->kind),
              ", not a number, flag or tensor");
}

// LibTorch's "<list>/size" entries: a 0-dim int64 tensor counting the numbered entries.
void check_count(const Value* size, int64_t count, const std::string& name,
                 const std::string& where) {
  if (size == nullptr) return;
  EMBER_CHECK(size->kind == Kind::Object && size->tag == kTensor && size->tensor.numel() == 1 &&
                  size->tensor.dtype() == kInt64 && size->tensor.item<int64_t>() == count,
              where, "'", name, "' does not count the ", count, " entries found");
}

std::map<std::string, Tensor> optimizer_state(const Value* root, const std::string& where) {
  std::map<std::string, Tensor> out;
  std::map<std::string, int64_t> index;  // a parameter's address -> its number
  const auto groups = attributes(attribute(root, "param_groups"));
  int64_t g = 0;
  for (;; ++g) {
    const Value* group = find(groups, "param_groups/" + std::to_string(g));
    if (group == nullptr) break;
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    EMBER_CHECK(is_archive_object(group), where, "'", prefix, "' is not an archive object");
    std::vector<int64_t> numbers;
    const auto members = attributes(group);
    for (int64_t k = 0;; ++k) {
      const Value* id = find(members, "params/" + std::to_string(k));
      if (id == nullptr) break;
      EMBER_CHECK(id->kind == Kind::String, where, "'", prefix, "params/", k, "' is a ",
                  pickle::kind_name(id->kind), ", not a parameter's address");
      const int64_t number = int64_t(index.size());
      EMBER_CHECK(index.emplace(id->text, number).second, where, "parameter ", id->text,
                  " is listed twice in the param groups");
      numbers.push_back(number);
    }
    check_count(find(members, "params/size"), int64_t(numbers.size()), prefix + "params/size",
                where);
    out.emplace(prefix + "params", tensor(numbers, kInt64));
    const Value* options = find(members, "options");
    EMBER_CHECK(is_archive_object(options), where, "'", prefix, "options' is missing");
    for (const auto& [key, value] : options->entries)
      out.emplace(prefix + key->text, option_tensor(value, prefix + key->text, where));
  }
  check_count(find(groups, "param_groups/size"), g, "param_groups/size", where);
  for (const auto& [key, value] : attribute(root, "state")->entries) {
    const auto found = index.find(key->text);
    EMBER_CHECK(found != index.end(), where, "the state of parameter ", key->text,
                " belongs to no param group");
    EMBER_CHECK(is_archive_object(value), where, "the state of parameter ", key->text, " is a ",
                pickle::kind_name(value->kind), ", not an archive object");
    const std::string prefix = "state." + std::to_string(found->second) + ".";
    for (const auto& [name, entry] : value->entries)
      out.emplace(prefix + name->text, option_tensor(entry, prefix + name->text, where));
  }
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

bool has_pt_signature(const std::string& path) {
  const std::string head = read_head(path, 9);
  // A safetensors file starts with its header's length (8 bytes) then '{'; a zip's local header
  // has its compression method there, never '{'.
  const bool zip = head.compare(0, 4, "PK\x03\x04") == 0 && head.size() == 9 && head[8] != '{';
  return zip || head.compare(0, 4, "PK\x05\x06") == 0 || is_legacy(head);
}

std::map<std::string, Tensor> read_file(const char* op, const std::string& path) {
  const std::string where = std::string(op) + ": " + path + ": ";
  EMBER_CHECK(!is_legacy(read_head(path, 4)), where,
              "PyTorch's legacy format (PyTorch < 1.6, or _use_new_zipfile_serialization=False) "
              "is not supported: load it in PyTorch and save it again with torch.save");
  zip::Reader zip(op, path);
  EMBER_CHECK(!zip.entries().empty(), where, "the zip archive is empty");
  // Every entry lies under one top folder, named after the file when it was saved.
  const std::string& first = zip.entries().front().name;
  const size_t slash = first.find('/');
  EMBER_CHECK(slash != std::string::npos && slash > 0, where, "entry '", first,
              "' is not under a top folder: not a file written by torch.save");
  const std::string top = first.substr(0, slash);
  // A LibTorch archive's constants.pkl and code/ are TorchScript's, never read.
  const zip::Entry* pkl = zip.find(top + "/data.pkl");
  EMBER_CHECK(pkl != nullptr, where, "no entry '", top,
              "/data.pkl': not a file written by torch.save");
  if (const zip::Entry* order = zip.find(top + "/byteorder")) {
    const std::string byteorder = trim(zip.read_string(*order, 64));
    EMBER_CHECK(byteorder != "big", where,
                "the file was saved on a big-endian machine, which load_pt does not support");
    EMBER_CHECK(byteorder == "little", where, "unknown byte order '", byteorder, "'");
  }
  const zip::Entry* version = zip.find(top + "/version");
  if (version == nullptr) version = zip.find(top + "/.data/version");
  if (version != nullptr) {
    const std::string text = trim(zip.read_string(*version, 64));
    EMBER_CHECK(!text.empty() && text.find_first_not_of("0123456789") == std::string::npos, where,
                "the archive's version '", text, "' is not a number");
  }
  const std::string bytes = zip.read_string(*pkl, kMaxPickleBytes);
  pickle::Arena arena(kMaxValues);
  TorchHooks hooks(zip, top, where, arena);
  const Value* root = pickle::unpickle(bytes, arena, hooks, where);
  if (is_optimizer_archive(root)) return optimizer_state(root, where);
  Flattener flat(where);
  flat.add(root, "", 0);
  return std::move(flat.out);
}

}  // namespace ember::pt

namespace ember {

std::map<std::string, Tensor> load_pt(const std::string& path) {
  return pt::read_file("load_pt", path);
}

}  // namespace ember
