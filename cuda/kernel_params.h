// What cuda::ElementwiseKernel and cuda::ReductionKernel share: parsing "TYPE name" parameter
// lists, binding placeholders to dtypes, and preparing a call's tensors (devices, broadcast
// shape, dtypes) and scalars. CUDA-free; private to cuda/.
#pragma once

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/error.h>
#include <ember/core/functions.h>
#include <ember/cuda/api.h>
#include <ember/cuda/elementwise_kernel.h>
#include <ember/cuda/module.h>

namespace ember {
namespace cuda {
namespace detail {

using KernelParam = ElementwiseKernel::Param;

inline bool dtype_of(const std::string& type, ScalarType* out) {
  struct TypeName {
    const char* name;
    ScalarType dtype;
  };
  static const TypeName kTypes[] = {
      {"float32", kFloat32}, {"float", kFloat32}, {"float64", kFloat64}, {"double", kFloat64},
      {"int32", kInt32},     {"int", kInt32},     {"int64", kInt64},     {"long", kInt64},
      {"uint8", kUInt8},     {"bool", kBool},
  };
  for (const TypeName& t : kTypes) {
    if (type == t.name) {
      *out = t.dtype;
      return true;
    }
  }
  return false;
}

inline const char* c_type(ScalarType t) {
  switch (t) {
    case kFloat32:
      return "float";
    case kFloat64:
      return "double";
    case kInt32:
      return "int";
    case kInt64:
      return "long long";
    case kUInt8:
      return "unsigned char";
    case kBool:
      return "bool";
    default:
      return nullptr;
  }
}

inline bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// "float32 x, raw T y" -> params; throws "<what>(<kernel>): ..." naming the bad entry.
inline std::vector<KernelParam> parse_params(const char* what, const std::string& kernel,
                                             const char* which, const std::string& list) {
  std::vector<KernelParam> out;
  std::stringstream all(list);
  std::string entry;
  while (std::getline(all, entry, ',')) {
    std::stringstream words(entry);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    KernelParam p;
    if (w.size() == 3 && w[0] == "raw") {
      p.raw = true;
      w.erase(w.begin());
    }
    EMBER_CHECK(w.size() == 2 && is_identifier(w[0]) && is_identifier(w[1]), what, "(", kernel,
                "): ", which, " parameter '", entry, "' is not \"TYPE name\" or \"raw TYPE name\"");
    p.type = w[0];
    p.name = w[1];
    ScalarType dt;
    const bool placeholder = !dtype_of(p.type, &dt);
    EMBER_CHECK(!placeholder || std::isupper(static_cast<unsigned char>(p.type[0])), what, "(",
                kernel, "): unknown type '", p.type, "' in ", which, " parameter '", entry,
                "' (float32, float64, int32, int64, uint8, bool, or a placeholder such as T)");
    out.push_back(p);
  }
  return out;
}

// Placeholders bound by the dtypes of the params in order; a placeholder bound twice to two
// dtypes throws.
inline std::map<std::string, ScalarType> bind_placeholders(const char* what,
                                                           const std::string& kernel,
                                                           const std::vector<KernelParam>& params,
                                                           const std::vector<ScalarType>& dtypes) {
  std::map<std::string, ScalarType> bound;
  for (size_t k = 0; k < params.size() && k < dtypes.size(); ++k) {
    ScalarType dt;
    if (dtype_of(params[k].type, &dt)) continue;
    auto [it, fresh] = bound.emplace(params[k].type, dtypes[k]);
    EMBER_CHECK(fresh || it->second == dtypes[k], what, "(", kernel, "): ", params[k].type,
                " is bound to ", it->second, " and to ", dtypes[k], " (", params[k].name, ")");
  }
  return bound;
}

inline ScalarType resolve(const char* what, const std::string& kernel, const std::string& type,
                          const std::string& for_name,
                          const std::map<std::string, ScalarType>& bound) {
  ScalarType dt;
  if (dtype_of(type, &dt)) return dt;
  auto it = bound.find(type);
  EMBER_CHECK(it != bound.end(), what, "(", kernel, "): nothing binds ", type, " (the type of ",
              for_name, "): pass a tensor for it");
  return it->second;
}

inline const char* checked_c_type(const char* what, const std::string& kernel,
                                  const std::string& name, ScalarType t) {
  const char* c = c_type(t);
  EMBER_CHECK(c != nullptr, what, "(", kernel, "): ", name, " would be ", t,
              ", which runtime kernels do not take (float32, float64, int32, int64, uint8, bool)");
  return c;
}

// Names parameters may not take, and no name twice; no raw outputs; at least one output.
inline void check_param_names(const char* what, const std::string& kernel,
                              const std::vector<KernelParam>& in,
                              const std::vector<KernelParam>& out,
                              std::vector<std::string> reserved, const char* reserved_note) {
  EMBER_CHECK(!out.empty(), what, "(", kernel, "): no output parameter");
  for (const auto* list : {&in, &out}) {
    for (const KernelParam& p : *list) {
      EMBER_CHECK(std::find(reserved.begin(), reserved.end(), p.name) == reserved.end(), what, "(",
                  kernel, "): the name '", p.name, "' is used twice (", reserved_note, ")");
      reserved.push_back(p.name);
    }
  }
  for (const KernelParam& p : out) {
    EMBER_CHECK(!p.raw, what, "(", kernel, "): output ", p.name, " can't be raw");
  }
}

// A call's arguments checked and typed: the device, the broadcast shape of the element-wise
// tensor inputs, which inputs are scalars, and every parameter's dtype (inputs, then outputs).
struct PreparedCall {
  int device = -1;
  std::vector<int64_t> shape;
  std::vector<bool> scalar;
  std::vector<ScalarType> dtypes;
  std::map<std::string, ScalarType> bound;
};

inline PreparedCall prepare_call(const char* what, const std::string& kernel,
                                 const std::vector<KernelParam>& in,
                                 const std::vector<KernelParam>& out,
                                 const std::vector<KernelValue>& args) {
  const size_t n_in = in.size(), n_out = out.size();
  EMBER_CHECK(args.size() == n_in || args.size() == n_in + n_out, what, "(", kernel, "): takes ",
              n_in, " inputs (and optionally ", n_out, " outputs), got ", args.size(),
              " arguments");
  PreparedCall c;
  std::vector<Tensor> shaped;
  std::vector<KernelParam> all = in;
  all.insert(all.end(), out.begin(), out.end());
  for (size_t k = 0; k < args.size(); ++k) {
    const bool output = k >= n_in;
    const KernelParam& p = all[k];
    c.scalar.push_back(!args[k].is_tensor);
    if (!args[k].is_tensor) {
      EMBER_CHECK(!output && !p.raw, what, "(", kernel, "): ", p.name,
                  " must be a tensor, got a number");
      continue;
    }
    const Tensor& t = args[k].tensor;
    EMBER_CHECK(t.defined(), what, "(", kernel, "): ", p.name, " is undefined");
    EMBER_CHECK(t.is_cuda(), what, "(", kernel, "): ", p.name,
                " must be a CUDA tensor, got one on ", t.device());
    EMBER_CHECK(c.device < 0 || t.device().index() == c.device, what, "(", kernel,
                "): tensors on cuda:", c.device, " and ", t.device());
    c.device = t.device().index();
    if (!p.raw && !output) shaped.push_back(t);
  }
  EMBER_CHECK(c.device >= 0 || is_available(), what, "(", kernel, "): no CUDA device is available");
  if (c.device < 0) c.device = current_device();
  for (size_t k = 0; k < shaped.size(); ++k) {
    const IntArrayRef sizes = shaped[k].sizes();
    if (k == 0) {
      c.shape = sizes.vec();
    } else if (IntArrayRef(c.shape) != sizes) {
      const std::string op = std::string(what) + "(" + kernel + ")";
      const DimVector b = broadcast_shapes(op.c_str(), c.shape, sizes);
      c.shape.assign(b.begin(), b.end());
    }
  }
  // Placeholders: bound by tensors first; a scalar (int64, float64 or bool) binds one only
  // where no tensor does.
  std::vector<KernelParam> tensor_params, scalar_params;
  std::vector<ScalarType> tensor_dtypes, scalar_dtypes;
  for (size_t k = 0; k < args.size(); ++k) {
    const Scalar& s = args[k].scalar;
    const ScalarType dt = args[k].is_tensor     ? args[k].tensor.dtype()
                          : s.isFloatingPoint() ? kFloat64
                          : s.isBoolean()       ? kBool
                                                : kInt64;
    (args[k].is_tensor ? tensor_params : scalar_params).push_back(all[k]);
    (args[k].is_tensor ? tensor_dtypes : scalar_dtypes).push_back(dt);
  }
  c.bound = bind_placeholders(what, kernel, tensor_params, tensor_dtypes);
  for (const auto& [type, dt] : bind_placeholders(what, kernel, scalar_params, scalar_dtypes))
    c.bound.emplace(type, dt);
  for (const KernelParam& p : all)
    c.dtypes.push_back(resolve(what, kernel, p.type, p.name, c.bound));
  return c;
}

// A scalar argument as the kernel's parameter of dtype t takes it.
inline KernelArg scalar_kernel_arg(const Scalar& s, ScalarType t) {
  switch (t) {
    case kFloat32:
      return to_arg(s.to<float>());
    case kFloat64:
      return to_arg(s.to<double>());
    case kInt32:
      return to_arg(s.to<int32_t>());
    case kInt64:
      return to_arg(s.to<int64_t>());
    case kUInt8:
      return to_arg(s.to<uint8_t>());
    default:
      return to_arg(s.to<bool>());
  }
}

// The generated kernel's parameter list, and the lines that name each parameter in the body:
// `typedefs` for the placeholders, `loads` for the inputs (their element `in_index`, or their
// scalar value), `stores` for the outputs (references to their element `out_index`).
struct ParamCode {
  std::string params, typedefs, loads, stores;
};
inline ParamCode param_code(const char* what, const std::string& kernel,
                            const std::vector<KernelParam>& in, const std::vector<KernelParam>& out,
                            const std::map<std::string, ScalarType>& bound,
                            const std::vector<bool>& scalar, const std::string& indent,
                            const char* in_index, const char* out_index) {
  std::vector<KernelParam> all = in;
  all.insert(all.end(), out.begin(), out.end());
  std::ostringstream params, typedefs, loads, stores;
  for (size_t k = 0; k < all.size(); ++k) {
    const KernelParam& p = all[k];
    const bool input = k < in.size();
    const std::string c =
        checked_c_type(what, kernel, p.name, resolve(what, kernel, p.type, p.name, bound));
    params << (k ? ", " : "");
    if (input && k < scalar.size() && scalar[k]) {
      params << c << " " << p.name << "_value_";
      loads << indent << "const " << c << " " << p.name << " = " << p.name << "_value_;\n";
    } else if (p.raw) {
      params << "const " << c << "* __restrict__ " << p.name;
    } else if (input) {
      params << "const " << c << "* __restrict__ " << p.name << "_ptr_";
      loads << indent << "const " << c << " " << p.name << " = " << p.name << "_ptr_[" << in_index
            << "];\n";
    } else {
      params << c << "* __restrict__ " << p.name << "_ptr_";
      stores << indent << c << "& " << p.name << " = " << p.name << "_ptr_[" << out_index << "];\n";
    }
  }
  for (const auto& [placeholder, t] : bound) {  // the body may name them: (T)a
    typedefs << "  typedef " << c_type(t) << " " << placeholder << ";\n";
  }
  return {params.str(), typedefs.str(), loads.str(), stores.str()};
}

// The compiled kernels of a runtime kernel, one per signature (dtypes, scalar or tensor):
// the function `name` of the module `make` compiles on first use (it keeps its module alive).
struct ModuleCache {
  std::mutex mu;
  std::map<std::string, Function> functions;

