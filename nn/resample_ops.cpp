// Padding and resampling (nn/layer_ops.h) as composites of public ops: constant padding by cat
// with filled blocks (narrow for negative pads); reflect, replicate and circular padding and
// nearest/bilinear upsampling by index_select with int64 source indices computed on the host
// with PyTorch's rules (bilinear: two selects and a weighted sum per dim). index_select and
// cat have backward rules, so autograd and every device come for free.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/nn/functional_conv.h>
#include <ember/nn/layer_ops.h>

namespace ember {
namespace {

Tensor index_tensor(const std::vector<int64_t>& index, Device device) {
  return ember::tensor(index, TensorOptions().dtype(kInt64).device(device));
}

// ---- padding ----

enum class PadKind { kConstant, kReflect, kReplicate, kCircular };

PadKind parse_mode(std::string_view mode) {
  if (mode == "constant") return PadKind::kConstant;
  if (mode == "reflect") return PadKind::kReflect;
  if (mode == "replicate") return PadKind::kReplicate;
  if (mode == "circular") return PadKind::kCircular;
  EMBER_THROW("pad: Unrecognised padding mode ", std::string(mode),
              " (expected constant, reflect, replicate or circular)");
}

// The source position of output position j along a dim of size n padded by `left`.
int64_t source_index(PadKind kind, int64_t j, int64_t left, int64_t n) {
  int64_t i = j - left;
  switch (kind) {
    case PadKind::kReflect:
      if (i < 0) i = -i;
      if (i >= n) i = 2 * (n - 1) - i;
      return i;
    case PadKind::kReplicate:
      return std::min(std::max<int64_t>(i, 0), n - 1);
    case PadKind::kCircular:
      i %= n;
      return i < 0 ? i + n : i;
    case PadKind::kConstant:
      break;
  }
  return i;
}

void check_pad_length(const char* op, const Tensor& self, IntArrayRef pad) {
  EMBER_CHECK(self.defined(), op, ": input must be defined");
  EMBER_CHECK(pad.size() % 2 == 0, op, ": Padding length must be divisible by 2, got ", pad.size());
  EMBER_CHECK(static_cast<int64_t>(pad.size()) <= 2 * self.dim(), op,
              ": Padding length should be less than or equal to two times the input dimension but "
              "got padding length ",
              pad.size(), " and input of dimension ", self.dim());
}

// ---- resampling: PyTorch's index and weight rules (UpSample.h) ----

// 1 / scale when a positive scale is given, else in / out (compute_scales_value).
template <class T>
T scales_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale.has_value() && *scale > 0.0 ? static_cast<T>(1.0 / *scale)
                                           : static_cast<T>(in) / static_cast<T>(out);
}

// nearest_idx: the same and twice the size are exact shortcuts; otherwise floor(dst * scale).
int64_t nearest_source(int64_t dst, int64_t in, int64_t out, std::optional<double> scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  const float s = scales_value<float>(scale, in, out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(dst) * s)), in - 1);
}

int64_t nearest_exact_source(int64_t dst, int64_t in, int64_t out, std::optional<double> scale) {
  const float s = scales_value<float>(scale, in, out);
  const float src = static_cast<float>((static_cast<double>(dst) + 0.5) * s);
  return std::min(static_cast<int64_t>(std::floor(src)), in - 1);
}

void check_upsample_input(const char* op, const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK(self.defined(), op, ": input must be defined");
  EMBER_CHECK(output_size.size() == 2, op,
              ": It is expected output_size equals to 2, but got size ", output_size.size());
  EMBER_CHECK(self.dim() == 4 && (self.numel() != 0 ||
                                  (self.size(1) != 0 && self.size(2) != 0 && self.size(3) != 0)),
              op, ": Non-empty 4D data tensor expected but got a tensor with sizes ",
              shape_str(self.sizes()));
  EMBER_CHECK(self.size(2) > 0 && self.size(3) > 0 && output_size[0] > 0 && output_size[1] > 0, op,
              ": Input and output sizes should be greater than 0, but got input (H: ", self.size(2),
              ", W: ", self.size(3), ") output (H: ", output_size[0], ", W: ", output_size[1], ")");
}

