// pixel_shuffle/pixel_unshuffle (reshape + permute), im2col/col2im behind F::unfold/F::fold
// (strided slices of the padded input; each kernel offset's block zero-interleaved and padded
// back into place), and local_response_norm (a zero-padded channel window), as composites of
// public ops with PyTorch's layouts and errors.
#include <ember/nn/functional_vision.h>

#include <string>
#include <vector>

#include <ember/core/checks.h>
#include <ember/core/functions.h>
#include <ember/nn/layer_ops.h>

namespace ember {
namespace {

std::vector<int64_t> leading(const Tensor& t, int64_t trailing) {
  return std::vector<int64_t>(t.sizes().begin(), t.sizes().end() - trailing);
}

// The four 2-d parameters of im2col/col2im, checked as PyTorch's im2col_shape_check.
struct Window {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

Window window(const char* op, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  EMBER_CHECK(kernel_size.size() == 2, op,
              ": It is expected kernel_size equals to 2, but got size ", kernel_size.size());
  EMBER_CHECK(dilation.size() == 2, op, ": It is expected dilation equals to 2, but got size ",
              dilation.size());
  EMBER_CHECK(padding.size() == 2, op, ": It is expected padding equals to 2, but got size ",
              padding.size());
  EMBER_CHECK(stride.size() == 2, op, ": It is expected stride equals to 2, but got size ",
              stride.size());
  Window w{kernel_size[0], kernel_size[1], dilation[0], dilation[1],
           padding[0],     padding[1],     stride[0],   stride[1]};
  EMBER_CHECK(w.kh > 0 && w.kw > 0, op, ": kernel size should be greater than zero, but got ",
              "kernel_height: ", w.kh, " kernel_width: ", w.kw);
  EMBER_CHECK(w.dh > 0 && w.dw > 0, op, ": dilation should be greater than zero, but got ",
              "dilation_height: ", w.dh, " dilation_width: ", w.dw);
  EMBER_CHECK(w.ph >= 0 && w.pw >= 0, op,
              ": padding should be non-negative, but got pad_height: ", w.ph, " pad_width: ", w.pw);
  EMBER_CHECK(w.sh > 0 && w.sw > 0, op, ": stride should be greater than zero, but got ",
              "stride_height: ", w.sh, " stride_width: ", w.sw);
  return w;
}

// Number of block positions along a dim of size n.
int64_t blocks(int64_t n, int64_t k, int64_t d, int64_t p, int64_t s) {
  return (n + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

// Inserts s - 1 zeros between neighbours along dim: [.., n, ..] -> [.., (n - 1) s + 1, ..].
Tensor interleave_zeros(const Tensor& t, int64_t dim, int64_t s) {
  if (s == 1 || t.size(dim) == 0) return t;
  std::vector<int64_t> zshape(t.sizes().begin(), t.sizes().end());
  zshape.insert(zshape.begin() + dim + 1, s - 1);
  Tensor z = ember::zeros(zshape, t.options());
  Tensor spread = ember::cat({t.unsqueeze(dim + 1), z}, dim + 1);
  std::vector<int64_t> merged(t.sizes().begin(), t.sizes().end());
  merged[dim] *= s;
  return spread.reshape(merged).narrow(dim, 0, (t.size(dim) - 1) * s + 1);
}

}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  EMBER_CHECK(self.defined(), "pixel_shuffle: input is an undefined tensor");
  EMBER_CHECK(self.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but ",
              "got input with ", self.dim(), " dimension(s)");
  EMBER_CHECK(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got ",
              upscale_factor);
  const int64_t r = upscale_factor, c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be ",
              "divisible by the square of upscale_factor, but input.size(-3)=", c,
              " is not divisible by ", r * r);
  std::vector<int64_t> shape = leading(self, 3);
  const int64_t n = static_cast<int64_t>(shape.size());
  std::vector<int64_t> split = shape, perm, out = shape;
  split.insert(split.end(), {c / (r * r), r, r, h, w});
  for (int64_t i = 0; i < n; ++i) perm.push_back(i);
  perm.insert(perm.end(), {n, n + 3, n + 1, n + 4, n + 2});
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  return self.reshape(split).permute(perm).reshape(out);
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  EMBER_CHECK(self.defined(), "pixel_unshuffle: input is an undefined tensor");
  EMBER_CHECK(self.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, ",
              "but got input with ", self.dim(), " dimension(s)");
  EMBER_CHECK(downscale_factor > 0, "pixel_unshuffle expects a positive downscale_factor, but ",
              "got ", downscale_factor);
  const int64_t r = downscale_factor, c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, ",
              "but input.size(-2)=", h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, ",
              "but input.size(-1)=", w, " is not divisible by ", r);
  std::vector<int64_t> shape = leading(self, 3);
  const int64_t n = static_cast<int64_t>(shape.size());
  std::vector<int64_t> split = shape, perm, out = shape;
  split.insert(split.end(), {c, h / r, r, w / r, r});
  for (int64_t i = 0; i < n; ++i) perm.push_back(i);
  perm.insert(perm.end(), {n, n + 2, n + 4, n + 1, n + 3});
  out.insert(out.end(), {c * r * r, h / r, w / r});
  return self.reshape(split).permute(perm).reshape(out);
}

// [N, C, H, W] or [C, H, W] -> [N, C kh kw, oh ow] (rows ordered c, ki, kj).
Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  EMBER_CHECK(self.defined(), "im2col: input is an undefined tensor");
  EMBER_CHECK(self.dim() == 3 || self.dim() == 4, "im2col: Expected 3D or 4D (batch mode) tensor ",
              "for input with possibly 0 batch size and non-zero dimensions for input, but got: ",
              shape_str(self.sizes()));
  const Window w = window("im2col", kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 4;
  const Tensor x = batched ? self : self.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3);
  const int64_t oh = blocks(h, w.kh, w.dh, w.ph, w.sh), ow = blocks(wd, w.kw, w.dw, w.pw, w.sw);
  EMBER_CHECK(oh >= 1 && ow >= 1, "im2col: Given input with spatial size (", h, ", ", wd,
              "), kernel_size=(", w.kh, ", ", w.kw, "), dilation=(", w.dh, ", ", w.dw,
              "), padding=(", w.ph, ", ", w.pw, "), calculated shape of the array of sliding ",
              "blocks as (", oh, ", ", ow, "), but its components must be at least one.");
  const Tensor xp = (w.ph || w.pw) ? constant_pad_nd(x, {w.pw, w.pw, w.ph, w.ph}) : x;
  std::vector<Tensor> columns;
  columns.reserve(static_cast<size_t>(w.kh * w.kw));
  for (int64_t i = 0; i < w.kh; ++i)
    for (int64_t j = 0; j < w.kw; ++j) {
      const int64_t top = i * w.dh, left = j * w.dw;
      columns.push_back(xp.slice(2, top, top + w.sh * (oh - 1) + 1, w.sh)
                            .slice(3, left, left + w.sw * (ow - 1) + 1, w.sw));
    }
  Tensor out = ember::stack(columns, 2).reshape({n, c * w.kh * w.kw, oh * ow});
  return batched ? out : out.squeeze(0);
}

