// The restricted unpickler behind load_pt: a loop over the opcodes of torch.save's pickles with
// a value stack, marks and a memo; any other opcode or malformed input throws ember::Error.
#include <ember/serialize/unpickler.h>

#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <ember/core/error.h>

namespace ember::pickle {
namespace {

// Opcodes outside the allowed set, named in errors (pickletools' names).
struct OpName {
  unsigned char code;
  const char* name;
};
constexpr OpName kRefused[] = {
    {'i', "INST"},
    {'o', "OBJ"},
    {0x92, "NEWOBJ_EX"},
    {'I', "INT"},
    {'L', "LONG"},
    {0x8b, "LONG4"},
    {'F', "FLOAT"},
    {'S', "STRING"},
    {'T', "BINSTRING"},
    {'U', "SHORT_BINSTRING"},
    {'V', "UNICODE"},
    {'B', "BINBYTES"},
    {'C', "SHORT_BINBYTES"},
    {0x8e, "BINBYTES8"},
    {0x96, "BYTEARRAY8"},
    {0x97, "NEXT_BUFFER"},
    {0x98, "READONLY_BUFFER"},
    {'P', "PERSID"},
    {'p', "PUT"},
    {'g', "GET"},
    {'d', "DICT"},
    {'l', "LIST"},
    {'0', "POP"},
    {'1', "POP_MARK"},
    {'2', "DUP"},
    {0x82, "EXT1"},
    {0x83, "EXT2"},
    {0x84, "EXT4"},
    {0x8f, "EMPTY_SET"},
    {0x90, "ADDITEMS"},
    {0x91, "FROZENSET"},
};

class Reader {
 public:
  Reader(const std::string& bytes, Arena& arena, Hooks& hooks, const std::string& where)
      : bytes_(bytes), arena_(arena), hooks_(hooks), where_(where + "pickle: ") {}

  Value* run();

