// The LibTorch-twin API test's harness, written in LibTorch's spelling and ported to ember by
// tools/port-from-libtorch.sh: snippets register with TWIN(name) and return a Record.
#pragma once
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace twin {

// What a snippet returns: a tensor, a list of tensors (a tuple result), a number or a bool,
// or a list of integers (sizes). Printed as one JSON record by print_record().
struct Record {
  enum Kind { kTensor, kList, kInt, kFloat, kBoolean, kInts } kind = kTensor;
  std::vector<torch::Tensor> tensors;
  std::vector<int64_t> ints;
  double number = 0;

  Record(torch::Tensor t) : kind(kTensor), tensors{std::move(t)} {}               // NOLINT
  Record(std::vector<torch::Tensor> ts) : kind(kList), tensors(std::move(ts)) {}  // NOLINT
  Record(std::vector<int64_t> v) : kind(kInts), ints(std::move(v)) {}             // NOLINT
  Record(std::tuple<torch::Tensor, torch::Tensor> t)                              // NOLINT
      : kind(kList), tensors{std::get<0>(t), std::get<1>(t)} {}
  Record(std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> t)  // NOLINT
      : kind(kList), tensors{std::get<0>(t), std::get<1>(t), std::get<2>(t)} {}
  template <class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
  Record(T v)  // NOLINT
      : kind(std::is_same<T, bool>::value       ? kBoolean
             : std::is_floating_point<T>::value ? kFloat
                                                : kInt),
        number(static_cast<double>(v)) {
    if (kind == kInt) ints = {static_cast<int64_t>(v)};
  }
};

using Snippet = Record (*)();
inline std::vector<std::pair<const char*, Snippet>>& registry() {
  static std::vector<std::pair<const char*, Snippet>> r;
  return r;
}
struct Registrar {
  Registrar(const char* name, Snippet fn) { registry().emplace_back(name, fn); }
};

inline std::string number_json(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

inline std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

inline const char* dtype_name(const torch::Tensor& t) {
  auto s = t.scalar_type();
  if (s == torch::kFloat32) return "float32";
  if (s == torch::kFloat64) return "float64";
  if (s == torch::kInt64) return "int64";
  if (s == torch::kInt32) return "int32";
  if (s == torch::kUInt8) return "uint8";
  if (s == torch::kBool) return "bool";
  if (s == torch::kFloat16) return "float16";
  if (s == torch::kBFloat16) return "bfloat16";
  return "other";
}

// {"shape":[..],"dtype":"..","requires_grad":b,"values":[..]}: integers exact, floats as
// %.17g of the value converted to double, nan and infinities as strings.
inline std::string tensor_json(const torch::Tensor& t) {
  if (!t.defined()) return "{\"undefined\":true}";
  std::string out = "{\"shape\":[";
  for (int64_t i = 0; i < t.dim(); ++i) out += (i ? "," : "") + std::to_string(t.size(i));
  out += "],\"dtype\":\"" + std::string(dtype_name(t)) + "\",\"requires_grad\":";
  out += t.requires_grad() ? "true" : "false";
  out += ",\"values\":[";
  auto flat = t.detach().to(torch::kCPU).contiguous().reshape({-1});
  if (t.is_floating_point()) {
    auto d = flat.to(torch::kFloat64).contiguous();
    const double* p = d.template data_ptr<double>();
    for (int64_t i = 0; i < d.numel(); ++i) out += (i ? "," : "") + number_json(p[i]);
  } else {
    auto d = flat.to(torch::kInt64).contiguous();
    const int64_t* p = d.template data_ptr<int64_t>();
    for (int64_t i = 0; i < d.numel(); ++i) out += (i ? "," : "") + std::to_string(p[i]);
  }
  return out + "]}";
}

inline std::string record_json(const Record& r) {
  switch (r.kind) {
    case Record::kTensor:
      return "\"tensor\":" + tensor_json(r.tensors[0]);
    case Record::kList: {
      std::string out = "\"list\":[";
      for (size_t i = 0; i < r.tensors.size(); ++i)
        out += (i ? "," : "") + tensor_json(r.tensors[i]);
      return out + "]";
    }
    case Record::kInts: {
      std::string out = "\"ints\":[";
      for (size_t i = 0; i < r.ints.size(); ++i) out += (i ? "," : "") + std::to_string(r.ints[i]);
      return out + "]";
    }
    case Record::kInt:
      return "\"int\":" + std::to_string(r.ints[0]);
    case Record::kFloat:
      return "\"float\":" + number_json(r.number);
    case Record::kBoolean:
      return std::string("\"bool\":") + (r.number != 0 ? "true" : "false");
  }
  return "\"unknown\":null";
}

// Runs one snippet: {"name":..,<record>} or {"name":..,"error":"<message's first line>"}.
inline std::string run_json(const char* name, Snippet fn) {
  std::string out = std::string("{\"name\":\"") + name + "\",";
  try {
    out += record_json(fn());
  } catch (const std::exception& e) {
    std::string msg = e.what();
    msg = msg.substr(0, msg.find('\n'));
    out += "\"error\":\"" + escape(msg.substr(0, 200)) + "\"";
  }
  return out + "}";
}

}  // namespace twin

#define TWIN(name)                                                  \
  static twin::Record twin_##name();                                \
  static const twin::Registrar twin_reg_##name(#name, twin_##name); \
  static twin::Record twin_##name()