// [N, C kh kw, L] or [C kh kw, L] -> [N, C, H, W]: each column's values summed into the
// positions im2col took them from.
Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  EMBER_CHECK(self.defined(), "col2im: input is an undefined tensor");
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3, "col2im: Expected 2D or 3D (batch mode) tensor ",
              "for input with possibly 0 batch size and non-zero dimensions for input, but got: ",
              shape_str(self.sizes()));
  EMBER_CHECK(output_size.size() == 2, "col2im: It is expected output_size equals to 2, but got ",
              "size ", output_size.size());
  const Window w = window("col2im", kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 3;
  const Tensor cols = batched ? self : self.unsqueeze(0);
  const int64_t h = output_size[0], wd = output_size[1];
  EMBER_CHECK(h > 0 && wd > 0, "col2im: output_size should be greater than zero, but got ",
              "output_height: ", h, " output_width: ", wd);
  const int64_t n = cols.size(0), ck = cols.size(1), l = cols.size(2);
  EMBER_CHECK(ck % (w.kh * w.kw) == 0, "col2im: Expected size of input's dimension 1 to be ",
              "divisible by the product of kernel_size, but got input.size(1)=", ck,
              " and kernel_size=(", w.kh, ", ", w.kw, ")");
  const int64_t oh = blocks(h, w.kh, w.dh, w.ph, w.sh), ow = blocks(wd, w.kw, w.dw, w.pw, w.sw);
  EMBER_CHECK(oh >= 1 && ow >= 1 && l == oh * ow, "col2im: Given output_size=(", h, ", ", wd,
              "), kernel_size=(", w.kh, ", ", w.kw, "), dilation=(", w.dh, ", ", w.dw,
              "), padding=(", w.ph, ", ", w.pw, "), stride=(", w.sh, ", ", w.sw,
              "), expected size of input's dimension 2 to match the calculated number of ",
              "sliding blocks ", oh, " * ", ow, " = ", oh * ow, ", but got input.size(2)=", l, ".");
  const int64_t c = ck / (w.kh * w.kw), hp = h + 2 * w.ph, wp = wd + 2 * w.pw;
  const Tensor blocks5 = cols.reshape({n, c, w.kh * w.kw, oh, ow});
  Tensor sum;
  for (int64_t i = 0; i < w.kh; ++i)
    for (int64_t j = 0; j < w.kw; ++j) {
      Tensor b = blocks5.select(2, i * w.kw + j);  // [N, C, oh, ow]
      b = interleave_zeros(interleave_zeros(b, 2, w.sh), 3, w.sw);
      const int64_t top = i * w.dh, left = j * w.dw;
      b = constant_pad_nd(b, {left, wp - left - b.size(3), top, hp - top - b.size(2)});
      sum = sum.defined() ? sum + b : b;
    }
  Tensor out = sum.narrow(2, w.ph, h).narrow(3, w.pw, wd);
  return batched ? out : out.squeeze(0);
}