 private:
  [[noreturn]] void fail(const std::string& what) const {
    EMBER_THROW(where_, what, " (at byte ", op_start_, ")");
  }
  const unsigned char* take(size_t n) {
    if (bytes_.size() - pos_ < n) fail("the data ends in the middle of an opcode (truncated)");
    const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data()) + pos_;
    pos_ += n;
    return p;
  }
  uint64_t take_uint(size_t n) {
    const unsigned char* p = take(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
  }
  std::string take_line() {
    const size_t end = bytes_.find('\n', pos_);
    if (end == std::string::npos) fail("GLOBAL's name has no end of line (truncated)");
    std::string line = bytes_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return line;
  }
  std::string take_string(uint64_t n) {
    if (bytes_.size() - pos_ < n) fail("a string runs past the end of the data (truncated)");
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  size_t fence() const { return marks_.empty() ? 0 : marks_.back(); }
  void push(Value* v) { stack_.push_back(v); }
  Value* pop() {
    if (stack_.size() <= fence()) fail("a pop from an empty stack (or below a MARK)");
    Value* v = stack_.back();
    stack_.pop_back();
    return v;
  }
  Value* top() {
    if (stack_.size() <= fence()) fail("the stack is empty");
    return stack_.back();
  }
  // The values pushed since the last MARK, which is removed.
  std::vector<Value*> pop_to_mark() {
    if (marks_.empty()) fail("no MARK to pop to");
    const size_t start = marks_.back();
    marks_.pop_back();
    std::vector<Value*> items(stack_.begin() + start, stack_.end());
    stack_.resize(start);
    return items;
  }
  Value* make(Kind kind) { return arena_.make(kind, where_); }
  Value* make_int(int64_t v) {
    Value* x = make(Kind::Int);
    x->integer = v;
    return x;
  }
  Value* make_tuple(std::vector<Value*> items) {
    Value* t = make(Kind::Tuple);
    t->items = std::move(items);
    return t;
  }
  void memo_put(uint64_t index) { memo_[index] = top(); }
  Value* memo_get(uint64_t index) {
    const auto it = memo_.find(index);
    if (it == memo_.end()) fail("memo entry " + std::to_string(index) + " was never stored");
    return it->second;
  }
  void set_items(Value* dict, const std::vector<Value*>& kv) {
    if (dict->kind != Kind::Dict)
      fail(std::string("SETITEM(S) on a ") + kind_name(dict->kind) + ", not a dict");
    if (kv.size() % 2 != 0) fail("SETITEMS with an odd number of values");
    for (size_t i = 0; i < kv.size(); i += 2) dict->entries.emplace_back(kv[i], kv[i + 1]);
  }
  void append(Value* list, const std::vector<Value*>& items) {
    if (list->kind != Kind::List)
      fail(std::string("APPEND(S) on a ") + kind_name(list->kind) + ", not a list");
    list->items.insert(list->items.end(), items.begin(), items.end());
  }
  // REDUCE's and NEWOBJ's operands: a global (the callable or class) and a tuple of arguments.
  std::pair<Value*, Value*> pop_global_and_args(const char* op) {
    Value* args = pop();
    Value* callable = pop();
    if (callable->kind != Kind::Global)
      fail(std::string(op) + " calls a " + kind_name(callable->kind) + ", not a global");
    if (args->kind != Kind::Tuple)
      fail(std::string(op) + "'s arguments are a " + kind_name(args->kind) + ", not a tuple");
    return {callable, args};
  }
  void global(const std::string& module, const std::string& name) {
    push(hooks_.find_global(module, name));
  }
  [[noreturn]] void refuse(unsigned char op) const {
    for (const OpName& o : kRefused) {
      if (o.code == op)
        fail(std::string("opcode ") + o.name + " is not allowed (torch.save does not write it)");
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", op);
    fail(std::string("unknown opcode ") + hex);
  }

  const std::string& bytes_;
  Arena& arena_;
  Hooks& hooks_;
  std::string where_;
  size_t pos_ = 0, op_start_ = 0;
  std::vector<Value*> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Value*> memo_;
};

Value* Reader::run() {
  for (;;) {
    op_start_ = pos_;
    if (pos_ >= bytes_.size()) fail("the data ends without a STOP opcode (truncated)");
    const unsigned char op = static_cast<unsigned char>(bytes_[pos_++]);
    switch (op) {
      case 0x80: {  // PROTO
        const uint64_t protocol = take_uint(1);
        if (protocol < 2 || protocol > 5)
          fail("pickle protocol " + std::to_string(protocol) + " is not supported (2 to 5)");
        break;
      }
      case 0x95:  // FRAME: a length hint only
        take(8);
        break;
      case '.': {  // STOP
        if (!marks_.empty()) fail("STOP with an open MARK");
        if (stack_.size() != 1)
          fail("STOP with " + std::to_string(stack_.size()) + " values on the stack, not 1");
        if (pos_ != bytes_.size()) fail("bytes follow the STOP opcode");
        return stack_.back();
      }
      case '(':  // MARK
        marks_.push_back(stack_.size());
        break;
      case '}':  // EMPTY_DICT
        push(make(Kind::Dict));
        break;
      case ']':  // EMPTY_LIST
        push(make(Kind::List));
        break;
      case ')':  // EMPTY_TUPLE
        push(make(Kind::Tuple));
        break;
      case 't':  // TUPLE
        push(make_tuple(pop_to_mark()));
        break;
      case 0x85:    // TUPLE1
      case 0x86:    // TUPLE2
      case 0x87: {  // TUPLE3
        std::vector<Value*> items(op - 0x84);
        for (size_t i = items.size(); i-- > 0;) items[i] = pop();
        push(make_tuple(std::move(items)));
        break;
      }
      case 'q':  // BINPUT
        memo_put(take_uint(1));
        break;
      case 'r':  // LONG_BINPUT
        memo_put(take_uint(4));
        break;
      case 0x94:  // MEMOIZE
        memo_put(memo_.size());
        break;
      case 'h':  // BINGET
        push(memo_get(take_uint(1)));
        break;
      case 'j':  // LONG_BINGET
        push(memo_get(take_uint(4)));
        break;
      case 'X':     // BINUNICODE
      case 0x8c:    // SHORT_BINUNICODE
      case 0x8d: {  // BINUNICODE8
        const uint64_t n = take_uint(op == 'X' ? 4 : op == 0x8c ? 1 : 8);
        Value* s = make(Kind::String);
        s->text = take_string(n);
        push(s);
        break;
      }
      case 'J':  // BININT: signed 32-bit
        push(make_int(static_cast<int32_t>(static_cast<uint32_t>(take_uint(4)))));
        break;
      case 'K':  // BININT1
        push(make_int(static_cast<int64_t>(take_uint(1))));
        break;
      case 'M':  // BININT2
        push(make_int(static_cast<int64_t>(take_uint(2))));
        break;
      case 0x8a: {  // LONG1: n-byte two's complement, little-endian
        const uint64_t n = take_uint(1);
        if (n > 8) fail("an integer of " + std::to_string(n) + " bytes is too large for int64");
        uint64_t v = take_uint(n);
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);  // sign
        push(make_int(static_cast<int64_t>(v)));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian double
        const unsigned char* p = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
        Value* f = make(Kind::Float);
        std::memcpy(&f->real, &bits, sizeof bits);
        push(f);
        break;
      }
      case 0x88:    // NEWTRUE
      case 0x89: {  // NEWFALSE
        Value* b = make(Kind::Bool);
        b->boolean = op == 0x88;
        push(b);
        break;
      }
      case 'N':  // NONE
        push(make(Kind::None));
        break;
      case 'c': {  // GLOBAL
        const std::string module = take_line();
        global(module, take_line());
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        Value* name = pop();
        Value* module = pop();
        if (module->kind != Kind::String || name->kind != Kind::String)
          fail("STACK_GLOBAL needs two strings");
        global(module->text, name->text);
        break;
      }
      case 'Q':  // BINPERSID
        push(hooks_.persistent_load(pop()));
        break;
      case 'R': {  // REDUCE
        const auto [callable, args] = pop_global_and_args("REDUCE");
        push(hooks_.reduce(callable, args));
        break;
      }
      case 0x81: {  // NEWOBJ: cls.__new__(cls, *args), given to the hooks to allow or refuse
        const auto [cls, args] = pop_global_and_args("NEWOBJ");
        push(hooks_.new_object(cls, args));
        break;
      }
      case 'b': {  // BUILD
        Value* state = pop();
        hooks_.build(top(), state);
        break;
      }
      case 's': {  // SETITEM
        Value* value = pop();
        Value* key = pop();
        set_items(top(), {key, value});
        break;
      }
      case 'u': {  // SETITEMS
        const std::vector<Value*> kv = pop_to_mark();
        set_items(top(), kv);
        break;
      }
      case 'a': {  // APPEND
        Value* item = pop();
        append(top(), {item});
        break;
      }
      case 'e': {  // APPENDS
        const std::vector<Value*> items = pop_to_mark();
        append(top(), items);
        break;
      }
      default:
        refuse(op);
    }
  }
}

}  // namespace

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::String:
      return "str";
    case Kind::Tuple:
      return "tuple";
    case Kind::List:
      return "list";
    case Kind::Dict:
      return "dict";
    case Kind::Global:
      return "global";
    case Kind::Object:
      return "object";
  }
  return "value";
}

Value* Arena::make(Kind kind, const std::string& where) {
  EMBER_CHECK(values_.size() < max_values_, where, "pickle: more than ", max_values_,
              " values, beyond the limit of this reader");
  values_.emplace_back();
  values_.back().kind = kind;
  return &values_.back();
}

Value* unpickle(const std::string& bytes, Arena& arena, Hooks& hooks, const std::string& where) {
  return Reader(bytes, arena, hooks, where).run();
}

}  // namespace ember::pickle