  Function get(const PreparedCall& c, const std::string& name,
               const std::function<Module()>& make) {
    std::string signature;
    for (size_t k = 0; k < c.dtypes.size(); ++k) {
      signature += dtype_name(c.dtypes[k]);
      signature += k < c.scalar.size() && c.scalar[k] ? "s," : "t,";
    }
    std::lock_guard<std::mutex> lock(mu);
    auto it = functions.find(signature);
    if (it == functions.end()) it = functions.emplace(signature, make().function(name)).first;
    return it->second;
  }
};

// A call's kernel arguments: inputs converted to their parameter's dtype, broadcast to the
// call's shape (but raw ones) and contiguous, scalars by value; then the outputs, given (a
// non-contiguous one written through a contiguous copy, by finish()) or allocated with
// `out_shape`.
struct PackedCall {
  std::vector<KernelArg> args;
  std::vector<Tensor> keep, outputs, write_back;

  // Copies the results into the given outputs that were not contiguous.
  std::vector<Tensor> finish() {
    for (size_t j = 0; j < outputs.size(); ++j) {
      if (!write_back[j].is_same(outputs[j])) outputs[j].copy_(write_back[j]);
    }
    return outputs;
  }
};
inline PackedCall pack_call(const char* what, const std::string& kernel,
                            const std::vector<KernelParam>& in, const std::vector<KernelParam>& out,
                            const std::vector<KernelValue>& args, const PreparedCall& c,
                            const std::vector<int64_t>& out_shape) {
  const size_t n_in = in.size();
  PackedCall p;
  for (size_t k = 0; k < n_in; ++k) {
    if (c.scalar[k]) {
      p.args.push_back(scalar_kernel_arg(args[k].scalar, c.dtypes[k]));
      continue;
    }
    // Each step only where needed: a call on matching contiguous tensors makes no new ones.
    Tensor t = args[k].tensor;
    if (t.dtype() != c.dtypes[k]) t = t.to(c.dtypes[k]);
    if (!in[k].raw && t.sizes() != IntArrayRef(c.shape)) t = t.expand(c.shape);
    if (!t.is_contiguous()) t = t.contiguous();
    p.keep.push_back(t);
    p.args.push_back(to_arg(t));
  }
  const TensorOptions on_device = TensorOptions().device(Device(kCUDA, c.device));
  for (size_t k = n_in; k < c.dtypes.size(); ++k) {
    const KernelParam& param = out[k - n_in];
    Tensor o;
    if (k < args.size()) {
      o = args[k].tensor;
      EMBER_CHECK(o.sizes().vec() == out_shape, what, "(", kernel, "): output ", param.name,
                  " has shape ", o.sizes(), " but the call's is ", IntArrayRef(out_shape));
      EMBER_CHECK(o.dtype() == c.dtypes[k], what, "(", kernel, "): output ", param.name, " is ",
                  o.dtype(), " but the kernel writes ", c.dtypes[k]);
      p.outputs.push_back(o);
      if (!o.is_contiguous()) o = empty(out_shape, on_device.dtype(c.dtypes[k]));
    } else {
      o = empty(out_shape, on_device.dtype(c.dtypes[k]));
      p.outputs.push_back(o);
    }
    p.write_back.push_back(o);
    p.args.push_back(to_arg(o));
  }
  return p;
}

}  // namespace detail
}  // namespace cuda
}  // namespace ember