template <class SourceFn>
Tensor nearest_resample(const char* op, const Tensor& self, IntArrayRef output_size,
                        std::optional<double> scales_h, std::optional<double> scales_w,
                        SourceFn source) {
  check_upsample_input(op, self, output_size);
  Tensor out = self;
  const std::optional<double> scales[2] = {scales_h, scales_w};
  for (int i = 0; i < 2; ++i) {
    const int64_t dim = 2 + i, in = self.size(dim), size = output_size[i];
    std::vector<int64_t> index(static_cast<size_t>(size));
    bool identity = size == in;
    for (int64_t j = 0; j < size; ++j) {
      index[j] = source(j, in, size, scales[i]);
      identity = identity && index[j] == j;
    }
    if (!identity) out = out.index_select(dim, index_tensor(index, self.device()));
  }
  return out.is_same(self) ? self.clone() : out;
}

// Linear interpolation along `dim` (size in -> out) as PyTorch's CPU kernel computes its
// indices and weights (area_pixel_compute_source_index, guard_index_and_lambda), in the
// input's precision T: out[j] = w0[j] x[i0[j]] + w1[j] x[i1[j]].
template <class T>
Tensor linear_along(const Tensor& x, int64_t dim, int64_t out, bool align_corners,
                    std::optional<double> scale) {
  const int64_t in = x.size(dim);
  if (out == in) return x;  // PyTorch copies when the sizes match, whatever the scale
  T ratio;
  if (align_corners) {
    ratio = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : static_cast<T>(0);
  } else {
    ratio = scales_value<T>(scale, in, out);
  }
  std::vector<int64_t> i0(static_cast<size_t>(out)), i1(static_cast<size_t>(out));
  std::vector<T> w0(static_cast<size_t>(out)), w1(static_cast<size_t>(out));
  for (int64_t j = 0; j < out; ++j) {
    T real;
    if (align_corners) {
      real = ratio * static_cast<T>(j);
    } else {
      real = ratio * (static_cast<T>(j) + static_cast<T>(0.5)) - static_cast<T>(0.5);
      if (real < static_cast<T>(0)) real = static_cast<T>(0);
    }
    const int64_t idx =
        std::min(static_cast<int64_t>(std::floor(static_cast<float>(real))), in - 1);
    const T lambda =
        std::min(std::max(real - static_cast<T>(idx), static_cast<T>(0)), static_cast<T>(1));
    i0[j] = idx;
    i1[j] = idx + (idx < in - 1 ? 1 : 0);
    w1[j] = lambda;
    w0[j] = static_cast<T>(1) - lambda;
  }
  const Device device = x.device();
  const TensorOptions wopt = TensorOptions().dtype(x.dtype()).device(device);
  DimVector wshape(static_cast<size_t>(x.dim() - dim), 1);
  wshape[0] = out;
  const Tensor a = x.index_select(dim, index_tensor(i0, device));
  const Tensor b = x.index_select(dim, index_tensor(i1, device));
  return a * ember::tensor(w0, wopt).view(wshape) + b * ember::tensor(w1, wopt).view(wshape);
}

}  // namespace

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  const char* op = "constant_pad_nd";
  EMBER_CHECK(self.defined(), op, ": input must be defined");
  EMBER_CHECK(pad.size() % 2 == 0, op, ": Length of pad must be even but instead it equals ",
              pad.size());
  EMBER_CHECK(static_cast<int64_t>(pad.size()) <= 2 * self.dim(), op,
              ": Length of pad should be no more than twice the number of dimensions of the "
              "input. Pad length is ",
              pad.size(), " while the input has ", self.dim(), " dimensions.");
  const int64_t pairs = static_cast<int64_t>(pad.size()) / 2;
  for (int64_t i = 0; i < pairs; ++i) {
    const int64_t dim = self.dim() - 1 - i;
    const int64_t l = pad[2 * i], r = pad[2 * i + 1];
    EMBER_CHECK(self.size(dim) + l + r >= 0, op, ": The input size ", self.size(dim),
                ", plus negative padding ", l, " and ", r,
                " resulted in a negative output size, which is invalid. Check dimension ", dim,
                " of your input.");
  }
  // Crop first (negative pads), then add the filled blocks of each dim.
  Tensor out = self;
  for (int64_t i = 0; i < pairs; ++i) {
    const int64_t dim = self.dim() - 1 - i;
    const int64_t l = pad[2 * i], r = pad[2 * i + 1];
    if (l < 0) out = out.narrow(dim, -l, out.size(dim) + l);
    if (r < 0) out = out.narrow(dim, 0, out.size(dim) + r);
  }
  bool grew = false;
  for (int64_t i = 0; i < pairs; ++i) {
    const int64_t dim = self.dim() - 1 - i;
    const int64_t l = pad[2 * i], r = pad[2 * i + 1];
    if (l <= 0 && r <= 0) continue;
    std::vector<Tensor> parts;
    DimVector block(out.sizes());
    if (l > 0) {
      block[dim] = l;
      parts.push_back(ember::full(block, value, out.options()));
    }
    parts.push_back(out);
    if (r > 0) {
      block[dim] = r;
      parts.push_back(ember::full(block, value, out.options()));
    }
    out = ember::cat(parts, dim);
    grew = true;
  }
  return grew ? out : out.clone();  // a new tensor even when only cropping, as PyTorch
}

Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode,
           std::optional<double> value) {
  const PadKind kind = parse_mode(mode);
  check_pad_length("pad", self, pad);
  if (kind == PadKind::kConstant) return constant_pad_nd(self, pad, value.value_or(0.0));
  EMBER_CHECK(!value.has_value() || *value == 0.0, "pad: Padding mode \"", std::string(mode),
              "\" doesn't take in value argument");
  const int64_t pairs = static_cast<int64_t>(pad.size()) / 2, d = self.dim();
  EMBER_CHECK(pairs >= 1 && pairs <= 3 && (d == pairs + 1 || d == pairs + 2),
              "pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now "
              "(mode ",
              std::string(mode),
              ": a pad of length 2, 4 or 6 for an input of 2 or 3, 3 or 4, 4 "
              "or 5 dims; got a pad of length ",
              pad.size(), " and an input of shape ", shape_str(self.sizes()), ")");
  Tensor out = self;
  for (int64_t i = 0; i < pairs; ++i) {
    const int64_t dim = d - 1 - i;
    const int64_t l = pad[2 * i], r = pad[2 * i + 1], n = self.size(dim);
    if (kind == PadKind::kReflect) {
      EMBER_CHECK(l < n && r < n, "pad: Argument #", 4 + 2 * i,
                  ": Padding size should be less than the corresponding input dimension, but "
                  "got: padding (",
                  l, ", ", r, ") at dimension ", dim, " of input ", shape_str(self.sizes()));
    }
    if (kind == PadKind::kCircular) {
      EMBER_CHECK(l <= n && r <= n, "pad: Padding value causes wrapping around more than once ",
                  "(padding (", l, ", ", r, ") at dimension ", dim, " of input ",
                  shape_str(self.sizes()), ")");
    }
    const int64_t size = n + l + r;
    EMBER_CHECK(size >= (kind == PadKind::kCircular ? 0 : 1) && (n > 0 || size == 0),
                "pad: input of shape ", shape_str(self.sizes()), " is too small for padding (", l,
                ", ", r, ") at dimension ", dim, ": calculated output size ", size);
    if (l == 0 && r == 0) continue;
    std::vector<int64_t> index(static_cast<size_t>(size));
    if (kind == PadKind::kCircular) {
      // As PyTorch: crop the negative pads first, then wrap around what is left.
      const int64_t lo = std::max<int64_t>(-l, 0), kept = n - lo - std::max<int64_t>(-r, 0);
      EMBER_CHECK(kept > 0 || size == 0, "pad: circular padding (", l, ", ", r, ") at dimension ",
                  dim, " of input ", shape_str(self.sizes()), " wraps around an empty dimension");
      for (int64_t j = 0; j < size; ++j) {
        index[j] = lo + source_index(kind, j, std::max<int64_t>(l, 0), kept);
      }
    } else {
      for (int64_t j = 0; j < size; ++j) index[j] = source_index(kind, j, l, n);
    }
    out = out.index_select(dim, index_tensor(index, self.device()));
  }
  return out.is_same(self) ? self.clone() : out;
}

Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return nearest_resample("upsample_nearest2d", self, output_size, scales_h, scales_w,
                          nearest_source);
}

Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_h, std::optional<double> scales_w) {
  return nearest_resample("_upsample_nearest_exact2d", self, output_size, scales_h, scales_w,
                          nearest_exact_source);
}

Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  const char* op = "upsample_bilinear2d";
  check_upsample_input(op, self, output_size);
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64, op,
              ": expected a float32 or float64 input, got ", self.dtype());
  // Separable: along W, then along H (PyTorch's h0 (w0 x00 + w1 x01) + h1 (...)).
  Tensor out;
  if (self.dtype() == kFloat32) {
    out = linear_along<float>(self, 3, output_size[1], align_corners, scales_w);
    out = linear_along<float>(out, 2, output_size[0], align_corners, scales_h);
  } else {
    out = linear_along<double>(self, 3, output_size[1], align_corners, scales_w);
    out = linear_along<double>(out, 2, output_size[0], align_corners, scales_h);
  }
  return out.is_same(self) ? self.clone() : out;
}

}  // namespace ember
