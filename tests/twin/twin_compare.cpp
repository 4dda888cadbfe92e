// The LibTorch-twin test's ember side: runs every snippet that compiled (twin-select.sh) and
// compares its record with LibTorch's (libtorch_records.jsonl): counts same, different, missing.
// Fails when a record differs from LibTorch's or the missing/different sets leave the lists.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include <twin.h>  // the ported harness in the build folder, not this folder's

namespace {

using nlohmann::json;

double as_double(const json& v) {
  if (v.is_string()) {
    auto s = v.get<std::string>();
    if (s == "nan") return NAN;
    return s == "inf" ? INFINITY : -INFINITY;
  }
  return v.get<double>();
}

bool close(const json& a, const json& b, double rtol, double atol) {
  double x = as_double(a), y = as_double(b);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  return std::fabs(x - y) <= atol + rtol * std::fabs(y);
}

// Tolerances: float32 results may differ in summation order; float64 far less.
bool same_tensor(const json& a, const json& b) {
  if (a.contains("undefined") || b.contains("undefined")) return a == b;
  if (a["shape"] != b["shape"] || a["dtype"] != b["dtype"] ||
      a["requires_grad"] != b["requires_grad"] || a["values"].size() != b["values"].size())
    return false;
  std::string dtype = b["dtype"];
  bool is_float = dtype == "float32" || dtype == "float64";
  double rtol = dtype == "float64" ? 1e-9 : 1e-4, atol = dtype == "float64" ? 1e-12 : 1e-5;
  for (size_t i = 0; i < a["values"].size(); ++i) {
    if (is_float ? !close(a["values"][i], b["values"][i], rtol, atol)
                 : a["values"][i] != b["values"][i])
      return false;
  }
  return true;
}

bool same_record(const json& a, const json& b) {
  if (b.contains("error") || a.contains("error")) return a.contains("error") && b.contains("error");
  for (const char* k : {"tensor", "list", "ints", "int", "float", "bool"}) {
    if (!b.contains(k)) continue;
    if (!a.contains(k)) return false;
    if (std::strcmp(k, "tensor") == 0) return same_tensor(a[k], b[k]);
    if (std::strcmp(k, "float") == 0) return close(a[k], b[k], 1e-5, 1e-6);
    if (std::strcmp(k, "list") == 0) {
      if (a[k].size() != b[k].size()) return false;
      for (size_t i = 0; i < b[k].size(); ++i)
        if (!same_tensor(a[k][i], b[k][i])) return false;
      return true;
    }
    return a[k] == b[k];
  }
  return false;
}

std::set<std::string> read_names(const std::string& path) {
  std::set<std::string> names;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    line.erase(std::remove_if(line.begin(), line.end(), ::isspace), line.end());
    if (!line.empty()) names.insert(line);
  }
  return names;
}

std::string shorten(const json& j) {
  std::string s = j.dump();
  return s.size() > 300 ? s.substr(0, 300) + "..." : s;
}

// Lists what is in `got` and not in `want` and the reverse; true when they are equal.
bool same_set(const char* what, const std::set<std::string>& got, const std::set<std::string>& want,
              const std::string& file) {
  bool ok = true;
  for (const auto& n : got)
    if (!want.count(n)) {
      std::cout << "  " << what << " and not listed in " << file << ": " << n << "\n";
      ok = false;
    }
  for (const auto& n : want)
    if (!got.count(n)) {
      std::cout << "  listed in " << file << " but no longer " << what << ": " << n << "\n";
      ok = false;
    }
  return ok;
}

}  // namespace

// twin_compare LIBTORCH_RECORDS.jsonl MISSING.txt DIFFERENT.txt [--print]
int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: twin_compare LIBTORCH_RECORDS.jsonl MISSING.txt DIFFERENT.txt [--print]\n";
    return 2;
  }
  std::map<std::string, json> reference;
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "twin_compare: cannot read " << argv[1] << "\n";
    return 2;
  }
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      auto j = json::parse(line);
      if (j["name"].get<std::string>()[0] != '_') reference[j["name"]] = j;  // _meta: who made it
    }
  bool print = argc > 4 && std::string(argv[4]) == "--print";
  std::map<std::string, json> ours;
  for (const auto& [name, fn] : twin::registry()) {
    std::string line = twin::run_json(name, fn);
    if (print) std::cout << line << "\n";
    ours[name] = json::parse(line);
  }
  std::set<std::string> missing, different, unreferenced;
  int same = 0;
  for (const auto& [name, ref] : reference) {
    auto it = ours.find(name);
    if (it == ours.end()) {
      missing.insert(name);
    } else if (same_record(it->second, ref)) {
      ++same;
    } else {
      different.insert(name);
      std::cout << "DIFFERENT " << name << "\n  LibTorch: " << shorten(ref)
                << "\n  ember:    " << shorten(it->second) << "\n";
    }
  }
  for (const auto& [name, rec] : ours)
    if (!reference.count(name)) unreferenced.insert(name);
  std::cout << "twin: " << reference.size() << " LibTorch records: " << same << " same, "
            << different.size() << " different, " << missing.size() << " missing in ember\n";
  bool ok = true;
  for (const auto& n : unreferenced) {
    std::cout << "  no LibTorch record for " << n << " (rerun tools/twin-libtorch.sh)\n";
    ok = false;
  }
  ok &= same_set("missing", missing, read_names(argv[2]), argv[2]);
  ok &= same_set("different", different, read_names(argv[3]), argv[3]);
  std::cout << (ok ? "twin: PASS\n" : "twin: FAIL\n");
  return ok ? 0 : 1;
}
