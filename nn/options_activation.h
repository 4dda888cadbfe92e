// Options of the activations of nn/functional_activation.h and nn/modules/activation_more.h,
// with LibTorch's names and defaults (`F::ELUFuncOptions().alpha(0.5)`, `ThresholdOptions(0.1,
// 20)`).
#pragma once

#include <cstdint>
#include <optional>

#include <ember/core/dtype.h>
#include <ember/nn/arg.h>

namespace ember::nn {

struct ELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct SELUOptions {
  SELUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit as in LibTorch
  EMBER_ARG(bool, inplace);
};

struct CELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct GLUOptions {
  GLUOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};

struct HardshrinkOptions {
  HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  EMBER_ARG(double, lambda);
};

struct SoftshrinkOptions {
  SoftshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT
  EMBER_ARG(double, lambda);
};

struct HardtanhOptions {
  EMBER_ARG(double, min_val) = -1.0;
  EMBER_ARG(double, max_val) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct ReLU6Options {
  ReLU6Options(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  EMBER_ARG(bool, inplace);
};

// num_parameters: 1 or the number of channels (dim 1 of the input).
struct PReLUOptions {
  EMBER_ARG(int64_t, num_parameters) = 1;
  EMBER_ARG(double, init) = 0.25;
};

struct SoftplusOptions {
  EMBER_ARG(double, beta) = 1.0;
  EMBER_ARG(double, threshold) = 20.0;  // above it (beta * x) the result is x itself
};

struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  EMBER_ARG(double, threshold);
  EMBER_ARG(double, value);
  EMBER_ARG(bool, inplace) = false;
};

struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
};

namespace functional {

using ELUFuncOptions = ELUOptions;
using SELUFuncOptions = SELUOptions;
using CELUFuncOptions = CELUOptions;
using GLUFuncOptions = GLUOptions;
using HardshrinkFuncOptions = HardshrinkOptions;
using SoftshrinkFuncOptions = SoftshrinkOptions;
using HardtanhFuncOptions = HardtanhOptions;
using ReLU6FuncOptions = ReLU6Options;
using SoftplusFuncOptions = SoftplusOptions;
using ThresholdFuncOptions = ThresholdOptions;

struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

}  // namespace functional
}  // namespace ember::nn
