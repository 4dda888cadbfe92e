// PyTorch-style printing of tensors (torch/_tensor_str.py's rules): a shared element
// width, 4 decimals or "1." for integer-valued floats, scientific when the range needs it,
// "..." summaries above 1000 elements, and a suffix for non-default dtype/device/grad.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <ember/core/half_bits.h>
#include <ember/core/recording.h>
#include <ember/core/tensor.h>

namespace ember {

namespace {

constexpr int kPrecision = 4;
constexpr int kLineWidth = 80;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

std::string format_double(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

class Printer {
 public:
  explicit Printer(const Tensor& t)
      : t_(t),
        dtype_(t.dtype()),
        sizes_(t.sizes()),
        strides_(t.strides()),
        base_(static_cast<const char*>(t.impl()->storage()->data())),
        floating_(is_floating_point(t.dtype())),
        summarize_(t.numel() > kThreshold) {
    init_formatter();
  }

  std::string str() { return tensor_str(0, 0, 7); }  // 7 == strlen("tensor(")

 private:
  double as_double(int64_t off) const {
    const char* p = base_ + off * static_cast<int64_t>(element_size(dtype_));
    switch (dtype_) {
      case kFloat32:
        return *reinterpret_cast<const float*>(p);
      case kFloat64:
        return *reinterpret_cast<const double*>(p);
      case kFloat16:
        return detail::half_to_float(*reinterpret_cast<const uint16_t*>(p));
      case kBFloat16:
        return detail::bfloat16_to_float(*reinterpret_cast<const uint16_t*>(p));
      default:
        return static_cast<double>(as_int(off));
    }
  }
  int64_t as_int(int64_t off) const {
    const char* p = base_ + off * static_cast<int64_t>(element_size(dtype_));
    switch (dtype_) {
      case kUInt8:
        return *reinterpret_cast<const uint8_t*>(p);
      case kInt32:
        return *reinterpret_cast<const int32_t*>(p);
      case kInt64:
        return *reinterpret_cast<const int64_t*>(p);
      case kBool:
        return *reinterpret_cast<const bool*>(p) ? 1 : 0;
      default:
        return static_cast<int64_t>(as_double(off));
    }
  }

  // Calls fn(offset) for every element that will be printed (all of them, or the edge
  // items of every dim when summarizing), which is what PyTorch's formatter measures.
  template <class F>
  void visit(size_t d, int64_t off, F& fn) const {
    if (d == sizes_.size()) {
      fn(off);
      return;
    }
    int64_t n = sizes_[d];
    bool cut = summarize_ && n > 2 * kEdgeItems;
    for (int64_t i = 0; i < n; ++i) {
      if (cut && i == kEdgeItems) i = n - kEdgeItems;
      visit(d + 1, off + i * strides_[d], fn);
    }
  }

  std::string raw_int(int64_t off) const {
    if (dtype_ == kBool) return as_int(off) ? "True" : "False";
    return std::to_string(as_int(off));
  }

  void init_formatter() {
    int64_t start = t_.storage_offset();
    if (!floating_) {
      auto fn = [&](int64_t off) {
        max_width_ = std::max(max_width_, static_cast<int>(raw_int(off).size()));
      };
      visit(0, start, fn);
      return;
    }
    std::vector<double> vals;  // nonzero finite values among the printed ones
    auto collect = [&](int64_t off) {
      double v = as_double(off);
      if (std::isfinite(v) && v != 0.0) vals.push_back(v);
    };
    visit(0, start, collect);
    if (vals.empty()) return;
    double lo = std::fabs(vals[0]), hi = lo;
    for (double v : vals) {
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
    for (double v : vals) {
      int w;
      if (sci_mode_) {
        w = static_cast<int>(format_double("%.4e", v).size());
      } else if (int_mode_) {
        w = static_cast<int>(format_double("%.0f", v).size()) + 1;
      } else {
        w = static_cast<int>(format_double("%.4f", v).size());
      }
      max_width_ = std::max(max_width_, w);
    }
  }

  std::string format(int64_t off) const {
    std::string s;
    if (!floating_) {
      s = raw_int(off);
    } else {
      double v = as_double(off);
      if (std::isnan(v)) {
        s = "nan";  // never "-nan", as Python prints it
      } else if (std::isinf(v)) {
        s = v > 0 ? "inf" : "-inf";
      } else if (sci_mode_) {
        s = format_double("%.4e", v);
      } else if (int_mode_) {
        s = format_double("%.0f", v) + ".";
      } else {
        s = format_double("%.4f", v);
      }
    }
    if (static_cast<int>(s.size()) < max_width_) s.insert(0, max_width_ - s.size(), ' ');
    return s;
  }

  std::string vector_str(int64_t off, int indent) const {
    int64_t n = sizes_.back();
    int64_t stride = strides_.back();
    int element_length = max_width_ + 2;
    int per_line = std::max(1, (kLineWidth - indent) / element_length);
    std::vector<std::string> data;
    bool cut = summarize_ && n > 2 * kEdgeItems;
    for (int64_t i = 0; i < n; ++i) {
      if (cut && i == kEdgeItems) {
        data.emplace_back(" ...");
        i = n - kEdgeItems;
      }
      data.push_back(format(off + i * stride));
    }
    std::string out = "[";
    for (size_t i = 0; i < data.size(); ++i) {
      if (i > 0) {
        if (i % per_line == 0) {
          out += ",\n";
          out.append(indent + 1, ' ');
        } else {
          out += ", ";
        }
      }
      out += data[i];
    }
    return out + "]";
  }

  std::string tensor_str(size_t d, int64_t off, int indent) const {
    size_t ndim = sizes_.size();
    if (ndim == 0) return format(off + t_.storage_offset());
    if (d == 0) off = t_.storage_offset();
    if (d + 1 == ndim) return vector_str(off, indent);
    int64_t n = sizes_[d];
    bool cut = summarize_ && n > 2 * kEdgeItems;
    std::string sep = ",";
    sep.append(ndim - d - 1, '\n');
    sep.append(indent + 1, ' ');
    std::string out = "[";
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0) out += sep;
      if (cut && i == kEdgeItems) {
        out += "...";
        out += sep;
        i = n - kEdgeItems;
      }
      out += tensor_str(d + 1, off + i * strides_[d], indent + 1);
    }
    return out + "]";
  }

  const Tensor& t_;
  ScalarType dtype_;
  IntArrayRef sizes_;
  IntArrayRef strides_;
  const char* base_;  // the storage's element 0 (offsets include storage_offset)
  bool floating_;
  bool summarize_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int max_width_ = 1;
};

// PyTorch's _add_suffixes: a suffix goes on the last line unless it would pass 80 columns.
std::string add_suffixes(std::string s, const std::vector<std::string>& suffixes) {
  const int indent = 7;
  size_t nl = s.rfind('\n');
  int last_line_len =
      static_cast<int>(s.size()) - (nl == std::string::npos ? -1 : static_cast<int>(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    int len = static_cast<int>(suffix.size());
    if (last_line_len + len + 2 > kLineWidth) {
      s += ",\n";
      s.append(indent, ' ');
      s += suffix;
      last_line_len = indent + len;
    } else {
      s += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return s + ")";
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  Tensor c = t.is_cuda() ? t.to(kCPU) : t;  // printing reads host memory
  std::vector<std::string> suffixes;
  if (!t.is_cpu()) suffixes.push_back("device=" + t.device().str());
  std::string body;
  if (c.numel() == 0) {
    if (c.dim() != 1) {
      std::string size = "size=(";
      for (int64_t i = 0; i < c.dim(); ++i) {
        if (i) size += ", ";
        size += std::to_string(c.sizes()[i]);
      }
      suffixes.push_back(size + ")");  // never a 1-tuple: 1-D empties print no size
    }
    if (c.dtype() != default_float_dtype()) {
      suffixes.push_back(std::string("dtype=") + dtype_name(c.dtype()));
    }
    body = "[]";
  } else {
    ScalarType d = c.dtype();
    if (d != default_float_dtype() && d != kInt64 && d != kBool) {
      suffixes.push_back(std::string("dtype=") + dtype_name(d));
    }
    body = Printer(c).str();
  }
  const std::string grad_fn = detail::recorded::grad_fn_name(t);
  if (!grad_fn.empty()) {
    suffixes.push_back("grad_fn=<" + grad_fn + ">");  // PyTorch's style for non-leaves
  } else if (t.requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }
  return os << add_suffixes("tensor(" + body, suffixes);
}

}  // namespace ember