namespace nn::functional {

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  return ember::pixel_shuffle(input, options.upscale_factor());
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return ember::pixel_unshuffle(input, options.downscale_factor());
}

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options) {
  return ember::im2col(input, options.kernel_size(), options.dilation(), options.padding(),
                       options.stride());
}

Tensor fold(const Tensor& input, const FoldFuncOptions& options) {
  return ember::col2im(input, options.output_size(), options.kernel_size(), options.dilation(),
                       options.padding(), options.stride());
}

// PyTorch's: the mean of x^2 over a window of `size` channels, zero-padded size / 2 before
// and (size - 1) / 2 after; b = x / (k + alpha mean)^beta.
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options) {
  EMBER_CHECK(input.defined(), "local_response_norm: input is an undefined tensor");
  EMBER_CHECK(input.dim() >= 3, "local_response_norm: Expected 3D or higher dimensionality ",
              "input (got ", input.dim(), " dimensions)");
  const int64_t size = options.size();
  EMBER_CHECK(size > 0, "local_response_norm: size must be positive, got ", size);
  if (input.numel() == 0) return input;
  const int64_t c = input.size(1);
  // Pad dim 1 (channels): constant_pad_nd pads from the last dim, so zeros for the others.
  std::vector<int64_t> pad(static_cast<size_t>(2 * (input.dim() - 1)), 0);
  pad[pad.size() - 2] = size / 2;
  pad[pad.size() - 1] = (size - 1) / 2;
  const Tensor sq = ember::constant_pad_nd(input * input, pad);
  Tensor window = sq.narrow(1, 0, c);
  for (int64_t j = 1; j < size; ++j) window = window + sq.narrow(1, j, c);
  const Tensor div =
      (window * (options.alpha() / static_cast<double>(size)) + options.k()).pow(options.beta());
  return input / div;
}

}  // namespace nn::functional
}  // namespace ember
