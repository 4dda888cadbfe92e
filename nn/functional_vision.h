// Ops on image-shaped tensors, as LibTorch's: F::pixel_shuffle/pixel_unshuffle, F::fold/unfold
// (col2im/im2col), F::local_response_norm, their options, and the ATen forms. Composites of
// public ops (nn/functional_vision.cpp), so every device and autograd get them.
#pragma once

#include <cstdint>

#include <ember/core/tensor.h>
#include <ember/nn/arg.h>
#include <ember/nn/expanding_array.h>

namespace ember {
namespace nn {

struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  EMBER_ARG(int64_t, upscale_factor);
};

struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor)  // NOLINT
      : downscale_factor_(downscale_factor) {}
  EMBER_ARG(int64_t, downscale_factor);
};

struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

// b = x / (k + alpha / size * sum of x^2 over the `size` channels around it)^beta (the window
// zero-padded at the edges, the divisor always `size`).
struct LocalResponseNormOptions {
  LocalResponseNormOptions(int64_t size) : size_(size) {}  // NOLINT
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(double, k) = 1.;
};

namespace functional {

using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
using FoldFuncOptions = FoldOptions;
using UnfoldFuncOptions = UnfoldOptions;
using LocalResponseNormFuncOptions = LocalResponseNormOptions;

// [*, C r^2, H, W] -> [*, C, H r, W r]; pixel_unshuffle is its inverse.
Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);
// [N, C, H, W] (or [C, H, W]) -> [N, C kh kw, L]: the sliding blocks as columns.
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
// [N, C kh kw, L] (or [C kh kw, L]) -> [N, C, output_size...]: the blocks summed back in place.
Tensor fold(const Tensor& input, const FoldFuncOptions& options);
// input [N, C, *] (at least 3 dims).
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);

}  // namespace functional
}  // namespace nn

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor);
Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride);
Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
              IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride);

}  // namespace ember
