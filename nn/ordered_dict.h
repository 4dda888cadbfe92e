// OrderedDict<Key, Value>: a map that keeps insertion order, as LibTorch's torch::OrderedDict.
// Modules hold their parameters, buffers and children in one, and named_parameters() returns
// one, so `for (auto& p : net->named_parameters()) p.key(), p.value()` reads as in LibTorch.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ember/core/error.h>

namespace ember {

template <class Key, class Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const { return pair_.first; }
    Value& value() { return pair_.second; }
    const Value& value() const { return pair_.second; }
    Value& operator*() { return value(); }
    const Value& operator*() const { return value(); }
    Value* operator->() { return &value(); }
    const Value* operator->() const { return &value(); }
    const std::pair<Key, Value>& pair() const { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  using key_type = Key;
  using mapped_type = Value;
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  // The description names keys in error messages: "Parameter 'fc.w' is not defined".
  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) : OrderedDict() {
    for (const Item& item : items) insert(item.key(), item.value());
  }

  const std::string& key_description() const { return key_description_; }

  // Throws when the key is already present (use update() or operator[] to overwrite).
  template <class K, class V>
  Value& insert(K&& key, V&& value) {
    Key k(std::forward<K>(key));
    EMBER_CHECK(index_.count(k) == 0, key_description_, " '", describe(k), "' already defined");
    index_.emplace(k, items_.size());
    items_.emplace_back(std::move(k), Value(std::forward<V>(value)));
    return items_.back().value();
  }
  // Inserts the key or overwrites its value.
  template <class K, class V>
  Value& update(K&& key, V&& value) {
    Key k(std::forward<K>(key));
    if (Value* v = find(k)) return *v = Value(std::forward<V>(value));
    return insert(std::move(k), std::forward<V>(value));
  }
  void update(const OrderedDict& other) {
    for (const Item& item : other) update(item.key(), item.value());
  }

  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const { return index_.count(key) != 0; }

  Value& operator[](const Key& key) {
    if (Value* v = find(key)) return *v;
    EMBER_THROW(key_description_, " '", describe(key), "' is not defined");
  }
  const Value& operator[](const Key& key) const {
    if (const Value* v = find(key)) return *v;
    EMBER_THROW(key_description_, " '", describe(key), "' is not defined");
  }
  Item& operator[](size_t index) {
    EMBER_CHECK(index < items_.size(), "OrderedDict: index ", index, " is out of range for ",
                items_.size(), " items");
    return items_[index];
  }
  const Item& operator[](size_t index) const {
    EMBER_CHECK(index < items_.size(), "OrderedDict: index ", index, " is out of range for ",
                items_.size(), " items");
    return items_[index];
  }

  // Removes a key; later items keep their order.
  void erase(const Key& key) {
    auto it = index_.find(key);
    EMBER_CHECK(it != index_.end(), key_description_, " '", describe(key), "' is not defined");
    const size_t pos = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
    for (auto& entry : index_) {
      if (entry.second > pos) --entry.second;
    }
  }
  void clear() {
    items_.clear();
    index_.clear();
  }
  void reserve(size_t n) {
    items_.reserve(n);
    index_.reserve(n);
  }

  Item& front() { return at_checked(0); }
  const Item& front() const { return items_.at(0); }
  Item& back() { return at_checked(items_.size() - 1); }
  const Item& back() const { return items_.at(items_.size() - 1); }

  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  bool empty() const { return items_.empty(); }

  Iterator begin() { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator begin() const { return items_.begin(); }
  ConstIterator end() const { return items_.end(); }

  const std::vector<Item>& items() const { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.value());
    return out;
  }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const Item& item : items_) out.push_back(item.pair());
    return out;
  }

 private:
  Item& at_checked(size_t i) {
    EMBER_CHECK(i < items_.size(), "OrderedDict: the dict is empty");
    return items_[i];
  }
  template <class K>
  static std::string describe(const K& key) {
    std::ostringstream os;
    os << key;
    return os.str();
  }

  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
  std::string key_description_;
};

}  // namespace ember
